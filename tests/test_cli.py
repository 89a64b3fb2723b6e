"""The command line as users meet it: versions, help, errors, no tracebacks, light imports."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from moatbridge import __version__
from moatbridge import cli as cli_module

from conftest import cli


def test_version() -> None:
    result = cli("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"moatbridge {__version__}")


def test_console_script_matches_module(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("moatbridge")
    if not script.exists():
        pytest.fail(f"the console script is not installed next to {sys.executable}")
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert result.stdout.strip() == f"moatbridge {__version__}"


def test_no_command_shows_the_status_and_help_lists_the_commands() -> None:
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock"}  # the engine is not asked
    result = cli(env=env)
    assert result.returncode == 0
    assert "Toolchains: none installed yet" in result.stdout and "moatbridge --help" in result.stdout
    helped = cli("--help")
    assert "detect" in helped.stdout and "doctor" in helped.stdout and "status" in helped.stdout


@pytest.mark.parametrize(
    ("args", "sentence"),
    [
        (["detect", "--root", "/no/such/dir"], "moatbridge: --root /no/such/dir is not a directory."),
        (["frobnicate"], "moatbridge: Argument COMMAND: invalid choice: 'frobnicate'"),
        (["detect", "--bogus"], "moatbridge: Unrecognized arguments: --bogus."),
    ],
)
def test_bad_input_is_one_sentence_and_a_hint(args: list[str], sentence: str) -> None:
    result = cli(*args)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 2, result.stderr
    assert lines[0].startswith(sentence)
    assert lines[1].startswith("hint: ")
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_root_that_is_a_file(tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("x")
    result = cli("doctor", "--root", str(file))
    assert result.returncode == 2
    assert "is not a directory" in result.stderr


def test_unexpected_errors_become_a_crash_report(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import moatbridge.commands.detect as detect_command

    def explode(args: Any) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr(detect_command, "run", explode)
    code = cli_module.main(["detect"])
    err = capsys.readouterr().err
    assert code == cli_module.EXIT_CRASH
    assert "internal error (RuntimeError: boom)" in err
    assert "Traceback" not in err
    reports = list((tmp_path / "moatbridge-home" / "state").glob("crash-*.log"))
    assert len(reports) == 1
    assert "RuntimeError: boom" in reports[0].read_text()


def test_ctrl_c_exits_130(tmp_path: Path) -> None:
    """A real Ctrl-C typed on a real terminal while moatbridge waits at a prompt."""
    pid, fd = pty.fork()
    if pid == 0:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # as under an interactive shell, whatever ran us
        os.execv(sys.executable, [sys.executable, "-m", "moatbridge", "license", "accept", "scale-free",
                                  "--use", "non-commercial"])  # fmt: skip
    screen = b""
    deadline = time.monotonic() + 60
    while b"[y/N]" not in screen and time.monotonic() < deadline:
        if select.select([fd], [], [], 1)[0]:
            try:
                screen += os.read(fd, 4096)
            except OSError:  # ended before the prompt
                break
    assert b"[y/N]" in screen, screen.decode(errors="replace")
    # A SIGINT that lands between input() writing the prompt and blocking in read() is only
    # noticed at the next read (CPython checks signals on EINTR): type it as a person would,
    # once the prompt has been waiting a moment.
    time.sleep(1.0)
    os.write(fd, b"\x03")  # the terminal's line discipline turns it into SIGINT
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if not select.select([fd], [], [], 1)[0]:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        screen += chunk
    reaped, status = os.waitpid(pid, os.WNOHANG)
    if reaped == 0:  # still running after 30 s: the Ctrl-C was lost
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    text = screen.decode(errors="replace").replace("\r\n", "\n")
    assert os.waitstatus_to_exitcode(status) == 130, text
    # The terminal echoes ^C after the prompt; moatbridge's one line follows, then it ends.
    assert text.endswith("for non-commercial use? [y/N] ^Cmoatbridge: interrupted\n"), text
    assert "Traceback" not in text
    assert not (tmp_path / "moatbridge-home" / "consents").exists()  # nothing was recorded
    rows = json.loads(cli("license", "status", "--json").stdout)["licences"]
    assert [row["status"] for row in rows if row["licence"] == "scale-free"] == ["missing"]


@pytest.mark.parametrize("argv", [["--version"], ["detect", "--json"]])
def test_fast_paths_do_not_import_heavy_libraries(argv: list[str]) -> None:
    probe = (
        "import sys\n"
        "from moatbridge.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in ('docker', 'rich', 'questionary', 'requests', 'yaml', 'platformdirs')"
        " if m in sys.modules)\n"
        "sys.stderr.write(repr(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.stderr.strip() == "[]"


def test_detect_human_output_is_a_table(machine: Any) -> None:
    result = cli("detect", "--root", str(machine("apu-plus-dgpu")))
    assert result.returncode == 0, result.stderr
    assert "GPUs" in result.stdout and "Device nodes" in result.stdout
    assert "gfx1036" in result.stdout and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in result.stdout


def test_detect_live_machine_json() -> None:
    """This machine has no GPU: the contract still holds, with empty lists and nulls."""
    result = cli("detect", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) >= {"gpus", "amdgpu_driver", "rocm", "devices"}
    assert set(report["devices"]) == {"kfd", "render_nodes"}
    assert report["devices"]["kfd"]["path"] == "/dev/kfd"
