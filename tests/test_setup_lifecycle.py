"""Setup -> list -> shims/run -> uninstall on a throwaway HOME, against the real engine.

Uses the per-target open image the session builds once (setup finds it up to date).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support.pty_session import PtySession
from support.toolchains import warm_container

pytestmark = pytest.mark.engine

DOWN, ENTER, CTRL_C = "\x1b[B", "\r", "\x03"


@pytest.fixture
def home(tmp_path: Path, open_devel_gfx1030: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME with spaces in its path and the user's own rc files."""
    home = tmp_path / "home with spaces"
    home.mkdir()
    (home / ".bashrc").write_text("# my bashrc\nexport A=1")  # no trailing newline on purpose
    (home / ".zshrc").write_text("export Z=1\n")
    monkeypatch.delenv("MOATBRIDGE_HOME", raising=False)
    for key in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "ZDOTDIR"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", "/bin/bash")
    yield home
    subprocess.run(
        ["docker", "rm", "-f", warm_container("open-gfx1030", home)], capture_output=True, check=False
    )


def mb(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, input=stdin,
        cwd=cwd, timeout=900,
    )  # fmt: skip


def data_dir(home: Path) -> Path:
    return home / ".local" / "share" / "moatbridge"


def test_full_lifecycle(home: Path) -> None:
    before = {name: (home / name).read_bytes() for name in (".bashrc", ".zshrc")}
    setup = mb(
        "setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--shell", "bash", "--shell", "zsh"
    )
    assert setup.returncode == 0, setup.stderr
    assert "Ready: toolchain open-gfx1030" in setup.stdout

    listed = json.loads(mb("list", "--json").stdout)["toolchains"]
    assert [(t["name"], t["default"], t["targets"]) for t in listed] == [("open-gfx1030", True, ["gfx1030"])]

    again = mb(
        "setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--shell", "bash", "--shell", "zsh"
    )
    assert again.returncode == 0 and "write   (nothing new)" in again.stdout  # a re-run is a no-op

    work = home / "projects" / "dir with 'quotes' and spaces"
    work.mkdir(parents=True)
    (work / "vadd.hip").write_text(
        "#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] = 1; }\n"
        "int main() { int n = 0; return hipGetDeviceCount(&n) == hipSuccess ? 0 : 3; }\n"
    )
    script = (
        f'set -eu; . "{home}/.bashrc"; cd "$1"; command -v hipcc; '
        "hipcc --offload-arch=gfx1030 -o vadd vadd.hip; ./vadd; echo run=$?"
    )
    result = subprocess.run(
        ["bash", "-c", script, "sh", str(work)], capture_output=True, text=True, timeout=300
    )
    assert str(data_dir(home) / "cuda" / "bin" / "hipcc") in result.stdout, result.stderr
    assert (work / "vadd").exists()
    assert (work / "vadd").stat().st_uid == os.getuid()

    assert mb("run", "--", "sh", "-c", "exit 42", cwd=work).returncode == 42
    assert mb("run", "--", "true", cwd=work).returncode == 0
    assert mb("run", "--", "false", cwd=work).returncode == 1
    piped = mb("run", "--", "tr", "a-z", "A-Z", stdin="through stdin\n", cwd=work)
    assert piped.stdout == "THROUGH STDIN\n"
    outside = mb("run", "--", "pwd", cwd=Path("/tmp"))  # outside the mounted home: one-shot container
    assert outside.returncode == 0 and outside.stdout.strip() == "/tmp"

    upgraded = mb("upgrade")
    assert upgraded.returncode == 0 and "open-gfx1030: already up to date" in upgraded.stdout, upgraded.stderr
    assert mb("run", "--", "true", cwd=work).returncode == 0

    gone = mb("uninstall", "--all", "--keep-images")
    assert gone.returncode == 0, gone.stderr
    for name, content in before.items():
        assert (home / name).read_bytes() == content, name  # byte for byte
    leftovers = sorted(str(p) for p in data_dir(home).rglob("*")) if data_dir(home).exists() else []
    assert leftovers == []
    assert json.loads(mb("list", "--json").stdout)["toolchains"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--flavour", "open", "--target", "gfx1201", "--distro", "trixie"], "cannot compile for gfx1201"),
        (["--flavour", "open", "--target", "gfx1030", "--distro", "forky"], "has no distro 'forky'"),
        (["--flavour", "open", "--target", "gfx1109"], "cannot compile for gfx1109"),
        # No AMD processor has a major version past 19: not a target name at all.
        (["--flavour", "open", "--target", "gfx9999"], "'gfx9999' is not a gfx"),
        (["--flavour", "cuda", "--target", "gfx1030"], "invalid choice: 'cuda'"),
        (["--flavour", "open", "--target", "gfx1030", "--name", "a/b"], "is not a usable toolchain name"),
        (["--flavour", "open", "--target", "gfx1030", "--name", ".."], "is not a usable toolchain name"),
        (["--flavour", "open", "--target", "gfx1030", "--name", "x;rm -rf ~"], "is not a usable toolchain name"),
        (["--flavour", "scale", "--target", "gfx1030"], "must be accepted first"),
        (["--flavour", "scale", "--target", "gfx1030", "--use", "commercial", "--accept-license"],
         "needs your customer repository, whose URL has your customer name"),
        (["--flavour", "scale", "--target", "gfx1030", "--use", "commercial", "--accept-license",
          "--customer", "acme"], "commercial use of SCALE needs it to reach your customer repository"),
        (["--flavour", "scale", "--target", "gfx1030", "--use", "commercial", "--accept-license",
          "--customer", "acme/../x"], "is not a customer name"),
    ],
)  # fmt: skip
def test_bad_input_writes_nothing(home: Path, args: list[str], message: str) -> None:
    result = mb("setup", "--yes", *args)
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("hint: ")
    assert not data_dir(home).exists()
    assert (home / ".bashrc").read_text() == "# my bashrc\nexport A=1"


def test_rdna4_gets_a_stack_that_serves_it_and_trixie_says_why_not(home: Path) -> None:
    """An RX 9070 (gfx1201): trixie's clang-17 cannot build for it and sid's rocBLAS has no code
    for it, so setup picks experimental by itself and says why; asked for trixie, it refuses
    and names the stack that serves it."""
    chosen = mb("setup", "--yes", "--flavour", "open", "--target", "gfx1201", "--dry-run")
    assert chosen.returncode == 0, chosen.stderr
    assert "moatbridge/open:12.4-devel-experimental-gfx1201" in chosen.stdout
    stack = next(line for line in chosen.stdout.splitlines() if line.strip().startswith("stack"))
    assert "experimental (ROCm 7.2" in stack and "not trixie: its clang cannot compile for gfx1201" in stack
    assert "not sid: its rocblas" in stack
    assert "Valid-Until" in chosen.stdout  # the preview stack's apt setting is said, not silent
    trixie = mb("setup", "--yes", "--flavour", "open", "--target", "gfx1201", "--distro", "trixie")
    assert trixie.returncode == 2
    assert "cannot compile for gfx1201" in trixie.stderr
    assert "hint: the experimental stack serves it: --distro experimental" in trixie.stderr
    sid = mb("setup", "--yes", "--flavour", "open", "--target", "gfx1201", "--distro", "sid", "--dry-run")
    assert sid.returncode == 0 and "rocblas, hipblas, rocsparse, rocrand, rocfft carry no code" in sid.stdout
    assert not data_dir(home).exists()


def test_an_rx6800_stays_on_trixie(home: Path) -> None:
    result = mb("setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "12.4-devel-trixie-gfx1030" in result.stdout
    assert "trixie (ROCm 5.7, clang 17): the oldest stable stack" in result.stdout
    assert "Valid-Until" not in result.stdout


def test_malformed_answers_file(home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "answers.yaml"
    for text, message in (("flavour: [open\n", "is not valid YAML at line"),
                          ("flavor: open\n", "unknown answer 'flavor'"),
                          ("targets: 3\n", "targets must be a list")):  # fmt: skip
        bad.write_text(text)
        result = mb("setup", "--yes", "--answers", str(bad))
        assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not data_dir(home).exists()


def test_answers_file_and_flag_precedence(home: Path, tmp_path: Path) -> None:
    answers = tmp_path / "answers.yaml"
    answers.write_text("flavour: open\ntargets: [gfx1100]\ncuda-version: 12.1\nmodify-rc: false\n")
    result = mb("setup", "--yes", "--answers", str(answers), "--target", "gfx1030", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "target(s) gfx1030, CUDA 12.1" in result.stdout  # flag beats file; file beats default
    assert "rc      (not modified)" in result.stdout
    assert "Dry run: nothing changed." in result.stdout
    assert not data_dir(home).exists()


def test_no_terminal_and_no_yes_fails_at_once(home: Path) -> None:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "moatbridge", "setup", "--flavour", "open"],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert time.monotonic() - started < 30
    assert result.returncode == 2 and "--yes" in result.stderr and "--target" in result.stderr


def test_two_setups_at_once(home: Path) -> None:
    argv = [sys.executable, "-m", "moatbridge", "setup", "--yes", "--flavour", "open", "--target", "gfx1030"]
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = [(*p.communicate(timeout=900), p.returncode) for p in (first, second)]
    assert all(code == 0 for _, _, code in results), results
    state = json.loads((data_dir(home) / "state.json").read_text())
    assert [t["name"] for t in state["toolchains"]] == ["open-gfx1030"]


# --- the wizard, driven on a real pseudo-terminal -------------------------------------------


class Terminal(PtySession):
    """`moatbridge ARGS` on a real pseudo-terminal, with this test's environment."""

    def __init__(self, *args: str) -> None:
        argv = [sys.executable, "-m", "moatbridge", *args]
        super().__init__(argv, dict(os.environ, COLUMNS="120", LINES="40"), rows=40, columns=120)

    def finish(self, timeout: float = 600, *, until_eof: bool = True) -> int | None:
        """Read until the terminal closes (setup's last lines included), then reap."""
        return super().finish(timeout, until_eof=until_eof)


def _pick_gfx1030(term: Terminal) -> None:
    """The open flavour first (the picker lists what the flavour serves), then gfx1030 by typing
    a product's name into the picker's filter; Enter takes the one line left."""
    term.wait_for("Flavour:")
    term.send(ENTER)  # open
    term.wait_for("Targets to build for")
    term.send("rx 6800 xt")
    term.wait_for("Enter chooses: gfx1030")
    term.send(ENTER)


def test_wizard_to_a_working_toolchain(home: Path) -> None:
    term = Terminal("setup")
    _pick_gfx1030(term)
    term.wait_for("Stack:")  # the reason first, then the choice with the recommended one selected
    assert "trixie (ROCm 5.7, clang 17): the oldest stable stack, and it serves gfx1030" in term.screen
    term.send(ENTER)
    term.wait_for("CUDA version to mimic")
    term.send(ENTER)
    term.wait_for("Shells to set up")
    term.send(ENTER)
    term.wait_for("Add moatbridge to their rc files?")
    term.send(ENTER)
    term.wait_for("Proceed?")
    term.send(ENTER)
    assert term.finish() == 0, term.screen[-3000:]
    assert "Ready: toolchain open-gfx1030" in term.screen
    assert "# >>> moatbridge >>>" in (home / ".bashrc").read_text()
    assert mb("uninstall", "--all", "--keep-images").returncode == 0
    assert (home / ".bashrc").read_text() == "# my bashrc\nexport A=1"


def test_wizard_cancel_at_the_summary(home: Path) -> None:
    term = Terminal("setup", "--shell", "bash")
    _pick_gfx1030(term)
    term.wait_for("Stack:")
    term.send(ENTER)
    term.wait_for("CUDA version to mimic")
    term.send(ENTER)
    term.wait_for("Proceed?")
    term.send(DOWN + DOWN + ENTER)  # Cancel
    assert term.finish() == 1
    assert "Cancelled; nothing changed." in term.screen
    assert not data_dir(home).exists()


def test_wizard_ctrl_c_midway(home: Path) -> None:
    term = Terminal("setup")
    term.wait_for("Flavour:")
    term.send(ENTER)
    term.wait_for("Targets to build for")
    term.send(CTRL_C)
    assert term.finish() == 130
    assert not data_dir(home).exists()
    assert (home / ".bashrc").read_text() == "# my bashrc\nexport A=1"


def test_wizard_licence_declined(home: Path) -> None:
    term = Terminal("setup")
    term.wait_for("Flavour:")  # asked first: the licence comes before the targets
    term.send(DOWN + ENTER)  # scale
    term.wait_for("How will you use SCALE?")
    term.send(ENTER)  # non-commercial
    term.wait_for("Do you accept the SCALE Free Licence?")
    term.send("n" + ENTER)
    assert term.finish() != 0
    assert "The licence was not accepted; nothing changed." in term.screen
    assert not data_dir(home).exists()


def test_wizard_asks_commercial_scale_users_for_their_customer_repository(home: Path, tmp_path: Path) -> None:
    import json as json_

    private = tmp_path / "private"
    private.mkdir()
    loose, good = private / "loose.json", private / "scale.json"
    for path, mode in ((loose, 0o644), (good, 0o600)):
        path.write_text(json_.dumps({"username": "u", "password": "wizard-secret-9f3a"}))
        path.chmod(mode)
    term = Terminal("setup", "--shell", "bash")
    term.wait_for("Flavour:")
    term.send(DOWN + ENTER)  # scale
    term.wait_for("How will you use SCALE?")
    term.send(DOWN + ENTER)  # commercial
    term.wait_for("or use the open flavour instead?")
    term.send("n")
    term.wait_for("Do you accept the")
    term.send("y")
    term.wait_for("Customer name")
    term.send("acme/x" + ENTER)  # not one path segment: said, and asked again
    term.wait_for("is not a customer name")
    term.send("acme" + ENTER)
    term.wait_for("Credentials file")
    term.send("\x15" + str(loose) + ENTER)  # Ctrl-U clears the suggested path first
    term.wait_for("is readable by others")
    term.send("\x15" + str(good) + ENTER)
    term.wait_for("Targets to build for")  # SCALE's targets only, every one served
    term.wait_for("Enter chooses:")  # the picker's last line: the whole list is drawn
    assert "gfx700" not in term.screen and "Instinct MI300X/MI300A/MI325X" in term.screen
    term.send("gfx1030" + ENTER)
    term.wait_for("CUDA version to mimic")
    term.send(ENTER)
    term.wait_for("Proceed?")
    assert "licence scale-commercial (commercial use)" in term.screen
    assert "wizard-secret-9f3a" not in term.screen
    term.send(DOWN + DOWN + ENTER)  # Cancel
    assert term.finish() == 1
    assert "Cancelled; nothing changed." in term.screen
    assert not data_dir(home).exists()


def test_ctrl_c_stops_the_command_in_the_container(home: Path) -> None:
    import signal

    assert mb("setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--no-modify-rc").returncode == 0
    work = home / "w"
    work.mkdir()
    assert mb("run", "--", "true", cwd=work).returncode == 0  # warm container up
    container = warm_container("open-gfx1030", home)
    process = subprocess.Popen([sys.executable, "-m", "moatbridge", "run", "--", "sleep", "37"], cwd=work)
    deadline = time.monotonic() + 30
    while (
        "sleep 37" not in subprocess.run(["docker", "top", container], capture_output=True, text=True).stdout
    ):
        assert time.monotonic() < deadline, "the command never started in the container"
        time.sleep(0.2)
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    code = process.wait(timeout=20)
    assert time.monotonic() - started < 10
    assert code == 130, code  # the command died of SIGINT inside the container
    time.sleep(0.5)
    assert (
        "sleep 37" not in subprocess.run(["docker", "top", container], capture_output=True, text=True).stdout
    )
    assert mb("uninstall", "--all", "--keep-images").returncode == 0


def test_a_setup_killed_before_recording_is_repaired_by_uninstall(home: Path) -> None:
    before = (home / ".bashrc").read_bytes()
    assert mb("setup", "--yes", "--flavour", "open", "--target", "gfx1030", "--shell", "bash").returncode == 0
    (data_dir(home) / "state.json").unlink()  # as if killed after writing files, before the state
    gone = mb("uninstall", "--all", "--keep-images")
    assert gone.returncode == 0, gone.stderr
    assert (home / ".bashrc").read_bytes() == before
    leftovers = sorted(str(p) for p in data_dir(home).rglob("*")) if data_dir(home).exists() else []
    assert leftovers == []


def test_setup_never_overwrites_a_foreign_file(home: Path) -> None:
    foreign = data_dir(home) / "cuda" / "bin" / "nvcc"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("#!/bin/sh\necho my own nvcc\n")
    result = mb("setup", "--yes", "--flavour", "open", "--target", "gfx1030")
    assert result.returncode == 2
    assert "was not written by moatbridge; it is left untouched" in result.stderr
    assert foreign.read_text() == "#!/bin/sh\necho my own nvcc\n"
    assert not (data_dir(home) / "env").exists() and not (data_dir(home) / "state.json").exists()
    assert (home / ".bashrc").read_text() == "# my bashrc\nexport A=1"


def test_wizard_customize_asks_again(home: Path) -> None:
    term = Terminal("setup", "--shell", "bash")
    _pick_gfx1030(term)
    term.wait_for("Stack:")
    term.send(ENTER)
    term.wait_for("CUDA version to mimic")
    term.send(ENTER)  # 12.4
    term.wait_for("Proceed?")
    term.send(DOWN + ENTER)  # Customize
    term.forget()
    _pick_gfx1030(term)
    term.wait_for("Stack:")
    term.send(ENTER)
    term.wait_for("CUDA version to mimic")
    term.send(DOWN + ENTER)  # 13.0 this time
    term.wait_for("Shells to set up")
    term.send(ENTER)
    term.wait_for("Add moatbridge to their rc files?")
    term.send(ENTER)
    term.wait_for("CUDA 13.0")  # the new answers made a new summary
    term.forget(before="CUDA 13.0")
    term.wait_for("Proceed?")
    term.send(DOWN + DOWN + ENTER)  # Cancel
    assert term.finish() == 1
    assert not data_dir(home).exists()
