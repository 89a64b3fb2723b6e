"""`moatbridge uninstall [NAME | --all]`: reverse exactly what setup did.

Removes the toolchain's shims and configuration, its warm container and, after
asking (or with --remove-images; --yes/-y answers yes), its image. With --all (or when the last
toolchain goes) also the shared shims, env files and the rc-file blocks, which
leaves rc files byte-identical to before setup when nothing else touched them.
The removal is services/toolchain_removal.py; this module asks its question and prints.
"""

from __future__ import annotations

import os
import sys
from argparse import Namespace

from moatbridge.adapters.console import ask_line, safe
from moatbridge.paths import Paths
from moatbridge.services.toolchain_removal import RemovalRequest, uninstall


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    return ask_line(f"{question} [y/N] ").strip().lower() in ("y", "yes")  # Ctrl-D: exit 2


def _image_kept(tag: str, why: str) -> None:
    print(safe(f"moatbridge: kept image {tag}: {why}"), file=sys.stderr)


def run(args: Namespace) -> int:
    request = RemovalRequest(
        name=args.name,
        every_toolchain=args.all,
        dry_run=args.dry_run,
        remove_images=args.remove_images,
        keep_images=args.keep_images,
        yes=args.yes,
    )
    done = uninstall(
        Paths.from_environ(os.environ), request, lambda: _confirm("Also remove the images?"), _image_kept
    )
    verb = "Would remove" if args.dry_run else "Removed"
    for item in done.removed:
        print(safe(f"{verb} {item}"))
    names = ", ".join(done.names) or "nothing"
    print(f"{'Dry run: nothing changed' if args.dry_run else 'Uninstalled'}: {names}.")
    for problem in done.problems:  # everything else is done; these are the user's to look at
        print(safe(f"moatbridge: left as it is: {problem}"), file=sys.stderr)
    return 1 if done.problems else 0
