"""Reading arguments several verbs share: --root and a command after `--`."""

from __future__ import annotations

import os
from argparse import Namespace
from collections.abc import Sequence

from moatbridge.adapters.hostfs import HostFS
from moatbridge.errors import InputError


def host_from_args(args: Namespace) -> HostFS:
    root = args.root
    if not os.path.isdir(root):
        raise InputError(
            f"--root {root} is not a directory.",
            "point --root at the top of a system tree (the folder holding sys/, proc/, dev/)",
        )
    return HostFS(root)


def command_after_separator(words: Sequence[str]) -> list[str]:
    """`... -- CMD ARGS`: argparse's REMAINDER keeps the `--`; the command is what follows."""
    command = list(words)
    return command[1:] if command and command[0] == "--" else command
