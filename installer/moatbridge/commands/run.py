"""`moatbridge run [-t NAME] [--] CMD ...`: run a command in the toolchain, as if on the host.

Hands over to the shim runner with ``os.execvp``: the docker CLI then owns stdin, the
TTY, signals and the exit status, exactly like a direct `docker exec`/`docker run`.
Shims, `mbrun` (its short form, core.launcher) and `moatbridge shell` go through the same
runner, so a program built on the host (`moatbridge run ./vadd`) finds the GPU exactly as
`nvcc` does: the same devices, groups, environment, mounts and warm container.
"""

from __future__ import annotations

import os
from argparse import Namespace
from pathlib import Path
from typing import NoReturn

from moatbridge.commands import _toolchain as tc
from moatbridge.commands._common import command_after_separator
from moatbridge.commands._consent import require_for
from moatbridge.errors import MoatbridgeError, UsageError
from moatbridge.paths import Paths


def exec_in_toolchain(toolchain_name: str | None, argv: list[str]) -> NoReturn:
    paths = Paths.from_environ(os.environ)
    state = tc.store(paths).read()
    toolchain = tc.resolve_toolchain(state, toolchain_name, os.environ)
    # The runner checks the same rule again; asking here first gives the fuller message.
    require_for(paths, toolchain, f"Toolchain {toolchain.name}")
    runner = Path(paths.home) / "libexec" / "moatbridge-exec"
    if not runner.exists():
        raise MoatbridgeError(f"The shim runner {runner} is missing.", "run 'moatbridge setup' to repair")
    os.environ["MOATBRIDGE_TOOLCHAIN_FIXED"] = toolchain.name
    os.execvp(str(runner), [str(runner), *argv])


def run(args: Namespace) -> int:
    command = command_after_separator(args.command_args)
    if not command:
        raise UsageError(
            "Name the command to run.", "moatbridge run ./prog ARGS (or: moatbridge run -- make -j8)"
        )
    return exec_in_toolchain(args.toolchain, command)
