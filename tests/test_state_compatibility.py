"""A state file written by the first release of state format 1 is read by today's code.

The fixture was written by that release's own ``State.to_json`` (an open toolchain on sid,
a commercial SCALE toolchain from a customer repository whose URL carried a masked token,
one from a vendor tarball and one pulled before sources were recorded). Reading it must
keep every field, and writing it again must keep every value it had: a newer writer may
add keys, never change or drop one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from moatbridge.adapters.statestore import StateStore
from moatbridge.core.toolchains import State

FIXTURE = Path(__file__).parent / "fixtures" / "state-version-1.json"


def _kept(old: Any, new: Any, where: str = "state") -> list[str]:
    """Where a value of ``old`` is missing from or different in ``new``."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [
            p for key, value in old.items() for p in _kept(value, new.get(key, KeyError), f"{where}.{key}")
        ]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            p for i, (a, b) in enumerate(zip(old, new, strict=True)) for p in _kept(a, b, f"{where}[{i}]")
        ]
    return [] if old == new else [f"{where}: {old!r} became {new!r}"]


def test_every_field_of_a_format_1_state_is_read() -> None:
    state = State.from_json(json.loads(FIXTURE.read_text()))
    assert state.default == "open-gfx1030"
    by_name = {t.name: t for t in state.toolchains}
    assert list(by_name) == ["open-gfx1030", "scale-work", "scale-tar", "pulled"]
    sid = by_name["open-gfx1030"]
    assert (sid.flavour, sid.spec.variant, sid.targets, sid.spec.distro) == (
        "open", "devel", ("gfx1030", "gfx1100"), "sid",
    )  # fmt: skip
    assert sid.tools == ("nvcc", "cmake")
    assert sid.spec.source.base_image == "moatbridge/debian-base:sid"
    work = by_name["scale-work"].spec.source
    assert (work.customer, work.credentials_file) == ("acme", "/home/u/.config/scale/creds")
    assert (work.repo_url, work.repo_url_secret) == ("https://user:***@repo.example.com/scale", True)
    assert work.build_args == ("SCALE_VERSION=1.7.2",)
    tar = by_name["scale-tar"].spec.source
    assert (tar.channel, tar.tarball, tar.tarball_sha256) == ("tarball", "scale-1.7.2.tar.xz", "a" * 64)
    assert by_name["pulled"].digest == "sha256:" + "5" * 64
    assert state.files == ({"path": "/home/u/.bashrc", "kind": "rc", "created": False},)


def test_writing_a_format_1_state_again_keeps_every_value(tmp_path: Path) -> None:
    old = json.loads(FIXTURE.read_text())
    store = StateStore(tmp_path / "state.json")
    store.write(State.from_json(old))
    new = json.loads((tmp_path / "state.json").read_text())
    # A toolchain recorded before sources were: its source is written as what it reads as.
    assert old["toolchains"][3]["source"] is None
    old["toolchains"][3]["source"] = new["toolchains"][3]["source"]
    assert _kept(old, new) == []
    assert State.from_json(new) == State.from_json(json.loads(json.dumps(new)))
    assert store.read() == State.from_json(json.loads(FIXTURE.read_text()))
