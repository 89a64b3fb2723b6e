"""`moatbridge default NAME`: which toolchain shims use when nothing else says."""

from __future__ import annotations

import os
from argparse import Namespace
from dataclasses import replace

from moatbridge.paths import Paths
from moatbridge.services.installation import write_default, write_env_files
from moatbridge.services.toolchains import record, state_store


def run(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    store = state_store(paths)
    store.read().toolchain(args.name)  # an unknown name: refused before the lock file is made
    with store.locked():
        state = store.read()
        toolchain = state.toolchain(args.name)
        written = [write_default(paths, toolchain.name, args.dry_run)]
        written += write_env_files(paths, toolchain.name, args.dry_run)  # their MOATBRIDGE_TOOLCHAIN
        if not args.dry_run:
            store.write(record(replace(state, default=toolchain.name), written))
    print(f"{'Would make' if args.dry_run else 'Default toolchain is now'} {toolchain.name}.")
    return 0
