"""Answers remembered from one setup never decide another: they only preselect the wizard's
questions; an existing toolchain keeps its own stack unless this command asks; and every
line that explains a choice names its real source."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from moatbridge.adapters.records import load_catalog
from moatbridge.core.answer_layers import DEFAULT, FLAG, Gathered, Layer, Origin, changes
from moatbridge.core.answers import Answers
from moatbridge.core.image_spec import ImageSource, ImageSpec
from moatbridge.core.scale_recipes import is_commercial
from moatbridge.core.setup_plan import make_plan, plan_setup
from moatbridge.core.toolchains import State, Toolchain
from moatbridge.errors import MoatbridgeError

from support.environ import home_with_answers

OPEN_1030 = Answers(ImageSpec(flavour="open", targets=("gfx1030",)))
DEFAULTS = Layer(Answers(modify_rc=True, shells=("bash",), accept_license=False), DEFAULT)


def toolchain(
    name: str, distro: str, targets: tuple[str, ...] = ("gfx1030",), cuda: str = "12.4"
) -> Toolchain:
    spec = ImageSpec("open", "devel", distro, targets, cuda)
    return Toolchain(
        name, spec, f"moatbridge/open:{cuda}-devel-{distro}-x", "sha256:" + "1" * 64, "open-components"
    )


# --- the pure planning ---------------------------------------------------------------------


def test_a_different_toolchain_gets_the_auto_choice() -> None:
    plan = plan_setup(
        [Layer(OPEN_1030, FLAG), DEFAULTS], load_catalog(), (toolchain("x", "sid", ("gfx1100",)),)
    )
    assert plan.spec.distro == "trixie" and "the oldest stable stack" in plan.stack_reason
    assert plan.changes == ()


def test_an_existing_toolchain_keeps_its_stack_and_says_whose_it_is() -> None:
    existing = toolchain("open-gfx1030", "sid", cuda="12.1")
    plan = plan_setup([Layer(OPEN_1030, FLAG), DEFAULTS], load_catalog(), (existing,))
    assert (plan.spec.distro, plan.spec.cuda_version) == ("sid", "12.1")
    assert "kept from toolchain open-gfx1030's record (--distro to change it)" in plan.stack_reason
    assert "as asked" not in plan.stack_reason and plan.changes == ()


def test_a_flag_changes_an_existing_toolchains_stack_and_the_plan_says_so() -> None:
    asked = Answers(ImageSpec(flavour="open", targets=("gfx1030",), distro="sid"))
    plan = plan_setup([Layer(asked, FLAG), DEFAULTS], load_catalog(), (toolchain("open-gfx1030", "trixie"),))
    assert plan.spec.distro == "sid" and "as asked (--distro sid)" in plan.stack_reason
    assert plan.changes == ("toolchain open-gfx1030: stack trixie -> sid (--distro sid)",)


def test_a_named_toolchain_keeps_its_targets_and_flavour() -> None:
    named = Layer(Answers(name="x"), FLAG)
    guess = Layer(Answers(ImageSpec(flavour="open", targets=("gfx1030",))), DEFAULT)  # this machine's GPU
    plan = plan_setup([named, guess], load_catalog(), (toolchain("x", "sid", ("gfx1100",)),))
    assert (plan.name, plan.targets, plan.spec.distro) == ("x", ("gfx1100",), "sid")


def test_a_change_nothing_asked_for_is_marked_unasked() -> None:
    planned = ImageSpec("open", "devel", "sid", ("gfx1030",), "12.4")
    asked = changes(planned, toolchain("t", "trixie"), Gathered(Answers(), {"distro": FLAG}))
    unasked = changes(planned, toolchain("t", "trixie"), Gathered(Answers(), {}))
    assert asked == (("stack trixie -> sid (--distro sid)", True),)
    assert unasked == (("stack trixie -> sid (the default)", False),)


def test_another_flavour_reports_the_flavour_not_its_stack() -> None:
    planned = ImageSpec("scale", "devel", None, ("gfx1030",), "12.6")
    found = changes(planned, toolchain("t", "trixie"), Gathered(Answers(), {"flavour": FLAG}))
    assert found == (("flavour open -> scale (--flavour scale)", True),)


def commercial_toolchain() -> Toolchain:
    source = ImageSource(commercial=True, customer="acme", credentials_file="/home/u/scale-credentials")
    spec = ImageSpec("scale", "devel", None, ("gfx1100",), "12.1.0", source=source)
    return Toolchain("work", spec, "moatbridge/scale:x", "sha256:" + "2" * 64, "scale-commercial")


def test_a_commercial_toolchain_set_up_again_stays_commercial() -> None:
    asked = Answers(ImageSpec(flavour="scale"), name="work")
    plan = plan_setup([Layer(asked, FLAG), DEFAULTS], load_catalog(), (commercial_toolchain(),))
    assert is_commercial(plan.spec)
    assert (plan.spec.source.customer, plan.spec.source.credentials_file) == (
        "acme", "/home/u/scale-credentials",
    )  # fmt: skip


def test_asked_for_non_commercial_use_a_commercial_toolchain_leaves_its_repository() -> None:
    asked = Answers(ImageSpec(flavour="scale"), name="work", use="non-commercial")
    plan = plan_setup([Layer(asked, FLAG), DEFAULTS], load_catalog(), (commercial_toolchain(),))
    assert not is_commercial(plan.spec)
    assert (plan.spec.source.customer, plan.spec.source.credentials_file) == (None, None)


@pytest.mark.parametrize(
    ("origin", "phrase"),
    [
        (FLAG, "as asked (--distro sid)"),
        (Origin("wizard"), "chosen in the wizard"),
        (Origin("file", "team.yaml"), "as asked in team.yaml (distro: sid)"),
        (Origin("toolchain", "t"), "kept from toolchain t's record"),
    ],
)
def test_the_stack_line_names_its_source(origin: Origin, phrase: str) -> None:
    answers = Answers(ImageSpec(flavour="open", targets=("gfx1030",), distro="sid"))
    assert phrase in make_plan(answers, load_catalog(), {"distro": origin}).stack_reason


@pytest.mark.parametrize(
    ("key", "answers", "said"),
    [
        (
            "cuda_version",
            Answers(ImageSpec("open", targets=("gfx1030",), cuda_version="12.6")),
            "cuda-version: 12.6",
        ),
        ("distro", Answers(ImageSpec("open", targets=("gfx1030",), distro="forky")), "distro: forky"),
        ("variant", Answers(ImageSpec("open", targets=("gfx1030",), variant="huge")), "variant: huge"),
        ("flavour", Answers(ImageSpec("opn", targets=("gfx1030",))), "flavour: opn"),
    ],
)
def test_an_unusable_answer_from_a_file_names_the_file(key: str, answers: Answers, said: str) -> None:
    with pytest.raises(MoatbridgeError) as caught:
        make_plan(answers, load_catalog(), {key: Origin("file", "team.yaml")})
    assert f"({said} in team.yaml)." in caught.value.message


def test_an_off_valid_until_check_from_a_file_is_not_called_a_flag() -> None:
    answers = Answers(ImageSpec("open", targets=("gfx1030",), check_valid_until=False))
    plan = make_plan(answers, load_catalog(), {"check_valid_until": Origin("file", "team.yaml")})
    (note,) = [w for w in plan.warnings if "Valid-Until" in w]
    assert "check-valid-until: False in team.yaml" in note and "--no-check-valid-until)" not in note


def test_a_build_plan_does_not_call_a_recorded_valid_until_rule_a_flag() -> None:
    from moatbridge.core.recipes import valid_until_note

    sid = load_catalog().flavour("open").distro("sid")
    assert "--no-check-valid-until)" not in valid_until_note(sid, False, "this image's spec turns it off")


# --- the command ----------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # What `setup --distro sid --target gfx1100 --name x --cuda-version 12.1 --no-modify-rc` saves.
    return home_with_answers(
        tmp_path / "home",
        monkeypatch,
        "flavour: open\ndistro: sid\ntargets: [gfx1100]\ncuda-version: '12.1'\nmodify-rc: false\n"
        "shells: [zsh]\nsource: pull\nregistry: registry.example/team\n",
    )


def mb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, timeout=300
    )


def with_state(home: Path, *toolchains: Toolchain) -> bytes:
    state = State(default=toolchains[0].name, toolchains=toolchains)
    path = home / ".local/share/moatbridge/state.json"
    path.write_text(json.dumps(state.to_json()))
    return path.read_bytes()


PLAIN = ("setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--dry-run")


@pytest.mark.engine
def test_remembered_answers_do_not_decide_a_plain_setup(home: Path) -> None:
    result = mb(*PLAIN)
    assert result.returncode == 0, result.stderr
    assert "stack   trixie (ROCm 5.7, clang 17): the oldest stable stack" in result.stdout
    assert "as asked" not in result.stdout and "sid" not in result.stdout
    assert "CUDA 12.4" in result.stdout and "registry.example" not in result.stdout
    assert f"rc      {home / '.bashrc'}" in result.stdout  # the saved modify-rc: false is no answer


@pytest.mark.engine
def test_an_existing_toolchain_is_not_moved_to_the_remembered_stack(home: Path) -> None:
    state = with_state(home, toolchain("open-gfx1030", "trixie"), toolchain("x", "sid", ("gfx1100",)))
    result = mb(*PLAIN)
    assert result.returncode == 0, result.stderr
    assert "12.4-devel-trixie-gfx1030" in result.stdout and "change  " not in result.stdout
    assert "kept from toolchain open-gfx1030's record" in result.stdout
    assert (home / ".local/share/moatbridge/state.json").read_bytes() == state


@pytest.mark.engine
def test_an_existing_preview_toolchain_is_not_moved_to_the_auto_choice(home: Path) -> None:
    with_state(home, toolchain("open-gfx1030", "sid"))
    result = mb(*PLAIN)
    assert result.returncode == 0, result.stderr
    assert "12.4-devel-sid-gfx1030" in result.stdout and "change  " not in result.stdout


@pytest.mark.engine
def test_a_stack_change_asked_by_flag_is_said(home: Path) -> None:
    with_state(home, toolchain("open-gfx1030", "trixie"))
    result = mb(*PLAIN, "--distro", "sid")
    assert result.returncode == 0, result.stderr
    assert "change  toolchain open-gfx1030: stack trixie -> sid (--distro sid)" in result.stdout


@pytest.mark.engine
def test_an_answers_file_is_named_as_the_source(home: Path, tmp_path: Path) -> None:
    team = tmp_path / "team.yaml"
    team.write_text("distro: sid\n")
    result = mb(*PLAIN, "--answers", str(team))
    assert result.returncode == 0, result.stderr
    assert f"as asked in {team} (distro: sid)" in result.stdout and "--distro" not in result.stdout
    team.write_text("cuda-version: '12.6'\n")
    bad = mb(*PLAIN, "--answers", str(team))
    assert bad.returncode == 2 and f"(cuda-version: 12.6 in {team})." in bad.stderr


def test_only_setup_and_its_wizard_read_remembered_answers() -> None:
    """upgrade, and every other command, makes its image from the toolchain's record alone."""
    root = Path(__file__).resolve().parents[1] / "installer" / "moatbridge"
    readers = sorted(
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if "services.answers import" in path.read_text()
    )
    assert readers == ["commands/setup.py", "commands/setup_wizard.py"]
