"""Issue 14, items 2 and 3: what a new user runs after setup.

* `moatbridge` is on the activated PATH (a launcher next to the shims, running the CLI with
  the interpreter that ran setup): found by new login shells (bash, zsh, fish, dash), one
  sentence and a hint (exit 127) when that interpreter is gone, removed by uninstall, never
  written over a file that is not moatbridge's.
* Programs built on the host need the toolchain's runtime, which is in the image:
  `mbrun ./prog` and `moatbridge run ./prog` run them there, through the same runner with
  the same docker arguments (GPU devices, groups, env, mounts) as the `nvcc` shim, and
  `nvcc --version` on a terminal says so on stderr (stdout stays nvcc's, byte for byte).

The files are written by the functions setup uses (install_files, edit_shell_rcs); the
shells, the runner and the pty are real. `docker` is a stand-in on PATH that records the
arguments it is given, so these tests need no engine. The engine tests at the end run the
whole path for real, as an unprivileged user in the docker group.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pytest

from moatbridge import __version__
from moatbridge.commands import _toolchain as tc
from moatbridge.core.launcher import GONE_HINT, RUN_HINT, render_launcher
from moatbridge.core.shims import ToolchainRuntime, _q
from moatbridge.core.toolchains import Toolchain
from moatbridge.paths import Paths

from support.docker_user import DockerUser, docker_group_user

NAME = "open-gfx1030"
IMAGE_ID = "sha256:" + "5e" * 32
NVCC_VERSION = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.4, V12.4.131\n"
BASE_PATH = "/usr/bin:/bin"

# Records its arguments (NUL-separated) and answers `nvcc --version` like nvcc would.
FAKE_DOCKER = f"""#!/bin/sh
for a in "$@"; do printf '%s\\0' "$a"; done > "$DOCKER_LOG"
case " $* " in *" nvcc --version "*|*" nvcc -V "*) printf %s '{NVCC_VERSION}' ;; esac
exit "${{FAKE_DOCKER_STATUS:-0}}"
"""


def _shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: .ci/run installs it from Debian's packages")
    return path


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A user's HOME with Debian's skeleton dotfiles, and the moatbridge home in it."""
    home = tmp_path / "home with 'quotes' and spaces"
    home.mkdir()
    for name in (".profile", ".bashrc"):
        skeleton = Path("/etc/skel") / name
        if skeleton.exists():
            shutil.copyfile(skeleton, home / name)
    monkeypatch.setenv("HOME", str(home))
    for key in ("ZDOTDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(key, raising=False)
    mbhome = home / ".local" / "share" / "moatbridge"
    monkeypatch.setenv("MOATBRIDGE_HOME", str(mbhome))
    return home, mbhome


def _install(
    home: Path, mbhome: Path, shells: tuple[str, ...] = (), python: str | None = None, name: str = NAME
) -> Paths:
    """What setup writes and records, without the image: shims, runner, launcher, mbrun,
    env files, rc blocks and the state (GPU devices and groups as on a machine with a GPU)."""
    paths = Paths.from_environ({"MOATBRIDGE_HOME": str(mbhome)})
    toolchain = Toolchain(name, "open", "devel", ("gfx1030",), "12.4", "moatbridge/open:x", IMAGE_ID,
                          "open-components", tools=("nvcc", "hipcc"))  # fmt: skip
    runtime = ToolchainRuntime(
        name=name, image=IMAGE_ID, target="gfx1030", activate=". /opt/moatbridge/bin/activate",
        uid=os.getuid(), gid=os.getgid(), group_adds=(44, 992), devices=("/dev/kfd", "/dev/dri"),
        roots=(os.path.realpath(home),), licence=None, licence_records="/nowhere", licence_env=(),
    )  # fmt: skip
    saved = sys.executable
    if python is not None:
        sys.executable = python
    try:
        written = tc.install_files(paths, toolchain, runtime, True, dry_run=False)
    finally:
        sys.executable = saved
    written += tc.edit_shell_rcs(paths, shells, dry_run=False)
    store = tc.store(paths)
    store.write(tc.record(store.read().with_toolchain(toolchain, True), written))
    return paths


def _fake_docker(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "docker").write_text(FAKE_DOCKER)
    (bin_dir / "docker").chmod(0o755)
    return bin_dir


def _env(home: Path, mbhome: Path, **extra: str) -> dict[str, str]:
    env = {"HOME": str(home), "PATH": BASE_PATH, "MOATBRIDGE_HOME": str(mbhome), "LANG": "C.UTF-8", **extra}
    if "PYTHONPATH" in os.environ:  # a source tree the tests were pointed at (this process's moatbridge)
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def _controlling_terminal() -> None:
    """In the child, after setsid: its stdin (the pty) becomes its controlling terminal, as
    a terminal emulator's shell has (job control, Ctrl-C, `docker exec -t`)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _in_pty(
    argv: list[str], env: dict[str, str], cwd: Path, stdout: int | None = None, timeout: float = 120
) -> tuple[int, str]:
    """Run ``argv`` on a real pseudo-terminal (stdin, stderr, and stdout unless given);
    returns its exit status and everything the terminal showed."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        argv, stdin=slave, stdout=stdout if stdout is not None else slave, stderr=slave, env=env, cwd=cwd,
        start_new_session=True, preexec_fn=_controlling_terminal,
    )  # fmt: skip
    os.close(slave)
    screen = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other side closed: the program is done
                break
            if not chunk:
                break
            screen += chunk
        elif process.poll() is not None:
            break
    os.close(master)
    return process.wait(timeout=30), screen.decode(errors="replace").replace("\r\n", "\n")


# --- the launcher in new login shells -------------------------------------------------------

LOGIN_SHELLS = {
    # A terminal's login shell: bash reads ~/.profile, which (Debian's skeleton) reads ~/.bashrc.
    "bash": ["-l", "-i", "-c"],
    "zsh": ["-l", "-i", "-c"],
    "fish": ["-l", "-c"],
    "dash": ["-l", "-c"],  # a login dash reads ~/.profile, where setup puts dash's block
}


@pytest.mark.parametrize("shell", sorted(LOGIN_SHELLS))
def test_a_new_login_shell_has_moatbridge_on_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shell: str
) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    env = _env(home, mbhome)
    del env["MOATBRIDGE_HOME"]  # a new shell knows only what its rc files say
    before = subprocess.run([_shell("sh"), "-c", "command -v moatbridge"], env=env, capture_output=True)
    assert before.returncode != 0, "moatbridge is on PATH before setup: the test would prove nothing"

    _install(home, mbhome, (shell,))
    launcher = mbhome / "cuda" / "bin" / "moatbridge"
    script = "command -v moatbridge; moatbridge --version; command -v mbrun"
    status, screen = _in_pty([_shell(shell), *LOGIN_SHELLS[shell], script], env, home)
    assert status == 0, screen
    lines = [line for line in screen.splitlines() if line.strip()]
    assert str(launcher) in lines, screen
    assert f"moatbridge {__version__}" in lines, screen
    assert str(mbhome / "cuda" / "bin" / "mbrun") in lines, screen


def test_the_launcher_runs_the_cli_with_setups_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    _install(home, mbhome)
    launcher = mbhome / "cuda" / "bin" / "moatbridge"
    text = launcher.read_text()
    assert text.startswith("#!/bin/sh\n# generated by moatbridge")
    assert f"py='{sys.executable}'" in text
    # The runner starts warm containers through it too: one interpreter for both.
    runner = (mbhome / "libexec" / "moatbridge-exec").read_text()
    assert _q(str(launcher)) + ' toolchain-warm "$name"' in runner
    # A `moatbridge` directory in the working directory does not shadow the CLI.
    project = home / "project"
    (project / "moatbridge").mkdir(parents=True)
    (project / "moatbridge" / "__init__.py").write_text("raise SystemExit('shadowed')\n")
    listed = subprocess.run([str(launcher), "list"], env=_env(home, mbhome), cwd=project, capture_output=True,
                            text=True)  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert NAME in listed.stdout
    bad = subprocess.run([str(launcher), "list", "--frob"], env=_env(home, mbhome), capture_output=True,
                         text=True)  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.startswith("moatbridge: ") and "Traceback" not in bad.stderr


def test_the_launcher_says_when_its_interpreter_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    venv = tmp_path / "project venv" / "bin"
    venv.mkdir(parents=True)
    python = venv / "python"
    python.symlink_to(sys.executable)  # as a venv's python is
    _install(home, mbhome, python=str(python))
    launcher = mbhome / "cuda" / "bin" / "moatbridge"
    works = subprocess.run(
        [str(launcher), "--version"], env=_env(home, mbhome), capture_output=True, text=True
    )
    assert works.stdout == f"moatbridge {__version__}\n", works.stderr

    shutil.rmtree(venv.parent)  # `rm -rf .venv`
    gone = subprocess.run([str(launcher), "list"], env=_env(home, mbhome), capture_output=True, text=True)
    assert gone.returncode == 127
    assert gone.stdout == ""
    assert gone.stderr == (
        f"moatbridge: the Python that ran moatbridge setup is gone ({python}).\nhint: {GONE_HINT}\n"
    )
    assert "pipx install" in gone.stderr


def test_the_launcher_says_when_moatbridge_left_its_interpreter(tmp_path: Path) -> None:
    """The interpreter is there but moatbridge is not (pip uninstall): one sentence, no traceback."""
    launcher = tmp_path / "moatbridge"
    launcher.write_text(render_launcher("/usr/bin/python3", str(tmp_path / "no package here")))
    launcher.chmod(0o755)
    result = subprocess.run([str(launcher), "list"], env={"PATH": BASE_PATH}, capture_output=True, text=True,
                            cwd=tmp_path)  # fmt: skip
    assert result.returncode == 127
    assert result.stderr == (
        "moatbridge: /usr/bin/python3 can no longer run moatbridge (No module named 'moatbridge').\n"
        f"hint: {GONE_HINT}\n"
    )


def test_setup_never_writes_over_a_moatbridge_that_is_not_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moatbridge.adapters.toolchain_files import ForeignFileConflict

    home, mbhome = _home(tmp_path, monkeypatch)
    mine = mbhome / "cuda" / "bin" / "moatbridge"
    mine.parent.mkdir(parents=True)
    mine.write_text("#!/bin/sh\necho my own wrapper\n")
    with pytest.raises(ForeignFileConflict, match="was not written by moatbridge"):
        _install(home, mbhome)
    assert mine.read_text() == "#!/bin/sh\necho my own wrapper\n"


def test_uninstall_removes_the_launcher_and_mbrun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    profile = (home / ".profile").read_bytes() if (home / ".profile").exists() else None
    bashrc = (home / ".bashrc").read_bytes() if (home / ".bashrc").exists() else None
    _install(home, mbhome, ("bash", "dash"))
    for path in ("cuda/bin/moatbridge", "cuda/bin/mbrun", f"toolchains/{NAME}/bin/mbrun"):
        assert (mbhome / path).is_file(), path
    # No engine is asked (nothing to stop): a DOCKER_HOST that answers nothing.
    env = _env(home, mbhome, DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock")
    gone = subprocess.run([str(mbhome / "cuda" / "bin" / "moatbridge"), "uninstall", "--all", "--keep-images"],
                          env=env, capture_output=True, text=True)  # fmt: skip
    assert gone.returncode == 0, gone.stderr
    assert f"Removed {mbhome}/cuda/bin/moatbridge" in gone.stdout
    assert f"Removed {mbhome}/cuda/bin/mbrun" in gone.stdout
    left = sorted(str(p.relative_to(mbhome)) for p in mbhome.rglob("*") if p.is_file())
    assert left == ["state/state.lock"]  # the lock in use stays (toolchain_uninstall)
    if profile is not None:
        assert (home / ".profile").read_bytes() == profile
    if bashrc is not None:
        assert (home / ".bashrc").read_bytes() == bashrc


# --- mbrun, moatbridge run and the nvcc shim: one runner, the same docker arguments -------------


def _docker_argv(log: Path) -> list[str]:
    """The arguments docker was given; the runner's per-call PID-file token made constant."""
    words = [word.decode() for word in log.read_bytes().split(b"\0")[:-1]]
    return [re.sub(r"/tmp/\.moatbridge-[0-9]+\.pid", "/tmp/.moatbridge-TOKEN.pid", w) for w in words]


@pytest.mark.parametrize("where", ["one-shot", "warm"])
def test_mbrun_moatbridge_run_and_shims_pass_the_gpu_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    _install(home, mbhome)
    log = tmp_path / "docker.args"
    env = _env(home, mbhome, PATH=f"{mbhome}/cuda/bin:{_fake_docker(tmp_path)}:{BASE_PATH}",
               DOCKER_LOG=str(log))  # fmt: skip
    if where == "warm":
        cwd = home / "project"  # inside the mounted home: `docker exec` into the warm container
        cwd.mkdir()
        (mbhome / "run").mkdir(parents=True, exist_ok=True)
        (mbhome / "run" / f"{NAME}.pid").write_text(f"{os.getpid()}\n")  # a live PID: it is running
    else:
        cwd = tmp_path / "elsewhere"  # outside it: a one-shot `docker run`
        cwd.mkdir()

    seen = {}
    for label, argv in {
        "shim": ["nvcc", "-o", "vadd", "vadd.cu"],
        "mbrun": ["mbrun", "nvcc", "-o", "vadd", "vadd.cu"],
        "mbrun --": ["mbrun", "--", "nvcc", "-o", "vadd", "vadd.cu"],
        "moatbridge run": ["moatbridge", "run", "--", "nvcc", "-o", "vadd", "vadd.cu"],
    }.items():
        log.unlink(missing_ok=True)
        result = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
        assert result.returncode == 0, f"{label}: {result.stderr}"
        seen[label] = _docker_argv(log)
    assert seen["mbrun"] == seen["shim"] == seen["moatbridge run"] == seen["mbrun --"], seen
    words = " ".join(seen["shim"])
    if where == "warm":
        assert seen["shim"][:2] == ["exec", "-i"] and f"moatbridge-{NAME}-{os.getuid()}" in seen["shim"]
        assert "-w" in seen["shim"] and str(cwd) in seen["shim"]
    else:
        assert seen["shim"][:2] == ["run", "--rm"]
        for part in ("--group-add 44", "--group-add 992", "--device /dev/kfd", "--device /dev/dri",
                     "--security-opt label=disable"):  # fmt: skip
            assert part in words, words
    assert seen["shim"][-4:] == ["nvcc", "-o", "vadd", "vadd.cu"]

    # A program built here runs in the toolchain the same way.
    log.unlink()
    assert subprocess.run(["mbrun", "./vadd", "x y"], env=env, cwd=cwd).returncode == 0
    assert _docker_argv(log)[-2:] == ["./vadd", "x y"]
    assert _docker_argv(log)[:-2] == seen["shim"][:-4]


def test_mbrun_without_a_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    _install(home, mbhome)
    for argv in (["mbrun"], ["mbrun", "--"]):
        result = subprocess.run([str(mbhome / "cuda" / "bin" / argv[0]), *argv[1:]], env=_env(home, mbhome),
                                capture_output=True, text=True)  # fmt: skip
        assert result.returncode == 2
        assert result.stderr == (
            "moatbridge: mbrun needs the command to run in the toolchain.\n"
            "hint: mbrun ./prog ARGS (the same as moatbridge run -- ./prog ARGS)\n"
        )


def test_the_toolchains_own_mbrun_fixes_the_toolchain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    _install(home, mbhome)
    log = tmp_path / "docker.args"
    env = _env(home, mbhome, PATH=f"{_fake_docker(tmp_path)}:{BASE_PATH}", DOCKER_LOG=str(log),
               MOATBRIDGE_TOOLCHAIN="another-one")  # fmt: skip
    dynamic = subprocess.run([str(mbhome / "cuda" / "bin" / "mbrun"), "true"], env=env, capture_output=True,
                             text=True, cwd=tmp_path)  # fmt: skip
    assert dynamic.returncode == 127 and "toolchain 'another-one' is not installed" in dynamic.stderr
    fixed = subprocess.run([str(mbhome / "toolchains" / NAME / "bin" / "mbrun"), "true"], env=env,
                           capture_output=True, text=True, cwd=tmp_path)  # fmt: skip
    assert fixed.returncode == 0, fixed.stderr
    assert _docker_argv(log)[-1] == "true"


# --- nvcc --version on a terminal -----------------------------------------------------------


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_nvcc_version_on_a_terminal_names_moatbridge_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    _install(home, mbhome)
    nvcc = str(mbhome / "cuda" / "bin" / "nvcc")
    env = _env(home, mbhome, PATH=f"{_fake_docker(tmp_path)}:{BASE_PATH}", DOCKER_LOG=str(tmp_path / "log"))
    # What a build system sees: stdout and stderr captured, nothing added.
    captured = subprocess.run([nvcc, flag], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert captured.returncode == 0
    assert captured.stdout == NVCC_VERSION and captured.stderr == ""
    # A person at a terminal: nvcc's output, then one line on stderr.
    status, screen = _in_pty([nvcc, flag], env, tmp_path)
    assert status == 0
    assert screen == NVCC_VERSION + RUN_HINT + "\n"
    assert "moatbridge run ./prog" in screen and "mbrun ./prog" in screen
    # stdout stays byte for byte nvcc's even when stderr is a terminal.
    out = tmp_path / "stdout"
    with out.open("wb") as handle:
        status, screen = _in_pty([nvcc, flag], env, tmp_path, stdout=handle.fileno())
    assert status == 0
    assert out.read_text() == NVCC_VERSION
    assert screen == RUN_HINT + "\n"


@pytest.mark.parametrize(
    "argv", [["nvcc", "--version", "-x"], ["nvcc", "-v"], ["hipcc", "--version"], ["nvcc", "-o", "a", "a.cu"]]
)
def test_no_hint_for_other_calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    _install(home, mbhome)
    env = _env(home, mbhome, PATH=f"{_fake_docker(tmp_path)}:{BASE_PATH}", DOCKER_LOG=str(tmp_path / "log"))
    status, screen = _in_pty([str(mbhome / "cuda" / "bin" / argv[0]), *argv[1:]], env, tmp_path)
    assert status == 0
    assert "moatbridge run" not in screen


def test_no_hint_when_nvcc_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home, mbhome = _home(tmp_path, monkeypatch)
    _install(home, mbhome)
    env = _env(home, mbhome, PATH=f"{_fake_docker(tmp_path)}:{BASE_PATH}", DOCKER_LOG=str(tmp_path / "log"),
               FAKE_DOCKER_STATUS="3")  # fmt: skip
    status, screen = _in_pty([str(mbhome / "cuda" / "bin" / "nvcc"), "--version"], env, tmp_path)
    assert status == 3
    assert "moatbridge run" not in screen


# --- the whole path, for real: a new user in the docker group ---------------------------------

VADD = r"""#include <cstdio>
#include <cuda_runtime.h>
int main() {
    int n = -1;
    cudaError_t status = cudaGetDeviceCount(&n);
    std::printf("runtime reached: %s\n", cudaGetErrorString(status));
    return 0;
}
"""


def _as_user(user: DockerUser, command: str, timeout: float = 900) -> tuple[int, str]:
    """``command`` in a new terminal of ``user``: an interactive login bash on a real pty,
    with the groups /etc/group gives the account (docker) and the account's environment
    (support.docker_user: its argv, made interactive, as a terminal's shell is)."""
    argv = user.argv(command)
    assert argv[-2:] == ["-lc", command], argv
    return _in_pty([*argv[:-2], "-l", "-i", "-c", command], user.env(), user.home, timeout=timeout)


@pytest.mark.engine
def test_a_new_user_in_the_docker_group_runs_what_they_built(
    open_devel_gfx1030: dict[str, Any], shared_tmp: Path
) -> None:
    with docker_group_user(shared_tmp) as user:
        container = f"moatbridge-{NAME}-{user.uid}"
        mbhome = user.home / ".local" / "share" / "moatbridge"
        try:
            bashrc = (user.home / ".bashrc").read_bytes()
            status, screen = _as_user(
                user, "moatbridge setup --yes --flavour open --target gfx1030 --shell bash"
            )
            assert status == 0, screen[-4000:]
            assert f"Ready: toolchain {NAME}" in screen
            assert "moatbridge run ./prog    (short: mbrun ./prog)" in screen  # the closing lines
            assert "pipx install" in screen
            # As after the README's command: moatbridge was in a venv, not on a new shell's PATH.
            (user.home / "bin" / "moatbridge").unlink()
            project = user.home / "vadd"
            project.mkdir()
            (project / "vadd.cu").write_text(VADD)
            outside = shared_tmp / f"{user.name} outside home"  # a one-shot container's directory
            outside.mkdir()
            subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", str(project), str(outside)], check=True)

            status, screen = _as_user(
                user,
                "cd ~/vadd; command -v moatbridge; moatbridge --version; nvcc --version; "
                "nvcc -o vadd vadd.cu; echo built=$?; ./vadd; echo host=$?; "
                "moatbridge run ./vadd; echo run=$?; mbrun true; echo mbrun=$?; "
                f"cp vadd {_q(str(outside))}/ && cd {_q(str(outside))} && mbrun ./vadd; echo oneshot=$?",
            )
            assert status == 0, screen[-4000:]
            lines = screen.splitlines()
            assert str(mbhome / "cuda" / "bin" / "moatbridge") in lines, screen[-4000:]
            assert f"moatbridge {__version__}" in lines
            assert "Cuda compilation tools, release 12.4" in screen
            assert RUN_HINT in screen  # nvcc --version on a terminal
            assert "built=0" in lines, screen[-4000:]
            assert (project / "vadd").stat().st_uid == user.uid
            # On the host the program cannot find the HIP runtime; in the toolchain it does.
            assert "error while loading shared libraries: libamdhip64.so" in screen and "host=127" in lines
            reached = [line for line in lines if line.startswith("runtime reached: ")]
            assert len(reached) == 2, screen[-4000:]  # warm (in the home) and one-shot (outside it)
            assert "run=0" in lines and "mbrun=0" in lines and "oneshot=0" in lines

            status, screen = _as_user(user, "moatbridge uninstall --all --keep-images")
            assert status == 0, screen[-4000:]
            assert (user.home / ".bashrc").read_bytes() == bashrc  # byte for byte
            assert not (mbhome / "cuda").exists()
        finally:
            subprocess.run(["docker", "rm", "-f", container], capture_output=True, check=False)


@pytest.mark.engine
def test_uninstall_leaves_another_accounts_warm_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine_version: str
) -> None:
    """Warm containers are per account (moatbridge-NAME-UID) but carry only the toolchain's
    name as a label: one account's uninstall must not remove another's (found when this
    file's engine test lost its container, exit 137, to a concurrent test's uninstall)."""
    name = f"mbt-uninstall-{os.getpid()}"
    home, mbhome = _home(tmp_path, monkeypatch)
    _install(home, mbhome, name=name)
    mine, theirs = f"moatbridge-{name}-{os.getuid()}", f"moatbridge-{name}-{os.getuid() + 4242}"
    try:
        for container in (mine, theirs):
            made = subprocess.run(
                ["docker", "create", "--name", container, "--label", f"io.moatbridge.toolchain={name}",
                 "--label", "io.moatbridge.managed=1", "moatbridge/debian-base:trixie", "true"],
                capture_output=True, text=True,
            )  # fmt: skip
            assert made.returncode == 0, made.stderr
        gone = subprocess.run([str(mbhome / "cuda" / "bin" / "moatbridge"), "uninstall", name, "--keep-images"],
                              env=_env(home, mbhome), capture_output=True, text=True)  # fmt: skip
        assert gone.returncode == 0, gone.stderr
        assert f"Removed container {mine}" in gone.stdout and theirs not in gone.stdout
        names = subprocess.run(
            ["docker", "ps", "-a", "--format", "{{.Names}}"], capture_output=True, text=True
        )
        assert theirs in names.stdout.split() and mine not in names.stdout.split()
    finally:
        subprocess.run(["docker", "rm", "-f", mine, theirs], capture_output=True, check=False)
