"""`moatbridge upgrade [NAME] [--rebuild]`: a newer image first, verified, then the switch.

Consent first: a licence-gated toolchain is neither built nor run without it. The image
is made the way setup made it (the toolchain's recorded ImageSource: the same repository,
base image and build args; a tarball toolchain needs the newer tarball, through setup).
The old image keeps serving (shims reference it by ID) until the new one has compiled
the sample and its shim commands are probed again; only then does the toolchain point at
the new image, and its warm container is recreated on next use.
"""

from __future__ import annotations

import os
import sys
from argparse import Namespace

from moatbridge.adapters.console import safe
from moatbridge.core.image_spec import RunOptions
from moatbridge.core.licences import Licence
from moatbridge.errors import InputError
from moatbridge.paths import Paths
from moatbridge.services.consent import require_for
from moatbridge.services.scale_sources import check_commercial
from moatbridge.services.toolchain_upgrade import check_repeatable, upgrade
from moatbridge.services.toolchains import state_store


def run(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    store = state_store(paths)
    if args.name:
        store.read().toolchain(args.name)  # an unknown name: refused before the lock file is made
    with store.locked():
        state = store.read()
        names = [state.toolchain(args.name).name] if args.name else [t.name for t in state.toolchains]
        licences: dict[str, Licence] = {}
        for name in list(names):  # every refusal before anything is built or run
            toolchain = state.toolchain(name)
            licences[name] = require_for(paths, toolchain, f"Upgrading toolchain {name}")
            try:
                check_repeatable(toolchain)
            except InputError as exc:
                if args.name:
                    raise
                # Upgrading them all: this one waits for its new tarball (or URL); the rest go on.
                sys.stderr.write(
                    safe(f"moatbridge: {name} skipped: {exc.message}\n  hint: {exc.hint}") + "\n"
                )
                names.remove(name)
                continue
            check_commercial(toolchain.spec)
        # Progress on stderr, as for setup: stdout has one line per toolchain.
        options = RunOptions(dry_run=args.dry_run, no_cache=args.rebuild, quiet=args.dry_run, json=True)
        for name in names:
            done = upgrade(state.toolchain(name), licences[name], state, paths, options)
            state = done.state
            if not done.upgraded:
                said = "would check" if args.dry_run else "already up to date with"
                print(safe(f"{name}: {said} {done.image.reference}"))
                continue
            image = done.image
            print(safe(f"{name}: upgraded to {image.reference} ({image.image_id[7:19]}, {image.action})"))
    return 0
