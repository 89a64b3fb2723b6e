"""Helpers shared by several verbs."""

from __future__ import annotations

import os
from argparse import Namespace

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
