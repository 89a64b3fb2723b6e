"""Wheels from PyPI for tests (CMake releases, Meson), downloaded once into the test cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CACHE = Path(os.environ.get("MOATBRIDGE_TEST_CACHE", "/var/tmp/moatbridge-test-cache"))


def download_wheel(requirement: str, *pip_options: str) -> Path:
    """The wheel pip picks for `requirement` (e.g. `cmake==3.25.2`, `meson`), in CACHE/wheels."""
    directory = CACHE / "wheels"
    directory.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         *pip_options, requirement, "-d", str(directory)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # pip says "Saved <path>" or "File was already downloaded <path>"
    saved = [
        line.split()[-1]
        for line in result.stdout.splitlines()
        if line.strip().startswith(("Saved", "File was"))
    ]
    assert saved and saved[-1].endswith(".whl"), result.stdout
    return directory / Path(saved[-1]).name
