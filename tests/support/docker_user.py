"""A real non-root account in the `docker` group, for tests that act as a new user would.

`useradd` makes the account (its own group plus `docker`), with a home under a directory
other users can traverse; `userdel -r` removes it. moatbridge and its runtime libraries are
copied next to that home, so the account needs nothing from the checkout or root's
interpreter: commands run through `setpriv --init-groups` (the groups /etc/group gives
the account, as at a login) in a login shell, with `moatbridge` on PATH.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"


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
    """moatbridge (source layout: catalog and licences beside it) and its libraries' files."""
    package = target / "moatbridge"
    shutil.copytree(REPO / "installer" / "moatbridge", package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "images", package / "images")
    shutil.copytree(REPO / "licenses", package / "licenses")
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


@contextmanager
def docker_group_user(base: Path) -> Iterator[DockerUser]:
    """A fresh account in the docker group with its home in `base` (0755); removed after."""
    if os.geteuid() != 0 or shutil.which("useradd") is None or shutil.which("setpriv") is None:
        raise RuntimeError("making a test account needs root, useradd and setpriv")
    name = f"mbt{secrets.token_hex(4)}"
    home = base / name
    runtime = base / f"{name}-lib"
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
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)


def _id(name: str, flag: str) -> str:
    return subprocess.run(["id", flag, name], capture_output=True, text=True, check=True).stdout.strip()
