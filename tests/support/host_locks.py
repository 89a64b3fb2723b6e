"""Locks between the test sessions on one host, for what a test puts outside its own temp
area (stand-in device nodes at /dev, accounts in /etc/passwd).

A session holds the lock for as long as such things of its own exist; the start-of-run sweep
of what a killed session left behind runs only when it can take the lock exclusively at once,
so it never takes what a live session is using. The locks are flock(2) on files in /run: the
kernel drops them when the holder dies however it dies (SIGKILL included), so a killed run
never leaves one held. The files themselves stay (removing a lock file races with the next
holder opening it); /run is a tmpfs, emptied at boot.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

RUN = Path("/run")


def _open(path: Path) -> int:
    # Not inherited by the processes the tests start (Python's default, stated): a child
    # outliving the session must not keep the lock held.
    return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)


@contextmanager
def held(path: Path, *, shared: bool = False, wait: float = 1800) -> Iterator[None]:
    """The lock for the block: ``shared`` among live sessions (each holds it for its own
    things), else exclusive; waits up to ``wait`` seconds for the other holders."""
    fd = _open(path)
    try:
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise RuntimeError(f"another test session held {path} for {wait:.0f} s") from None
                time.sleep(0.5)
        yield
    finally:
        os.close(fd)


@contextmanager
def exclusive_if_free(path: Path) -> Iterator[bool]:
    """The lock exclusively for the block if no session holds it right now (True), without
    waiting; False if one does (then nothing of anyone's may be swept)."""
    fd = _open(path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
        else:
            yield True
    finally:
        os.close(fd)
