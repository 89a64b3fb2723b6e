"""The command line as users meet it: versions, help, errors, no tracebacks, light imports."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from moatbridge import __version__
from moatbridge import cli as cli_module

from conftest import cli
from support.docker_user import DockerUser
from support.pty_session import PtySession
from support.toolchains import make_toolchain


def test_version() -> None:
    result = cli("--version")
    assert (result.returncode, result.stdout.strip()) == (0, f"moatbridge {__version__}")


def test_console_script_matches_module(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("moatbridge")
    if not script.exists():
        pytest.fail(f"the console script is not installed next to {sys.executable}")
    result = subprocess.run([str(script), "--version"], capture_output=True, text=True)
    assert result.stdout.strip() == f"moatbridge {__version__}"


def test_no_command_prints_the_help_to_a_script_and_help_lists_the_commands() -> None:
    """On a terminal `moatbridge` alone shows the status (tests/test_status.py, in a pty);
    a script that captured its output before still gets the help, and no engine call."""
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent/docker.sock"}
    result = cli(env=env)
    assert result.returncode == 0
    assert "status" in result.stdout and "Toolchains:" not in result.stdout
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


@pytest.mark.parametrize(
    ("error", "code", "said"),
    [
        (OSError(errno.ELOOP, "Too many levels of symbolic links", "/p/loop"), 2,
         "The file system refused /p/loop: Too many levels of symbolic links."),
        (OSError(errno.ENOSPC, "No space left on device", "/p/full"), 74, "There is no space left to write /p/full"),
        (FileNotFoundError(errno.ENOENT, "No such file or directory", "answers.yaml"), 2,
         "The file system refused answers.yaml: No such file or directory."),
        (OSError(errno.ECONNRESET, "Connection reset by peer"), cli_module.EXIT_CRASH, "internal error (ConnectionResetError"),
    ],
    ids=["path-refused", "disk-full", "relative-missing", "not-about-a-path"],
)  # fmt: skip
def test_an_os_error_about_a_path_is_bad_input_not_a_crash(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: OSError, code: int, said: str
) -> None:
    """Wherever a path the file system refuses is met (an argument, MOATBRIDGE_HOME, a folder under
    one), it is one sentence and exit 2; a full disk stays 74; an OSError naming no path a crash."""
    import moatbridge.commands.detect as detect_command

    def refuse(args: Any) -> int:
        raise error

    monkeypatch.setattr(detect_command, "run", refuse)
    assert cli_module.main(["detect"]) == code
    err = capsys.readouterr().err
    assert err.startswith(f"moatbridge: {said}") and "Traceback" not in err, err
    assert len(err.splitlines()) == 2, err


def test_ctrl_c_exits_130(tmp_path: Path) -> None:
    """A real Ctrl-C typed on a real terminal while moatbridge waits at a prompt."""
    argv = [sys.executable, "-m", "moatbridge", "license", "accept", "scale-free", "--use", "non-commercial"]
    session = PtySession(argv, dict(os.environ))
    session.wait_for("[y/N]", timeout=60)
    # A SIGINT that lands between input() writing the prompt and blocking in read() is only
    # noticed at the next read (CPython checks signals on EINTR): type it as a person would,
    # once the prompt has been waiting a moment. The terminal's line discipline turns it into
    # SIGINT.
    code = session.interrupt(30, settle=1.0)
    text = session.screen
    assert code == 130, text
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


# --- --yes/-y wherever a command can ask ---------------------------------

# Every command that can ask, by the module that asks, and the words that run it.
ASKING = {
    "setup.py": ["setup"],  # the plan's Proceed/Customize/Cancel
    "setup_wizard.py": ["setup"],  # the wizard's questions
    "license.py": ["license", "accept", "scale-free"],  # "Do you accept ...? [y/N]"
    "toolchain_uninstall.py": ["uninstall", "--all"],  # "Also remove the images? [y/N]"
}


def test_every_command_that_can_ask_takes_yes_and_y() -> None:
    """A new question anywhere fails here until its command has --yes/-y too."""
    commands = Path(cli_module.__file__).parent / "commands"
    asking = sorted(
        p.name for p in commands.glob("*.py")
        if any(call in p.read_text() for call in ("ask_line(", "ask_prompt(", "confirm_plan("))
    )  # fmt: skip
    assert asking == sorted(ASKING)
    from moatbridge.parser import build_parser

    for words in ASKING.values():
        for flag in ("--yes", "-y"):
            assert build_parser().parse_args([*words, flag]).yes is True, (words, flag)
        assert build_parser().parse_args(words).yes is False


def test_yes_is_never_a_licence_acceptance() -> None:
    from moatbridge.parser import build_parser

    args = build_parser().parse_args(["setup", "-y", "--flavour", "scale", "--target", "gfx1100"])
    assert args.yes is True and args.accept_license is False


def test_uninstall_all_yes_and_y_with_nothing_installed(account: DockerUser) -> None:
    for flag in ("--yes", "-y"):
        result = account.run(f"moatbridge uninstall --all {flag}")
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
        assert result.stdout.strip().endswith("Uninstalled: nothing.")


def test_license_accept_y_as_a_docker_group_user(account: DockerUser) -> None:
    result = account.run("moatbridge license accept scale-free --use non-commercial -y")
    assert result.returncode == 0, result.stderr
    assert "Recorded: SCALE Free Licence accepted for non-commercial use by" in result.stdout
    status = json.loads(account.run("moatbridge license status --json").stdout)["licences"]
    assert [r["status"] for r in status if r["licence"] == "scale-free"] == ["accepted"]


def _record_toolchain(account: DockerUser, name: str, image: str) -> None:
    from moatbridge.adapters.statestore import StateStore
    from moatbridge.core.toolchains import State

    toolchain = make_toolchain(name=name, flavour="open", variant="devel", targets=("gfx1030",), cuda_version="12.4",
                          image=image, image_id="sha256:" + "ab" * 32, licence="open-components")  # fmt: skip
    (account.home / ".local/share/moatbridge").mkdir(parents=True, exist_ok=True)
    StateStore(account.home / ".local/share/moatbridge/state.json").write(
        State().with_toolchain(toolchain, True)
    )
    subprocess.run(["chown", "-R", f"{account.uid}:{account.gid}", str(account.home / ".local")], check=True)


def _image_exists(reference: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", reference], capture_output=True).returncode == 0


@pytest.mark.engine
def test_uninstall_yes_answers_the_image_question(account: DockerUser, engine_version: str) -> None:
    """`uninstall --all --yes` as a docker-group user: the toolchain's image goes too (here a
    throwaway tag of some local image: only that tag is removed); without --yes and without a
    terminal to ask on, it stays."""
    import io
    import secrets
    import tarfile

    # An image of the test's own under two names, so that removing the toolchain's tag only
    # untags it (the image keeps its other name); never another test's image, which a test
    # running beside this one may remove.
    empty = io.BytesIO()
    tarfile.open(fileobj=empty, mode="w").close()
    token = secrets.token_hex(4)
    source = [f"moatbridge-test/uninstall-source:{token}"]
    tag = f"moatbridge-test/uninstall-yes:{token}"
    subprocess.run(
        ["docker", "import", "-", source[0]], input=empty.getvalue(), capture_output=True, check=True
    )
    subprocess.run(["docker", "tag", source[0], tag], check=True)
    try:
        _record_toolchain(account, "uy-kept", tag)
        kept = account.run("moatbridge uninstall --all </dev/null")
        assert kept.returncode == 0, kept.stderr
        assert _image_exists(tag) and f"image {tag}" not in kept.stdout
        _record_toolchain(account, "uy-gone", tag)
        planned = account.run("moatbridge uninstall --all --yes --dry-run")
        assert f"Would remove image {tag}" in planned.stdout and _image_exists(tag)
        for flag, name in (("--yes", "uy-gone"), ("-y", "uy-gone-too")):
            if flag == "-y":
                subprocess.run(["docker", "tag", source[0], tag], check=True)
                _record_toolchain(account, name, tag)
            gone = account.run(f"moatbridge uninstall --all {flag}")
            assert gone.returncode == 0, gone.stderr
            assert f"Removed image {tag}" in gone.stdout and f"Uninstalled: {name}." in gone.stdout
            assert not _image_exists(tag)
        assert subprocess.run(["docker", "image", "inspect", source[0]], capture_output=True).returncode == 0
    finally:
        subprocess.run(["docker", "rmi", tag, source[0]], capture_output=True)


# --- the licence line of setup's summary ----------------------------------


def test_the_licence_line_shows_the_use_only_where_the_licence_distinguishes_uses() -> None:
    from moatbridge.adapters.records import load_licences
    from moatbridge.commands.setup import licence_use

    records = load_licences()
    assert licence_use(records["open-components"], "non-commercial") == "free for any use"
    assert licence_use(records["scale-free"], "non-commercial") == "non-commercial use"
    assert licence_use(records["scale-commercial"], "commercial") == "commercial use"  # accepted for it


@pytest.mark.engine
@pytest.mark.parametrize(
    ("flags", "line"),
    [
        ("--flavour open --target gfx1030", "licence open-components (free for any use)"),
        ("--flavour scale --target gfx1100 --use non-commercial --accept-license",
         "licence scale-free (non-commercial use)"),
    ],
)  # fmt: skip
def test_setup_summary_licence_line_for_both_flavours(
    account: DockerUser, engine_version: str, flags: str, line: str
) -> None:
    result = account.run(f"moatbridge setup --yes --dry-run --no-modify-rc {flags}")
    assert result.returncode == 0, result.stderr
    assert f"  {line}" in result.stdout.splitlines(), result.stdout
    if "open" in flags:
        assert "commercial" not in result.stdout  # no use restriction stated for the open flavour
    assert "Dry run: nothing changed." in result.stdout


@pytest.mark.engine
def test_setup_y_never_accepts_a_licence(account: DockerUser, engine_version: str) -> None:
    result = account.run("moatbridge setup -y --dry-run --no-modify-rc --flavour scale --target gfx1100 "
                         "--use non-commercial")  # fmt: skip
    assert result.returncode == 2, result.stdout + result.stderr
    assert "must be accepted first" in result.stderr and "--accept-license" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (account.home / ".local/share/moatbridge/consents").exists()


@pytest.mark.parametrize("args", [("list",), ("detect", "--json"), ("license", "status")], ids=lambda a: a[0])
def test_output_to_a_full_device_is_exit_74_and_a_closed_one_is_no_crash(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    """stdout on a full disk (/dev/full here) is the documented exit 74 with one line, not an
    internal error; started with stdout closed (`>&-`), Python has no sys.stdout at all and
    the output goes nowhere, as it would to any closed descriptor."""
    env = {**os.environ, "HOME": str(tmp_path), "MOATBRIDGE_HOME": str(tmp_path / "mbh")}
    argv = [sys.executable, "-m", "moatbridge", *args]
    with open("/dev/full", "w") as full:
        result = subprocess.run(argv, stdout=full, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    assert result.returncode == 74, result.stderr
    assert result.stderr.splitlines() == [
        "moatbridge: There is no space left to write the output.",
        "hint: free some space where the output goes, then run this again",
    ]
    closed = subprocess.run(["sh", "-c", '"$@" >&-', "sh", *argv], capture_output=True, text=True, env=env,
                            timeout=60)  # fmt: skip
    assert closed.returncode == 0, closed.stderr
    assert "internal error" not in closed.stderr
