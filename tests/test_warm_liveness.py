"""The shims judge the warm container alive by its PID record without asking the engine; a
PID reused after a reboot or an engine restart must not pass for it (every shim then failed
with the engine's "No such container" until the record was removed by hand).

Without an engine: a fake `docker` logs what the runner asks, and the engine address is a
dead socket, so the warm start the runner falls back to fails in one clear line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from moatbridge.adapters.containers import process_start

from support.launcher_home import BASE_PATH, NAME, fake_docker, home_env, install_toolchain, user_home


def _nvcc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record: str, installed: tuple[Path, Path] | None = None
) -> tuple[subprocess.CompletedProcess[str], str]:
    if installed is None:
        installed = user_home(tmp_path, monkeypatch)
        install_toolchain(*installed)
    home, mbhome = installed
    (mbhome / "run").mkdir(parents=True, exist_ok=True)
    (mbhome / "run" / f"{NAME}.pid").write_text(record)
    log = tmp_path / "docker.args"
    env = home_env(home, mbhome, PATH=f"{mbhome}/cuda/bin:{fake_docker(tmp_path)}:{BASE_PATH}",
                   DOCKER_LOG=str(log), DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock")  # fmt: skip
    project = home / "project"  # under the mounted home: the warm container's
    project.mkdir()
    result = subprocess.run(["nvcc", "--version"], env=env, cwd=project, capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=120)  # fmt: skip
    return result, (log.read_bytes().decode(errors="replace") if log.exists() else "")


@pytest.mark.parametrize(
    "record",
    [
        "1\n",  # a PID alone (the record older versions wrote), now another process's
        f"{os.getpid()} 1\n",  # a live PID that started at another time: reused
        "1 0\n",
        "not-a-pid 1\n",
    ],
    ids=["pid-alone", "reused-pid", "pid-1-wrong-start", "garbage"],
)
def test_a_reused_pid_is_not_taken_for_the_warm_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record: str
) -> None:
    result, asked = _nvcc(tmp_path, monkeypatch, record)
    assert "exec\0" not in asked, asked  # no `docker exec` into a container that is not there
    assert result.returncode == 127, result.stderr
    assert "cannot start the warm container" in result.stderr


def test_the_live_warm_container_is_used_without_a_warm_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, asked = _nvcc(tmp_path, monkeypatch, f"{os.getpid()} {process_start(os.getpid())}\n")
    assert result.returncode == 0, result.stderr
    assert asked.startswith("exec\0"), asked


def test_a_refused_warm_start_is_said_once_with_its_own_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """toolchain-warm refusing (here: the state no longer records the toolchain) has said why
    in one sentence: the shim adds no second one and keeps its status, 2."""
    home, mbhome = user_home(tmp_path, monkeypatch)
    install_toolchain(home, mbhome)
    (mbhome / "state.json").unlink()
    result, asked = _nvcc(tmp_path, monkeypatch, "1\n", installed=(home, mbhome))
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("moatbridge:") == 1, result.stderr
    assert "cannot start the warm container" not in result.stderr and asked == ""
