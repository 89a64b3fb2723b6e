"""A Slurm job's container is transient, owned by the job's batch shell: when Slurm kills the
job with -9 (a node's OOM killer, the time limit's final SIGKILL) the container, a child of
the engine daemon and not of the job, runs on; the next moatbridge command on that node
removes it, and leaves the container of a job that still runs.

The generated batch script's body is run by bash against the live engine with a tiny
imported image (tests/support/tiny_shell.py); Slurm itself need not run."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from moatbridge.adapters.containers import process_start
from moatbridge.core.slurm import SlurmJob, render

from support.environ import environ_without, paths_for
from support.tiny_shell import imported_shell_image

pytestmark = pytest.mark.engine

# PID 1 in the container: a shell that ends at once on TERM (as a job's command may).
WORK = ("bash", "-c", 'trap "exit 0" TERM; echo ready; while :; do sleep 1 & wait $!; done')


def docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def tiny_image(tmp_path: Path, engine_version: str) -> Iterator[str]:
    with imported_shell_image(tmp_path, "moatbridge-test/slurm-job", "io.moatbridge.test-slurm=1") as image:
        yield image[1]


@dataclass
class Job:
    shell: subprocess.Popen[str]  # the batch shell, as slurmstepd starts it
    container: str

    def engine_cli(self) -> list[int]:
        """The shell's children (the docker CLI waiting for the container)."""
        try:
            text = Path(f"/proc/{self.shell.pid}/task/{self.shell.pid}/children").read_text()
        except OSError:
            return []
        return [int(pid) for pid in text.split()]


@pytest.fixture
def job(tmp_path: Path, tiny_image: str) -> Iterator[Job]:
    script = tmp_path / "job.sh"
    script.write_text(render(SlurmJob(toolchain="tiny", image=tiny_image, target="gfx1030",
                                      activate=". /opt/moatbridge/bin/activate", command=WORK)))  # fmt: skip
    work = tmp_path / "submitted from"
    work.mkdir()
    job_id = str(uuid.uuid4().int % 10**9)
    env = environ_without("MOATBRIDGE_", "DOCKER_", "SLURM_")
    env.update(SLURM_JOB_ID=job_id, SLURM_SUBMIT_DIR=str(work))
    shell = subprocess.Popen(["bash", str(script)], env=env, cwd=work, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    started = Job(shell, f"moatbridge-slurm-{job_id}")
    children: list[int] = []
    try:
        assert shell.stdout is not None and shell.stdout.readline() == "ready\n"
        children = started.engine_cli()
        yield started
    finally:
        shell.kill()
        shell.wait(timeout=30)
        for pid in children:  # the docker CLI this test's shell started, if it is still that
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/comm").read_text().strip() == "docker":
                    os.kill(pid, signal.SIGKILL)
        docker("rm", "-f", started.container)


def _labels(container: str) -> dict[str, str]:
    shown = docker("inspect", "--format", "{{json .Config.Labels}}", container)
    assert shown.returncode == 0, shown.stderr
    return dict(json.loads(shown.stdout) or {})


def _next_command(tmp_path: Path) -> None:
    environ = environ_without("MOATBRIDGE_", "DOCKER_")
    environ["MOATBRIDGE_HOME"] = paths_for(tmp_path / "next").home
    listed = subprocess.run([sys.executable, "-m", "moatbridge", "image", "list", "--json"],
                            env=environ, capture_output=True, text=True, timeout=300,
                            stdin=subprocess.DEVNULL)  # fmt: skip
    assert listed.returncode == 0, listed.stderr


def test_a_job_container_is_owned_by_the_batch_shell(job: Job) -> None:
    boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    labels = _labels(job.container)
    assert labels.get("io.moatbridge.transient") == "1" and labels.get("io.moatbridge.managed") == "1"
    owner = f"{socket.gethostname()}/{boot}/{job.shell.pid}/{process_start(job.shell.pid)}"
    assert labels.get("io.moatbridge.owner") == owner, labels


def test_a_container_left_by_a_killed_job_is_swept_by_the_next_command(tmp_path: Path, job: Job) -> None:
    assert _labels(job.container).get("io.moatbridge.transient") == "1"
    job.shell.send_signal(signal.SIGKILL)  # no trap runs: the container is left to the engine
    job.shell.wait(timeout=30)
    running = docker("inspect", "--format", "{{.State.Running}}", job.container)
    assert running.stdout.strip() == "true", "the kill stopped the container: nothing to sweep"
    _next_command(tmp_path)
    assert docker("inspect", job.container).returncode != 0, "the killed job's container outlived it"


def test_the_sweep_leaves_a_running_jobs_container(tmp_path: Path, job: Job) -> None:
    assert _labels(job.container).get("io.moatbridge.transient") == "1"
    _next_command(tmp_path)
    running = docker("inspect", "--format", "{{.State.Running}}", job.container)
    assert running.stdout.strip() == "true", "the sweep removed a live job's container"
    # scancel: the batch shell's trap stops the container, which --rm then removes.
    job.shell.send_signal(signal.SIGTERM)
    assert job.shell.wait(timeout=60) == 0
    assert docker("inspect", job.container).returncode != 0
