"""This process's environment for a moatbridge run in a test's own world.

A test strips the developer's MOATBRIDGE_*/XDG_* variables so that its subprocess sees only
the home it builds, but it keeps the test's own registry of homes (set by conftest): without
it a home would be registered in the account's real registry, outliving the test.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from moatbridge.paths import Paths

KEPT = ("MOATBRIDGE_HOMES_DIR",)


def environ_without(*prefixes: str) -> dict[str, str]:
    """os.environ less every variable starting with one of ``prefixes``, except those in KEPT."""
    return {k: v for k, v in os.environ.items() if k in KEPT or not k.startswith(prefixes)}


def strip_environ(monkeypatch: object, *prefixes: str) -> None:
    """The same, applied to this process's environment through ``monkeypatch``."""
    for name in [n for n in os.environ if n not in KEPT and n.startswith(prefixes)]:
        monkeypatch.delenv(name)  # type: ignore[attr-defined]


def paths_for(mbhome: object) -> Paths:
    """The Paths of the moatbridge home ``mbhome``, registered in the test's own registry."""
    return Paths.from_environ(
        {"MOATBRIDGE_HOME": str(mbhome), **{k: os.environ[k] for k in KEPT if k in os.environ}}
    )


def home_with_answers(home: Path, monkeypatch: Any, answers: str) -> Path:
    """``home`` made the HOME of this process (a bash user's, with an rc file of their own and
    no moatbridge or XDG directories set) where setup remembered ``answers`` (answers.yaml)."""
    data = home / ".local" / "share" / "moatbridge"
    data.mkdir(parents=True)
    (home / ".bashrc").write_text("# mine\n")
    for key in ("MOATBRIDGE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "ZDOTDIR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/bash")
    (data / "answers.yaml").write_text(answers)
    return home
