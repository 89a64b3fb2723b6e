"""The toolkit's static checks, with its own settings (this folder's pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOOLKIT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    path = Path(sys.executable).with_name(name)
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]' in {TOOLKIT}")
    return found


@pytest.mark.parametrize(
    "argv",
    [["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy"]],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_static_checks(argv: list[str]) -> None:
    result = subprocess.run([_tool(argv[0]), *argv[1:]], cwd=TOOLKIT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
