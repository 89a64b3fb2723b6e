"""Static checks as part of the suite, so CI and laptops enforce the same bar."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    path = Path(sys.executable).with_name(name)
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


@pytest.mark.parametrize(
    "argv",
    [
        ["ruff", "check", "installer", "tests", "bench", "images"],
        ["ruff", "format", "--check", "installer", "tests", "bench", "images"],
        ["mypy"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_static_checks(argv: list[str]) -> None:
    result = subprocess.run([_tool(argv[0]), *argv[1:]], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_is_pure() -> None:
    """The layers: cli -> commands -> core <- adapters. core imports neither side (its I/O
    comes in through protocols such as core.host.Host), adapters never import commands."""
    import ast

    package = REPO / "installer" / "moatbridge"
    offences = []
    for layer, forbidden in (("core", ("moatbridge.adapters", "moatbridge.commands", "moatbridge.cli")),
                             ("adapters", ("moatbridge.commands", "moatbridge.cli"))):  # fmt: skip
        for path in sorted((package / layer).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                names += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
                offences += [f"{layer}/{path.name} imports {n}" for n in names if n.startswith(forbidden)]
    assert offences == []
