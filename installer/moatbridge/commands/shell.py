"""`moatbridge shell [-t NAME]`: an interactive shell in the toolchain (docker CLI owns the TTY)."""

from __future__ import annotations

from argparse import Namespace

from moatbridge.services.toolchain_exec import exec_in_toolchain


def run(args: Namespace) -> int:
    return exec_in_toolchain(args.toolchain, ["bash", "-l"] if args.login else ["bash"])
