"""Directory names with ':' , ',' and '"' in HOME and the working directory.

A bind given as ``-v SRC:DST`` or as the API's "src:dst:mode" string splits at the
first ':'; the runner, the warm container and Slurm scripts mount by --mount / Mounts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from moatbridge.core.slurm import SlurmJob, render

from conftest import fresh_home
from support.toolchains import warm_container

ODD = 'odd:dir,with "quotes"'


@pytest.fixture
def odd_home(
    tmp_path: Path, open_devel_gfx1030: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = fresh_home(tmp_path / f"home:{ODD}", monkeypatch)
    monkeypatch.setenv("MOATBRIDGE_TOOLCHAIN", "odd-paths")
    setup = mb(
        "setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--no-modify-rc", "--name", "odd-paths"
    )
    assert setup.returncode == 0, setup.stderr
    yield home
    mb("uninstall", "--all", "--keep-images")
    subprocess.run(["docker", "rm", "-f", warm_container("odd-paths", home)], capture_output=True)


def mb(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)  # fmt: skip


@pytest.mark.engine
def test_the_warm_container_and_one_shot_runs_see_odd_paths(odd_home: Path, tmp_path: Path) -> None:
    inside = odd_home / ODD  # under HOME: the warm container (Mounts, not binds)
    outside = tmp_path / ODD  # elsewhere: a one-shot `docker run --mount`
    for where in (inside, outside):
        where.mkdir()
        (where / "probe.txt").write_text("seen\n")
        result = mb("run", "--", "sh", "-c", "pwd; cat probe.txt", cwd=where)
        assert result.returncode == 0, result.stderr
        assert result.stdout == f"{where}\nseen\n"
        warm = subprocess.run(["docker", "inspect", "-f", "{{.State.Running}}", warm_container("odd-paths", odd_home)],
                              capture_output=True, text=True)  # fmt: skip
        if where == inside:
            assert warm.stdout.strip() == "true", "under HOME the warm container serves the call"
        shim = odd_home / ".local/share/moatbridge/cuda/bin/nvcc"
        version = subprocess.run(
            [str(shim), "--version"], capture_output=True, text=True, cwd=where, timeout=300
        )
        assert version.returncode == 0 and "Cuda compilation tools" in version.stdout, version.stderr


def test_slurm_scripts_mount_odd_directories(tmp_path: Path) -> None:
    """The script's docker line, run with a stand-in engine that prints its argv."""
    job = SlurmJob(toolchain="t", image="sha256:" + "a" * 64, target="gfx1030",
                   activate=". /opt/moatbridge/bin/activate", command=("true",))  # fmt: skip
    workdir = tmp_path / ODD
    workdir.mkdir()
    stand_in = tmp_path / "bin"
    stand_in.mkdir()
    (stand_in / "docker").write_text('#!/bin/sh\n[ "$1" = run ] && printf "%s\\n" "$@"\nexit 0\n')
    (stand_in / "docker").chmod(0o755)
    script = tmp_path / "job.sh"
    script.write_text(render(job))
    result = subprocess.run(["bash", str(script)], capture_output=True, text=True, cwd=workdir, timeout=60,
                            env={**os.environ, "PATH": f"{stand_in}:{os.environ['PATH']}"})  # fmt: skip
    argv = result.stdout.splitlines()
    mount = argv[argv.index("--mount") + 1]
    quoted = str(workdir).replace('"', '""')
    assert mount == f'type=bind,"source={quoted}","target={quoted}"'
    # What docker's CSV reader makes of it: the path, whole.
    import csv

    fields = next(csv.reader([mount]))
    assert fields == ["type=bind", f"source={workdir}", f"target={workdir}"]
