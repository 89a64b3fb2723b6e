"""Finding a GPU emulator and choosing its profile (core/emulator.py, adapters/emulator_files.py),
and `run --emulate[=GFX]` on the command line. The emulator here is a stand-in with the real
one's layout and profile fields (tests/support/standin_emulator.py); the real runs are
recorded in docs/compat/run.md."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from moatbridge.adapters.emulator_files import find_emulator, require_emulator
from moatbridge.core.emulator import (
    EMULATOR_MOUNT,
    PROFILE_MOUNT,
    Emulator,
    Profile,
    choose_profile,
    emulated_argv,
    emulated_gfx,
    parse_profile,
    parse_version,
    prefix_for,
)
from moatbridge.errors import InputError
from moatbridge.parser import build_parser, emulate_words

from support.standin_emulator import profile, standin_emulator

# --- profiles ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "gfx"), [(110000, "gfx1100"), (120001, "gfx1201"), (90402, "gfx942"), (90010, "gfx90a")]
)
def test_a_profile_names_the_gfx_its_device_reports(version: int, gfx: str) -> None:
    assert parse_profile(profile(version, "A GPU")) == (gfx, "A GPU")


@pytest.mark.parametrize(
    "text",
    [
        "", "[]", "{", "null", json.dumps({"vm": {"gpu": {"device": {}}}}),
        json.dumps({"vm": {"gpu": {"device": {"gfx_target_version": "110000"}}}}),
        json.dumps({"vm": {"gpu": {"device": {"gfx_target_version": True}}}}),
        json.dumps({"vm": {"gpu": {"device": {"gfx_target_version": 0}}}}),
        json.dumps({"vm": "rdna3"}), json.dumps({"vm": {"gpu": []}}),
        json.dumps({"dbt_guest": {"guest_isa": "gfx950"}, "vm": {"gpu": {"device": {"gfx_target_version": 90500}}}}),
    ],
)  # fmt: skip
def test_text_that_is_not_a_gpu_profile_is_none(text: str) -> None:
    assert parse_profile(text) is None


def test_a_device_name_with_terminal_controls_is_shown_escaped() -> None:
    gfx, name = parse_profile(profile(110000, "W7900\x1b]52;c;cGF3bmVk\x07")) or ("", "")
    assert gfx == "gfx1100" and "\x1b" not in name and "\x07" not in name


def test_the_version_is_read_from_the_clis_own_words() -> None:
    assert parse_version("rocjitsu 0.2.0\n") == "0.2.0"
    assert parse_version("mirage 7.15.0~20260630\n") == "7.15.0~20260630"
    assert parse_version("Segmentation fault\n") is None


# --- where the library is, as the real CLI looks for it ---------------------------------------


@pytest.mark.parametrize(
    ("library", "prefix"),
    [
        ("/opt/emu/lib/librocjitsu.so", "/opt/emu"),
        ("/opt/emu/lib64/librocjitsu.so", "/opt/emu"),
        ("/src/build/librocjitsu.so", "/src/build"),  # a CMake build tree: tools/rocjitsu/rocjitsu
    ],
)
def test_the_prefix_holds_the_cli_and_its_library(library: str, prefix: str) -> None:
    cli = "/src/build/tools/rocjitsu/rocjitsu" if library.startswith("/src") else "/opt/emu/bin/rocjitsu"
    assert prefix_for(cli, [library]) == prefix
    assert prefix_for(cli, []) is None


def _emulator(*profiles: Profile) -> Emulator:
    return Emulator("/opt/emu/bin/rocjitsu", "/opt/emu", "PATH", "0.2.0", profiles)


W7900 = Profile("share/rocjitsu/configs/gfx1100_w7900.json", "gfx1100", "AMD Radeon Pro W7900")


def test_the_command_runs_under_the_cli_with_the_profile_as_the_container_sees_them() -> None:
    argv = emulated_argv(_emulator(W7900), W7900, ["./vadd", "--n", "16"])
    assert argv == [
        f"{EMULATOR_MOUNT}/bin/rocjitsu", "--config",
        f"{EMULATOR_MOUNT}/share/rocjitsu/configs/gfx1100_w7900.json", "--", "./vadd", "--n", "16",
    ]  # fmt: skip
    given = Profile("/home/u/rx6800.json", "gfx1030", "")
    assert emulated_argv(_emulator(given), given, ["x"])[2] == PROFILE_MOUNT


def test_a_profile_given_by_path_comes_before_the_emulators_own() -> None:
    given = Profile("/home/u/my-w7900.json", "gfx1100", "")
    assert choose_profile(_emulator(W7900, given), "gfx1100", "t") == given


def test_no_profile_for_the_target_is_one_sentence_naming_those_there_are() -> None:
    with pytest.raises(InputError) as caught:
        choose_profile(_emulator(W7900), "gfx1030", "open-gfx1030")
    assert "no GPU profile for gfx1030" in caught.value.message and "gfx1100" in caught.value.message
    assert "MOATBRIDGE_EMULATOR_PROFILE" in (caught.value.hint or "")


def test_the_gpu_emulated_is_the_toolchains_only_target_or_the_one_asked() -> None:
    assert emulated_gfx(None, ("gfx1100",), "t") == "gfx1100"
    assert emulated_gfx("gfx1201", ("gfx1100", "gfx1201"), "t") == "gfx1201"
    for asked, targets in ((None, ("gfx1100", "gfx1201")), ("gfx1030", ("gfx1100",)), ("sm_89", ()),
                           ("gfx1100\n", ("gfx1100",)), ("../x", ("gfx1100",))):  # fmt: skip
        with pytest.raises(InputError):
            emulated_gfx(asked, targets, "t")


# --- finding it on this machine -----------------------------------------------------------------


def test_moatbridge_emulator_names_the_cli_or_its_prefix(tmp_path: Path) -> None:
    cli = standin_emulator(tmp_path / "emu")
    for named in (str(cli), str(tmp_path / "emu")):
        found = find_emulator({"MOATBRIDGE_EMULATOR": named, "PATH": ""})
        assert found is not None and found.cli == str(cli) and found.prefix == str(tmp_path / "emu")
        assert found.found_by == "MOATBRIDGE_EMULATOR" and found.version == "0.2.0-standin"
        assert found.targets == ("gfx1100", "gfx1201", "gfx942"), found.profiles  # not the guest profile


def test_an_emulator_on_path_is_found_through_a_link(tmp_path: Path) -> None:
    cli = standin_emulator(tmp_path / "emu")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "rocjitsu").symlink_to(cli)
    found = find_emulator({"PATH": str(tmp_path / "bin")})
    assert found is not None and found.cli == str(cli) and found.found_by == "PATH"


def test_amds_install_directories_are_searched_newest_first(tmp_path: Path) -> None:
    for version in ("7.15", "10.0"):
        standin_emulator(tmp_path / "opt" / "rocm" / f"core-{version}", cli="mirage")
    found = find_emulator({"PATH": ""}, root=str(tmp_path))
    assert found is not None and found.cli == str(tmp_path / "opt/rocm/core-10.0/bin/mirage"), found


def test_a_cli_without_its_library_is_not_an_emulator(tmp_path: Path) -> None:
    cli = standin_emulator(tmp_path / "emu")
    (tmp_path / "emu" / "lib" / "librocjitsu.so").unlink()
    assert find_emulator({"PATH": str(cli.parent)}) is None
    with pytest.raises(InputError) as caught:
        find_emulator({"MOATBRIDGE_EMULATOR": str(cli)})
    assert "no librocjitsu.so beside it" in caught.value.message


@pytest.mark.parametrize("named", ["relative/rocjitsu", "/nonexistent/rocjitsu", "/etc/hostname", "/tmp"])
def test_a_named_emulator_that_cannot_be_used_is_one_sentence(named: str) -> None:
    with pytest.raises(InputError) as caught:
        find_emulator({"MOATBRIDGE_EMULATOR": named, "PATH": ""})
    assert caught.value.message.startswith("MOATBRIDGE_EMULATOR=") and "\n" not in caught.value.message


def test_no_emulator_says_where_to_get_one(tmp_path: Path) -> None:
    (tmp_path / "opt" / "rocm" / "bin").mkdir(parents=True)
    with pytest.raises(InputError) as caught:
        require_emulator({"PATH": ""}, root=str(tmp_path))
    assert "No GPU emulator was found" in caught.value.message
    assert "rocjitsu" in (caught.value.hint or "") and "MOATBRIDGE_EMULATOR" in (caught.value.hint or "")


def test_a_given_profile_must_describe_a_gpu(tmp_path: Path) -> None:
    cli = standin_emulator(tmp_path / "emu")
    mine = tmp_path / "rx6800.json"
    mine.write_text(profile(100300, "RX 6800 XT"))
    found = find_emulator({"MOATBRIDGE_EMULATOR": str(cli), "MOATBRIDGE_EMULATOR_PROFILE": str(mine)})
    assert found is not None and found.profiles[0] == Profile(str(mine), "gfx1030", "RX 6800 XT")
    for bad in (
        tmp_path / "none.json",
        tmp_path,
        tmp_path / "emu" / "share" / "rocjitsu" / "configs" / "README.txt",
    ):
        with pytest.raises(InputError):
            find_emulator({"MOATBRIDGE_EMULATOR": str(cli), "MOATBRIDGE_EMULATOR_PROFILE": str(bad)})
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # never opened blocking: the read would wait for a writer
    with pytest.raises(InputError):
        find_emulator({"MOATBRIDGE_EMULATOR": str(cli), "MOATBRIDGE_EMULATOR_PROFILE": str(fifo)})


# --- the command line -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "emulate", "gfx", "command"),
    [
        (["run", "--emulate", "./vadd", "--emulate=x"], True, None, ["./vadd", "--emulate=x"]),
        (["run", "--emulate=gfx1201", "./vadd"], True, "gfx1201", ["./vadd"]),
        (["run", "-t", "x", "--emulate", "--", "./vadd"], True, None, ["--", "./vadd"]),
        (["run", "./vadd", "--emulate"], False, None, ["./vadd", "--emulate"]),  # the program's own
        (["run", "--", "--emulate=gfx1100"], False, None, ["--", "--emulate=gfx1100"]),
    ],
)
def test_emulate_is_runs_own_option_never_the_commands(
    words: list[str], emulate: bool, gfx: str | None, command: list[str]
) -> None:
    args = build_parser().parse_args(emulate_words(words))
    assert (args.emulate, args.emulate_as, args.command_args) == (emulate, gfx, command)
