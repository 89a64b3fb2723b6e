"""`moatbridge run [-t NAME] -- CMD ...`: run a command in the toolchain, as if on the host.

Hands over to the shim runner with ``os.execvp``: the docker CLI then owns stdin, the
TTY, signals and the exit status, exactly like a direct `docker exec`/`docker run`.
"""

from __future__ import annotations

import os
from argparse import Namespace
from pathlib import Path
from typing import NoReturn

from moatbridge.commands import _toolchain as tc
from moatbridge.commands._common import command_after_separator
from moatbridge.core.licences import consent_status, load_licences
from moatbridge.errors import MoatbridgeError, UsageError
from moatbridge.paths import Paths


def exec_in_toolchain(toolchain_name: str | None, argv: list[str]) -> NoReturn:
    paths = Paths.from_environ(os.environ)
    state = tc.store(paths).read()
    toolchain = tc.resolve_toolchain(state, toolchain_name, os.environ)
    licence = load_licences().get(toolchain.licence)
    if licence is not None and consent_status(licence, state.consent_for(licence.id)) in (
        "missing",
        "outdated",
    ):
        raise MoatbridgeError(
            f"Toolchain {toolchain.name} needs your acceptance of the {licence.name}.",
            f"read 'moatbridge license show {licence.id}', then 'moatbridge license accept {licence.id}'",
        )
    runner = Path(paths.home) / "libexec" / "moatbridge-exec"
    if not runner.exists():
        raise MoatbridgeError(f"The shim runner {runner} is missing.", "run 'moatbridge setup' to repair")
    os.environ["MOATBRIDGE_TOOLCHAIN_FIXED"] = toolchain.name
    os.execvp(str(runner), [str(runner), *argv])


def run(args: Namespace) -> int:
    command = command_after_separator(args.command_args)
    if not command:
        raise UsageError("Name the command to run.", "moatbridge run -- make -j8")
    return exec_in_toolchain(args.toolchain, command)
