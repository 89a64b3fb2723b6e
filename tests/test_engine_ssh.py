"""An engine behind ssh:// (a docker context `ssh://user@host`), reached through the ssh command.

docs/setup.md promises what the docker CLI does: moatbridge runs `ssh ... docker system
dial-stdio` (keys, agent and ~/.ssh/config are the user's). This test makes such an engine
out of the live one, as a new user has it: a non-root account in the docker group (the
`account` fixture) with one authorized key, a docker context the real docker CLI creates,
and then `moatbridge status --json` and `doctor --json` must reach the engine through it,
with the docker CLI agreeing and sshd's log showing the account's logins.

No sshd listens anywhere: the client's ProxyCommand starts `sshd -i` (inetd mode) on each
connection, speaking over the pipe, so when the connection ends so does that sshd, and a
killed test run leaves no daemon behind. The host name is in the reserved .invalid domain:
nothing but that ProxyCommand can reach it. UsePAM yes, as Debian's sshd runs: without PAM,
sshd refuses an account whose password field is locked ('!', as useradd leaves it).

OpenSSH finds ~/.ssh through the passwd entry, not $HOME, and the SDK runs plain
`ssh [-l user] [-p port] -- host ...` (docker/transport/sshconn.py) with no way to add
options, so an `ssh` first on PATH adds `-F` with this test's client configuration: root's
own ~/.ssh is never read or written.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.docker_user import DockerUser

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
SSH = shutil.which("ssh")
DOCKER = shutil.which("docker")
HOST = "moatbridge-test-engine.invalid"  # RFC 2606: resolves nowhere
PRIVSEP_DIR = Path("/run/sshd")  # sshd refuses to start without it, even in inetd mode


@dataclass(frozen=True)
class SshEngine:
    host: str  # ssh://ACCOUNT@HOST
    path: str  # PATH with the configured ssh first
    log: Path  # sshd's log
    account: str


def _keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True, timeout=60)


def _authorize(account: DockerUser, public_key: Path) -> None:
    """~/.ssh/authorized_keys as the account would have it (StrictModes holds: its own, 0600)."""
    ssh_dir = account.home / ".ssh"
    ssh_dir.mkdir(mode=0o700)
    (ssh_dir / "authorized_keys").write_bytes(public_key.read_bytes())
    (ssh_dir / "authorized_keys").chmod(0o600)
    for path in (ssh_dir, ssh_dir / "authorized_keys"):
        os.chown(path, account.uid, account.gid)


def _sshds_of(config: Path) -> list[int]:
    """The live sshd processes started with ``config`` (this test's, no other's)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # not a process, or gone meanwhile
            continue
        if entry.name.isdigit() and str(config).encode() in argv:
            found.append(int(entry.name))
    return found


@pytest.fixture
def ssh_engine(engine_version: str, account: DockerUser, tmp_path: Path) -> Iterator[SshEngine]:
    if SSHD is None or SSH is None:
        pytest.skip("openssh-server and openssh-client are needed (.ci/run installs them)")
    work = tmp_path / "ssh"
    work.mkdir(mode=0o700)
    made_privsep_dir = not PRIVSEP_DIR.exists()
    try:
        _keygen(work / "host_key")
        _keygen(work / "id")
        _authorize(account, work / "id.pub")
        (work / "sshd_config").write_text(
            f"HostKey {work}/host_key\nAuthorizedKeysFile .ssh/authorized_keys\nAllowUsers {account.name}\n"
            "PermitRootLogin no\nAuthenticationMethods publickey\nPasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\nUsePAM yes\nPrintMotd no\nLogLevel VERBOSE\n"
        )
        host_key = (work / "host_key.pub").read_text().split()
        (work / "known_hosts").write_text(f"{HOST} {host_key[0]} {host_key[1]}\n")
        sshd = shlex.join([SSHD, "-i", "-f", str(work / "sshd_config"), "-E", str(work / "sshd.log")])
        (work / "ssh_config").write_text(
            f"Host {HOST}\n  ProxyCommand {sshd}\n  IdentityFile {work}/id\n  IdentitiesOnly yes\n"
            f"  UserKnownHostsFile {work}/known_hosts\n  GlobalKnownHostsFile /dev/null\n"
            "  StrictHostKeyChecking yes\n  BatchMode yes\n"
        )
        (work / "bin").mkdir()
        wrapper = work / "bin" / "ssh"
        wrapper.write_text(
            f'#!/bin/sh\nexec {shlex.quote(SSH)} -F {shlex.quote(str(work / "ssh_config"))} "$@"\n'
        )
        wrapper.chmod(0o755)
        PRIVSEP_DIR.mkdir(mode=0o755, exist_ok=True)
        yield SshEngine(f"ssh://{account.name}@{HOST}", f"{work}/bin:{os.environ['PATH']}", work / "sshd.log",
                        account.name)  # fmt: skip
    finally:
        # Each sshd ends with its connection; one whose client is still closing gets a moment.
        deadline = time.monotonic() + 5
        while (left := _sshds_of(work / "sshd_config")) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):  # it ended after all
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)
        if made_privsep_dir:
            with contextlib.suppress(OSError):  # another session's sshd may be using it now
                PRIVSEP_DIR.rmdir()


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

    accepted = f"Accepted publickey for {ssh_engine.account}"
    logins_before = ssh_engine.log.read_text().count(accepted)
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
    # Both went through sshd (not the local socket): each logged in as the account with its key.
    assert ssh_engine.log.read_text().count(accepted) >= logins_before + 2, ssh_engine.log.read_text()


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
