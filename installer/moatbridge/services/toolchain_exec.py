"""Handing the process over to the shims' runner, so a command runs in the toolchain with
the devices, groups, environment and warm container the shims use."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.consent import require_for
from moatbridge.services.toolchains import resolve_toolchain, state_store


def exec_in_toolchain(
    toolchain_name: str | None, argv: list[str], emulate: bool = False, emulate_as: str | None = None
) -> NoReturn:
    paths = Paths.from_environ(os.environ)
    state = state_store(paths).read_required()
    toolchain = resolve_toolchain(state, toolchain_name, os.environ)
    # The runner checks the same rule again; asking here first gives the fuller message.
    require_for(paths, toolchain, f"Toolchain {toolchain.name}")
    emulation = None
    if emulate:
        from moatbridge.services.emulation import emulation_for

        emulation = emulation_for(paths, toolchain, emulate_as, os.environ)
    runner = Path(paths.home) / "libexec" / "moatbridge-exec"
    if not runner.exists():
        raise MoatbridgeError(f"The shim runner {runner} is missing.", "run 'moatbridge setup' to repair")
    _refresh(paths, runner)
    if emulation is not None:
        from moatbridge.services.emulation import hand_over

        hand_over(emulation, os.environ)
        sys.stderr.write(emulation.announcement + "\n")
        sys.stderr.flush()  # before the process is replaced
    os.environ["MOATBRIDGE_TOOLCHAIN_FIXED"] = toolchain.name
    os.execvp(str(runner), [str(runner), *argv])


def _refresh(paths: Paths, runner: Path) -> None:
    """The runner as this moatbridge writes it: one written by an older release (before a
    moatbridge upgrade) would not know what this command asks of it (--emulate), and would
    run the command otherwise than asked. Rewritten only when its bytes differ."""
    from moatbridge.adapters.toolchain_files import write_owned
    from moatbridge.core.shims import render_runner
    from moatbridge.services.installation import moatbridge_command

    write_owned(runner, render_runner(paths.home, moatbridge_command(paths)), "runner", 0o755)
