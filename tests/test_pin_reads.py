"""The runner's read of a pin file never waits: a FIFO (or a device) swapped in after the
runner checked the pin is a regular file, but before it reads it, must not stop the shim.
sh has no non-blocking open, so the read is GNU dd's `iflag=nonblock` (core.pins.SH_PIN),
with a plain read after the check where dd lacks that flag.

The read itself is run on FIFOs directly; the swap is forced by commands on PATH that turn
the pin into a FIFO the first time any of them runs (no hook in the runner), in dash and bash."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from moatbridge.core.pins import PIN_FILE, PIN_LIMIT, SH_PIN, SPECIAL
from moatbridge.core.shims import render_runner

SHELLS = ("dash", "bash")
PROMPTLY = 10  # seconds; a read that waits on the FIFO waits forever


def _shell(shell: str) -> str:
    found = shutil.which(shell)
    if found is None:
        pytest.fail(f"{shell} is not installed (.ci/run installs it)")
    return found


def _read(shell: str, path: Path, path_dirs: str = "") -> str:
    """What the runner's read primitive says of ``path``."""
    script = f'fail() {{ exit 99; }}\n{SH_PIN}\nmb_pin_line "$1"\n'
    reader = subprocess.Popen(
        [_shell(shell), "-c", script, "sh", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={"PATH": path_dirs + os.environ["PATH"]}, stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        out, err = reader.communicate(timeout=PROMPTLY)
    except subprocess.TimeoutExpired:
        os.killpg(reader.pid, signal.SIGKILL)  # with the reader stuck on the FIFO
        reader.communicate()
        pytest.fail(f"reading {path} waits")
    assert reader.returncode == 0, err
    return out.decode("utf-8", "surrogateescape")


@pytest.mark.parametrize("shell", SHELLS)
def test_reading_a_fifo_returns_at_once(tmp_path: Path, shell: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert _read(shell, fifo) == "N\n"  # no writer: the end of the file, nothing named


@pytest.mark.parametrize("shell", SHELLS)
def test_reading_a_fifo_a_writer_holds_open_returns_at_once(tmp_path: Path, shell: str) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR)  # open, writing nothing: a plain read would wait
    try:
        assert _read(shell, fifo) == "F\n"
    finally:
        os.close(writer)


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"open-gfx1100\n", "Nopen-gfx1100"),
        (b"\n \t\r\n  open-\x00gfx1100 \r\nrest\n", "Nopen-\x01gfx1100"),
        (b"open-gfx1100", "Nopen-gfx1100"),
        (b"", "N"),
        (b"#" * PIN_LIMIT, "N" + "#" * PIN_LIMIT),
        (b"#" * (PIN_LIMIT + 1), "L"),
        (b"\n" * (1 << 20), "L"),
    ],
)
def test_reading_a_regular_pin(tmp_path: Path, shell: str, content: bytes, said: str) -> None:
    pin = tmp_path / "pin"
    pin.write_bytes(content)
    assert _read(shell, pin) == said + "\n"


@pytest.mark.parametrize("shell", SHELLS)
def test_reading_dev_zero_stops_at_the_limit(shell: str) -> None:
    assert _read(shell, Path("/dev/zero")) == "L\n"


# --- the swap, through the whole runner ---------------------------------------------------------

READERS = ("dd", "head", "wc", "cat", "tr")  # whatever the runner reads the pin with


def _swapping_path(tmp_path: Path, pin: Path) -> str:
    """A directory of stand-ins for READERS: the first of them to run makes ``pin`` a FIFO
    (renamed over it: the pin is never missing), then each runs the real command."""
    bin_dir = tmp_path / "swap-bin"
    bin_dir.mkdir()
    mark, fifo = tmp_path / "swapped", tmp_path / "fifo.new"
    for name in READERS:
        real = shutil.which(name)
        assert real is not None, name
        (bin_dir / name).write_text(
            f"#!/bin/sh\nif /bin/mkdir {mark} 2>/dev/null; then\n"
            f'    /usr/bin/mkfifo {fifo} && /bin/mv -f {fifo} {pin}\nfi\nexec {real} "$@"\n'
        )
        (bin_dir / name).chmod(0o755)
    return f"{bin_dir}:"


@pytest.mark.parametrize("shell", SHELLS)
def test_a_fifo_swapped_in_after_the_check_does_not_stop_the_shim(tmp_path: Path, shell: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / "libexec").mkdir(parents=True)
    runner = home / "libexec" / "moatbridge-exec"
    runner.write_text(render_runner(str(home), "/nonexistent/moatbridge"))
    project.mkdir()
    pin = project / PIN_FILE
    pin.write_text("open-gfx1100\n")
    env = {"PATH": _swapping_path(tmp_path, pin) + os.environ["PATH"], "HOME": str(home), "PWD": str(project)}
    # A session of its own: a reader stuck on the FIFO is ended with the runner.
    shim = subprocess.Popen([_shell(shell), str(runner), "nvcc"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=project, env=env, stdin=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        out, err = shim.communicate(timeout=PROMPTLY)
    except subprocess.TimeoutExpired:
        os.killpg(shim.pid, signal.SIGKILL)
        shim.communicate()
        pytest.fail("the runner waits on a FIFO swapped in for the pin")
    assert (tmp_path / "swapped").is_dir() and pin.is_fifo(), "the pin was never swapped"
    assert shim.returncode == 127 and not out, (shim.returncode, out, err)
    assert err.startswith(f"moatbridge: The pin file {pin} cannot be read ({SPECIAL}).\nhint: "), err
    assert len(err.splitlines()) == 2, err


@pytest.mark.parametrize("shell", SHELLS)
def test_a_dd_without_nonblock_still_reads_the_pin(tmp_path: Path, shell: str) -> None:
    """Not every dd has `iflag=nonblock` (BusyBox's has not): the pin is then read as before."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dd").write_text(
        f'#!/bin/sh\ncase "$*" in *nonblock*) echo "dd: invalid input flag" >&2; exit 1 ;; esac\n'
        f'exec {shutil.which("dd")} "$@"\n'
    )
    (bin_dir / "dd").chmod(0o755)
    pin = tmp_path / "pin"
    pin.write_bytes(b"  open-gfx1100\r\n")
    assert _read(shell, pin, f"{bin_dir}:") == "Nopen-gfx1100\n"
