"""What a new user runs after setup, for real: a new non-root account in the docker group sets up
the open toolchain in a terminal, builds a CUDA program on the host and runs it with
`moatbridge run` and `mbrun` (warm and one-shot), then uninstalls; and one account's
uninstall leaves another's warm container alone. The live engine, the real image."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from moatbridge import __version__
from moatbridge.adapters.containers import process_start
from moatbridge.core.launcher import RUN_HINT
from moatbridge.core.sh_quote import sh_quote as _q
from moatbridge.core.shims import ToolchainRuntime, render_runner, render_toolchain_env

from support.docker_user import DockerUser
from support.environ import paths_for
from support.launcher_home import NAME, home_env, install_toolchain, on_pty, user_home
from support.toolchains import warm_container

# --- the whole path, for real: a new user in the docker group ---------------------------------

VADD = r"""#include <cstdio>
#include <cuda_runtime.h>
int main() {
    int n = -1;
    cudaError_t status = cudaGetDeviceCount(&n);
    std::printf("runtime reached: %s\n", cudaGetErrorString(status));
    return 0;
}
"""


def _as_user(user: DockerUser, command: str, timeout: float = 900) -> tuple[int | None, str]:
    """``command`` in a new terminal of ``user``: an interactive login bash on a real pty,
    with the groups /etc/group gives the account (docker) and the account's environment
    (support.docker_user: its argv, made interactive, as a terminal's shell is)."""
    argv = user.argv(command)
    assert argv[-2:] == ["-lc", command], argv
    return on_pty([*argv[:-2], "-l", "-i", "-c", command], user.env(), user.home, timeout=timeout)


@pytest.mark.engine
def test_a_new_user_in_the_docker_group_runs_what_they_built(
    open_devel_gfx1030: dict[str, Any], account: DockerUser, shared_tmp: Path
) -> None:
    container = f"moatbridge-{NAME}-{account.uid}"
    mbhome = account.home / ".local" / "share" / "moatbridge"
    try:
        bashrc = (account.home / ".bashrc").read_bytes()
        status, screen = _as_user(
            account, "moatbridge setup --yes --flavour open --target gfx1030 --shell bash"
        )
        assert status == 0, screen[-4000:]
        assert f"Ready: toolchain {NAME}" in screen
        assert "moatbridge run ./prog    (short: mbrun ./prog)" in screen  # the closing lines
        assert "pipx install" in screen
        # As after the README's command: moatbridge was in a venv, not on a new shell's PATH.
        (account.home / "bin" / "moatbridge").unlink()
        project = account.home / "vadd"
        project.mkdir()
        (project / "vadd.cu").write_text(VADD)
        outside = shared_tmp / f"{account.name} outside home"  # a one-shot container's directory
        outside.mkdir()
        subprocess.run(
            ["chown", "-R", f"{account.uid}:{account.gid}", str(project), str(outside)], check=True
        )

        status, screen = _as_user(
            account,
            "cd ~/vadd; command -v moatbridge; moatbridge --version; nvcc --version; "
            "nvcc -o vadd vadd.cu; echo built=$?; ./vadd; echo host=$?; "
            "moatbridge run ./vadd; echo run=$?; mbrun true; echo mbrun=$?; mbrun ./vad; echo typo=$?; "
            f"cp vadd {_q(str(outside))}/ && cd {_q(str(outside))} && mbrun ./vadd; echo oneshot=$?",
        )
        assert status == 0, screen[-4000:]
        lines = screen.splitlines()
        assert str(mbhome / "cuda" / "bin" / "moatbridge") in lines, screen[-4000:]
        assert f"moatbridge {__version__}" in lines
        assert "Cuda compilation tools, release 12.4" in screen
        assert RUN_HINT in screen  # nvcc --version on a terminal
        assert "built=0" in lines, screen[-4000:]
        assert (project / "vadd").stat().st_uid == account.uid
        # On the host the program cannot find the HIP runtime; in the toolchain it does.
        assert "error while loading shared libraries: libamdhip64.so" in screen and "host=127" in lines
        reached = [line for line in lines if line.startswith("runtime reached: ")]
        assert len(reached) == 2, screen[-4000:]  # warm (in the home) and one-shot (outside it)
        assert "run=0" in lines and "mbrun=0" in lines and "oneshot=0" in lines
        # A typo is one line naming it (bash used to say "gfx1100: line 1: ...").
        assert "typo=127" in lines and "moatbridge: ./vad: not found in the toolchain" in screen
        assert "line 1" not in screen

        status, screen = _as_user(account, "moatbridge uninstall --all --keep-images")
        assert status == 0, screen[-4000:]
        assert (account.home / ".bashrc").read_bytes() == bashrc  # byte for byte
        assert not (mbhome / "cuda").exists()
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True, check=False)


@pytest.mark.engine
def test_uninstall_leaves_another_accounts_warm_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine_version: str
) -> None:
    """Warm containers are per account (moatbridge-NAME-UID-HOMEKEY) but carry only the toolchain's
    name as a label: one account's uninstall must not remove another's (found when this
    file's engine test lost its container, exit 137, to a concurrent test's uninstall)."""
    name = f"mbt-uninstall-{os.getpid()}"
    home, mbhome = user_home(tmp_path, monkeypatch)
    install_toolchain(home, mbhome, name=name)
    mine, theirs = (
        warm_container(name, home, mbhome),
        warm_container(name, home, mbhome, uid=os.getuid() + 4242),
    )
    try:
        for container in (mine, theirs):
            made = subprocess.run(
                ["docker", "create", "--name", container, "--label", f"io.moatbridge.toolchain={name}",
                 "--label", "io.moatbridge.managed=1", "moatbridge/debian-base:trixie", "true"],
                capture_output=True, text=True,
            )  # fmt: skip
            assert made.returncode == 0, made.stderr
        gone = subprocess.run([str(mbhome / "cuda" / "bin" / "moatbridge"), "uninstall", name, "--keep-images"],
                              env=home_env(home, mbhome), capture_output=True, text=True)  # fmt: skip
        assert gone.returncode == 0, gone.stderr
        assert f"Removed container {mine}" in gone.stdout and theirs not in gone.stdout
        names = subprocess.run(
            ["docker", "ps", "-a", "--format", "{{.Names}}"], capture_output=True, text=True
        )
        assert theirs in names.stdout.split() and mine not in names.stdout.split()
    finally:
        subprocess.run(["docker", "rm", "-f", mine, theirs], capture_output=True, check=False)


# --- a signal to the whole process group, without a terminal ---------------------------------


def _runner_home(mbhome: Path, project: Path, name: str, image: str, warm: bool) -> ToolchainRuntime:
    """A MOATBRIDGE_HOME with only the runner and one toolchain's toolchain.env (an activation
    that does nothing); ``project`` is the warm container's one root when ``warm``."""
    project.mkdir()
    paths = paths_for(mbhome)
    runtime = ToolchainRuntime(
        name=name, image=image, target="gfx1030", activate=":", uid=os.getuid(), gid=os.getgid(),
        group_adds=(), devices=(), roots=(str(project),) if warm else (), licence=None,
        licence_records="/nowhere", licence_env=(), home_key=paths.engine_key, home=str(mbhome),
    )  # fmt: skip
    (mbhome / "libexec").mkdir(parents=True)
    (mbhome / "libexec" / "moatbridge-exec").write_text(render_runner(str(mbhome), "/bin/false"))
    (mbhome / "toolchains" / name).mkdir(parents=True)
    (mbhome / "toolchains" / name / "toolchain.env").write_text(render_toolchain_env(runtime))
    return runtime


def _start_warm(runtime: ToolchainRuntime, mbhome: Path, project: Path, image: str) -> None:
    """The toolchain's warm container, as toolchain-warm makes it (an init, ``project``
    mounted), and the PID file the runner judges it alive by."""
    started = subprocess.run(
        ["docker", "run", "-d", "--init", "--name", runtime.container, "--label",
         "io.moatbridge.managed=1", "-v", f"{project}:{project}", image, "sleep", "infinity"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert started.returncode == 0, started.stderr
    pid = subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", runtime.container],
                         capture_output=True, text=True).stdout.strip()  # fmt: skip
    (mbhome / "run").mkdir()
    (mbhome / "run" / f"{runtime.name}.pid").write_text(f"{pid} {process_start(int(pid))}\n")


@pytest.mark.engine
@pytest.mark.parametrize("where", ["warm", "one-shot"])
def test_a_tool_that_traps_term_exits_with_its_own_status(
    tmp_path: Path, debian_base: str, where: str
) -> None:
    """`timeout`, a CI runner or `kill -TERM -PGID` signals the shim and the docker CLI it
    started alike; the tool traps TERM and exits 9, so the shim must exit 9 (not the CLI's
    143, nor 0), as the tool run by itself would. A real engine and container; the image is
    the small Debian base, with an activation that does nothing."""
    import signal
    import time

    name = f"mbt-term-{os.getpid()}-{where}"
    mbhome, project = tmp_path / "mbhome", tmp_path / "project"
    runtime = _runner_home(mbhome, project, name, debian_base, warm=where == "warm")
    try:
        if where == "warm":
            _start_warm(runtime, mbhome, project, debian_base)
        env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MOATBRIDGE_HOME": str(mbhome),
               "MOATBRIDGE_TOOLCHAIN": name}  # fmt: skip
        script = 'trap "exit 9" TERM; echo ready; sleep 60 & wait'
        shim = subprocess.Popen(
            ["/bin/sh", str(mbhome / "libexec" / "moatbridge-exec"), "bash", "-c", script],
            env=env, cwd=project, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        assert shim.stdout is not None and shim.stdout.readline() == b"ready\n"
        time.sleep(0.5)  # the in-container PID file is written before the tool starts
        os.killpg(shim.pid, signal.SIGTERM)
        assert shim.wait(timeout=60) == 9
    finally:
        subprocess.run(["docker", "rm", "-f", runtime.container], capture_output=True, check=False)


@pytest.mark.engine
def test_a_one_shot_container_left_by_a_killed_shim_is_swept(tmp_path: Path, debian_base: str) -> None:
    """kill -9 of a shim running a tool in a one-shot container leaves the container running
    (the engine never hears of the kill); the next moatbridge command that reaches the engine
    removes it. A real engine and container."""
    import signal
    import sys

    name = f"mbt-sweep-{os.getpid()}"
    mbhome, project = tmp_path / "mbhome", tmp_path / "project"
    _runner_home(mbhome, project, name, debian_base, warm=False)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MOATBRIDGE_HOME": str(mbhome),
           "MOATBRIDGE_TOOLCHAIN": name}  # fmt: skip
    shim = subprocess.Popen(
        ["/bin/sh", str(mbhome / "libexec" / "moatbridge-exec"), "bash", "-c", "echo ready; sleep 120"],
        env=env, cwd=project, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
    )  # fmt: skip
    owner = f"label=io.moatbridge.owner={socket.gethostname()}/"
    try:
        assert shim.stdout is not None and shim.stdout.readline() == b"ready\n"
        listed = subprocess.run(["docker", "ps", "-q", "--filter", "label=io.moatbridge.transient=1",
                                 "--filter", f"ancestor={debian_base}"],
                                capture_output=True, text=True).stdout.split()  # fmt: skip
        mine = [c for c in listed if f"/{shim.pid}/" in subprocess.run(
            ["docker", "inspect", "-f", '{{index .Config.Labels "io.moatbridge.owner"}}', c],
            capture_output=True, text=True).stdout]  # fmt: skip
        assert len(mine) == 1, (listed, owner)
        shim.send_signal(signal.SIGKILL)
        shim.wait(timeout=30)
        running = subprocess.run(["docker", "inspect", "-f", "{{.State.Running}}", mine[0]],
                                 capture_output=True, text=True)  # fmt: skip
        assert running.stdout.strip() == "true", "the kill stopped the container: nothing to sweep"
        swept = subprocess.run([sys.executable, "-m", "moatbridge", "image", "list", "--json"],
                               env={**os.environ, "MOATBRIDGE_HOME": str(tmp_path / "other")},
                               capture_output=True, text=True, timeout=120)  # fmt: skip
        assert swept.returncode == 0, swept.stderr
        gone = subprocess.run(["docker", "inspect", mine[0]], capture_output=True, text=True)
        assert gone.returncode != 0, "the killed shim's container outlived the next command"
    finally:
        shim.kill()
        for container in subprocess.run(["docker", "ps", "-aq", "--filter", f"ancestor={debian_base}",
                                         "--filter", "label=io.moatbridge.transient=1"],
                                        capture_output=True, text=True).stdout.split():  # fmt: skip
            if f"/{shim.pid}/" in subprocess.run(["docker", "inspect", "-f", "{{json .Config.Labels}}",
                                                  container], capture_output=True, text=True).stdout:  # fmt: skip
                subprocess.run(["docker", "rm", "-f", container], capture_output=True)


@pytest.mark.engine
@pytest.mark.parametrize("where", ["warm", "one-shot"])
def test_a_tool_runs_as_it_would_on_the_host_not_as_the_containers_init(
    tmp_path: Path, debian_base: str, where: str
) -> None:
    """A command is never the container's PID 1 (warm containers and one-shot ones alike
    start an init first): `timeout`, which puts its child in a process group of its own,
    fails with 125 as PID 1, and PID 1 ignores a TERM it has no handler for."""
    name = f"mbt-init-{os.getpid()}-{where}"
    mbhome, project = tmp_path / "mbhome", tmp_path / "project"
    runtime = _runner_home(mbhome, project, name, debian_base, warm=where == "warm")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "MOATBRIDGE_HOME": str(mbhome),
           "MOATBRIDGE_TOOLCHAIN": name}  # fmt: skip
    try:
        if where == "warm":
            _start_warm(runtime, mbhome, project, debian_base)
        runner = str(mbhome / "libexec" / "moatbridge-exec")
        timed = subprocess.run(["/bin/sh", runner, "timeout", "20", "sh", "-c", "exit 3"], env=env,
                               cwd=project, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)  # fmt: skip
        assert timed.returncode == 3, timed.stderr
        pid1 = subprocess.run(["/bin/sh", runner, "sh", "-c", "echo $$"], env=env, cwd=project,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)  # fmt: skip
        assert pid1.returncode == 0 and pid1.stdout.strip() != "1", pid1.stdout
    finally:
        subprocess.run(["docker", "rm", "-f", runtime.container], capture_output=True, check=False)
