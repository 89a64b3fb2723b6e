"""Activation scripts sourced in real shells, and rc-file blocks that come out cleanly."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from moatbridge.core import rc_block as block_edit
from moatbridge.core.activation import activation_plan, rc_block, render_fish, render_posix

POSIX_SHELLS = ["bash", "zsh", "dash"]


def _shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: .ci/run installs it from Debian's packages")
    return path


def _env_files(tmp_path: Path, toolchain: str = "open-gfx1030") -> tuple[Path, Path, str]:
    home = str(tmp_path / "mb home with 'quotes' and spaces")
    plan = activation_plan(home, toolchain)
    posix, fish = tmp_path / "env", tmp_path / "env.fish"
    posix.write_text(render_posix(plan))
    fish.write_text(render_fish(plan))
    return posix, fish, home


POSIX_SCRIPT = r"""
set -eu
PATH=/usr/bin:/bin; export PATH
CUDA_HOME=/orig/cuda; export CUDA_HOME
unset CUDACXX || true
. "$1"
. "$1"
echo "active PATH=$PATH"
echo "active CUDA_HOME=$CUDA_HOME"
echo "active CUDACXX=$CUDACXX"
echo "active TOOLCHAIN=$MOATBRIDGE_TOOLCHAIN"
PATH="$PATH:/added/later"
deactivate
echo "after PATH=$PATH"
echo "after CUDA_HOME=$CUDA_HOME"
echo "after CUDACXX=${CUDACXX-unset}"
echo "after TOOLCHAIN=${MOATBRIDGE_TOOLCHAIN-unset}"
. "$1"
echo "again PATH=$PATH"
"""


def _lines(output: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in output.splitlines() if "=" in line)


@pytest.mark.parametrize("shell", POSIX_SHELLS)
def test_posix_activation(tmp_path: Path, shell: str) -> None:
    env, _, home = _env_files(tmp_path)
    result = subprocess.run(
        [_shell(shell), "-c", POSIX_SCRIPT, "sh", str(env)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    seen = _lines(result.stdout)
    assert seen["active PATH"] == f"{home}/cuda/bin:/usr/bin:/bin"  # once, though sourced twice
    assert seen["active CUDA_HOME"] == f"{home}/cuda"
    assert seen["active CUDACXX"] == f"{home}/cuda/bin/nvcc"
    assert seen["active TOOLCHAIN"] == "open-gfx1030"
    assert seen["after PATH"] == "/usr/bin:/bin:/added/later"  # ours gone, the user's later entry kept
    assert seen["after CUDA_HOME"] == "/orig/cuda"
    assert seen["after CUDACXX"] == "unset"
    assert seen["after TOOLCHAIN"] == "unset"
    assert seen["again PATH"] == f"{home}/cuda/bin:/usr/bin:/bin:/added/later"
    assert result.stderr == ""


def test_posix_does_not_take_over_a_venv_deactivate(tmp_path: Path) -> None:
    env, _, _ = _env_files(tmp_path)
    script = 'deactivate() { echo venv-deactivate; }; . "$1"; deactivate; moatbridge_deactivate; echo "${CUDA_HOME-unset}"'
    result = subprocess.run([_shell("bash"), "-c", script, "sh", str(env)], capture_output=True, text=True)
    assert result.stdout.splitlines() == ["venv-deactivate", "unset"]


def test_switching_toolchains_reapplies(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, _, _ = _env_files(tmp_path / "a", "open-gfx1030")
    second, _, _ = _env_files(tmp_path / "b", "open-gfx1100")
    script = 'set -eu; PATH=/bin; . "$1"; . "$2"; echo "$MOATBRIDGE_TOOLCHAIN"; echo "$PATH"'
    result = subprocess.run(
        [_shell("dash"), "-c", script, "sh", str(first), str(second)], capture_output=True, text=True
    )
    toolchain, path = result.stdout.splitlines()
    assert toolchain == "open-gfx1100"
    assert path.split(":") == [
        str(tmp_path / "b" / "mb home with 'quotes' and spaces" / "cuda" / "bin"),
        "/bin",
    ]


FISH_SCRIPT = r"""
set -gx PATH /usr/bin /bin
set -gx CUDA_HOME /orig/cuda
source $argv[1]
source $argv[1]
echo "active PATH=$PATH"
echo "active CUDA_HOME=$CUDA_HOME"
set -gx PATH $PATH /added/later
deactivate
echo "after PATH=$PATH"
echo "after CUDA_HOME=$CUDA_HOME"
if set -q CUDACXX; echo "after CUDACXX=$CUDACXX"; else; echo "after CUDACXX=unset"; end
"""


def test_fish_activation(tmp_path: Path) -> None:
    _, fish, home = _env_files(tmp_path)
    script = tmp_path / "t.fish"
    script.write_text(FISH_SCRIPT)
    result = subprocess.run([_shell("fish"), str(script), str(fish)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    seen = _lines(result.stdout)
    assert seen["active PATH"] == f"{home}/cuda/bin:/usr/bin:/bin"  # fish joins PATH with ':' in quotes
    assert seen["active CUDA_HOME"] == f"{home}/cuda"
    assert seen["after PATH"] == "/usr/bin:/bin:/added/later"
    assert seen["after CUDA_HOME"] == "/orig/cuda"
    assert seen["after CUDACXX"] == "unset"


@pytest.mark.parametrize(
    "original",
    [b"", b"export A=1\n", b"export A=1", b"export A=1\n\n", b"# only a comment\nalias ll='ls -l'\n"],
)
@pytest.mark.parametrize("fish", [False, True])
def test_rc_block_round_trip_is_byte_exact(original: bytes, fish: bool) -> None:
    block = rc_block("/home/u/.local/share/moatbridge/env", fish)
    once = block_edit.insert(original, block, "rc")
    twice = block_edit.insert(once, block, "rc")
    assert once == twice  # idempotent
    assert block_edit.contains(once, "rc") and once.count(b"# >>> moatbridge >>>") == 1
    assert block_edit.remove(once, "rc") == original
    assert block_edit.remove(original, "rc") == original


def test_rc_block_keeps_lines_added_after_it() -> None:
    block = rc_block("/x/env", False)
    edited = block_edit.insert(b"export A=1\n", block, "rc") + b"export B=2\n"
    assert block_edit.remove(edited, "rc") == b"export A=1\nexport B=2\n"


def test_rc_block_sources_env_in_real_bash(tmp_path: Path) -> None:
    env, _, home = _env_files(tmp_path)
    rc = tmp_path / "bashrc"
    rc.write_bytes(block_edit.insert(b"PATH=/usr/bin:/bin\n", rc_block(str(env), False), "rc"))
    result = subprocess.run(
        [_shell("bash"), "-c", f'set -eu; . "{rc}"; echo "$PATH"'], capture_output=True, text=True
    )
    assert result.stdout.strip() == f"{home}/cuda/bin:/usr/bin:/bin"


def test_toolchain_env_passes_devices_groups_and_licence() -> None:
    from moatbridge.core.shims import ToolchainRuntime, render_toolchain_env

    runtime = ToolchainRuntime(
        name="scale-gfx1100", image="sha256:abc", target="gfx1100", activate=". /opt/scale/bin/scaleenv",
        uid=1000, gid=1000, group_adds=(44, 992), devices=("/dev/kfd", "/dev/dri"), roots=("/home/u",),
        licence="scale-free", licence_records="/opt/mb/licenses", licence_env=("SCALE_LICENSE_ACCEPT=1",),
        home_key="0123456789", home="/home/u/.local/share/moatbridge",
    )  # fmt: skip
    env = render_toolchain_env(runtime)
    assert (
        "MB_RUN_ARGS='--group-add 44 --group-add 992 --device /dev/kfd --device /dev/dri "
        "--security-opt label=disable'" in env  # as the warm container is created
    )
    assert "MB_LICENCE='scale-free'" in env and "MB_LICENCE_ARGS='-e SCALE_LICENSE_ACCEPT=1'" in env
    assert "MB_CONTAINER='moatbridge-scale-gfx1100-1000-0123456789'" in env
    assert "--privileged" not in env
    result = subprocess.run(["sh", "-c", f'{env}\necho "$MB_USER|$MB_ROOTS"'], capture_output=True, text=True)
    assert result.stdout.strip() == "1000:1000|/home/u"
