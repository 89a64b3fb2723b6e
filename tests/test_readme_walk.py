"""README's quick start walks exactly the path a new user takes.

A real non-root account in the docker group gets a copy of the repository it owns and runs
the README's own text, taken from README.md by its markers (so a README edit that breaks
the walk fails here): the main command in its login shell; then, in a new terminal (an
interactive login bash on a real pty), each line of the quick start's run block on a
vadd.cu it writes; then the README's `moatbridge uninstall --all`, answering its question
on the terminal. Between the two, the same account sets up again for every shell moatbridge
knows, and new login zsh, fish and dash shells must find `nvcc`, `mbrun` and `moatbridge` in
the shim directory; every rc file comes back byte for byte after the uninstall.

The toolchain image is warm (built once by the fixture, a cache hit on this machine and in
CI after .ci/run's first step), so the walk costs the venv, `pip install .` from PyPI and a
few container starts.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import termios
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, build_image
from support.docker_user import DockerUser, docker_group_user

pytestmark = pytest.mark.engine

README = REPO / "README.md"
TARGET = "gfx1100"  # the README's main command names it
TOOLCHAIN = f"open-{TARGET}"
SHIMMED = ("nvcc", "mbrun", "moatbridge")
ALL_SHELLS = ("bash", "zsh", "fish", "dash")
# The account's own shell files, as a zsh and fish user has them: compared byte for byte
# after uninstall. The .zshrc has no final newline (moatbridge's block then adds one and
# takes it back); fish reads moatbridge's conf.d file, never the user's config.fish.
USER_FILES = {
    ".zshrc": b"# my zsh settings\nsetopt no_beep\nexport MY_ZSH=1",
    ".config/fish/config.fish": b"set -gx MY_FISH 1\n",
}
RC_FILES = (".bashrc", ".profile", ".zshrc")  # each gets a moatbridge block, and loses it
FISH_RC = ".config/fish/conf.d/moatbridge.fish"  # moatbridge's own file: gone after uninstall

# What a new user writes: the CUDA runtime API, a kernel launch, errors checked and printed.
VADD = r"""#include <cstdio>
#include <cuda_runtime.h>

__global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 1024;
    static float a[n], b[n], c[n];
    for (int i = 0; i < n; ++i) { a[i] = i; b[i] = 2 * i; }
    int devices = 0;
    cudaError_t status = cudaGetDeviceCount(&devices);
    std::printf("devices: %d (%s)\n", devices, cudaGetErrorString(status));
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    if (status == cudaSuccess) status = cudaMalloc(&da, sizeof a);
    if (status == cudaSuccess) status = cudaMalloc(&db, sizeof b);
    if (status == cudaSuccess) status = cudaMalloc(&dc, sizeof c);
    if (status == cudaSuccess) status = cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
    if (status == cudaSuccess) status = cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
    if (status == cudaSuccess) {
        vadd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
        status = cudaGetLastError();
    }
    if (status == cudaSuccess) status = cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
    std::printf("vadd: %s\n", cudaGetErrorString(status));
    if (status != cudaSuccess) return 1;
    std::printf("c[%d] = %g\n", n - 1, c[n - 1]);
    return 0;
}
"""
# No GPU here: HIP's own words for hipErrorNoDevice prove the program loaded its runtime.
NO_DEVICE = "devices: 0 (no ROCm-capable device is detected)"
STEP = "@@step"  # a line the walk prints after each command: "@@step N status"
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[=>()][0-9A-Za-z]?")


# --- the README's text -----------------------------------------------------------------------


def readme_block(marker: str) -> str:
    """The ```sh block right after ``<!-- marker -->`` in README.md (as .ci/run reads it)."""
    lines = README.read_text().splitlines()
    tag = f"<!-- {marker} -->"
    if tag not in lines:
        pytest.fail(f"README.md lost its {tag} marker: the quick start this test walks is gone")
    rest = lines[lines.index(tag) + 1 :]
    while rest and not rest[0].strip():
        rest.pop(0)
    if not rest or not rest[0].startswith("```"):
        pytest.fail(f"README.md's {tag} is not followed by a ``` block")
    body = []
    for line in rest[1:]:
        if line.startswith("```"):
            break
        body.append(line)
    else:
        pytest.fail(f"README.md's block after {tag} is never closed")
    if not "".join(body).strip():
        pytest.fail(f"README.md's block after {tag} is empty")
    return "\n".join(body)


def readme_quick_start_uninstall() -> str:
    """The quick start's `moatbridge uninstall ...` (inline in its prose)."""
    text = README.read_text()
    section = text.partition("## Quick start")[2].partition("\n## ")[0]
    found = re.findall(r"`(moatbridge uninstall [^`]*)`", section)
    if not found:
        pytest.fail("README.md's quick start no longer says how to uninstall (`moatbridge uninstall ...`)")
    return str(found[0])


# --- the account, its terminal ---------------------------------------------------------------


def _controlling_terminal() -> None:
    """In the child, after setsid: the pty becomes its controlling terminal, as in a terminal
    emulator (job control, `docker exec -t`, questions asked only on a terminal)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def terminal(
    user: DockerUser, shell: list[str], cwd: Path, replies: dict[str, str] | None = None, timeout: float = 300
) -> tuple[int, str]:
    """``shell`` (a shell's argv) as ``user``, with its groups, in a new terminal (a real pty);
    each text in ``replies`` seen on the screen is answered once. Returns the exit status and
    the screen, terminal controls stripped."""
    command = "true"
    login = user.argv(command)
    assert login[-3:] == ["bash", "-lc", command], login  # support.docker_user: setpriv ... bash -lc
    pending = dict(replies or {})
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [*login[:-3], *shell], stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=user.env(),
        start_new_session=True, preexec_fn=_controlling_terminal,
    )  # fmt: skip
    os.close(slave)
    raw = b""
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the other side closed: the shell is done
                    break
                if not chunk:
                    break
                raw += chunk
                for question in [q for q in pending if q in raw.decode(errors="replace")]:
                    os.write(master, pending.pop(question).encode())
            elif process.poll() is not None:
                break
        else:
            timed_out = True
            os.killpg(process.pid, signal.SIGKILL)  # its own session: the shell and what it started
    finally:
        os.close(master)
    status = process.wait(timeout=30)
    screen = ANSI.sub("", raw.decode(errors="replace")).replace("\r\n", "\n").replace("\r", "")
    if timed_out:
        pytest.fail(f"{shell[0]} did not finish in {timeout:.0f}s:\n{screen[-4000:]}")
    assert not pending, f"the terminal never asked {list(pending)}:\n{screen[-4000:]}"
    return status, screen


def steps(commands: list[str]) -> str:
    """A script running each command as its own line, then printing "@@step N STATUS"."""
    return "\n".join(f'{command}\necho "{STEP} {n} $?"' for n, command in enumerate(commands))


def step_results(screen: str, count: int) -> list[tuple[int, str]]:
    """(exit status, what the terminal showed) of each of ``count`` steps."""
    results, rest = [], screen
    for n in range(count):
        found = re.search(rf"^{STEP} {n} (\d+)$", rest, re.MULTILINE)
        assert found, f"step {n} did not finish:\n{screen[-4000:]}"
        results.append((int(found.group(1)), rest[: found.start()]))
        rest = rest[found.end() :]
    return results


def copy_repository(destination: Path) -> None:
    """The checkout as a user's clone has it: its files (tracked and new ones, not ignored
    ones like .venv or caches), with their modes."""
    if (REPO / ".git").exists():
        listed = subprocess.run(
            ["git", "-c", "safe.directory=*", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True, check=True,
        )  # fmt: skip
        for name in filter(None, listed.stdout.decode().split("\0")):
            source = REPO / name
            if source.is_file():  # a tracked file deleted in the checkout is not copied
                (destination / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, destination / name)
    else:  # an unpacked sdist
        caches = shutil.ignore_patterns(".venv", "__pycache__", ".*_cache", "*.egg-info", "build", "dist")
        shutil.copytree(REPO, destination, ignore=caches, dirs_exist_ok=True)


def snapshot(home: Path) -> dict[str, bytes | None]:
    names = (*RC_FILES, *USER_FILES, FISH_RC, ".bash_logout")
    return {name: (home / name).read_bytes() if (home / name).exists() else None for name in names}


# --- the walk --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def open_devel_gfx1100(engine_version: str) -> dict[str, Any]:
    """The README's toolchain image; a cache hit when warm (seconds)."""
    return build_image("--flavour", "open", "--target", TARGET)


def test_a_new_user_walks_the_readme_quick_start(
    open_devel_gfx1100: dict[str, Any], shared_tmp: Path
) -> None:
    if os.geteuid() != 0:
        pytest.skip("making a test account needs root")
    main_command = readme_block("main-command")
    run_block = [line for line in readme_block("quick-start-run").splitlines() if line.strip()]
    uninstall = readme_quick_start_uninstall()
    with docker_group_user(shared_tmp) as user:
        try:
            _walk(user, main_command, run_block, uninstall, open_devel_gfx1100["id"])
        finally:
            subprocess.run(["docker", "rm", "-f", f"moatbridge-{TOOLCHAIN}-{user.uid}"], capture_output=True)


def _walk(user: DockerUser, main_command: str, run_block: list[str], uninstall: str, image_id: str) -> None:
    home = user.home
    mbhome = home / ".local" / "share" / "moatbridge"
    shims = mbhome / "cuda" / "bin"
    (home / "bin" / "moatbridge").unlink()  # a new user: no moatbridge anywhere yet
    for name, content in USER_FILES.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_bytes(content)
    clone = home / "moatbridge"
    copy_repository(clone)
    subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", str(home)], check=True)
    before = snapshot(home)
    # (an nvcc already on the host's PATH may be there: the shim must come first)
    absent = user.run("command -v mbrun moatbridge", cwd=home)
    assert absent.stdout == "", f"on PATH before setup, the walk would prove nothing: {absent.stdout}"

    # 1. The main command, in the clone, in the account's login shell.
    setup = user.run(main_command, cwd=clone, timeout=1800)
    assert setup.returncode == 0, f"{main_command}\n{setup.stdout[-3000:]}\n{setup.stderr[-3000:]}"
    assert f"Ready: toolchain {TOOLCHAIN}" in setup.stdout, setup.stdout[-3000:]

    # 2. A new terminal: vadd.cu, then the quick start's run block line by line, as written.
    write = f"mkdir ~/vadd && cd ~/vadd && cat > vadd.cu <<'EOF'\n{VADD}EOF"
    commands = [write, *run_block, "./vadd", "mbrun ./vadd", *(f"command -v {tool}" for tool in SHIMMED)]
    status, screen = terminal(user, ["bash", "-l", "-i", "-c", steps(commands)], home)
    assert status == 0, screen[-4000:]
    results = step_results(screen, len(commands))
    assert results[0][0] == 0, results[0]
    built = home / "vadd" / "vadd"
    assert built.is_file() and os.access(built, os.X_OK), f"the run block built no ./vadd:\n{screen[-4000:]}"
    assert built.stat().st_uid == user.uid, "./vadd is not the account's own"
    ran_vadd = 0
    for line, (code, output) in zip(run_block, results[1 : 1 + len(run_block)], strict=True):
        if "vadd: " in output:  # the line ran the program: its status is the program's
            ran_vadd += 1
            _assert_reached_the_runtime(line, code, output)
        else:
            assert code == 0, f"{line!r} exited {code}:\n{output[-3000:]}"
    assert ran_vadd, f"no line of the README's run block ran ./vadd in the toolchain:\n{screen[-4000:]}"
    alone, mbrun = results[1 + len(run_block)], results[2 + len(run_block)]
    assert alone[0] == 127 and "error while loading shared libraries: libamdhip64.so" in alone[1], alone
    _assert_reached_the_runtime("mbrun ./vadd", *mbrun)
    for tool, (code, output) in zip(SHIMMED, results[-len(SHIMMED) :], strict=True):
        assert code == 0 and output.strip() == str(shims / tool), f"bash: {tool} -> {output!r}"

    # 3. Every shell moatbridge knows, set up by the same account from a new terminal (a
    #    cache hit), then a new login shell of each: the shims and the CLI are on PATH.
    every = " ".join(f"--shell {shell}" for shell in ALL_SHELLS)
    again = f"moatbridge setup --yes --flavour open --target {TARGET} {every}"
    status, screen = terminal(user, ["bash", "-l", "-i", "-c", again], home)
    assert status == 0 and f"Ready: toolchain {TOOLCHAIN}" in screen, screen[-4000:]
    for name in (*RC_FILES, FISH_RC):
        assert b"# >>> moatbridge >>>" in (home / name).read_bytes(), f"setup left {name} without its block"
    for shell in ("zsh", "fish", "dash"):
        _assert_login_shell_finds_the_shims(user, shell, shims)

    # 4. The README's uninstall, in a new terminal; its question about the image answered no
    #    (the image is shared with other tests, and is not what this checks).
    status, screen = terminal(
        user, ["bash", "-l", "-i", "-c", uninstall], home, replies={"Also remove the images? [y/N]": "n\n"}
    )
    assert status == 0, screen[-4000:]
    assert f"Uninstalled: {TOOLCHAIN}." in screen, screen[-4000:]
    after = snapshot(home)
    for name, content in before.items():
        assert after[name] == content, (
            f"{name} did not come back byte for byte: {content!r} -> {after[name]!r}"
        )
    assert not shims.exists(), f"uninstall left {shims}"
    inspect = subprocess.run(["docker", "image", "inspect", image_id], capture_output=True)
    assert inspect.returncode == 0, "answering no, the image should stay"


def _assert_reached_the_runtime(line: str, code: int, output: str) -> None:
    """The program loaded with the HIP runtime and asked it for devices; without a GPU it
    reports none and exits 1 (its status passed through), with one the sum comes back."""
    if Path("/dev/kfd").exists():
        assert code == 0 and "vadd: no error" in output and "c[1023] = 3069" in output, (line, code, output)
    else:
        assert NO_DEVICE in output.splitlines(), f"{line!r} did not reach the HIP runtime:\n{output[-3000:]}"
        assert code == 1, f"{line!r} exited {code}, not the program's 1:\n{output[-3000:]}"


def _assert_login_shell_finds_the_shims(user: DockerUser, shell: str, shims: Path) -> None:
    """A new terminal's login shell: where nvcc, mbrun and moatbridge resolve, and the CLI runs."""
    if shutil.which(shell) is None:
        pytest.fail(f"{shell} is not installed: .ci/run installs it from Debian's packages")
    if shell == "fish":
        script = "for c in " + " ".join(SHIMMED) + "; printf '@@%s=%s\\n' $c (command -v $c); end"
    else:
        script = (
            "for c in " + " ".join(SHIMMED) + '; do printf \'@@%s=%s\\n\' "$c" "$(command -v "$c")"; done'
        )
    script += "; moatbridge --version"
    status, screen = terminal(user, [shell, "-l", "-i", "-c", script], user.home, timeout=120)
    assert status == 0, f"{shell}:\n{screen[-4000:]}"
    found = dict(re.findall(r"^@@(\w+)=(.*)$", screen, re.MULTILINE))
    assert found == {tool: str(shims / tool) for tool in SHIMMED}, f"{shell}:\n{screen[-4000:]}"
    assert re.search(r"^moatbridge \d", screen, re.MULTILINE), (
        f"{shell}: moatbridge --version\n{screen[-4000:]}"
    )
