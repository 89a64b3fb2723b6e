"""The wizard on a real pseudo-terminal, with the answers remembered from the last setup: they
preselect a question's choice, and the line above it names the remembered answers file; Enter
takes it. For another toolchain the stack's auto-choice stands: the remembered stack is not
preselected, and the line explains the auto-choice; an existing toolchain's own record is
preselected over them. Every setup here is a --dry-run."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from moatbridge.core.toolchains import State

from support.environ import home_with_answers
from support.pty_session import PtySession
from support.toolchains import make_toolchain

pytestmark = pytest.mark.engine  # the dry run's summary asks the engine what it holds

ENTER = "\r"
# What `setup --flavour open --target gfx1100 --distro sid --cuda-version 12.1` saves.
REMEMBERED = "flavour: open\ndistro: sid\ntargets: [gfx1100]\ncuda-version: '12.1'\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return home_with_answers(tmp_path / "home", monkeypatch, REMEMBERED)


def remembered(home: Path) -> Path:
    return home / ".local" / "share" / "moatbridge" / "answers.yaml"


def files(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def wizard_to_the_stack(product: str, target: str) -> PtySession:
    """`setup --dry-run` on a pty: the open flavour, then ``target``, typed as a product's
    name into the picker's filter; it waits at the stack question."""
    env = dict(os.environ, COLUMNS="120", LINES="40", PROMPT_TOOLKIT_NO_CPR="1")
    term = PtySession([sys.executable, "-m", "moatbridge", "setup", "--dry-run"], env, rows=40, columns=120)
    term.wait_for("Flavour:", 30)
    term.send(ENTER)  # open: the remembered flavour, and the default
    term.wait_for("Targets to build for", 30)
    term.send(product)
    term.wait_for(f"Enter chooses: {target} ", 30)
    term.send(ENTER)
    term.wait_for("? Stack:", 30)
    term.goes_quiet(0.5, 10)  # its choices drawn
    return term


def through_the_rest(term: PtySession) -> str:
    """Enter on the CUDA version, the shells and the rc question; the screen from the stack's
    answer on, once the dry run ended (exit 0)."""
    term.wait_for("CUDA version to mimic", 30)
    term.wait_for("13.0  (for code written for CUDA 13", 30)  # each version says who it is for
    term.send(ENTER)
    term.wait_for("Shells to set up", 30)
    term.send(ENTER)
    term.wait_for("Add moatbridge to their rc files?", 30)
    term.send(ENTER)
    assert term.finish(120) == 0, term.screen[-3000:]
    assert "Dry run: nothing changed." in term.screen and "Traceback" not in term.screen
    return term.screen


def test_the_remembered_stack_is_preselected_and_its_file_named(home: Path) -> None:
    before = files(home)
    with wizard_to_the_stack(
        "rx 7900", "gfx1100"
    ) as term:  # gfx1100: the toolchain the answers were saved by
        said = term.screen[term.screen.index("Stack: ") :]
        assert said.startswith("Stack: trixie (ROCm 5.7, clang 17): the oldest stable stack"), said
        assert f"  Preselected: sid, remembered from the last setup ({remembered(home)})." in said
        assert "» sid (ROCm 6.4, clang 21, preview)" in said  # the highlighted choice
        term.send(ENTER)
        term.wait_for("? Stack: sid (ROCm 6.4, clang 21, preview)", 30)  # Enter took it
        term.wait_for(f"  Preselected: CUDA 12.1, remembered from the last setup ({remembered(home)}).", 30)
        screen = through_the_rest(term)
    assert "Toolchain open-gfx1100: open devel, target(s) gfx1100, CUDA 12.1" in screen
    assert "stack   sid (ROCm 6.4, clang 21, preview), chosen in the wizard" in screen
    assert files(home) == before


def test_another_toolchain_keeps_the_stacks_auto_choice(home: Path) -> None:
    before = files(home)
    with wizard_to_the_stack("rx 6800 xt", "gfx1030") as term:  # gfx1030: another toolchain than the last one
        said = term.screen[term.screen.index("Stack: ") :]
        assert said.startswith(
            "Stack: trixie (ROCm 5.7, clang 17): the oldest stable stack, and it serves gfx1030"
        ), said
        assert "remembered" not in said and "Preselected" not in said
        assert "» trixie (ROCm 5.7, clang 17)" in said
        term.send(ENTER)
        term.wait_for("? Stack: trixie (ROCm 5.7, clang 17)", 30)
        screen = through_the_rest(term)
    plan = screen[screen.index("Toolchain open-gfx1030: open devel, target(s) gfx1030") :]
    assert "stack   trixie (ROCm 5.7, clang 17), chosen in the wizard" in plan
    assert "-devel-trixie-gfx1030" in plan and "sid" not in plan
    assert files(home) == before


def test_an_existing_toolchain_preselects_its_record_not_the_remembered_answers(home: Path) -> None:
    """Toolchain open-gfx1100 is on trixie with CUDA 12.4; the remembered answers say sid and
    12.1. Enter through the wizard sets it up as it is: nothing changes."""
    toolchain = make_toolchain(
        "open-gfx1100", "open", "devel", ("gfx1100",), "12.4", "moatbridge/open:12.4-devel-trixie-gfx1100",
        "sha256:" + "1" * 64, "open-components", distro="trixie",
    )  # fmt: skip
    state = State(default=toolchain.name, toolchains=(toolchain,))
    (home / ".local" / "share" / "moatbridge" / "state.json").write_text(json.dumps(state.to_json()))
    before = files(home)
    with wizard_to_the_stack("rx 7900", "gfx1100") as term:
        said = term.screen[term.screen.index("Stack: ") :]
        assert "  Preselected: trixie, kept from toolchain open-gfx1100's record." in said, said
        assert "» trixie (ROCm 5.7, clang 17)" in said and "remembered" not in said
        term.send(ENTER)
        term.wait_for("? Stack: trixie (ROCm 5.7, clang 17)", 30)
        term.wait_for("  Preselected: CUDA 12.4, kept from toolchain open-gfx1100's record.", 30)
        screen = through_the_rest(term)
    plan = screen[screen.index("Toolchain open-gfx1100: open devel, target(s) gfx1100, CUDA 12.4") :]
    assert "stack   trixie (ROCm 5.7, clang 17)" in plan and "change  " not in plan
    assert files(home) == before
