"""The setup wizard's target picker: product names, families, served targets first,
compile-only ones marked, this machine's GPU preselected, typing a product name filters.

The pure part (core/target_choices.py) against the real catalog; the prompt on a real
pseudo-terminal, run by a new non-root account in the `docker` group, with the machine's
/sys replaced (in a private mount namespace) by a composed one with or without a GPU.
Nothing here uses the container engine: each wizard is stopped with Ctrl-C once the
answer shows, before setup asks the engine anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from moatbridge.adapters.picker import PickerState, PickItem, lines
from moatbridge.adapters.records import load_catalog
from moatbridge.core.gfx import family_of
from moatbridge.core.names import GFX_PRODUCTS
from moatbridge.core.target_choices import (
    COMPILE_ONLY,
    FAMILY_ORDER,
    THIS_MACHINE,
    TargetMenu,
    stacks_for,
    target_menu,
)

from fixtures import machines
from support.docker_user import DockerUser
from support.pty_session import PtySession

TAB, ENTER, CTRL_U = "\t", "\r", "\x15"


def _open_menu(**kwargs: object) -> TargetMenu:
    return target_menu(load_catalog().flavour("open").distros, **kwargs)  # type: ignore[arg-type]


# --- the choice list (pure) ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "targets"),
    [
        ("7900", ["gfx1100"]),
        ("9070", ["gfx1201"]),
        ("MI210", ["gfx90a"]),
        ("mi300x", ["gfx942"]),  # any case
        ("Radeon VII", ["gfx906"]),
        ("Steam Deck", ["gfx1033"]),
        ("gfx1030", ["gfx1030"]),
        ("rx 7900", ["gfx1100"]),  # a product name with its space
        ("RX7900", ["gfx1100"]),  # or without it
        ("7900 radeon", ["gfx1100"]),  # words in any order
        ("Radeon RX 7900 XTX", ["gfx1100"]),
        ("  mi210  ", ["gfx90a"]),
        ("no such gpu", []),  # nothing matches: nothing is left (not every line again)
    ],
)
def test_typing_a_product_name_leaves_its_target(typed: str, targets: list[str]) -> None:
    assert [c.target for c in _open_menu().search(typed)] == targets


def _picker(menu: TargetMenu) -> PickerState:
    """The prompt's own state, filtered by the menu's search exactly as the wizard wires it."""
    items = [PickItem(c.target, c.label, c.note, c.checked) for c in menu.choices]
    return PickerState(tuple(items), lambda text: [c.target for c in menu.search(text)])


def test_the_picker_filters_with_the_menus_search_spaces_included() -> None:
    state = _picker(_open_menu())
    assert len(state.visible()) == len(_open_menu().choices)
    for key in "rx 7900":
        state.space() if key == " " else state.type(key)  # Space once a filter is typed: text
    assert state.query == "rx 7900" and [i.value for i in state.visible()] == ["gfx1100"]
    assert state.toggled == [] and state.answer() == ["gfx1100"]  # Enter takes the highlighted line
    state.type("zz")
    assert state.visible() == [] and state.answer() == []  # Enter does nothing: nothing to choose
    screen = "".join(text for _, text in lines(state, "Targets:", "", rows=40))
    assert "no line matches 'rx 7900zz'" in screen and "Enter chooses: nothing yet" in screen
    state.erase(everything=True)
    assert state.query == "" and len(state.visible()) == len(_open_menu().choices)


def test_the_picker_toggles_several_across_filters() -> None:
    state = _picker(_open_menu())
    state.space()  # no filter typed: Space toggles the highlighted (first) line
    first = state.items[0].value
    assert state.toggled == [first]
    state.space()
    assert state.toggled == []
    for typed in ("7900", "mi210"):
        state.erase(everything=True)
        state.type(typed)
        state.toggle()  # Tab
    assert state.answer() == ["gfx1100", "gfx90a"]  # in the list's order, not the typing order
    screen = "".join(text for _, text in lines(state, "Targets:", "", rows=40))
    assert "Enter chooses: gfx1100, gfx90a (the toggled lines)" in screen


def test_the_picker_starts_on_this_machines_gpu_and_keeps_the_highlight_while_it_matches() -> None:
    state = _picker(_open_menu(detected=("gfx1030",)))
    assert state.toggled == ["gfx1030"] and state.pointed() is not None
    assert state.pointed().value == "gfx1030"  # type: ignore[union-attr]
    state.type("rdna2")
    assert state.pointed().value == "gfx1030"  # type: ignore[union-attr]
    state.move(1)
    moved = state.pointed()
    assert moved is not None and moved.value != "gfx1030" and moved.label.find("RDNA2") > 0


def test_a_long_list_scrolls_to_keep_the_highlight_on_a_short_terminal() -> None:
    state = _picker(_open_menu())
    state.move(10**3)  # PageDown far past the end stops at the last line
    last = state.items[-1]
    assert state.pointed() == last
    screen = "".join(text for _, text in lines(state, "Targets:", "", rows=12))
    assert screen.count("\n") <= 11 and f"» ○ {last.label}" in screen and "more above" in screen


@pytest.mark.parametrize("rows", [2, 3, 4, 5, 6, 8, 12, 24, 60])
@pytest.mark.parametrize("typed", ["", "rdna", "no such gpu"])
def test_on_any_terminal_height_the_question_highlight_and_answer_show(rows: int, typed: str) -> None:
    state = _picker(_open_menu())
    state.type(typed)
    state.move(5)
    screen = "".join(text for _, text in lines(state, "Targets:", "(hint)", rows=rows)).split("\n")
    assert len(screen) <= max(rows - 1, 3 + bool(typed)), screen  # fits, the last row left free
    assert screen[0].startswith("? Targets:") and screen[-1].startswith("  Enter chooses: ")
    pointed = state.pointed()
    if pointed is not None:
        assert any(line.startswith(f"» ○ {pointed.label}") for line in screen), screen
        assert screen[-1].startswith(f"  Enter chooses: {pointed.value} ")
    if typed:
        assert f"  filter: {typed}" in screen


def test_nothing_to_choose_from_asks_nothing() -> None:
    from moatbridge.adapters.picker import pick_many

    assert pick_many("Targets:", [], lambda text: []) == []  # returns without a terminal


def test_labels_carry_target_family_and_products() -> None:
    for choice in _open_menu().choices:
        assert choice.label.startswith(choice.target)
        assert choice.family and choice.family in choice.label
        if choice.target in GFX_PRODUCTS:
            assert GFX_PRODUCTS[choice.target] in choice.label
    by_target = {c.target: c for c in _open_menu().choices}
    assert "Radeon RX 7900 XTX/XT/GRE, PRO W7900/W7800" in by_target["gfx1100"].label
    assert "Instinct MI210/MI250/MI250X" in by_target["gfx90a"].label


def test_every_target_a_flavour_serves_has_product_names_and_a_family() -> None:
    for flavour in load_catalog().flavours:
        for choice in target_menu(flavour.distros).choices:
            assert choice.family in FAMILY_ORDER, choice.target
            if choice.served:
                assert choice.target in GFX_PRODUCTS, f"{choice.target}: served but no product names"


def test_served_first_then_compile_only_each_by_family() -> None:
    menu = _open_menu()
    served = [c.served for c in menu.choices]
    assert served == sorted(served, reverse=True)  # every served one before every compile-only one
    assert True in served and False in served
    for part in (True, False):
        families = [FAMILY_ORDER.index(c.family) for c in menu.choices if c.served is part]
        assert families == sorted(families)
    for choice in menu.choices:
        assert (COMPILE_ONLY in choice.label) is not choice.served
        assert choice.note.startswith(COMPILE_ONLY) is not choice.served
    flavour = load_catalog().flavour("open")
    for choice in menu.choices:  # the catalog's own answer, stack by stack
        assert choice.served == any(d.serves(choice.target) for d in flavour.distros)


def test_the_chosen_stack_decides_what_is_served() -> None:
    flavour = load_catalog().flavour("open")
    trixie = {c.target: c for c in target_menu(stacks_for(flavour.distros, "trixie")).choices}
    sid = {c.target: c for c in target_menu(stacks_for(flavour.distros, "sid")).choices}
    every = {c.target: c for c in target_menu(stacks_for(flavour.distros, None)).choices}
    assert "gfx1201" not in trixie  # its clang 17 cannot build for RDNA4: not offered at all
    assert not sid["gfx1201"].served and COMPILE_ONLY in sid["gfx1201"].label
    assert every["gfx1201"].served and "preview stack" in every["gfx1201"].label  # experimental only
    assert trixie["gfx1100"].served and "preview" not in every["gfx1100"].label
    assert "rocblas" in sid["gfx1201"].note  # what compile-only costs, in one sentence
    assert stacks_for(flavour.distros, "no-such-stack") == flavour.distros  # setup refuses it later


def test_the_scale_flavour_lists_only_its_targets_all_served() -> None:
    scale = load_catalog().flavour("scale")
    menu = target_menu(scale.distros)
    assert {c.target for c in menu.choices} == set(scale.compiler_targets)
    assert all(c.served for c in menu.choices)
    assert [c.target for c in menu.search("MI355X")] == ["gfx950"]


def test_this_machines_gpu_is_preselected_and_marked() -> None:
    menu = _open_menu(detected=("gfx1030", "gfx1103"))
    assert menu.preselected == ("gfx1030", "gfx1103")
    marked = [c.target for c in menu.choices if THIS_MACHINE in c.label]
    assert marked == ["gfx1030", "gfx1103"]
    assert menu.unoffered == ()
    nothing = _open_menu()
    assert nothing.preselected == () and not any(c.checked for c in nothing.choices)


def test_a_gpu_the_flavour_cannot_build_for_is_said_not_offered() -> None:
    scale = load_catalog().flavour("scale")
    menu = target_menu(scale.distros, detected=("gfx1031",))
    assert menu.unoffered == ("gfx1031",) and menu.preselected == ()


def test_nvidia_targets_only_where_a_stack_builds_for_them() -> None:
    catalog = load_catalog()
    scale = target_menu(catalog.flavour("scale").distros, nvidia=("sm_89",))
    assert scale.choices[0].target == "sm_89" and scale.choices[0].checked
    assert scale.preselected == ("sm_89",)
    assert "sm_89" not in {c.target for c in _open_menu(nvidia=("sm_89",)).choices}


def test_families_follow_the_gfx_table() -> None:
    for choice in _open_menu().choices:
        assert choice.family == family_of(choice.target)


# --- the prompt, on a real terminal, as an unprivileged member of the docker group --------


class Wizard(PtySession):
    """`moatbridge setup ARGS` on a pty, run by ``user`` (a new account in the docker group) in
    its login shell, seeing ``machine``'s /sys (bind-mounted in a private mount namespace: the
    host's own /sys is untouched)."""

    def __init__(self, user: DockerUser, machine: Path, *args: str) -> None:
        argv = [
            "unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount --bind "$1/sys" /sys && shift && exec "$@"', "sh", str(machine),
            *user.argv(" ".join(["moatbridge", "setup", *args])),
        ]  # fmt: skip
        env = user.env(COLUMNS="120", LINES="60", PROMPT_TOOLKIT_NO_CPR="1")
        super().__init__(argv, env, rows=60, columns=120)


def _files(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def test_typing_7900_in_the_picker_chooses_gfx1100(account: DockerUser, shared_tmp: Path) -> None:
    machine = machines.build("no-gpu", shared_tmp / "machine")
    before = _files(account.home)
    wizard = Wizard(account, machine)
    wizard.wait_for("Flavour:")  # the flavour first: the picker then lists what it serves
    wizard.send(ENTER)  # open
    wizard.wait_for("Targets to build for")
    wizard.wait_for("Instinct MI210/MI250/MI250X")
    shown = ("RDNA4", "Radeon RX 9070 XT", "[compile-only] Radeon RX 6750 XT", "type a product or gfx name")
    assert all(text in wizard.screen for text in shown), wizard.screen[-3000:]
    assert "this machine" not in wizard.screen  # no GPU here: nothing preselected
    wizard.send("rx 7900")  # a product name as people write it, space and all
    wizard.wait_for("filter: rx 7900")
    wizard.wait_for("Enter chooses: gfx1100 (the highlighted line)")
    wizard.send(ENTER)
    wizard.wait_for("Stack:")
    assert "the oldest stable stack, and it serves gfx1100" in wizard.screen
    assert wizard.interrupt() == 130
    assert "Traceback" not in wizard.screen
    assert _files(account.home) == before  # nothing written, rc files byte for byte


def test_choosing_two_targets_by_name_in_the_picker(account: DockerUser, shared_tmp: Path) -> None:
    machine = machines.build("no-gpu", shared_tmp / "machine")
    wizard = Wizard(account, machine, "--flavour", "open", "--shell", "bash")
    wizard.wait_for("Targets to build for")
    wizard.send("no such gpu")
    wizard.wait_for("no line matches 'no such gpu'")
    wizard.send(CTRL_U + "7900" + TAB + CTRL_U + "mi 210" + TAB)
    wizard.wait_for("Enter chooses: gfx1100, gfx90a (the toggled lines)")
    wizard.send(ENTER)
    wizard.wait_for("Stack:")
    assert "Targets to build for: gfx1100, gfx90a" in wizard.screen  # the answer, as it stays
    assert wizard.interrupt() == 130
    assert "Traceback" not in wizard.screen


def test_this_machines_gpu_is_preselected_in_the_picker(account: DockerUser, shared_tmp: Path) -> None:
    machine = machines.build("rdna3-desktop", shared_tmp / "machine")
    before = _files(account.home)
    wizard = Wizard(account, machine, "--flavour", "open", "--shell", "bash")
    wizard.wait_for("GPU: AMD Radeon RX 7900")  # the name from amdgpu.ids, or the built-in table
    assert "- gfx1100" in wizard.screen
    wizard.wait_for("Targets to build for")
    wizard.wait_for("[this machine]")
    wizard.send(ENTER)  # nothing typed, nothing toggled: the preselection is the answer
    wizard.wait_for("Stack:")
    assert "it serves gfx1100" in wizard.screen
    assert wizard.interrupt() == 130
    assert _files(account.home) == before  # nothing written, rc files byte for byte
