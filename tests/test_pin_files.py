"""A pin file (.moatbridge-toolchain) means the same toolchain to the shims' sh runner and to
the Python commands (issue 11, defect 8): one rule, checked on the same files through both.
The runner is the real one, run by dash, bash and busybox-free sh; its toolchain.env is a
stand-in that reports the name it was reached with instead of starting a container."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from moatbridge.core.shims import render_runner
from moatbridge.core.toolchains import find_pin
from moatbridge.errors import InputError

# file bytes -> the toolchain selected, or None: refused (never the default)
CASES: dict[str, tuple[bytes, str | None]] = {
    "plain": (b"open-gfx1100\n", "open-gfx1100"),
    "no-final-newline": (b"open-gfx1100", "open-gfx1100"),
    "crlf": (b"open-gfx1100\r\n", "open-gfx1100"),
    "padded": (b"  open-gfx1100 \t\n", "open-gfx1100"),
    "leading-blank-lines": (b"\n \n\topen-gfx1100\n", "open-gfx1100"),
    "second-line-ignored": (b"open-gfx1100\nsomething else\n", "open-gfx1100"),
    "empty": (b"", None),
    "only-blank": (b"\n\r\n  \n", None),
    "traversal": (b"../../etc\n", None),
    "upper-case": (b"Open-GFX1100\n", None),
    "inner-space": (b"open gfx1100\n", None),
    "lone-cr-joins-lines": (b"open-gfx1100\rother\r", None),
    "leading-dash": (b"-x\n", None),
}


def test_the_runner_is_plain_text() -> None:
    """Control characters in the runner would not survive a text comparison (a re-run of
    setup would rewrite it every time) and are invisible in review."""
    runner = render_runner("/home/u/.local/share/moatbridge", "/usr/bin/moatbridge")
    assert not [c for c in runner if ord(c) < 32 and c != "\n"]


def _python(project: Path) -> str | None:
    try:
        found = find_pin(
            str(project), os.path.exists, lambda p: Path(p).read_bytes().decode("utf-8", "replace")
        )
    except InputError:
        return None
    assert found is not None
    return found[1]


def _runner(shell: str, project: Path, home: Path) -> str | None:
    runner = home / "runner"
    runner.write_text(render_runner(str(home), "/nonexistent/moatbridge"))
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "MOATBRIDGE_TOOLCHAIN": "fallback-should-not-win"}
    result = subprocess.run(
        [shell, str(runner), "nvcc"], capture_output=True, text=True, cwd=project, env=env, timeout=30
    )
    if result.returncode == 0 and result.stdout.startswith("selected:"):
        return result.stdout.strip().removeprefix("selected:")
    assert result.returncode == 127 and "moatbridge:" in result.stderr, (result.returncode, result.stderr)
    return None


@pytest.mark.parametrize("shell", ["sh", "dash", "bash"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_the_runner_and_python_read_a_pin_file_alike(tmp_path: Path, shell: str, case: str) -> None:
    if shutil.which(shell) is None:
        pytest.fail(f"{shell} is not installed (.ci/run installs it)")
    content, expected = CASES[case]
    home = tmp_path / "home"
    for name in ("open-gfx1100", "fallback-should-not-win"):
        (home / "toolchains" / name).mkdir(parents=True)
        (home / "toolchains" / name / "toolchain.env").write_text(f'echo "selected:{name}"; exit 0\n')
    project = tmp_path / "project" / "src"
    project.mkdir(parents=True)
    (tmp_path / "project" / ".moatbridge-toolchain").write_bytes(content)
    assert _python(project) == expected
    assert _runner(shell, project, home) == expected
