"""The GPU emulator configured per toolchain: `moatbridge emulator set|unset|show`, the
settings file (core/emulator_settings.py, adapters/emulator_settings.py), the order in which
`run --emulate` looks (MOATBRIDGE_EMULATOR, the toolchain's setting, PATH, install
directories) and what status, doctor and uninstall make of a setting. The emulators are
stand-ins with the real one's layout (tests/support/standin_emulator.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.emulator_files import find_emulator
from moatbridge.core.emulator import (
    FOUND_BY_SETTING,
    PROFILE_MOUNT,
    WHERE_TO_GET,
    Emulator,
    EmulatorReport,
    Profile,
    ProfileChoice,
    doctor_check,
    require_profile_target,
)
from moatbridge.core.emulator_settings import EmulatorSetting, EmulatorSettings, is_recorded_path
from moatbridge.errors import InputError
from moatbridge.paths import Paths

from conftest import cli, fresh_home
from support.launcher_home import BASE_PATH, fake_docker, home_env, install_toolchain, user_home
from support.standin_emulator import profile, standin_emulator
from support.toolchains import RECORDED_TOOLCHAIN

CLEAR = "\x1b[2J"
OSC52 = "\x1b]52;c;ZXZpbA==\x07"

# --- the settings as recorded (pure) ---------------------------------------------------------------


def _recorded(**toolchains: object) -> dict[str, object]:
    return {"version": 1, "toolchains": toolchains}


def test_settings_are_read_back_as_written() -> None:
    settings = EmulatorSettings().with_setting(EmulatorSetting("open-gfx1100", "/opt/emu/bin/rocjitsu"))
    settings = settings.with_setting(EmulatorSetting("a-first", "/x/bin/mirage", "/home/u/gpu.json"))
    assert [s.toolchain for s in settings.settings] == ["a-first", "open-gfx1100"]
    assert EmulatorSettings.from_json(json.loads(json.dumps(settings.to_json()))) == settings
    assert settings.get("a-first") == EmulatorSetting("a-first", "/x/bin/mirage", "/home/u/gpu.json")
    assert settings.without("a-first").get("a-first") is None
    assert [s.toolchain for s in settings.kept(["open-gfx1100", "other"]).settings] == ["open-gfx1100"]
    replaced = settings.with_setting(EmulatorSetting("a-first", "/y/bin/rocjitsu"))
    assert replaced.get("a-first") == EmulatorSetting("a-first", "/y/bin/rocjitsu")
    assert len(replaced.settings) == 2


@pytest.mark.parametrize(
    "data",
    [
        None, [], {"version": 2, "toolchains": {}}, {"version": 1}, {"version": 1, "toolchains": []},
        _recorded(**{"open-gfx1100": "/opt/emu/bin/rocjitsu"}),
        _recorded(**{"open-gfx1100": {}}),
        _recorded(**{"open-gfx1100": {"emulator": 3}}),
        _recorded(**{"open-gfx1100": {"emulator": "bin/rocjitsu"}}),
        _recorded(**{"open-gfx1100": {"emulator": ""}}),
        _recorded(**{"open-gfx1100": {"emulator": "/opt/emu\n/bin/rocjitsu"}}),
        _recorded(**{"open-gfx1100": {"emulator": f"/opt/{OSC52}/rocjitsu"}}),
        _recorded(**{"open-gfx1100": {"emulator": "/opt/\x9b/rocjitsu"}}),
        _recorded(**{"open-gfx1100": {"emulator": "/opt/\udcff/rocjitsu"}}),
        _recorded(**{"open-gfx1100": {"emulator": "/opt/emu/../etc/rocjitsu"}}),
        _recorded(**{"open-gfx1100": {"emulator": "/opt/emu/bin/"}}),
        _recorded(**{"open-gfx1100": {"emulator": "//opt/emu/bin/rocjitsu"}}),
        _recorded(**{"open-gfx1100": {"emulator": "/" + "x" * 5000}}),
        _recorded(**{"open-gfx1100": {"emulator": "/opt/emu/bin/rocjitsu", "profile": "gpu.json"}}),
        _recorded(**{"open-gfx1100": {"emulator": "/opt/emu/bin/rocjitsu", "profile": ["/gpu.json"]}}),
        _recorded(**{"open-gfx1100": {"emulator": "/opt/emu/bin/rocjitsu", "profile": "/a\n/gpu.json"}}),
        _recorded(**{f"x{CLEAR}": {"emulator": "/opt/emu/bin/rocjitsu"}}),
        _recorded(**{"../x": {"emulator": "/opt/emu/bin/rocjitsu"}}),
        _recorded(**{"Open": {"emulator": "/opt/emu/bin/rocjitsu"}}),
        _recorded(**{"a" * 64: {"emulator": "/opt/emu/bin/rocjitsu"}}),
    ],
)  # fmt: skip
def test_a_setting_not_of_moatbridges_form_makes_the_file_damaged(data: object) -> None:
    with pytest.raises(ValueError):
        EmulatorSettings.from_json(data)


def test_a_recorded_path_is_absolute_normalised_and_plain() -> None:
    assert is_recorded_path("/opt/amd emulation/bin/rocjitsu")
    assert is_recorded_path("/home/u/caf\u00e9/gpu.json")
    for value in ("", "rel", "/a/./b", "/a/", "/a\tb", "/a\u2028b", None, 3):
        assert not is_recorded_path(value), value


# --- which emulator, and which profile, in which order (in-process) -----------------------------


@pytest.fixture
def emulators(tmp_path: Path) -> dict[str, Path]:
    """Two stand-in emulators (one on PATH), and a gfx1030 profile of the user's own."""
    standin_emulator(tmp_path / "set")
    standin_emulator(tmp_path / "on-path")
    standin_emulator(tmp_path / "named")
    mine = tmp_path / "rx6800.json"
    mine.write_text(profile(100300, "AMD Radeon RX 6800"))
    theirs = tmp_path / "rx6800-env.json"
    theirs.write_text(profile(100300, "RX 6800 from the environment"))
    return {"set": tmp_path / "set", "on-path": tmp_path / "on-path", "named": tmp_path / "named",
            "profile": mine, "env-profile": theirs}  # fmt: skip


def _setting(emulators: dict[str, Path], with_profile: bool = True) -> EmulatorSetting:
    cli = str(emulators["set"] / "bin" / "rocjitsu")
    return EmulatorSetting("open-gfx1030", cli, str(emulators["profile"]) if with_profile else None)


def test_the_setting_comes_after_moatbridge_emulator_and_before_path(emulators: dict[str, Path]) -> None:
    path = str(emulators["on-path"] / "bin")
    setting = _setting(emulators)
    found = find_emulator({"PATH": path}, setting=setting)
    assert found is not None and found.cli == setting.emulator and found.found_by == FOUND_BY_SETTING
    assert found.profiles[0] == Profile(str(emulators["profile"]), "gfx1030", "AMD Radeon RX 6800")
    named = find_emulator({"PATH": path, "MOATBRIDGE_EMULATOR": str(emulators["named"])}, setting=setting)
    assert (
        named is not None
        and named.prefix == str(emulators["named"])
        and named.found_by == "MOATBRIDGE_EMULATOR"
    )
    assert named.profiles[0].path == str(emulators["profile"])  # the setting's profile still applies
    without = find_emulator({"PATH": path})
    assert without is not None and without.prefix == str(emulators["on-path"]) and without.found_by == "PATH"


def test_moatbridge_emulator_profile_beats_the_settings_profile(emulators: dict[str, Path]) -> None:
    env = {"PATH": "", "MOATBRIDGE_EMULATOR_PROFILE": str(emulators["env-profile"])}
    found = find_emulator(env, setting=_setting(emulators))
    assert found is not None
    given = [p for p in found.profiles if os.path.isabs(p.path)]
    assert given == [Profile(str(emulators["env-profile"]), "gfx1030", "RX 6800 from the environment")]


@pytest.mark.parametrize("gone", ["emulator", "library", "profile", "profile-damaged"])
def test_a_setting_that_broke_is_refused_never_passed_over(emulators: dict[str, Path], gone: str) -> None:
    """An emulator on PATH would do, but the toolchain was given another: that one's state is
    the answer, with the setting named and the way to mend it."""
    if gone == "emulator":
        (emulators["set"] / "bin" / "rocjitsu").unlink()
    elif gone == "library":
        (emulators["set"] / "lib" / "librocjitsu.so").unlink()
    elif gone == "profile":
        emulators["profile"].unlink()
    else:
        emulators["profile"].write_text("{}")
    with pytest.raises(InputError) as caught:
        find_emulator({"PATH": str(emulators["on-path"] / "bin")}, setting=_setting(emulators))
    what = "emulator profile" if gone.startswith("profile") else "emulator"
    assert caught.value.message.startswith(f"The {what} set for toolchain open-gfx1030 ("), (
        caught.value.message
    )
    assert "moatbridge emulator set -t open-gfx1030" in (caught.value.hint or "")
    assert "moatbridge emulator unset -t open-gfx1030" in (caught.value.hint or "")


def test_a_broken_setting_under_a_variable_that_replaces_it_is_not_read(emulators: dict[str, Path]) -> None:
    setting = _setting(emulators)
    (emulators["set"] / "bin" / "rocjitsu").unlink()
    emulators["profile"].unlink()
    env = {"PATH": "", "MOATBRIDGE_EMULATOR": str(emulators["named"]),
           "MOATBRIDGE_EMULATOR_PROFILE": str(emulators["env-profile"])}  # fmt: skip
    found = find_emulator(env, setting=setting)
    assert found is not None and found.prefix == str(emulators["named"])


def test_a_profile_for_a_target_the_toolchain_lacks_is_one_sentence() -> None:
    require_profile_target(Profile("/p/gpu.json", "gfx1100", ""), ("gfx1100", "gfx1201"), "t")
    with pytest.raises(InputError) as caught:
        require_profile_target(Profile("/p/gpu.json", "gfx1030", ""), ("gfx1100",), "open-gfx1100")
    assert caught.value.message == (
        "The emulator profile /p/gpu.json describes gfx1030, which toolchain open-gfx1100 does not "
        "build for (its targets: gfx1100)."
    )


def test_doctor_names_the_toolchain_whose_setting_found_the_emulator() -> None:
    emulator = Emulator("/opt/emu/bin/rocjitsu", "/opt/emu", FOUND_BY_SETTING, "0.2.0",
                        (Profile("configs/gfx1100.json", "gfx1100", ""),))  # fmt: skip
    check = doctor_check(emulator, None, ("gfx1100",), "open-gfx1100")
    assert check.status == "pass" and "found by the toolchain setting of open-gfx1100" in check.detail
    broken = doctor_check(None, "The emulator set for toolchain t (/x) is not an executable file.", (), "t",
                          "moatbridge emulator set -t t ...")  # fmt: skip
    assert (broken.status, broken.fix) == ("warn", "moatbridge emulator set -t t ...")


def test_the_report_of_no_emulator_says_where_to_get_one() -> None:
    none = EmulatorReport("open-gfx1100", ("gfx1100",), None, None, (ProfileChoice("gfx1100", None, None),))
    assert f"Emulator: none. {WHERE_TO_GET}." in none.lines()
    assert none.to_json() == {
        "toolchain": "open-gfx1100", "targets": ["gfx1100"], "setting": None, "emulator": None,
        "profiles": [{"target": "gfx1100", "path": None, "device": None, "from": None}],
        "where_to_get": WHERE_TO_GET,
    }  # fmt: skip


# --- the command line, in a fresh HOME --------------------------------------------------------------

GFX1100 = {**RECORDED_TOOLCHAIN, "name": "open-gfx1100", "targets": ["gfx1100", "gfx1201"]}
NVIDIA = {**RECORDED_TOOLCHAIN, "name": "scale-sm_89", "flavour": "scale", "targets": ["sm_89"],
          "licence": "scale-free"}  # fmt: skip


@dataclass(frozen=True)
class World:
    paths: Paths
    set_prefix: Path  # the emulator the tests remember
    path_prefix: Path  # another, on PATH
    named_prefix: Path  # another, for MOATBRIDGE_EMULATOR
    profile: Path  # the user's own gfx1030 profile
    inputs: Path  # hostile inputs

    @property
    def settings(self) -> Path:
        return self.paths.emulator_settings


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, emulators: dict[str, Path]) -> World:
    """A fresh HOME whose state records open-gfx1030 (the default), open-gfx1100 (gfx1100 and
    gfx1201) and an NVIDIA toolchain; moatbridge's files in their default places."""
    fresh_home(tmp_path / "home", monkeypatch)
    monkeypatch.setenv("PATH", f"{emulators['on-path'] / 'bin'}:{BASE_PATH}")
    for name in ("MOATBRIDGE_EMULATOR", "MOATBRIDGE_EMULATOR_PROFILE", "MOATBRIDGE_TOOLCHAIN"):
        monkeypatch.delenv(name, raising=False)
    paths = Paths.from_environ(os.environ)
    state = {"version": 1, "default": RECORDED_TOOLCHAIN["name"], "files": [],
             "toolchains": [RECORDED_TOOLCHAIN, GFX1100, NVIDIA]}  # fmt: skip
    paths.state_file.parent.mkdir(parents=True)
    paths.state_file.write_text(json.dumps(state))
    inputs = tmp_path / "in"
    inputs.mkdir()
    os.mkfifo(inputs / "fifo.json")
    (inputs / "latin.json").write_bytes(b'{"vm": "\xe9"}')
    (inputs / "not-executable").write_text("#!/bin/sh\n")
    (inputs / "gfx1100.json").write_text(profile(110000, "W7900"))
    (inputs / "no-library").mkdir()
    standin_emulator(inputs / "no-library" / "emu")
    (inputs / "no-library" / "emu" / "lib" / "librocjitsu.so").unlink()
    return World(
        paths, emulators["set"], emulators["on-path"], emulators["named"], emulators["profile"], inputs
    )


def _ok(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    result = cli(*args, env=None if env is None else {**os.environ, **env})
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def _refused(*args: str, env: dict[str, str] | None = None) -> str:
    """The one sentence (and hint) of a refusal: exit 2, nothing else said, no controls."""
    result = cli(*args, env=None if env is None else {**os.environ, **env})
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.splitlines()
    said = [line for line in lines if line.startswith("moatbridge:")]
    assert len(said) == 1 and all(line.startswith(("moatbridge:", "hint:")) for line in lines), lines
    assert "Traceback" not in result.stderr and "\x1b" not in result.stdout + result.stderr
    return result.stderr


def _show(*args: str, env: dict[str, str] | None = None) -> Any:
    return json.loads(_ok("emulator", "show", "--json", *args, env=env).stdout)


def test_set_remembers_resolved_paths_for_the_default_toolchain(world: World, tmp_path: Path) -> None:
    link = tmp_path / "link-to-emulator"
    link.symlink_to(world.set_prefix)
    done = _ok("emulator", "set", str(link), "--profile", str(world.profile))
    cli_path = str(world.set_prefix / "bin" / "rocjitsu")
    assert done.stdout.startswith(f"Remembered for toolchain open-gfx1030: emulator {cli_path} (rocjitsu ")
    assert f"profile {world.profile} (gfx1030)" in done.stdout
    recorded = json.loads(world.settings.read_text())
    assert recorded == {"version": 1, "toolchains": {"open-gfx1030": {"emulator": cli_path,
                                                                      "profile": str(world.profile)}}}  # fmt: skip
    assert world.settings.parent == Path(world.paths.state)  # moatbridge's state directory
    shown = _show()
    assert shown["toolchain"] == "open-gfx1030" and shown["setting"] == recorded["toolchains"]["open-gfx1030"]
    assert shown["emulator"]["found_by"] == "toolchain setting" and shown["emulator"]["cli"] == cli_path
    assert shown["profiles"] == [{"target": "gfx1030", "path": str(world.profile), "device": "AMD Radeon RX 6800",
                                  "from": "toolchain setting"}]  # fmt: skip
    text = _ok("emulator", "show").stdout
    assert "found by the toolchain setting of open-gfx1030" in text
    assert f"Profile for gfx1030: {world.profile} (AMD Radeon RX 6800; from the toolchain setting)" in text


def test_set_for_a_named_toolchain_and_the_targets_no_profile_covers(world: World) -> None:
    done = _ok("emulator", "set", "-t", "open-gfx1100", str(world.set_prefix / "bin" / "rocjitsu"))
    assert "note:" not in done.stdout  # its profiles describe gfx1100 and gfx1201
    shown = _show("-t", "open-gfx1100")
    assert [(p["target"], p["from"]) for p in shown["profiles"]] == [
        ("gfx1100", "emulator"),
        ("gfx1201", "emulator"),
    ]
    bare = _ok("emulator", "set", str(world.set_prefix))  # open-gfx1030: none of its profiles is gfx1030
    assert "note: the emulator has no GPU profile for gfx1030" in bare.stdout
    assert set(json.loads(world.settings.read_text())["toolchains"]) == {"open-gfx1030", "open-gfx1100"}


def test_a_dry_run_checks_and_writes_nothing(world: World) -> None:
    done = _ok("emulator", "set", str(world.set_prefix), "--profile", str(world.profile), "--dry-run")
    assert done.stdout.startswith("Would remember for toolchain open-gfx1030:")
    assert not world.settings.exists() and not world.paths.lock_file.exists()
    _refused("emulator", "set", "relative", "--dry-run")
    _ok("emulator", "set", str(world.set_prefix), "--profile", str(world.profile))
    before = world.settings.read_bytes()
    assert "Would forget" in _ok("emulator", "unset", "--dry-run").stdout
    assert world.settings.read_bytes() == before


def test_unset_forgets_and_says_so_when_there_was_nothing(world: World) -> None:
    _ok("emulator", "set", str(world.set_prefix), "--profile", str(world.profile))
    _ok("emulator", "set", "-t", "open-gfx1100", str(world.set_prefix))
    done = _ok("emulator", "unset")
    assert done.stdout.startswith("Forgot the emulator setting of toolchain open-gfx1030 (")
    assert set(json.loads(world.settings.read_text())["toolchains"]) == {"open-gfx1100"}
    again = _ok("emulator", "unset")
    assert again.stdout == "Toolchain open-gfx1030 has no emulator setting; nothing to forget.\n"
    _ok("emulator", "unset", "-t", "open-gfx1100")
    assert not world.settings.exists()  # nothing left to record: no file
    assert _show()["emulator"]["found_by"] == "PATH"


def test_the_order_moatbridge_emulator_setting_path(world: World) -> None:
    on_path = str(world.path_prefix / "bin" / "rocjitsu")
    assert _show()["emulator"]["cli"] == on_path
    _ok("emulator", "set", str(world.set_prefix), "--profile", str(world.profile))
    assert _show()["emulator"]["cli"] == str(world.set_prefix / "bin" / "rocjitsu")
    named = _show(env={"MOATBRIDGE_EMULATOR": str(world.named_prefix)})
    assert named["emulator"]["found_by"] == "MOATBRIDGE_EMULATOR"
    assert named["emulator"]["prefix"] == str(world.named_prefix)
    assert named["profiles"][0]["from"] == "toolchain setting"
    env_profile = world.inputs / "rx6800-env.json"
    env_profile.write_text(profile(100300, "from the environment"))
    overridden = _show(env={"MOATBRIDGE_EMULATOR_PROFILE": str(env_profile)})
    assert overridden["profiles"] == [{"target": "gfx1030", "path": str(env_profile),
                                       "device": "from the environment", "from": "MOATBRIDGE_EMULATOR_PROFILE"}]  # fmt: skip
    notes = _ok("emulator", "set", str(world.set_prefix), "--profile", str(world.profile), "--dry-run",
                env={"MOATBRIDGE_EMULATOR": str(world.named_prefix), "MOATBRIDGE_EMULATOR_PROFILE": str(env_profile)})  # fmt: skip
    assert "note: MOATBRIDGE_EMULATOR is set here" in notes.stdout
    assert "note: MOATBRIDGE_EMULATOR_PROFILE is set here" in notes.stdout


def test_the_active_toolchain_is_the_one_run_resolves(world: World) -> None:
    _ok("emulator", "set", "-t", "open-gfx1100", str(world.set_prefix))
    shown = _show(env={"MOATBRIDGE_TOOLCHAIN": "open-gfx1100"})
    assert shown["toolchain"] == "open-gfx1100" and shown["emulator"]["found_by"] == "toolchain setting"
    assert _show()["emulator"]["found_by"] == "PATH"  # the default toolchain has no setting


# Each row: its name, the arguments ({in}: the hostile inputs, {emu}: a usable emulator), and
# the words of its one sentence.
# fmt: off
HOSTILE = [
    ("relative", ("emulator", "set", "bin/rocjitsu"), "The emulator bin/rocjitsu is not an absolute path."),
    ("empty", ("emulator", "set", ""), "The emulator '' is not an absolute path."),
    ("newline", ("emulator", "set", "/opt/emu\n/bin/rocjitsu"), "holds a control character"),
    ("escape", ("emulator", "set", f"/opt/{OSC52}"), "The emulator /opt/\\x1b]52;c;ZXZpbA==\\x07 holds a control"),
    ("missing", ("emulator", "set", "{in}/nosuch/bin/rocjitsu"), "is not an executable file."),
    ("not-executable", ("emulator", "set", "{in}/not-executable"), "is not an executable file."),
    ("directory-without-cli", ("emulator", "set", "{in}"), "is not an executable file."),
    ("no-library", ("emulator", "set", "{in}/no-library/emu"), "has no librocjitsu.so beside it"),
    ("profile-relative", ("emulator", "set", "{emu}", "--profile", "gpu.json"),
     "The emulator profile gpu.json is not an absolute path."),
    ("profile-control", ("emulator", "set", "{emu}", "--profile", f"/tmp/{CLEAR}.json"), "holds a control character"),
    ("profile-missing", ("emulator", "set", "{emu}", "--profile", "{in}/nosuch.json"),
     "cannot be read: No such file or directory."),
    ("profile-fifo", ("emulator", "set", "{emu}", "--profile", "{in}/fifo.json"), "cannot be read: not a regular file."),
    ("profile-directory", ("emulator", "set", "{emu}", "--profile", "{in}"), "cannot be read: is a directory."),
    ("profile-latin1", ("emulator", "set", "{emu}", "--profile", "{in}/latin.json"), "it is not UTF-8 text"),
    ("profile-not-a-gpu", ("emulator", "set", "{emu}", "--profile", "{emu}/share/rocjitsu/configs/README.txt"),
     "does not describe a GPU"),
    ("profile-other-target", ("emulator", "set", "{emu}", "--profile", "{in}/gfx1100.json"),
     "describes gfx1100, which toolchain open-gfx1030 does not build for (its targets: gfx1030)."),
    ("nvidia-toolchain", ("emulator", "set", "-t", "scale-sm_89", "{emu}"), "builds for NVIDIA GPUs"),
    ("unknown-toolchain", ("emulator", "set", "-t", "nosuch", "{emu}"), "There is no toolchain 'nosuch'."),
    ("toolchain-escape", ("emulator", "show", "-t", f"x{CLEAR}"), "is not a usable toolchain name."),
    ("unset-unknown", ("emulator", "unset", "-t", "nosuch"), "There is no toolchain 'nosuch'."),
    ("no-action", ("emulator",), "The following arguments are required"),
    ("no-path", ("emulator", "set"), "The following arguments are required: PATH"),
]
# fmt: on


@pytest.mark.parametrize(("label", "args", "words"), HOSTILE, ids=[row[0] for row in HOSTILE])
def test_hostile_input_is_one_sentence_and_nothing_written(
    world: World, label: str, args: tuple[str, ...], words: str
) -> None:
    filled = [a.replace("{in}", str(world.inputs)).replace("{emu}", str(world.set_prefix)) for a in args]
    stderr = _refused(*filled)
    assert words in stderr, stderr
    assert not world.settings.exists() and not world.paths.lock_file.exists()


DAMAGED_SETTINGS = {
    "not-json": b"{",
    "latin1": b'{"version": 1, "toolchains": {"\xe9": 1}}',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "other-version": b'{"version": 9, "toolchains": {}}',
    "relative": json.dumps(_recorded(**{"open-gfx1030": {"emulator": "bin/rocjitsu"}})).encode(),
    "controls": json.dumps(_recorded(**{"open-gfx1030": {"emulator": f"/opt/{OSC52}"}})).encode(),
    "name": json.dumps(_recorded(**{"[red]x": {"emulator": "/opt/emu/bin/rocjitsu"}})).encode(),
    "directory": b"",
    "fifo": b"",
}


@pytest.mark.parametrize("damage", list(DAMAGED_SETTINGS))
def test_a_damaged_settings_file_is_one_sentence_never_a_traceback(world: World, damage: str) -> None:
    world.settings.parent.mkdir(parents=True, exist_ok=True)
    if damage == "directory":
        world.settings.mkdir()
    elif damage == "fifo":
        os.mkfifo(world.settings)
    else:
        world.settings.write_bytes(DAMAGED_SETTINGS[damage])
    for args in (("emulator", "show"), ("emulator", "set", str(world.set_prefix), "--profile", str(world.profile)),
                 ("emulator", "unset"), ("run", "--emulate", "--", "true")):  # fmt: skip
        stderr = _refused(*args)
        assert f"moatbridge: The emulator settings file {world.settings} cannot be used (" in stderr, stderr
    assert not world.paths.lock_file.exists()
    status = _ok("status", "--json")
    assert "The emulator settings file" in " ".join(json.loads(status.stdout)["problems"])


def test_a_setting_gone_since_is_refused_by_show_and_run(world: World) -> None:
    _ok("emulator", "set", str(world.set_prefix), "--profile", str(world.profile))
    world.profile.unlink()
    for args in (("emulator", "show"), ("run", "--emulate", "--", "true")):
        stderr = _refused(*args)
        assert (
            "The emulator profile set for toolchain open-gfx1030 (" in stderr and "cannot be read" in stderr
        )
        assert (
            "hint: moatbridge emulator set -t open-gfx1030" in stderr
            and "emulator unset -t open-gfx1030" in stderr
        )
    shutil.rmtree(world.set_prefix)
    stderr = _refused("run", "--emulate", "--", "true")
    assert (
        "The emulator set for toolchain open-gfx1030 (" in stderr and "is not an executable file." in stderr
    )
    doctor = json.loads(cli("doctor", "--json").stdout)
    (check,) = [c for c in doctor["checks"] if c["id"] == "emulator"]
    assert check["status"] == "warn" and check["detail"].startswith(
        "The emulator set for toolchain open-gfx1030"
    )
    assert check["fix"].startswith("moatbridge emulator set -t open-gfx1030")
    status = json.loads(_ok("status", "--json").stdout)
    assert status["emulator"] is None and status["emulator_setting"]["toolchain"] == "open-gfx1030"
    assert any(p.startswith("The emulator set for toolchain open-gfx1030") for p in status["problems"])
    _ok("emulator", "unset")  # the way out: forgotten, the emulator on PATH is found again
    assert _show()["emulator"]["found_by"] == "PATH"


def test_status_and_doctor_say_the_setting_found_the_emulator(world: World) -> None:
    _ok("emulator", "set", str(world.set_prefix), "--profile", str(world.profile))
    status = json.loads(_ok("status", "--json").stdout)
    cli_path = str(world.set_prefix / "bin" / "rocjitsu")
    assert status["emulator"]["found_by"] == "toolchain setting" and status["emulator"]["cli"] == cli_path
    assert status["emulator_setting"] == {"toolchain": "open-gfx1030", "emulator": cli_path,
                                          "profile": str(world.profile)}  # fmt: skip
    text = _ok("status", env={"COLUMNS": "300"}).stdout
    assert f"({cli_path}, found by the toolchain setting of open-gfx1030)" in text
    doctor = json.loads(cli("doctor", "--json").stdout)
    (check,) = [c for c in doctor["checks"] if c["id"] == "emulator"]
    assert check["status"] == "pass" and "found by the toolchain setting of open-gfx1030" in check["detail"]
    other = json.loads(_ok("status", "--json", env={"MOATBRIDGE_TOOLCHAIN": "open-gfx1100"}).stdout)
    assert other["emulator"]["found_by"] == "PATH" and other["emulator_setting"] is None


def test_uninstall_drops_the_toolchains_setting(world: World) -> None:
    _ok("emulator", "set", str(world.set_prefix), "--profile", str(world.profile))
    _ok("emulator", "set", "-t", "open-gfx1100", str(world.set_prefix))
    dry = _ok("uninstall", "open-gfx1100", "--keep-images", "--dry-run")
    assert "Would remove emulator setting of open-gfx1100" in dry.stdout
    assert set(json.loads(world.settings.read_text())["toolchains"]) == {"open-gfx1030", "open-gfx1100"}
    done = _ok("uninstall", "open-gfx1100", "--keep-images")
    assert "Removed emulator setting of open-gfx1100" in done.stdout
    assert set(json.loads(world.settings.read_text())["toolchains"]) == {"open-gfx1030"}
    _ok("uninstall", "--all", "--keep-images")
    assert not world.settings.exists()


def test_uninstall_leaves_a_damaged_settings_file_and_says_so(world: World) -> None:
    world.settings.parent.mkdir(parents=True)
    world.settings.write_bytes(b"{")
    result = cli("uninstall", "open-gfx1100", "--keep-images")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"left as it is: The emulator settings file {world.settings} cannot be used" in result.stderr
    assert world.settings.read_bytes() == b"{"


# --- run --emulate and mbrun --emulate take the setting (the engine is a stand-in) ---------------


def test_run_and_mbrun_emulate_under_the_toolchains_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the runner hands the engine: the setting's prefix mounted, its CLI running the
    command with the setting's profile; MOATBRIDGE_EMULATOR still comes first."""
    home, mbhome = user_home(tmp_path, monkeypatch)
    install_toolchain(home, mbhome)
    chosen = standin_emulator(tmp_path / "chosen emulator")
    on_path = standin_emulator(tmp_path / "on-path")
    mine = tmp_path / "rx6800.json"
    mine.write_text(profile(100300, "AMD Radeon RX 6800"))
    log = tmp_path / "docker.args"
    env = home_env(home, mbhome, PATH=f"{mbhome}/cuda/bin:{fake_docker(tmp_path)}:{on_path.parent}:{BASE_PATH}",
                   DOCKER_LOG=str(log))  # fmt: skip
    work = tmp_path / "work"
    work.mkdir()

    def run(*argv: str, **extra: str) -> list[str]:
        log.unlink(missing_ok=True)
        result = subprocess.run(list(argv), env={**env, **extra}, cwd=work, capture_output=True, text=True,
                                stdin=subprocess.DEVNULL, timeout=120)  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert result.stderr.startswith("moatbridge: the GPU is emulated: gfx1030, AMD Radeon RX 6800"), (
            result.stderr
        )
        return [word.decode() for word in log.read_bytes().split(b"\0")[:-1]]

    setting = subprocess.run(["moatbridge", "emulator", "set", str(chosen), "--profile", str(mine)],
                             env=env, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert setting.returncode == 0, setting.stderr
    for argv in (("moatbridge", "run", "--emulate", "--", "true"), ("mbrun", "--emulate", "true")):
        words = run(*argv)
        prefix = str(tmp_path / "chosen emulator")
        assert f'type=bind,"source={prefix}",target=/opt/moatbridge/emulator,readonly' in words, words
        assert f'type=bind,"source={mine}",target={PROFILE_MOUNT},readonly' in words, words
        assert words[-5:] == [
            "/opt/moatbridge/emulator/bin/rocjitsu",
            "--config",
            PROFILE_MOUNT,
            "--",
            "true",
        ]
    named = run("moatbridge", "run", "--emulate", "--", "true", MOATBRIDGE_EMULATOR=str(on_path))
    assert f'type=bind,"source={on_path.parent.parent}",target=/opt/moatbridge/emulator,readonly' in named
