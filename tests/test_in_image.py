"""The text every way in runs in the image (core/in_image.py), run here by a real bash:
activation for the target, then the command; what bash cannot run is one line naming it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from moatbridge.core.in_image import SHELL_NAME, exec_after_activation

# A stand-in activation that records the target it was given, as the image's activate does.
ACTIVATE = 'f() { printf "%s" "$1" > "$MARK"; }; f'


def _run(tmp_path: Path, *command: str, activate: str = ACTIVATE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", exec_after_activation(activate), SHELL_NAME, "gfx1100", *command],
                          cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "MARK": str(tmp_path / "mark")},
                          capture_output=True, text=True, timeout=30)  # fmt: skip


def test_the_command_runs_with_its_arguments_after_activation(tmp_path: Path) -> None:
    result = _run(tmp_path, "sh", "-c", 'printf "[%s]" "$@"; exit 7', "sh", "a b", "", "*")
    assert (result.returncode, result.stdout) == (7, "[a b][][*]")  # status and words kept
    assert (tmp_path / "mark").read_text() == "gfx1100"  # the activation saw the target


@pytest.mark.parametrize(
    ("make", "code", "said"),
    [
        (None, 127, "moatbridge: ./vad: not found in the toolchain"),
        ("file", 126, "moatbridge: ./vad: is not executable"),
        ("dir", 126, "moatbridge: ./vad: is a directory"),
    ],
)
def test_a_command_the_image_cannot_run_is_one_line_naming_it(
    tmp_path: Path, make: str | None, code: int, said: str
) -> None:
    if make == "file":
        (tmp_path / "vad").write_text("#!/bin/sh\n")
    elif make == "dir":
        (tmp_path / "vad").mkdir()
    result = _run(tmp_path, "./vad")
    assert result.returncode == code
    assert result.stderr.startswith(said) and result.stderr.count("\n") == 1, result.stderr
    assert "gfx1100" not in result.stderr and "line 1" not in result.stderr  # bash's own wording is gone


def test_a_failing_activation_stops_before_the_command(tmp_path: Path) -> None:
    result = _run(tmp_path, "sh", "-c", "echo ran", activate="f() { echo unknown target >&2; return 3; }; f")
    assert result.returncode == 3 and "ran" not in result.stdout and "unknown target" in result.stderr
