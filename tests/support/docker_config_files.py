"""Running the real docker CLI and moatbridge against a docker configuration directory made
for a test (never the user's): the oracle and the subject of the engine-endpoint tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.adapters.engine_endpoint import resolve_endpoint
from moatbridge.errors import InputError

DOCKER = shutil.which("docker")
needs_cli = pytest.mark.skipif(DOCKER is None, reason="the docker CLI is not installed")


def _outer_env() -> dict[str, str]:
    """This process's environment without the variables that choose an engine themselves."""
    return {k: v for k, v in os.environ.items() if k not in ("DOCKER_HOST", "DOCKER_CONTEXT")}


def config_env(config: Path, **extra: str) -> dict[str, str]:
    """An environment whose docker configuration is ``config`` (HOME leads nowhere)."""
    return {"DOCKER_CONFIG": str(config), "HOME": "/nonexistent", **extra}


def docker_cli(config: Path, *args: str, timeout: int = 60, **env: str) -> subprocess.CompletedProcess[str]:
    """The real docker CLI with its configuration in ``config``."""
    assert DOCKER is not None
    return subprocess.run([DOCKER, *args], capture_output=True, text=True,
                          env={**_outer_env(), "DOCKER_CONFIG": str(config), **env}, timeout=timeout)  # fmt: skip


def moatbridge_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """moatbridge's CLI with ``env`` over this process's environment."""
    return subprocess.run([sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True,
                          env={**_outer_env(), **env}, timeout=120)  # fmt: skip


def resolution_error(environ: dict[str, str]) -> InputError:
    """The refusal resolve_endpoint gives for ``environ``: exit 2, one line, a hint."""
    with pytest.raises(InputError) as caught:
        resolve_endpoint(environ)
    error = caught.value
    assert error.exit_code == 2 and error.hint
    assert "\n" not in error.message
    return error
