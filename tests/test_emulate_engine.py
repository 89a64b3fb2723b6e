"""`moatbridge run --emulate` and `mbrun --emulate` against the live engine, with a STAND-IN
emulator (tests/support/standin_emulator.py: the real one's layout and command line; it
checks what it was given and emulates nothing). The toolchain is what setup writes, with the
small Debian base as its image and an activation that does nothing; the real emulator's
runs are in docs/compat/run.md."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.core.activation import MARKER
from moatbridge.core.emulator import EMULATOR_MOUNT, PROFILE_MOUNT
from moatbridge.core.shims import ToolchainRuntime, render_toolchain_env

from support.launcher_home import BASE_PATH, NAME, home_env, install_toolchain, user_home
from support.standin_emulator import profile, standin_emulator

pytestmark = pytest.mark.engine

GROUP = 4242  # passed to the toolchain's containers as the GPU nodes' group would be
PROBE = (
    'echo "preload=$LD_PRELOAD"; echo "groups=$(id -G)"; echo "override=${HSA_OVERRIDE_GFX_VERSION-unset}"'
)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, debian_base: str) -> dict[str, object]:
    home, mbhome = user_home(tmp_path, monkeypatch)
    paths = install_toolchain(home, mbhome)
    runtime = ToolchainRuntime(
        name=NAME, image=debian_base, target="gfx1030", activate=":", uid=os.getuid(), gid=os.getgid(),
        group_adds=(GROUP,), devices=(), roots=(), licence=None, licence_records="/nowhere",
        licence_env=(), home_key=paths.engine_key, home=os.path.realpath(paths.home),
    )  # fmt: skip
    (mbhome / "toolchains" / NAME / "toolchain.env").write_text(render_toolchain_env(runtime))
    cli = standin_emulator(tmp_path / "amd emulation")  # a space: the mount keeps it whole
    gfx1030 = tmp_path / "rx6800xt.json"  # rocjitsu ships no gfx1030 profile: the user's own
    gfx1030.write_text(profile(100300, "AMD Radeon RX 6800 XT"))
    work = tmp_path / "work"
    work.mkdir()
    env = home_env(home, mbhome, PATH=f"{mbhome}/cuda/bin:{os.environ['PATH']}", HSA_OVERRIDE_GFX_VERSION="10.3.0",
                   MOATBRIDGE_EMULATOR=str(cli), MOATBRIDGE_EMULATOR_PROFILE=str(gfx1030))  # fmt: skip
    return {"env": env, "work": work, "cli": cli, "home": home}


def _run(world: dict[str, object], *argv: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**world["env"], **extra}  # type: ignore[dict-item]
    for key in [k for k, v in extra.items() if v == ""]:
        del env[key]
    return subprocess.run(
        list(argv), env=env, cwd=world["work"], capture_output=True, text=True, timeout=120,  # type: ignore[arg-type]
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def _lines(result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    return dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)


MB = [sys.executable, "-m", "moatbridge"]


def test_a_command_runs_under_the_emulator_with_its_profile_and_no_real_gpu(world: dict[str, object]) -> None:
    result = _run(world, *MB, "run", "--emulate", "sh", "-c", PROBE)
    assert result.returncode == 0, result.stderr
    seen = _lines(result)
    assert seen["preload"] == f"{EMULATOR_MOUNT}/lib/librocjitsu.so", result.stdout
    assert str(GROUP) not in seen["groups"].split(), "the real GPU's groups reached the emulated run"
    assert seen["override"] == "unset"
    stderr = result.stderr.splitlines()
    assert stderr[0] == (
        "moatbridge: the GPU is emulated: gfx1030, AMD Radeon RX 6800 XT (rocjitsu 0.2.0-standin, profile "
        "rx6800xt.json); results are checked, speed is not a GPU's."
    ), stderr
    assert f"standin-emulator: config={PROFILE_MOUNT} target_version=100300 devices=none" in stderr, stderr


def test_without_emulate_the_same_command_gets_the_gpus_groups(world: dict[str, object]) -> None:
    """The control: what --emulate takes away is there in an ordinary run."""
    result = _run(world, *MB, "run", "sh", "-c", PROBE)
    assert result.returncode == 0, result.stderr
    assert str(GROUP) in _lines(result)["groups"].split() and _lines(result)["preload"] == ""
    assert _lines(result)["override"] == "10.3.0"


def test_mbrun_emulate_is_moatbridge_run_emulate(world: dict[str, object]) -> None:
    result = _run(world, "mbrun", "--emulate", "--", "sh", "-c", PROBE)
    assert result.returncode == 0, result.stderr
    assert _lines(result)["preload"] == f"{EMULATOR_MOUNT}/lib/librocjitsu.so"
    assert "moatbridge: the GPU is emulated: gfx1030" in result.stderr


def test_the_emulators_own_profile_is_chosen_for_a_target_it_has(world: dict[str, object]) -> None:
    """Without the user's profile, the toolchain's gfx1030 has none: one sentence, exit 2;
    the emulator's profile for gfx1100 is taken when that target is asked for (here the
    toolchain does not build for it: refused too, before any container is made)."""
    result = _run(world, *MB, "run", "--emulate", "true", MOATBRIDGE_EMULATOR_PROFILE="")
    assert result.returncode == 2
    assert (
        result.stderr.splitlines()[0].startswith("moatbridge: The emulator at ")
        and "no GPU profile for gfx1030" in result.stderr
    )
    asked = _run(world, *MB, "run", "--emulate=gfx1100", "true")
    assert asked.returncode == 2 and "does not build for gfx1100" in asked.stderr, asked.stderr


def test_no_emulator_is_one_sentence_and_no_container(world: dict[str, object]) -> None:
    listed = ["docker", "ps", "-aq", "--filter", "label=io.moatbridge.transient=1"]
    before = subprocess.run(listed, capture_output=True, text=True).stdout.split()
    result = _run(world, *MB, "run", "--emulate", "true", MOATBRIDGE_EMULATOR="", MOATBRIDGE_EMULATOR_PROFILE="",
                  PATH=f"{BASE_PATH}")  # fmt: skip
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("moatbridge: No GPU emulator was found"), lines
    assert lines[1].startswith("hint: AMD's emulator is rocjitsu")
    after = subprocess.run(listed, capture_output=True, text=True).stdout.split()
    assert set(after) <= set(before)


def test_a_runner_written_by_an_older_moatbridge_is_brought_up_to_date(world: dict[str, object]) -> None:
    """After a moatbridge upgrade the runner setup wrote may predate --emulate: run writes
    its own first, so the command is emulated as asked, not run on the real GPU."""
    runner = Path(str(world["env"]["MOATBRIDGE_HOME"])) / "libexec" / "moatbridge-exec"  # type: ignore[index]
    runner.write_text(f'#!/bin/sh\n{MARKER} runner for shims; do not edit\nexec "$@"\n')
    result = _run(world, *MB, "run", "--emulate", "sh", "-c", PROBE)
    assert result.returncode == 0, result.stderr
    assert _lines(result)["preload"] == f"{EMULATOR_MOUNT}/lib/librocjitsu.so", result.stdout
