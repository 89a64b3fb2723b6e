"""`moatbridge status` (and `moatbridge` alone): the first look after setup.

The composition is pure (core/status.py); the command is run as a new user would run it:
a real non-root account in the docker group, its login shell on a real pseudo-terminal,
against no engine, a dead one, one that hangs, and (engine tests) the live engine after a
real setup.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.statestore import StateStore
from moatbridge.core.shims import ToolchainRuntime, warm_container_name
from moatbridge.core.status import (
    ABSENT,
    RUNNING,
    STOPPED,
    UNKNOWN,
    EngineView,
    Facts,
    GpuView,
    overview,
)
from moatbridge.core.toolchains import State, Toolchain

from fixtures import machines
from support.docker_user import DockerUser
from support.pty_session import PtySession
from support.toolchains import make_toolchain, warm_container

OPEN = make_toolchain(
    name="open-gfx1030", flavour="open", variant="devel", targets=("gfx1030",), cuda_version="12.4",
    image="moatbridge/open:12.4-devel-trixie-gfx1030", image_id="sha256:" + "ab" * 32, licence="open-components",
)  # fmt: skip
RX6800 = GpuView("amd", "AMD Radeon RX 6800", "gfx1030", True)
RX7900 = GpuView("amd", "AMD Radeon RX 7900 XTX", "gfx1100", True)
ENGINE_UP = EngineView("unix:///var/run/docker.sock", ())
ENGINE_DOWN = EngineView("unix:///nowhere.sock", None, "not running")


def _facts(**changes: Any) -> Facts:
    values: dict[str, Any] = dict(
        home="/home/u/.local/share/moatbridge", state=State(), active=None, engine=ENGINE_UP, gpus=(),
        uid=1000, home_key="k", nvcc=None,
    )  # fmt: skip
    values.update(changes)
    return Facts(**values)


# --- the overview (pure) ----------------------------------------------------------------------


def test_no_toolchain_points_to_setup() -> None:
    view = overview(_facts(gpus=(RX6800,)))
    assert view.toolchains == () and view.next_steps[0].command == "moatbridge setup"
    assert len(view.next_steps) == 1


def test_one_toolchain_with_its_warm_container_and_the_next_commands() -> None:
    state = State().with_toolchain(OPEN, True)
    engine = EngineView("unix:///var/run/docker.sock", (("moatbridge-open-gfx1030-1000-k", True),))
    view = overview(_facts(state=state, engine=engine, active=("open-gfx1030", "the default"), gpus=(RX6800,),
                           nvcc="/home/u/.local/share/moatbridge/cuda/bin/nvcc"))  # fmt: skip
    (line,) = view.toolchains
    assert (line.name, line.default, line.active, line.warm) == ("open-gfx1030", True, True, RUNNING)
    assert view.shims_on_path
    assert [s.command for s in view.next_steps] == [
        "nvcc --version",
        "nvcc -o app app.cu && moatbridge run ./app",
    ]
    stopped = overview(
        replace(_facts(state=state), engine=EngineView("x", (("moatbridge-open-gfx1030-1000-k", False),)))
    )
    assert stopped.toolchains[0].warm == STOPPED
    other_user = overview(replace(_facts(state=state, uid=1001), engine=engine))
    assert other_user.toolchains[0].warm == ABSENT  # the container of uid 1000 is not this user's
    other_home = overview(replace(_facts(state=state, home_key="j"), engine=engine))
    assert other_home.toolchains[0].warm == ABSENT  # nor another MOATBRIDGE_HOME's of this user


def test_engine_down_is_said_and_the_warm_state_unknown() -> None:
    view = overview(_facts(state=State().with_toolchain(OPEN, True), engine=ENGINE_DOWN))
    assert view.toolchains[0].warm == UNKNOWN
    assert view.next_steps[0].command == "sudo systemctl start docker"
    refused = overview(_facts(engine=EngineView("unix:///s", None, "permission denied")))
    assert refused.next_steps[0].command == "sudo usermod -aG docker $USER"


def test_shims_off_path_and_a_gpu_no_toolchain_serves() -> None:
    view = overview(_facts(state=State().with_toolchain(OPEN, True), gpus=(RX7900,), nvcc="/usr/bin/nvcc"))
    commands = [s.command for s in view.next_steps]
    assert commands[0] == '. "/home/u/.local/share/moatbridge/env"'  # /usr/bin/nvcc is not a shim
    assert "moatbridge setup --target gfx1100" in commands


def test_a_pin_naming_an_uninstalled_toolchain_is_a_note() -> None:
    view = overview(
        _facts(state=State().with_toolchain(OPEN, True), active=("gone", "pin file /p/.moatbridge-toolchain"))
    )
    assert view.problems == ("pin file /p/.moatbridge-toolchain names gone, which is not installed",)
    assert json.loads(json.dumps(view.to_json()))["active"] == {
        "name": "gone",
        "from": "pin file /p/.moatbridge-toolchain",
    }


def test_warm_container_name_is_the_runners() -> None:
    runtime = ToolchainRuntime(name="open-gfx1030", image="i", target="gfx1030", activate="", uid=1234, gid=1234,
                               group_adds=(), devices=(), roots=(), licence=None, licence_records="", licence_env=(), home_key="k1", home="/h")  # fmt: skip
    assert warm_container_name("open-gfx1030", 1234, "k1") == runtime.container


# --- as a new user: a non-root account in the docker group, its login shell on a pty -----------


def in_pty(user: DockerUser, command: str, timeout: float = 120, **env: str) -> tuple[int | None, str, float]:
    """`command` in the account's login shell on a real terminal: (exit status, screen, seconds)."""
    started = time.monotonic()
    session = PtySession.run(user.argv(command), user.env(COLUMNS="100", LINES="40", **env), user.home,
                             timeout=timeout, until_eof=True, rows=40, columns=100)  # fmt: skip
    return session.code, session.screen, time.monotonic() - started


def _dead_socket(directory: Path) -> str:
    """A socket file nobody listens on: what a stopped engine leaves behind (connect: refused)."""
    path = directory / "dead.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.close()
    path.chmod(0o777)
    return f"unix://{path}"


def _record(user: DockerUser, *toolchains: Toolchain) -> None:
    home = user.home / ".local" / "share" / "moatbridge"
    state = State()
    for index, toolchain in enumerate(toolchains):
        state = state.with_toolchain(toolchain, index == 0)
    StateStore(home / "state.json").write(state)
    subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", str(user.home / ".local")], check=True)


def test_no_toolchain_yet_in_a_login_shell(account: DockerUser, shared_tmp: Path) -> None:
    dead = _dead_socket(shared_tmp)
    code, screen, _ = in_pty(account, "moatbridge", DOCKER_HOST=dead)  # no arguments: the overview
    assert code == 0, screen
    assert "Toolchains: none installed yet" in screen, screen
    assert "Next: unset DOCKER_HOST" in screen and "then: moatbridge setup" in screen  # it chose the engine
    assert "Traceback" not in screen
    same, status_screen, _ = in_pty(account, "moatbridge status", DOCKER_HOST=dead)
    assert same == 0 and status_screen == screen


def test_one_toolchain_and_the_gpu_found(account: DockerUser, shared_tmp: Path) -> None:
    root = machines.build("rdna3-desktop", shared_tmp / "rdna3-desktop")
    subprocess.run(["chmod", "-R", "a+rX", str(shared_tmp)], check=True)
    _record(account, OPEN)
    code, screen, _ = in_pty(
        account, f"moatbridge status --root {root}", DOCKER_HOST=_dead_socket(shared_tmp)
    )
    assert code == 0, screen
    assert re.search(r"\* +│ open-gfx1030 +│ open +│ gfx1030 +│ 12\.4 +│ unknown", screen), screen
    assert "Active: open-gfx1030 (from the default)" in screen
    assert "GPU 0: AMD Radeon RX 7900 XTX (gfx1100)" in screen
    assert "Shims (nvcc ...): not on PATH in this shell" in screen
    assert "moatbridge setup --target gfx1100" in screen  # the GPU here is not what it builds for
    pinned = account.home / "project"
    pinned.mkdir()
    (pinned / ".moatbridge-toolchain").write_text("other-one\n")
    shutil.chown(pinned, account.uid, account.gid)
    code, screen, _ = in_pty(
        account, f"cd {pinned} && moatbridge status --json", DOCKER_HOST=_dead_socket(pinned)
    )
    data = json.loads(screen[screen.index("{") :])
    assert data["active"] == {"name": "other-one", "from": f"pin file {pinned}/.moatbridge-toolchain"}
    assert data["problems"] == [
        f"pin file {pinned}/.moatbridge-toolchain names other-one, which is not installed"
    ]


def test_engine_down_is_quick_and_said(account: DockerUser, shared_tmp: Path) -> None:
    _record(account, OPEN)
    code, screen, seconds = in_pty(account, "moatbridge status", DOCKER_HOST=_dead_socket(shared_tmp))
    assert code == 0, screen
    assert "Engine: not running (unix://" in screen and "warm containers unknown" in screen
    assert "unknown" in screen.split("Toolchains", 1)[1]
    assert seconds < 10, seconds  # no retries, no SDK wait: a refused socket answers at once
    result = account.run("moatbridge status --json", DOCKER_HOST=_dead_socket(account.home))
    data = json.loads(result.stdout)
    assert data["engine"]["running"] is False and data["engine"]["problem"] == "not running"
    assert data["toolchains"][0]["warm_container"] == "unknown"


def test_an_engine_that_hangs_costs_the_timeout_only(account: DockerUser, shared_tmp: Path) -> None:
    _record(account, OPEN)
    path = shared_tmp / "hung.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(8)  # connections queue, nobody ever answers
    path.chmod(0o777)
    try:
        result = account.run("moatbridge status --json", DOCKER_HOST=f"unix://{path}", timeout=60)
    finally:
        listener.close()
    data = json.loads(result.stdout)
    assert data["engine"] == {"endpoint": f"unix://{path}", "running": False, "from": "DOCKER_HOST",
                              "problem": "not answering (no reply within 3 s)"}  # fmt: skip
    assert data["next"][0]["command"] == "moatbridge doctor"


def test_an_engine_that_refuses_the_user_says_how_to_join(account: DockerUser, shared_tmp: Path) -> None:
    """A socket only root may open (as the engine's is for a account outside the docker group)."""
    path = shared_tmp / "root-only.sock"
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(path))
    listener.listen(8)
    path.chmod(0o600)
    try:
        code, screen, _ = in_pty(account, "moatbridge status", DOCKER_HOST=f"unix://{path}")
    finally:
        listener.close()
    assert code == 0, screen
    assert f"Engine: permission denied (unix://{path})" in screen
    assert "Next: sudo usermod -aG docker $USER" in screen


# --- against the live engine --------------------------------------------------------------------


@pytest.mark.engine
def test_after_a_real_setup_the_warm_container_shows(
    account: DockerUser, open_devel_gfx1030: dict[str, Any]
) -> None:
    container = warm_container("open-gfx1030", account.home, uid=account.uid)
    try:
        setup = account.run("moatbridge setup --yes --flavour open --target gfx1030 --no-modify-rc")
        assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
        subprocess.run(["docker", "rm", "-f", container], capture_output=True, check=False)
        code, screen, seconds = in_pty(account, "moatbridge status")
        assert code == 0, screen
        assert re.search(r"\* +│ open-gfx1030 +│ open +│ gfx1030 +│ [0-9.]+ +│ not started", screen), screen
        assert "Engine: running (unix:///var/run/docker.sock)" in screen
        assert "Next: . " in screen  # this login shell has not sourced the env file
        warmed = account.run(". ~/.local/share/moatbridge/env && nvcc --version && moatbridge status")
        assert warmed.returncode == 0, warmed.stderr[-2000:]
        assert re.search(r"\* +│ open-gfx1030 +│ open +│ gfx1030 +│ [0-9.]+ +│ running", warmed.stdout), (
            warmed.stdout
        )
        assert "Shims (nvcc ...): on PATH" in warmed.stdout and "Next: nvcc --version" in warmed.stdout
        assert seconds < 20, seconds
    finally:
        account.run("moatbridge uninstall --all --keep-images")
        subprocess.run(["docker", "rm", "-f", container], capture_output=True, check=False)


def test_a_deleted_working_directory_is_a_note_not_a_crash(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    script = f'mkdir "{gone}" && cd "{gone}" && rmdir "{gone}" && exec "$0" -m moatbridge status'
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock"}
    result = subprocess.run(["sh", "-c", script, sys.executable], capture_output=True, text=True, env=env,
                            timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "working directory no longer exists" in result.stdout
    assert "internal error" not in result.stderr


def _silent_ssh_host(tmp_path: Path, proxy_command: str) -> dict[str, str]:
    """The environment of a moatbridge whose engine is ssh://silent.invalid, a host reached
    through `proxy_command` (ssh's -F, through an `ssh` first on PATH: OpenSSH reads ~/.ssh
    from the passwd entry, never root's here)."""
    real_ssh = shutil.which("ssh")
    if real_ssh is None:
        pytest.skip("openssh-client is needed (.ci/run installs it)")
    (tmp_path / "ssh_config").write_text(f"Host silent.invalid\n  ProxyCommand {proxy_command}\n")
    (tmp_path / "bin").mkdir()
    wrapper = tmp_path / "bin" / "ssh"
    wrapper.write_text(f'#!/bin/sh\nexec {real_ssh} -F {tmp_path / "ssh_config"} "$@"\n')
    wrapper.chmod(0o755)
    return {**os.environ, "DOCKER_HOST": "ssh://silent.invalid", "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}",
            "HOME": str(tmp_path), "MOATBRIDGE_HOME": str(tmp_path / "mbh")}  # fmt: skip


def test_an_ssh_proxy_that_outlives_ssh_does_not_hold_the_output_open(tmp_path: Path) -> None:
    """A ProxyCommand that ignores the SIGHUP ssh sends it on exit (a wrapper started under
    nohup, a proxy of its own making) would keep the stderr ssh gave it, the caller's, open after
    moatbridge exits: `moatbridge status | cat` would wait for it. ssh and what it starts end with
    moatbridge, as with the docker CLI's connection helper."""
    proxy = tmp_path / "proxy"
    proxy.write_text("#!/bin/sh\ntrap '' HUP\nexec sleep 600\n")
    proxy.chmod(0o755)
    env = _silent_ssh_host(tmp_path, str(proxy))
    process = subprocess.Popen([sys.executable, "-m", "moatbridge", "status", "--json"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)  # fmt: skip
    try:
        stdout, _ = process.communicate(timeout=30)  # both pipes closed: nothing of ours holds them
    except subprocess.TimeoutExpired:
        pytest.fail("something moatbridge started kept its output open after it exited")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 0
    assert json.loads(stdout)["engine"]["running"] is False


def test_an_ssh_host_that_does_not_answer_costs_the_timeout_only(tmp_path: Path) -> None:
    """ssh:// to a host that never answers (off, or behind a VPN that is down) is given ssh's
    ConnectTimeout, as the docker CLI gives it: status ends in seconds, not the system's TCP
    timeout. The host's "connection" is a ProxyCommand that says nothing."""
    env = _silent_ssh_host(tmp_path, "sleep 600")
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "moatbridge", "status", "--json"], capture_output=True,
                            text=True, env=env, timeout=60, start_new_session=True)  # fmt: skip
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["engine"]["running"] is False and data["engine"]["endpoint"] == "ssh://silent.invalid"
    assert seconds < 15, seconds  # ConnectTimeout=3 covers the banner exchange; the SDK gave ssh none
