"""Engine tests fail (not skip) under CI=true when the engine is missing; skip elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TARGET = "tests/test_doctor_engine.py::test_doctor_reports_the_running_engine"
REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(("ci", "outcome"), [("true", "1 error"), ("", "1 skipped")])
def test_missing_engine(tmp_path: Path, ci: str, outcome: str) -> None:
    env = dict(os.environ, CI=ci, DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock")
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TARGET],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert outcome in result.stdout, result.stdout[-2000:]
    assert (result.returncode != 0) == bool(ci)
    if ci:
        assert "CI=true but the Docker engine does not answer" in result.stdout
