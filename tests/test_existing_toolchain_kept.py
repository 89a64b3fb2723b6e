"""Setting up an existing toolchain again, as the user meets it on the command line: what its
record answers (stack, variant, CUDA version, targets; for commercial SCALE its use, customer
and credentials path) is kept, whatever the answers remembered from the last setup say; a
flag changes it, and the summary says who asked; a change that nothing on the command asked
for is refused before the engine is asked, with nothing written.

No image is built: every setup here is a --dry-run, refused, or stopped before the engine."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from moatbridge import cli
from moatbridge.core import setup_plan
from moatbridge.core.image_spec import ImageSource
from moatbridge.core.setup_plan import SetupPlan
from moatbridge.core.toolchains import State, Toolchain

from support.environ import home_with_answers
from support.toolchains import make_toolchain

# The last setup's answers: every one differs from toolchain x's record and from the defaults.
REMEMBERED = (
    "flavour: open\ndistro: sid\nvariant: base\ncuda-version: '12.1'\ntargets: [gfx1201]\n"
    "use: non-commercial\ncustomer: other\ncredentials-file: /nonexistent/other.json\n"
)
# Toolchain x: neither the auto-choice (trixie, devel, CUDA 12.4) nor the remembered answers.
RECORDED_X = make_toolchain(
    "x", "open", "runtime", ("gfx1030", "gfx1100"), "11.8",
    "moatbridge/open:11.8-runtime-experimental-gfx1030_gfx1100", "sha256:" + "1" * 64,
    "open-components", distro="experimental",
)  # fmt: skip
AGAIN = ("setup", "--yes", "--flavour", "open", "--name", "x", "--dry-run")


def data_dir(home: Path) -> Path:
    return home / ".local" / "share" / "moatbridge"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return home_with_answers(tmp_path / "home", monkeypatch, REMEMBERED)


def record(home: Path, *toolchains: Toolchain) -> None:
    state = State(default=toolchains[0].name, toolchains=toolchains)
    (data_dir(home) / "state.json").write_text(json.dumps(state.to_json()))


def files(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def mb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", *args],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


# --- what the record answers is kept -------------------------------------------------------


@pytest.mark.engine
@pytest.mark.parametrize(
    ("kept", "not_remembered"),
    [
        ("stack   experimental (ROCm 7.2, clang 22, preview), kept from toolchain x's record "
         "(--distro to change it)", "sid"),
        ("Toolchain x: open runtime,", "base"),
        (", CUDA 11.8\n", "12.1"),
        ("target(s) gfx1030, gfx1100,", "gfx1201"),
    ],
    ids=["stack", "variant", "cuda-version", "targets"],
)  # fmt: skip
def test_setting_up_a_toolchain_again_keeps_its_record(home: Path, kept: str, not_remembered: str) -> None:
    record(home, RECORDED_X)
    before = files(home)
    result = mb(*AGAIN)
    assert result.returncode == 0, result.stderr
    assert kept in result.stdout, result.stdout
    assert not_remembered not in result.stdout and "remembered" not in result.stdout
    assert "change  " not in result.stdout and "as asked" not in result.stdout
    assert files(home) == before


@pytest.mark.engine
def test_a_trixie_toolchain_is_not_moved_to_the_remembered_sid(home: Path) -> None:
    """The remembered stack is sid; toolchain x is on trixie, which is also the auto-choice:
    the stack line names the toolchain's record as the reason, not the auto-choice."""
    record(home, replace(RECORDED_X, spec=replace(RECORDED_X.spec, distro="trixie")))
    result = mb("setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--name", "x", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "stack   trixie (ROCm 5.7, clang 17), kept from toolchain x's record" in result.stdout
    assert "sid" not in result.stdout and "the oldest stable stack" not in result.stdout


# --- a flag changes it: with --yes the summary says so; without a terminal to ask, refused --


FLAGGED = [
    (("--distro", "sid"), "stack experimental -> sid (--distro sid)"),
    (("--variant", "devel"), "variant runtime -> devel (--variant devel)"),
    (("--cuda-version", "12.4"), "CUDA version 11.8 -> 12.4 (--cuda-version 12.4)"),
    (("--target", "gfx1030"), "targets gfx1030, gfx1100 -> gfx1030 (--target gfx1030)"),
]
FLAG_IDS = ["stack", "variant", "cuda-version", "targets"]


@pytest.mark.engine
@pytest.mark.parametrize(("flag", "line"), FLAGGED, ids=FLAG_IDS)
def test_a_flag_with_yes_changes_the_record_and_says_who_asked(
    home: Path, flag: tuple[str, ...], line: str
) -> None:
    record(home, RECORDED_X)
    result = mb(*AGAIN, *flag)
    assert result.returncode == 0, result.stderr
    changes = [text for text in result.stdout.splitlines() if text.startswith("  change  ")]
    assert changes == [f"  change  toolchain x: {line}"], result.stdout
    if flag[0] == "--distro":
        assert "stack   sid (ROCm 6.4, clang 21, preview), as asked (--distro sid)" in result.stdout


@pytest.mark.parametrize("flag", [flag for flag, _ in FLAGGED], ids=FLAG_IDS)
def test_a_flag_without_yes_and_no_terminal_is_refused(
    home: Path, monkeypatch: pytest.MonkeyPatch, flag: tuple[str, ...]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # never reached
    record(home, RECORDED_X)
    before = files(home)
    result = mb("setup", "--flavour", "open", "--name", "x", *flag)
    assert result.returncode == 2, result.stderr
    said = result.stderr.splitlines()
    assert len(said) == 2 and said[0].startswith("moatbridge: ") and said[1].startswith("hint: "), said
    assert "no terminal to ask on" in said[0] and result.stdout == ""
    assert files(home) == before


# --- a record that would not answer: the change nothing asked for is refused ---------------


@pytest.mark.parametrize(
    ("forgotten", "line"),
    [
        ("distro", "stack experimental -> trixie (the default)"),
        ("variant", "variant runtime -> devel (the default)"),
        ("cuda_version", "CUDA version 11.8 -> 12.4 (the default)"),
    ],
)
def test_a_change_nothing_asked_for_is_refused_before_the_engine(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], forgotten: str, line: str
) -> None:
    """The refusal is the last guard: were the record's answer for one question lost on the
    way, the default would change the toolchain; setup refuses instead, exit 2, one sentence
    and its hint, nothing written, before the (unreachable) engine is asked."""
    real = setup_plan.recorded_layer

    def forgetting(*args: Any, **kwargs: Any) -> setup_plan.Layer:
        layer = real(*args, **kwargs)
        image = replace(layer.answers.image, **{forgotten: None})
        return replace(layer, answers=replace(layer.answers, image=image))

    monkeypatch.setattr(setup_plan, "recorded_layer", forgetting)
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    record(home, RECORDED_X)
    before = files(home)
    assert cli.main(list(AGAIN[:-1])) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"moatbridge: Setup would change toolchain x's {line}, which nothing on this command asked for.",
        "hint: name the value to keep or change it with its flag, or set up another toolchain with --name",
    ]
    assert out == "" and files(home) == before


# --- commercial SCALE: its use, customer repository and credentials path are its own --------


@pytest.fixture
def commercial(home: Path, tmp_path: Path) -> Path:
    """Toolchain work, commercial SCALE from customer acme; its credentials file (mode 600)."""
    credentials = tmp_path / "private" / "scale.json"
    credentials.parent.mkdir()
    credentials.write_text(json.dumps({"username": "u", "password": "p"}))
    credentials.chmod(0o600)
    source = ImageSource(commercial=True, customer="acme", credentials_file=str(credentials))
    work = make_toolchain(
        "work", "scale", "devel", ("gfx1100",), "12.1.0", "moatbridge/scale:x", "sha256:" + "2" * 64,
        "scale-commercial", source=source,
    )  # fmt: skip
    record(home, work)
    return credentials


def planned(monkeypatch: pytest.MonkeyPatch, *args: str) -> SetupPlan:
    """The plan `setup ARGS --dry-run` shows for toolchain work, as its preview step gets it."""
    from moatbridge.commands import setup as setup_command

    seen: list[SetupPlan] = []
    real = setup_command.preview

    def preview(plan: SetupPlan, *rest: Any) -> Any:
        seen.append(plan)
        return real(plan, *rest)

    monkeypatch.setattr(setup_command, "preview", preview)
    work = ("setup", "--yes", "--flavour", "scale", "--name", "work", "--accept-license", "--dry-run")
    assert cli.main([*work, *args]) == 0
    assert seen
    return seen[-1]


@pytest.mark.engine
def test_a_commercial_toolchain_keeps_its_use_customer_and_credentials(
    commercial: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = planned(monkeypatch)
    out = capsys.readouterr().out
    assert plan.use == "commercial" and "licence scale-commercial (commercial use)" in out
    assert plan.spec.source.customer == "acme"
    assert plan.spec.source.credentials_file == str(commercial)


@pytest.mark.engine
@pytest.mark.parametrize(
    ("flag", "use", "customer", "credentials"),
    [
        (("--use", "non-commercial"), "non-commercial", None, None),
        (("--customer", "bob"), "commercial", "bob", "recorded"),
        (("--credentials-file", "other.json"), "commercial", "acme", "other.json"),
    ],
    ids=["use", "customer", "credentials-file"],
)
def test_a_flag_changes_a_commercial_toolchains_source(
    commercial: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    flag: tuple[str, ...], use: str, customer: str | None, credentials: str | None,
) -> None:  # fmt: skip
    other = commercial.with_name("other.json")
    other.write_bytes(commercial.read_bytes())
    other.chmod(0o600)
    monkeypatch.chdir(commercial.parent)  # a relative credentials path is made absolute
    plan = planned(monkeypatch, *flag)
    wanted = {"recorded": str(commercial), "other.json": str(other), None: None}[credentials]
    assert (plan.use, plan.spec.source.customer, plan.spec.source.credentials_file) == (
        use, customer, wanted,
    )  # fmt: skip
    licence = "scale-free (non-commercial use)" if use == "non-commercial" else "scale-commercial"
    assert f"licence {licence}" in capsys.readouterr().out
