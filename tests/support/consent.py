"""Moatbridge homes where a licence has been accepted through the real CLI, for tests that
build licence-gated images (the SCALE stand-ins) with `moatbridge image build`: the build
refuses without the user's recorded acceptance, like every other path to such a toolchain."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path


@cache
def _accepted_home(licence: str, use: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix=f"moatbridge-consent-{licence}-"))
    atexit.register(shutil.rmtree, home, True)
    env = dict(os.environ, MOATBRIDGE_HOME=str(home))
    result = subprocess.run(
        [sys.executable, "-m", "moatbridge", "license", "accept", licence, "--use", use, "--yes"],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return home


def accepting_env(argv: Sequence[str], base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (os.environ) with MOATBRIDGE_HOME pointing at a home where the licence this
    SCALE build needs is accepted: the commercial one when it uses credentials."""
    commercial = "--commercial" in argv or "--credentials-file" in argv
    licence, use = ("scale-commercial", "commercial") if commercial else ("scale-free", "non-commercial")
    return dict(base if base is not None else os.environ, MOATBRIDGE_HOME=str(_accepted_home(licence, use)))
