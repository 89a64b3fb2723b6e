"""The child-process seam (adapters/proc.py), with real processes: a program that is not on
PATH and one that outlives its time are each one sentence (CommandFailed), never a traceback."""

from __future__ import annotations

import time

import pytest

from moatbridge.adapters import proc


def test_a_program_not_on_path_is_said_as_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(proc.CommandFailed) as caught:
        proc.run_captured(["docker", "run", "--rm", "x"], timeout=5)
    assert caught.value.message == "docker is not installed."
    with pytest.raises(proc.CommandFailed, match=r"^docker is not installed"):
        proc.run_streaming(["docker", "build"], on_line=lambda line: None)


def test_a_program_that_outlives_its_time_is_stopped_and_said() -> None:
    started = time.monotonic()
    with pytest.raises(proc.CommandFailed) as caught:
        proc.run_captured(["sleep", "30"], timeout=0.5)
    assert time.monotonic() - started < 10
    assert caught.value.message == "sleep 30 did not finish within 0.5 seconds; it was stopped."
    assert "moatbridge doctor" in str(caught.value.hint)


def test_output_is_returned_apart_and_undecodable_bytes_replaced() -> None:
    result = proc.run_captured(["sh", "-c", r"printf 'out\377\n'; printf 'err\n' >&2; exit 3"], timeout=10)
    assert (result.returncode, result.stdout, result.stderr) == (3, "out\ufffd\n", "err\n")
