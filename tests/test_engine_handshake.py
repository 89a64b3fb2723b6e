"""An engine that accepts the connection and never answers: every command that talks to the
engine gives up after one short handshake, with one clear sentence, as `status` and `doctor`
do (not after the two minutes a slow image operation may take, once per call)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from moatbridge.adapters.statestore import StateStore
from moatbridge.core.toolchains import State

from support.environ import environ_without
from support.toolchains import make_toolchain


@pytest.fixture
def hung_engine(tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "hung.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(64)  # connections queue, nobody ever answers
    try:
        yield f"unix://{path}"
    finally:
        listener.close()


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "mbhome"
    toolchain = make_toolchain(
        "hs-open", "open", "devel", ("gfx1030",), "12.4", "moatbridge/open:hs", "sha256:" + "0" * 64,
        "open-components",
    )  # fmt: skip
    StateStore(home / "state.json").write(State().with_toolchain(toolchain, True))
    return home


@pytest.mark.parametrize(
    "args",
    [
        ("image", "list"),
        ("image", "remove", "moatbridge/open:hs"),
        ("uninstall", "hs-open", "--yes"),
        ("toolchain-warm", "hs-open"),
    ],
    ids=lambda args: "-".join(args[:2]),
)
def test_a_hung_engine_costs_one_short_handshake(
    hung_engine: str, tmp_path: Path, args: tuple[str, ...]
) -> None:
    home = _home(tmp_path)
    env = environ_without("MOATBRIDGE_", "DOCKER_")
    env.update(MOATBRIDGE_HOME=str(home), DOCKER_HOST=hung_engine, HOME=str(tmp_path))
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, env=env, timeout=90,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    seconds = time.monotonic() - started
    assert seconds < 40, (seconds, result.stderr)
    assert result.returncode not in (0, 70), result.stderr
    assert "Traceback" not in result.stderr
    said = [line for line in result.stderr.splitlines() if line.startswith("moatbridge: ")]
    assert len(said) == 1, result.stderr
    assert "does not answer" in said[0], said
