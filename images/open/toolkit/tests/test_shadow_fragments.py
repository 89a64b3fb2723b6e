"""The shadows' C++ fragments and probe programs: each is one the generator loads, and each
opens with the description the loader strips."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from cudacompat.generate import shadows

FRAGMENTS = Path(shadows.__file__).parent / "fragments"


def test_there_are_fragments() -> None:
    assert len(list(FRAGMENTS.rglob("*.*"))) >= 10


@pytest.mark.parametrize("path", sorted(FRAGMENTS.rglob("*.*")), ids=lambda p: p.name)
def test_each_fragment_is_loaded_and_described(path: Path) -> None:
    name = path.relative_to(FRAGMENTS).as_posix()
    assert f'_fragment("{name}")' in inspect.getsource(shadows), f"{name} is loaded by nothing"
    assert path.read_text(encoding="utf-8").startswith("/* fragment: ")


def test_a_fragment_without_its_description_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bare.h").write_text("int x;\n")
    monkeypatch.setattr(shadows, "_FRAGMENTS", tmp_path)
    with pytest.raises(ValueError, match="description"):
        shadows._fragment("bare.h")
