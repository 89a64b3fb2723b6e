"""Licence records, consent, toolchain state: pure rules plus the locked, atomic store."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
from pathlib import Path

import pytest

from moatbridge.adapters.records import default_licences_dir, load_licences
from moatbridge.adapters.statestore import StateBusy, StateStore
from moatbridge.core.licences import (
    Consent,
    LicenceError,
    check_use,
    consent_status,
    licence_of,
    parse_consent,
    render_consent,
)
from moatbridge.core.pins import find_pin
from moatbridge.core.toolchains import State, Toolchain, validate_name
from moatbridge.errors import InputError

from conftest import cli
from support.toolchains import make_toolchain


def test_shipped_licence_records() -> None:
    records = load_licences()
    assert set(records) == {"scale-free", "scale-commercial", "open-components"}
    free = records["scale-free"]
    assert free.acceptance_required and free.allowed_use == ("non-commercial",)
    assert "non-commercial" in free.summary
    assert not records["open-components"].acceptance_required
    # Each catalog flavour names a licence that exists.
    from moatbridge.adapters.records import load_catalog

    for flavour in load_catalog().flavours:
        assert flavour.licence in records


def test_consent_lifecycle(tmp_path: Path) -> None:
    free = load_licences()["scale-free"]
    assert consent_status(free, None) == "missing"
    consent = Consent("scale-free", free.terms_hash(), "non-commercial", "2026-11-29T00:00:00+00:00", "alice")
    assert consent_status(free, consent) == "accepted"
    assert parse_consent("scale-free", render_consent(consent).encode()) == consent
    # Any change of the shipped record (a new terms version, a reworded summary) asks again.
    records = tmp_path / "licenses"
    shutil.copytree(default_licences_dir(), records)
    edited = records / "scale-free.yaml"
    edited.write_bytes(edited.read_bytes().replace(b'terms_version: "2026"', b'terms_version: "2027"'))
    assert consent_status(load_licences(records)["scale-free"], consent) == "outdated"
    assert consent_status(load_licences()["open-components"], None) == "not-required"


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\n",
        b"x" * 64,
        b"A" * 64 + b"\n",
        b" " + b"a" * 64,
        b"a" * 63,
        b"a" * 64 + b"\r\n",
        b"\xff" * 64,
    ],
)
def test_damaged_consent_files_record_no_consent(content: bytes) -> None:
    assert parse_consent("scale-free", content) is None


def test_a_toolchain_licence_must_cover_its_flavour() -> None:
    records = load_licences()
    assert licence_of(records, "scale-free", "scale").id == "scale-free"
    for licence_id, flavour in (("open-components", "scale"), ("scale-free", "open"), ("nope", "open")):
        with pytest.raises(LicenceError, match="is not covered by a licence"):
            licence_of(records, licence_id, flavour)


def test_free_licence_refuses_commercial_use() -> None:
    with pytest.raises(LicenceError, match="does not allow commercial use") as caught:
        check_use(load_licences()["scale-free"], "commercial")
    assert "open flavour" in (caught.value.hint or "")


@pytest.mark.parametrize(
    "name", ["open/x", "..", "a..b", "Open", "x y", "a;rm -rf", "-x", "", "a" * 64, "$(id)"]
)
def test_bad_toolchain_names(name: str) -> None:
    with pytest.raises(InputError, match="is not a usable toolchain name"):
        validate_name(name)


def _toolchain(name: str) -> Toolchain:
    return make_toolchain(
        name, "open", "devel", ("gfx1030",), "11.8", f"moatbridge/open:{name}", "sha256:x", "open-components"
    )


def test_state_transitions_and_json_round_trip() -> None:
    state = State().with_toolchain(_toolchain("open-gfx1030"), make_default=False)
    assert state.default == "open-gfx1030"  # the first one becomes the default
    state = state.with_toolchain(_toolchain("open-gfx1100"), make_default=False)
    assert state.default == "open-gfx1030"
    state = state.with_file("/h/.bashrc", "rc-block", created=False).with_file(
        "/h/.bashrc", "rc-block", False
    )
    assert len(state.files) == 1
    again = State.from_json(json.loads(json.dumps(state.to_json())))
    assert again == state
    state = state.without_toolchain("open-gfx1030")
    assert state.default == "open-gfx1100"
    with pytest.raises(InputError, match="There is no toolchain 'nope'"):
        state.toolchain("nope")


def test_pin_file_is_found_walking_up(tmp_path: Path) -> None:
    (tmp_path / "project" / "src" / "deep").mkdir(parents=True)
    (tmp_path / "project" / ".moatbridge-toolchain").write_text("open-gfx1100\n")
    found = find_pin(
        str(tmp_path / "project" / "src" / "deep"), os.path.exists, lambda p: Path(p).read_bytes()
    )
    assert found == (str(tmp_path / "project" / ".moatbridge-toolchain"), "open-gfx1100")
    (tmp_path / "project" / ".moatbridge-toolchain").write_text("../../etc\n")
    with pytest.raises(InputError):
        find_pin(str(tmp_path / "project"), os.path.exists, lambda p: Path(p).read_bytes())


def test_store_is_atomic_and_sets_damaged_files_aside(tmp_path: Path) -> None:
    store = StateStore(tmp_path / "state.json")
    assert store.read() == State()
    store.update(lambda s: s.with_toolchain(_toolchain("open-gfx1030"), True))
    assert store.read().default == "open-gfx1030"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".state.json.")] == []  # no temp left
    damaged = b'{"version": 1, "toolchains": [{"broken": true}]}'
    (tmp_path / "state.json").write_bytes(damaged)
    assert store.read() == State()  # read-only: says so, changes nothing
    assert (tmp_path / "state.json").read_bytes() == damaged
    assert [p.name for p in tmp_path.glob("state.json.*")] == ["state.json.lock"]
    # Each change sets the unusable file aside under a new name: no backup is overwritten.
    for count in (1, 2):
        (tmp_path / "state.json").write_bytes(damaged + b" " * count)
        store.update(lambda s: s.with_toolchain(_toolchain("open-gfx1100"), True))
        backups = sorted(tmp_path.glob("state.json.unreadable-*"))
        assert [b.read_bytes() for b in backups] == [damaged + b" " * n for n in range(1, count + 1)]
    assert store.read().default == "open-gfx1100"


def test_read_only_commands_warn_about_an_unusable_state_and_change_nothing(tmp_path: Path) -> None:
    home = Path(os.environ["MOATBRIDGE_HOME"])
    home.mkdir(parents=True)
    (home / "state.json").write_bytes(b"\xff{not json")
    for argv in (["list"], ["list", "--json"]):
        result = cli(*argv)
        assert result.returncode == 0, result.stderr
        assert f"warning: the state file {home / 'state.json'} cannot be used" in result.stderr
        assert sorted(p.name for p in home.iterdir()) == ["state.json"]


def _hold_lock(
    path: str, ready: multiprocessing.synchronize.Event, release: multiprocessing.synchronize.Event
) -> None:
    with StateStore(Path(path)).locked():
        ready.set()
        release.wait(20)


def test_a_second_writer_waits_then_fails_cleanly(tmp_path: Path) -> None:
    ready, release = multiprocessing.Event(), multiprocessing.Event()
    holder = multiprocessing.Process(target=_hold_lock, args=(str(tmp_path / "state.json"), ready, release))
    holder.start()
    try:
        assert ready.wait(20)
        with pytest.raises(StateBusy, match="Another moatbridge command is changing"):
            StateStore(tmp_path / "state.json", lock_timeout=0.5).update(lambda s: s)
    finally:
        release.set()
        holder.join(20)
    StateStore(tmp_path / "state.json", lock_timeout=5).update(lambda s: s)  # free again
