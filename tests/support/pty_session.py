"""A program on a real pseudo-terminal, driven as a person at a terminal would.

The program gets a new session whose controlling terminal is the pty (what a terminal
emulator gives its shell: job control, Ctrl-C as SIGINT to the foreground group, `docker
exec -t`), with the window size set before it starts, so a prompt library reads the size
it will be shown at. The test reads what it drew (`screen`: without escape sequences),
waits for text, types keys, and ends it with `finish()` or `interrupt()`: the child is
always reaped and the pty closed, also when a wait fails (no process outlives its test).
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

CTRL_C = "\x03"
# CSI (colours, cursor moves, private modes), OSC (window titles) and two-byte escapes; an
# escape still incomplete at the end of what was read is left out until the rest arrives.
_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78DEHMc])")
_PARTIAL_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[()])?\Z")


def without_escapes(raw: str) -> str:
    """What a person reads: escape sequences gone, a terminal's CR LF as a newline."""
    return _PARTIAL_ESCAPE.sub("", _ESCAPE.sub("", raw)).replace("\r\n", "\n")


def _become_controlling_terminal() -> None:
    """In the child, after setsid: its stdin (the pty) becomes its controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class PtySession:
    """``argv`` with ``env`` (exactly: nothing of this process's environment is added) on a
    pty of ``rows`` x ``columns``. stdin and stderr are the pty; so is stdout unless
    ``stdout`` (an open file descriptor) is given."""

    def __init__(
        self,
        argv: Sequence[str],
        env: dict[str, str],
        cwd: Path | str | None = None,
        *,
        rows: int = 40,
        columns: int = 120,
        stdout: int | None = None,
    ) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        try:
            self.process = subprocess.Popen(
                list(argv), stdin=slave, stdout=slave if stdout is None else stdout, stderr=slave,
                env=env, cwd=cwd, start_new_session=True, preexec_fn=_become_controlling_terminal,
            )  # fmt: skip
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.fd: int | None = master
        self.raw = ""  # everything the terminal was sent, escapes and all
        self.code: int | None = None  # the exit status, once reaped (None: killed at a timeout)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._forgotten = 0  # characters of `screen` dropped by forget()
        self._hung_up = False  # no process holds the terminal any more

    @classmethod
    def run(
        cls, argv: Sequence[str], env: dict[str, str], cwd: Path | str | None = None, *, timeout: float = 120,
        until_eof: bool = False, rows: int = 40, columns: int = 120, stdout: int | None = None,
    ) -> PtySession:  # fmt: skip
        """Start ``argv`` and read until it ends (see finish): the finished session, its
        exit status in ``code``."""
        session = cls(argv, env, cwd, rows=rows, columns=columns, stdout=stdout)
        session.finish(timeout, until_eof=until_eof)
        return session

    @property
    def screen(self) -> str:
        """What was drawn since the last forget(), as a person reads it."""
        return without_escapes(self.raw)[self._forgotten :]

    def forget(self, before: str | None = None) -> None:
        """Drop what the screen shows so far (or only what precedes the first ``before``),
        so later waits and checks see only what comes next."""
        screen = self.screen
        self._forgotten += len(screen) if before is None else screen.index(before)

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def read(self, timeout: float) -> bool:
        """Read what arrives within ``timeout`` seconds; False once the terminal has no
        writer left (every process holding it has gone) or it was closed."""
        if self.fd is None:
            return False
        if not select.select([self.fd], [], [], max(0.0, timeout))[0]:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:  # EIO: the other side is closed
            chunk = b""
        self.raw += self._decoder.decode(chunk, final=not chunk)
        self._hung_up = not chunk
        return bool(chunk)

    def appears(self, text: str, timeout: float = 120) -> bool:
        """Whether ``text`` is on the screen within ``timeout`` seconds (False too when the
        program ends without showing it)."""
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if not self.read(min(remaining, 1.0)):  # nothing more will come
                return text in self.screen
        return True

    def goes_quiet(self, quiet: float = 1.0, timeout: float = 120) -> bool:
        """Whether the program, once it has sent the terminal anything (escapes count), then
        sends nothing for ``quiet`` seconds within ``timeout`` seconds: it has asked and waits
        for an answer, whatever the question's words. False when it ends first or time runs out."""
        deadline = time.monotonic() + timeout
        while self.fd is not None and (remaining := deadline - time.monotonic()) > 0:
            wait = min(remaining, quiet)
            if not select.select([self.fd], [], [], wait)[0]:
                if self.raw and wait == quiet:
                    return True
                continue
            if not self.read(0):  # nothing more will come
                return False
        return False

    def wait_for(self, text: str, timeout: float = 120) -> None:
        """Wait until ``text`` is on the screen; otherwise end the program and fail, showing
        the screen."""
        if self.appears(text, timeout):
            return
        ended = "the program ended" if self._hung_up or not self.running else f"{timeout:g} s passed"
        self.close()
        raise AssertionError(f"{text!r} never appeared ({ended}); screen:\n{self.screen[-3000:]}")

    def send(self, keys: str, settle: float = 0.3) -> None:
        """Type ``keys`` after ``settle`` seconds (a prompt library draws before it reads)."""
        time.sleep(settle)
        assert self.fd is not None, "the terminal is closed"
        os.write(self.fd, keys.encode())

    def finish(self, timeout: float = 120, *, until_eof: bool = False) -> int | None:
        """Read until the program exits, then what it left unread, and reap it; its exit
        status, or None when it was still running after ``timeout`` seconds (then it and its
        process group are killed). ``until_eof`` stops only when the terminal closes (no
        process holds it any more), not as soon as the program has exited."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if not self.read(min(0.5, max(0.0, deadline - time.monotonic()))):
                    break  # no writer left
                if not until_eof and not self.running:
                    while self.read(0.2) and self.fd is not None and select.select([self.fd], [], [], 0)[0]:
                        pass
                    break
            while self.running and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            self.close()
        return self.code

    def interrupt(self, timeout: float = 30, *, settle: float = 0.3) -> int:
        """Type Ctrl-C (after ``settle`` seconds, as send) and wait for the program to end; its
        exit status."""
        self.send(CTRL_C, settle)
        code = self.finish(timeout)
        if code is None:
            raise AssertionError(f"the program did not stop on Ctrl-C; screen:\n{self.screen[-2000:]}")
        return code

    def close(self) -> None:
        """Kill the program (its process group) if it still runs, reap it, close the pty."""
        if self.fd is None:  # closed before: the exit status is known
            return
        if self.running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            self.code = None
        else:
            self.code = self.process.returncode
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> PtySession:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
