"""A real non-root account in the `docker` group, for tests that act as a new user would.

`useradd` makes the account (its own group plus `docker`), with a home under a directory
other users can traverse; `userdel -r` removes it after its processes are killed, and the
next run's start sweeps the accounts of a run killed before that (remove_leaked_accounts:
an account in the docker group is root's equal on the host). moatbridge and its runtime libraries are
copied next to that home, so the account needs nothing from the checkout or root's
interpreter: commands run through `setpriv --init-groups` (the groups /etc/group gives
the account, as at a login) in a login shell, with `moatbridge` on PATH.
"""

from __future__ import annotations

import grp
import importlib.metadata
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from support import host_locks

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"
NAME = re.compile(r"mbt[0-9a-f]{8}")  # every test account's name, and no other's (fullmatch)
SHARED_TMP_PREFIX = "moatbridge-test-"
ACCOUNTS_LOCK = host_locks.RUN / "moatbridge-test-accounts.lock"


@dataclass(frozen=True)
class DockerUser:
    name: str
    uid: int
    gid: int
    home: Path
    python: str
    pythonpath: str

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            "HOME": str(self.home), "USER": self.name, "LOGNAME": self.name, "SHELL": "/bin/bash",
            "PATH": f"{self.home}/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "xterm",
        }  # fmt: skip
        return {**env, **extra}

    def argv(self, command: str) -> list[str]:
        """`command` in the account's login shell (bash -l), with its groups; the environment
        is the caller's (pass `env()`), never root's."""
        return ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--init-groups",
                "bash", "-lc", command]  # fmt: skip

    def run(
        self, command: str, cwd: Path | None = None, timeout: float = 900, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(command), capture_output=True, text=True, cwd=cwd or self.home,
                              env=self.env(**extra), timeout=timeout)  # fmt: skip


def _runtime_distributions() -> set[str]:
    """moatbridge's runtime requirements, transitively (no extras)."""
    wanted, seen, found = ["moatbridge"], set(), set()
    while wanted:
        name = re.split(r"[\s;<>=!~\[(]", wanted.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:  # one not installed here is for another platform (pywin32) or Python
            requirements = importlib.metadata.distribution(name).requires or []
        except importlib.metadata.PackageNotFoundError:
            continue
        found.add(name)
        wanted += [r for r in requirements if "extra ==" not in r]
    return found - {"moatbridge"}


def _copy_runtime(target: Path) -> None:
    """moatbridge (source layout: catalog and licences beside it), the toolkit's cudacompat
    beside it as the wheel has it, and its libraries' files."""
    package = target / "moatbridge"
    shutil.copytree(REPO / "installer" / "moatbridge", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "images", package / "images")
    shutil.copytree(REPO / "licenses", package / "licenses")
    toolkit = REPO / "images" / "open" / "toolkit" / "src" / "cudacompat"  # shipped beside moatbridge
    shutil.copytree(toolkit, target / "cudacompat", ignore=shutil.ignore_patterns("__pycache__"))
    for name in _runtime_distributions():
        distribution = importlib.metadata.distribution(name)
        for file in distribution.files or []:
            source = Path(str(distribution.locate_file(file)))
            if file.parts[0] == ".." or not source.is_file() or "__pycache__" in file.parts:
                continue
            destination = target / file
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _python_for(uid: int, gid: int) -> str:
    for candidate in (sys.executable, SYSTEM_PYTHON):
        # Through a shell, as the launcher runs it: setpriv's own exec of root's interpreter
        # behind a 0700 /root succeeds where the account's shell is refused (measured).
        probe = subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "/bin/sh",
                                "-c", 'exec "$0" -S -c ""', candidate], capture_output=True)  # fmt: skip
        if probe.returncode == 0:
            return candidate
    raise RuntimeError("no Python interpreter the test account can run")


def shared_temp_dir() -> Path:
    """A new directory other users can traverse (0755), where accounts' homes go: the start-
    of-run sweep removes a leaked account's home only when it lies in one of these."""
    path = Path(tempfile.mkdtemp(prefix=SHARED_TMP_PREFIX))
    path.chmod(0o755)
    return path


@contextmanager
def docker_group_user(base: Path) -> Iterator[DockerUser]:
    """A fresh account in the docker group with its home in `base` (0755); removed after (its
    processes killed first), or the teardown fails saying how to remove it by hand."""
    if os.geteuid() != 0 or shutil.which("useradd") is None or shutil.which("setpriv") is None:
        raise RuntimeError("making a test account needs root, useradd and setpriv")
    name = f"mbt{secrets.token_hex(4)}"
    assert NAME.fullmatch(name), name  # the sweep finds leftovers by this pattern
    home = base / name
    runtime = base / f"{name}-lib"
    # Held from before useradd until the account is gone: while any session holds it, the
    # start-of-run sweep (remove_leaked_accounts) removes no account.
    with host_locks.held(ACCOUNTS_LOCK, shared=True):
        try:
            _copy_runtime(runtime)
            created = subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash",
                                      "--user-group", "--groups", "docker", name], capture_output=True, text=True)  # fmt: skip
            if created.returncode != 0:
                raise RuntimeError(f"useradd failed: {created.stderr.strip()}")
            try:
                uid, gid = int(_id(name, "-u")), int(_id(name, "-g"))
                python = _python_for(uid, gid)
                user = DockerUser(name, uid, gid, home, python, str(runtime))
                launcher = home / "bin" / "moatbridge"
                launcher.parent.mkdir()
                launcher.write_text(f'#!/bin/sh\nPYTHONPATH={runtime} exec {python} -m moatbridge "$@"\n')
                launcher.chmod(0o755)
                subprocess.run(["chown", "-R", f"{uid}:{gid}", str(home)], check=True)
                yield user
            finally:
                remove_account(name, remove_home=True)
        finally:
            shutil.rmtree(home, ignore_errors=True)
            shutil.rmtree(runtime, ignore_errors=True)


def remove_account(name: str, remove_home: bool) -> None:
    """``name``'s processes killed, then the account deleted (userdel refuses, exit 8, while
    one lives); a second try after a pause (a killed process is gone only once reaped). Still
    there after that: RuntimeError, loud, since an account in the docker group is root's
    equal on this host."""
    argv = ["userdel", *(["--remove"] if remove_home else []), name]
    for attempt in (1, 2):
        for match_by in ("-u", "-U"):  # effective and real uid: userdel counts either as busy
            subprocess.run(["pkill", "-KILL", match_by, name], capture_output=True)
        if attempt == 2:
            time.sleep(2)
        deleted = subprocess.run(argv, capture_output=True, text=True)
        if deleted.returncode == 0:
            return
        # Another code (12: the home not removed) with the account gone: the home is the
        # caller's to remove; the account, what matters, is gone.
        if not _exists(name):
            return
    raise RuntimeError(
        f"userdel {name} failed twice (exit {deleted.returncode}: {deleted.stderr.strip()}); the account is "
        f"still in the docker group. Remove it by hand: pkill -KILL -u {name}; userdel --remove {name}"
    )


def remove_leaked_accounts() -> list[str]:
    """Accounts a killed run left behind (named as docker_group_user names them, still in the
    docker group): removed, their homes and runtimes too where they lie in a shared_temp_dir,
    unless a live session holds ACCOUNTS_LOCK (it may be using one). Returns a sentence for
    each thing left in place."""
    if os.geteuid() != 0 or shutil.which("userdel") is None:
        return []
    with host_locks.exclusive_if_free(ACCOUNTS_LOCK) as free:
        leaked = sorted(entry.pw_name for entry in pwd.getpwall() if NAME.fullmatch(entry.pw_name))
        if not free:
            return [f"test account {name} kept: a live test session holds {ACCOUNTS_LOCK}" for name in leaked]
        left = []
        for name in leaked:
            home = Path(pwd.getpwnam(name).pw_dir)
            ours = _in_shared_temp_dir(home, name)
            try:
                remove_account(name, remove_home=ours)
            except RuntimeError as error:
                left.append(str(error))
                continue
            if ours:
                shutil.rmtree(home, ignore_errors=True)
                shutil.rmtree(home.parent / f"{name}-lib", ignore_errors=True)
            else:
                left.append(
                    f"test account {name} removed; its home {home} is outside {SHARED_TMP_PREFIX}*, so kept"
                )
        for group in grp.getgrall():  # a private group whose account went without it
            if NAME.fullmatch(group.gr_name) and not _exists(group.gr_name):
                subprocess.run(["groupdel", group.gr_name], capture_output=True)
        return left


def _in_shared_temp_dir(home: Path, name: str) -> bool:
    """``home`` is base/NAME with base a shared_temp_dir (no symlink on the way)."""
    tmp = Path(tempfile.gettempdir())
    return (
        home.name == name
        and home.parent.parent == tmp
        and home.parent.name.startswith(SHARED_TMP_PREFIX)
        and os.path.realpath(home.parent) == str(home.parent)
    )


def _exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _id(name: str, flag: str) -> str:
    return subprocess.run(["id", flag, name], capture_output=True, text=True, check=True).stdout.strip()
