"""`moatbridge run [-t NAME] [--emulate[=GFX]] [--] CMD ...`: run a command in the toolchain,
as if on the host.

Hands over to the shim runner with ``os.execvp``: the docker CLI then owns stdin, the
TTY, signals and the exit status, exactly like a direct `docker exec`/`docker run`.
Shims, `mbrun` (its short form, core.launcher) and `moatbridge shell` go through the same
runner, so a program built on the host (`moatbridge run ./vadd`) finds the GPU exactly as
`nvcc` does: the same devices, groups, environment, mounts and warm container. With
``--emulate`` the GPU is an emulated one (services/emulation.py), in a one-shot container.
"""

from __future__ import annotations

from argparse import Namespace

from moatbridge.commands.arguments import command_after_separator
from moatbridge.errors import UsageError
from moatbridge.services.toolchain_exec import exec_in_toolchain


def run(args: Namespace) -> int:
    command = command_after_separator(args.command_args)
    if not command:
        raise UsageError(
            "Name the command to run.", "moatbridge run ./prog ARGS (or: moatbridge run -- make -j8)"
        )
    emulate = args.emulate or args.emulate_as is not None
    return exec_in_toolchain(args.toolchain, command, emulate=emulate, emulate_as=args.emulate_as)
