"""The state file: read without a lock, changed under one, always written atomically.

Every change is a transaction: take the lock (so two setups cannot interleave),
re-read, apply, write via temp file + rename. A kill at any point leaves either
the old or the new file; files written before the state caught up carry
moatbridge's marker, so the next run recognises and repairs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from moatbridge.adapters import faults
from moatbridge.adapters.filesystem import atomic_write_json, read_json, sweep_stale_temps
from moatbridge.core.toolchains import State
from moatbridge.errors import InputError, MoatbridgeError


class StateBusy(MoatbridgeError):
    exit_code = 75  # EX_TEMPFAIL: try again later


class StateStore:
    def __init__(self, path: Path, lock_timeout: float = 30.0, lock_path: Path | None = None) -> None:
        self.path = path
        self.lock_timeout = lock_timeout
        # The lock file stays once made: unlinking it (even after release) would let a
        # waiter hold a lock on the unlinked file while a newcomer locks a new one.
        self.lock_path = lock_path or path.with_name(path.name + ".lock")

    def read(self) -> State:
        data = read_json(self.path, None)
        if data is None:
            return State()
        try:
            return State.from_json(data)
        except (ValueError, KeyError, TypeError):
            # Unknown or damaged: set aside (never silently lost), start empty.
            self.path.replace(self.path.with_name(self.path.name + ".unreadable"))
            return State()

    def write(self, state: State) -> None:
        faults.point("state.before-write", str(self.path))
        atomic_write_json(self.path, state.to_json())
        faults.point("state.written", str(self.path))

    @contextmanager
    def locked(self) -> Iterator[StateStore]:
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.lock_path))
        try:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            lock.acquire(timeout=self.lock_timeout)
        except OSError as exc:  # MOATBRIDGE_HOME names a file, or a place we cannot write
            raise InputError(
                f"Cannot use {self.lock_path.parent} for moatbridge's files: {exc.strerror or exc}.",
                "point MOATBRIDGE_HOME at a directory you can write (or unset it)",
            ) from None
        except Timeout:
            raise StateBusy(
                f"Another moatbridge command is changing {self.path.parent} right now.",
                "wait for it to finish, then run this again",
            ) from None
        try:
            # What killed runs left half-written goes first (the lock holder is the only writer).
            sweep_stale_temps(self.path.parent, recursive=True)
            faults.point("state.locked", str(self.lock_path))
            yield self
        finally:
            lock.release()

    def update(self, change: Callable[[State], State]) -> State:
        """Apply one change under the lock (callers already holding it use read/write)."""
        with self.locked():
            new = change(self.read())
            self.write(new)
            return new
