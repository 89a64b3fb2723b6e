"""A throwaway HOME with one open toolchain set up, as a user would have it, for the bench
scripts that build real projects through the host shims, and what they share: running a
built program as a user would, and the commit a table is generated at."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def toolchain_home(
    target: str, prefix: str, distro: str | None = None, cuda_version: str | None = None
) -> Iterator[dict[str, str]]:
    """The environment of a shell in a fresh HOME where `moatbridge setup --yes` installed the
    open toolchain for `target` (on `distro`'s stack, else the default one; mimicking
    `cuda_version`, else the catalog's default; building or reusing its image); removed
    afterwards."""
    with tempfile.TemporaryDirectory(prefix=f"{prefix}-{target}-") as scratch:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MOATBRIDGE_", "XDG_"))}
        env["HOME"] = scratch
        moatbridge = [sys.executable, "-m", "moatbridge"]
        subprocess.run(
            [*moatbridge, "setup", "--yes", "--flavour", "open", "--target", target, "--no-modify-rc",
             *(["--distro", distro] if distro else []),
             *(["--cuda-version", cuda_version] if cuda_version else [])],
            env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
        try:
            yield env
        finally:
            # Removes the home's warm container too.
            subprocess.run([*moatbridge, "uninstall", "--all", "--keep-images"], env=env, capture_output=True)


def in_shell(env: dict[str, str], command: str, cwd: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """`command` in a bash whose PATH has the toolchain's host shims (nvcc, cmake, make, ninja)."""
    return subprocess.run(
        ["bash", "-c", f'. "$HOME/.local/share/moatbridge/env" && {command}'],
        capture_output=True, text=True, errors="replace", timeout=timeout, cwd=cwd, env=env,
    )  # fmt: skip


def run_built(
    env: dict[str, str],
    directory: Path,
    name: str,
    emulate: bool = False,
    limit: int = 300,
    args: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """`moatbridge run ./name` from `directory`: the container gets the GPU as shims do (an
    emulated one with `emulate`: MOATBRIDGE_EMULATOR in `env` names the emulator)."""
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", "run", *(["--emulate"] if emulate else []), "--",
         "timeout", str(limit), f"./{name}", *args],
        capture_output=True, text=True, errors="replace", cwd=directory, env=env,
    )  # fmt: skip


def commit() -> str:
    """The checkout's short commit, for the header of a generated table."""
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO)
    return result.stdout.strip() or "unknown"


SIGNALS = {134: "SIGABRT", 136: "SIGFPE", 137: "SIGKILL", 139: "SIGSEGV", 135: "SIGBUS", 132: "SIGILL"}


# Lines that say nothing about the failure: moatbridge's own, and ROCr's leak report at exit.
_NOISE = ("moatbridge: the GPU is emulated", "Warning: Resource leak detected by SharedSignalPool")


def first_line(text: str) -> str:
    """The first line that says something, shortened for a table cell."""
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith(_NOISE):
            return line.replace("|", "\\|")[:160]
    return ""


def verdict(code: int, stdout: str, stderr: str, said_passed: bool) -> tuple[str, str]:
    """How a run of a self-checking program ended, as (kind, detail): passed (exit 0 and its
    own success line), no GPU enumerated, too slow (`timeout`'s 124), crashed (a signal),
    or wrong result."""
    if code == 0 and said_passed:
        return "passed", ""
    if code == 124:
        return "too slow", "no result within the time limit"
    if code in SIGNALS or code > 128:
        return "crashed", f"{SIGNALS.get(code, f'exit {code}')}: {first_line(stderr) or first_line(stdout)}"
    if "no CUDA-capable device" in stderr or "CUDA error: no" in stderr:
        return "no GPU enumerated", first_line(stderr)
    return "wrong result", f"exit {code}: {first_line(stderr) or first_line(stdout)}"
