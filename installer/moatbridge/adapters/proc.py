"""The one place moatbridge starts child processes."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping, Sequence

from moatbridge.errors import MoatbridgeError


class CommandFailed(MoatbridgeError):
    exit_code = 4


def _not_installed(program: str) -> CommandFailed:
    return CommandFailed(f"{program} is not installed.", f"install it (e.g. sudo apt-get install {program})")


def run_captured(argv: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to the end and return its result (text, stdout and stderr apart); a program
    that is not on PATH is said as such, not as a file the system refused, and one that outlives
    ``timeout`` is killed and said, not a traceback."""
    try:
        return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout, errors="replace")
    except FileNotFoundError:
        raise _not_installed(argv[0]) from None
    except subprocess.TimeoutExpired:
        command = " ".join(argv[:2])  # the program and its subcommand ('docker run'), no arguments
        raise CommandFailed(
            f"{command} did not finish within {timeout:g} seconds; it was stopped.",
            "see whether the engine is busy or stuck: moatbridge doctor",
        ) from None


def run_streaming(
    argv: Sequence[str],
    on_line: Callable[[str], None],
    env: Mapping[str, str] | None = None,
    what: str | None = None,
) -> None:
    """Run ``argv``, feeding each output line (stdout+stderr) to ``on_line``; raise on failure."""
    try:
        process = subprocess.Popen(
            list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=dict(env) if env is not None else None, errors="replace",
        )  # fmt: skip
    except FileNotFoundError:
        raise _not_installed(argv[0]) from None
    tail: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:
        line = line.rstrip("\n")
        tail = [*tail[-19:], line]
        on_line(line)
    code = process.wait()
    if code != 0:
        raise CommandFailed(
            f"{what or argv[0]} failed with exit status {code}.", "its last output was:\n" + "\n".join(tail)
        )
