"""moatbridge's own files damaged into bytes that are not UTF-8 (a disk error, an editor
saving Latin-1, a half-written copy): every command reads past them or refuses them in one
sentence, and those it rewrites anyway come back whole. Never a crash (exit 70)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.core.activation import MARKER

from support.environ import environ_without
from support.toolchains import RECORDED_TOOLCHAIN as TOOLCHAIN

OURS_DAMAGED = f"{MARKER}\n\xff\xfe caf\xe9\n".encode("latin-1")

# Each file of moatbridge's, as damage leaves it (the marker still there, the rest not UTF-8).
DAMAGED = {
    "state.json": b'{"version": 1, "default": "\xff"}',
    "default": b"open-gfx1030\n" + OURS_DAMAGED,
    "env": OURS_DAMAGED,
    "env.fish": OURS_DAMAGED,
    "toolchains/open-gfx1030/toolchain.env": OURS_DAMAGED,
    "libexec/moatbridge-exec": b"#!/bin/sh\n" + OURS_DAMAGED,
    "answers.yaml": b"flavour: \xe9t\xe9\n",
    "consents/scale-free": b"\xff\xfe\n",
    "run/open-gfx1030.pid": b"\xff\n",
    "state/images.json": b'{"\xff": 1}',
    "state/emulators.json": b'{"version": 1, "toolchains": {"\xff": 1}}',
}
COMMANDS = [
    ("list",),
    ("status",),
    ("default", "open-gfx1030"),
    ("license", "status"),
    ("k8s", "--", "make"),
    ("devcontainer", "--dry-run", "--dir", "proj"),
    ("uninstall", "--all", "--keep-images"),
    ("emulator", "show"),
]


def _world(root: Path, damaged: str) -> dict[str, str]:
    home, mbh = root / "home", root / "mbh"
    for directory in (home, mbh, root / "cwd" / "proj"):
        directory.mkdir(parents=True)
    state = {"version": 1, "default": "open-gfx1030", "toolchains": [TOOLCHAIN], "consents": [], "files": []}
    (mbh / "state.json").write_text(json.dumps(state))
    path = mbh / damaged
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(DAMAGED[damaged])
    env = environ_without("MOATBRIDGE_", "XDG_")
    env.update(HOME=str(home), MOATBRIDGE_HOME=str(mbh), DOCKER_HOST="unix:///nonexistent/docker.sock")
    return env


def _run(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, env=env,
        cwd=root / "cwd", stdin=subprocess.DEVNULL, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize("damaged", DAMAGED)
@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a) for a in COMMANDS])
def test_a_damaged_file_of_ours_is_never_a_crash(tmp_path: Path, damaged: str, args: tuple[str, ...]) -> None:
    env = _world(tmp_path, damaged)
    result = _run(tmp_path, env, *args)
    assert result.returncode != 70, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert not list(tmp_path.rglob("crash-*.log"))


@pytest.mark.parametrize("damaged", ["default", "env", "env.fish"])
def test_a_damaged_file_of_ours_is_rewritten_whole(tmp_path: Path, damaged: str) -> None:
    env = _world(tmp_path, damaged)
    result = _run(tmp_path, env, "default", "open-gfx1030")
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "mbh" / damaged).read_bytes().decode("utf-8")  # UTF-8 again
    assert MARKER in text and "\ufffd" not in text


ACTING = [  # commands that act on one toolchain: a state they cannot read is their one sentence
    ("k8s", "--", "make"),
    ("devcontainer", "--dry-run", "--dir", "proj"),
    ("run", "--", "true"),
    ("shell",),
    ("toolchain-warm", "open-gfx1030"),
    ("bundle", "save", "-o", "b.tar"),
    ("slurm", "--", "make"),
    ("ci", "github", "--dry-run"),
    ("export", "apptainer"),
    ("emulator", "show"),
    ("emulator", "set", "/opt/rocm/bin/rocjitsu"),
]


@pytest.mark.parametrize("args", ACTING, ids=[" ".join(a) for a in ACTING])
def test_a_damaged_state_is_the_one_sentence_of_a_command_acting_on_a_toolchain(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    env = _world(tmp_path, "state.json")
    result = _run(tmp_path, env, *args)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("moatbridge:")]
    assert len(lines) == 1 and "cannot be used" in lines[0], result.stderr
    assert (tmp_path / "mbh" / "state.json").read_bytes() == DAMAGED["state.json"]
