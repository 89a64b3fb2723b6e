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

from moatbridge.adapters.filesystem import atomic_write_json, read_json
from moatbridge.core.toolchains import State
from moatbridge.errors import MoatbridgeError


class StateBusy(MoatbridgeError):
    exit_code = 75  # EX_TEMPFAIL: try again later


class StateStore:
    def __init__(self, path: Path, lock_timeout: float = 30.0) -> None:
        self.path = path
        self.lock_timeout = lock_timeout

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
        atomic_write_json(self.path, state.to_json())

    @contextmanager
    def locked(self) -> Iterator[StateStore]:
        from filelock import FileLock, Timeout

        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(self.path) + ".lock")
        try:
            lock.acquire(timeout=self.lock_timeout)
        except Timeout:
            raise StateBusy(
                f"Another moatbridge command is changing {self.path.parent} right now.",
                "wait for it to finish, then run this again",
            ) from None
        try:
            yield self
        finally:
            lock.release()

    def update(self, change: Callable[[State], State]) -> State:
        """Apply one change under the lock (callers already holding it use read/write)."""
        with self.locked():
            new = change(self.read())
            self.write(new)
            return new
