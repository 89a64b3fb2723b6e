"""An engine behind ssh:// (a docker context `ssh://user@host`), reached through the ssh command.

docs/setup.md promises what the docker CLI does: moatbridge runs `ssh ... docker system
dial-stdio` (keys, agent and ~/.ssh/config are the user's). This test makes such an engine
out of the live one: its own sshd on 127.0.0.1 (a free port, a throwaway host key, one
authorized key for root), a docker context the real docker CLI creates, and then
`moatbridge status --json` and `doctor --json` must reach the engine through it, with the
docker CLI agreeing and sshd's log showing the login.

OpenSSH finds ~/.ssh through the passwd entry, not $HOME, and the SDK runs plain
`ssh [-l user] [-p port] -- host ...` (docker/transport/sshconn.py) with no way to add
options, so an `ssh` first on PATH adds `-F` with this test's client configuration: root's
own ~/.ssh is never read or written.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
SSH = shutil.which("ssh")
DOCKER = shutil.which("docker")


@dataclass(frozen=True)
class SshEngine:
    host: str  # ssh://root@127.0.0.1:PORT
    path: str  # PATH with the configured ssh first
    log: Path  # sshd's log


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True, timeout=60)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def ssh_engine(engine_version: str) -> Iterator[SshEngine]:
    if SSHD is None or SSH is None:
        pytest.skip("openssh-server and openssh-client are needed (.ci/run installs them)")
    if os.geteuid() != 0:
        pytest.skip("a test sshd needs root")
    work = Path(tempfile.mkdtemp(prefix="mb-ssh-", dir="/tmp"))
    port = _free_port()
    _keygen(work / "host_key")
    _keygen(work / "id")
    shutil.copy(work / "id.pub", work / "authorized_keys")
    (work / "sshd_config").write_text(
        f"ListenAddress 127.0.0.1\nPort {port}\nHostKey {work}/host_key\n"
        f"AuthorizedKeysFile {work}/authorized_keys\nPidFile {work}/sshd.pid\n"
        # /tmp is world-writable, which StrictModes refuses for the key file's parents.
        "StrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
        "PermitRootLogin prohibit-password\n"
    )
    host_key = (work / "host_key.pub").read_text().split()
    (work / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    (work / "ssh_config").write_text(
        f"Host *\n  IdentityFile {work}/id\n  IdentitiesOnly yes\n  UserKnownHostsFile {work}/known_hosts\n"
        "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  BatchMode yes\n"
    )
    (work / "bin").mkdir()
    wrapper = work / "bin" / "ssh"
    wrapper.write_text(f'#!/bin/sh\nexec {SSH} -F {work}/ssh_config "$@"\n')
    wrapper.chmod(0o755)
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege-separation directory
    log = work / "sshd.log"
    with log.open("wb") as out:
        sshd = subprocess.Popen([SSHD, "-D", "-e", "-f", str(work / "sshd_config")], stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 20
        while not _listening(port):
            assert sshd.poll() is None, f"sshd exited: {log.read_text()}"
            assert time.monotonic() < deadline, f"sshd is not listening: {log.read_text()}"
            time.sleep(0.1)
        yield SshEngine(f"ssh://root@127.0.0.1:{port}", f"{work}/bin:{os.environ['PATH']}", log)
    finally:
        sshd.terminate()
        try:
            sshd.wait(timeout=10)
        except subprocess.TimeoutExpired:
            sshd.kill()
            sshd.wait()
        shutil.rmtree(work, ignore_errors=True)


def _run(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("DOCKER_HOST", "DOCKER_CONTEXT")}
    return subprocess.run(argv, capture_output=True, text=True, env={**base, **env}, timeout=180)


@pytest.mark.engine
def test_status_and_doctor_reach_an_engine_through_an_ssh_context(
    ssh_engine: SshEngine, engine_version: str, tmp_path: Path
) -> None:
    assert DOCKER is not None, "the docker CLI is the oracle here"
    env = {"DOCKER_CONFIG": str(tmp_path), "PATH": ssh_engine.path}
    created = _run([DOCKER, "context", "create", "mb-ssh", "--docker", f"host={ssh_engine.host}"], env)
    assert created.returncode == 0, created.stderr
    assert _run([DOCKER, "context", "use", "mb-ssh"], env).returncode == 0
    cli = _run([DOCKER, "version", "--format", "{{.Server.Version}}"], env)
    assert cli.returncode == 0 and cli.stdout.strip() == engine_version, cli.stderr  # the CLI gets there

    logins_before = ssh_engine.log.read_text().count("Accepted publickey for root")
    status = _run([sys.executable, "-m", "moatbridge", "status", "--json"], env)
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["engine"] == {
        "endpoint": ssh_engine.host,
        "running": True,
        "problem": None,
        "from": "docker context 'mb-ssh'",
    }, status.stdout
    doctor = _run([sys.executable, "-m", "moatbridge", "doctor", "--json"], env)
    assert "Traceback" not in doctor.stderr, doctor.stderr
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["engine-daemon"]["status"] == "pass", checks["engine-daemon"]
    assert f"at {ssh_engine.host} (docker context 'mb-ssh')" in checks["engine-daemon"]["detail"]
    assert engine_version in checks["engine-version"]["detail"]
    # Both went through sshd (not the local socket): each logged in with the test's key.
    assert ssh_engine.log.read_text().count("Accepted publickey for root") >= logins_before + 2


def test_without_paramiko_an_ssh_address_is_one_sentence(tmp_path: Path) -> None:
    """moatbridge installed without its dependencies (pip --no-deps): the SDK drops ssh://."""
    (tmp_path / "paramiko.py").write_text('raise ImportError("not installed")\n')
    env = {
        "PYTHONPATH": str(tmp_path),
        "DOCKER_HOST": "ssh://root@127.0.0.1:1",
        "DOCKER_CONFIG": str(tmp_path),
    }
    result = _run([sys.executable, "-m", "moatbridge", "image", "list"], env)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 3 and len(lines) == 2, result.stderr
    assert "needs paramiko" in lines[0] and "docker[ssh]" in lines[1]
