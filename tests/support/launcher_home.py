"""A home where moatbridge setup's files are installed without an image, for the launcher,
mbrun and shim tests (tests/test_launcher*.py).

The files are written by the functions setup uses (install_files, edit_shell_rcs). `docker`
is a stand-in (fake_docker) that records the arguments it is given and answers `nvcc
--version` as nvcc would, so what the runner asks of the engine can be compared.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from moatbridge.core.shims import ToolchainRuntime
from moatbridge.paths import Paths
from moatbridge.services.installation import edit_shell_rcs, install_files
from moatbridge.services.toolchains import record, state_store

from support.environ import paths_for
from support.pty_session import PtySession
from support.toolchains import make_toolchain

NAME = "open-gfx1030"
IMAGE_ID = "sha256:" + "5e" * 32
NVCC_VERSION = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.4, V12.4.131\n"
BASE_PATH = "/usr/bin:/bin"

# Records its arguments (NUL-separated) and answers `nvcc --version` like nvcc would.
FAKE_DOCKER = f"""#!/bin/sh
for a in "$@"; do printf '%s\\0' "$a"; done > "$DOCKER_LOG"
case " $* " in *" nvcc --version "*|*" nvcc -V "*) printf %s '{NVCC_VERSION}' ;; esac
exit "${{FAKE_DOCKER_STATUS:-0}}"
"""


def shell_path(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: .ci/run installs it from Debian's packages")
    return path


def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A user's HOME with Debian's skeleton dotfiles, and the moatbridge home in it."""
    home = tmp_path / "home with 'quotes' and spaces"
    home.mkdir()
    for name in (".profile", ".bashrc"):
        skeleton = Path("/etc/skel") / name
        if skeleton.exists():
            shutil.copyfile(skeleton, home / name)
    monkeypatch.setenv("HOME", str(home))
    for key in ("ZDOTDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(key, raising=False)
    mbhome = home / ".local" / "share" / "moatbridge"
    monkeypatch.setenv("MOATBRIDGE_HOME", str(mbhome))
    return home, mbhome


def install_toolchain(
    home: Path, mbhome: Path, shells: tuple[str, ...] = (), python: str | None = None, name: str = NAME
) -> Paths:
    """What setup writes and records, without the image: shims, runner, launcher, mbrun,
    env files, rc blocks and the state (GPU devices and groups as on a machine with a GPU)."""
    paths = paths_for(mbhome)
    toolchain = make_toolchain(name, "open", "devel", ("gfx1030",), "12.4", "moatbridge/open:x", IMAGE_ID,
                          "open-components", tools=("nvcc", "hipcc"))  # fmt: skip
    runtime = ToolchainRuntime(
        name=name, image=IMAGE_ID, target="gfx1030", activate=". /opt/moatbridge/bin/activate",
        uid=os.getuid(), gid=os.getgid(), group_adds=(44, 992), devices=("/dev/kfd", "/dev/dri"),
        roots=(os.path.realpath(home),), licence=None, licence_records="/nowhere", licence_env=(),
        home_key=paths.engine_key, home=os.path.realpath(paths.home),
    )  # fmt: skip
    saved = sys.executable
    if python is not None:
        sys.executable = python
    try:
        written = install_files(paths, toolchain, runtime, True, dry_run=False)
    finally:
        sys.executable = saved
    written += edit_shell_rcs(paths, shells, dry_run=False)
    store = state_store(paths)
    store.write(record(store.read().with_toolchain(toolchain, True), written))
    return paths


def fake_docker(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "docker").write_text(FAKE_DOCKER)
    (bin_dir / "docker").chmod(0o755)
    return bin_dir


def home_env(home: Path, mbhome: Path, **extra: str) -> dict[str, str]:
    env = {"HOME": str(home), "PATH": BASE_PATH, "MOATBRIDGE_HOME": str(mbhome), "LANG": "C.UTF-8", **extra}
    if "PYTHONPATH" in os.environ:  # a source tree the tests were pointed at (this process's moatbridge)
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    if "MOATBRIDGE_HOMES_DIR" in os.environ and "MOATBRIDGE_HOMES_DIR" not in extra:  # the test's own
        env["MOATBRIDGE_HOMES_DIR"] = os.environ["MOATBRIDGE_HOMES_DIR"]
    return env


def on_pty(
    argv: list[str], env: dict[str, str], cwd: Path, stdout: int | None = None, timeout: float = 120
) -> tuple[int | None, str]:
    """Run ``argv`` on a real pseudo-terminal (stdin, stderr, and stdout unless given) until
    it exits: its exit status and everything the terminal showed, escapes and all."""
    session = PtySession.run(argv, env, cwd, stdout=stdout, timeout=timeout)
    return session.code, session.raw.replace("\r\n", "\n")


def mark_warm(mbhome: Path, name: str = NAME) -> None:
    """Record this test's process as the toolchain's running warm container (its PID and start
    time, as toolchain-warm records the container's init), so the runner goes straight to
    `docker exec`."""
    from moatbridge.adapters.containers import process_start

    (mbhome / "run").mkdir(parents=True, exist_ok=True)
    (mbhome / "run" / f"{name}.pid").write_text(f"{os.getpid()} {process_start(os.getpid())}\n")
