"""The state file: read without a lock, changed under one, always written atomically.

Every change is a transaction: take the lock (so two setups cannot interleave),
re-read, apply, write via temp file + rename. A kill at any point leaves either
the old or the new file; files written before the state caught up carry
moatbridge's marker, so the next run recognises and repairs them.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from moatbridge.adapters import faults
from moatbridge.adapters.filesystem import atomic_write_json, sweep_stale_temps
from moatbridge.adapters.hostfs import read_limited
from moatbridge.core.textsafe import printable
from moatbridge.core.toolchains import State
from moatbridge.errors import InputError, MoatbridgeError

MAX_STATE_BYTES = 16 << 20


class StateUnusable(MoatbridgeError):
    exit_code = 2


class StateBusy(MoatbridgeError):
    exit_code = 75  # EX_TEMPFAIL: try again later


class StateStore:
    def __init__(
        self, path: Path, lock_timeout: float = 30.0, lock_path: Path | None = None,
        on_written: Callable[[State], None] | None = None,
    ) -> None:  # fmt: skip
        self.path = path
        self.on_written = on_written  # told each state written (the per-account home registry)
        self.lock_timeout = lock_timeout
        # The lock file stays once made: unlinking it (even after release) would let a
        # waiter hold a lock on the unlinked file while a newcomer locks a new one.
        self.lock_path = lock_path or path.with_name(path.name + ".lock")

    def _load(self) -> tuple[State | None, str | None]:
        """(state, None); (None, None) when there is none; (None, why) when it cannot be used."""
        try:
            data = read_limited(self.path, MAX_STATE_BYTES)
        except FileNotFoundError:
            return None, None
        except OSError as exc:  # a directory, FIFO or device; unreadable; implausibly large
            return None, exc.strerror or "it cannot be read"
        try:
            return State.from_json(json.loads(data.decode("utf-8"))), None
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None, "it is damaged or from another version"

    def read(self) -> State:
        """The state; an unusable file reads as empty, with a warning, and is left as it is
        (read-only commands change nothing): the next change sets it aside first."""
        state, problem = self._load()
        if problem is not None:
            where = printable(str(self.path))  # MOATBRIDGE_HOME comes from the environment
            sys.stderr.write(
                f"moatbridge: warning: the state file {where} cannot be used ({problem}); "
                "treating it as empty. The next command that changes state keeps it as a backup.\n"
            )
        return state or State()

    def read_required(self) -> State:
        """The state, for a command that acts on one of its toolchains: one that cannot be used
        is refused (StateUnusable) rather than read as empty, whose only toolchain sentence
        would be the wrong one ("none is installed"). The file is left as it is."""
        state, problem = self._load()
        if problem is not None:
            where = printable(str(self.path))
            raise StateUnusable(
                f"The state file {where} cannot be used ({problem}), so its toolchains are unknown.",
                "'moatbridge setup' keeps it as a backup and records toolchains anew",
            )
        return state or State()

    def _set_aside(self) -> Path:
        """Rename the unusable file to a backup name no earlier backup has."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        for count in range(1000):
            backup = self.path.with_name(f"{self.path.name}.unreadable-{stamp}-{count}")
            if not (backup.exists() or backup.is_symlink()):
                self.path.rename(backup)
                return backup
        raise StateUnusable(f"Too many backups of {self.path} exist.", f"clean up {self.path.parent}")

    def write(self, state: State) -> None:
        if self._load()[1] is not None:
            backup = self._set_aside()
            sys.stderr.write(
                f"moatbridge: warning: kept the unusable state file as {printable(str(backup))}.\n"
            )
        faults.point("state.before-write", str(self.path))
        atomic_write_json(self.path, state.to_json())
        faults.point("state.written", str(self.path))
        if self.on_written is not None:
            self.on_written(state)

    def load_quietly(self) -> State | None:
        """The state as it is, for a look from elsewhere (another home's uninstall): None when
        there is none or it cannot be used; nothing is written or said."""
        return self._load()[0]

    def discard(self) -> Path | None:
        """No state any more (the last toolchain went): the file goes, except an unusable
        one, which is kept as the backup `read` promised; returns what went, if anything."""
        if self._load()[1] is not None:
            backup = self._set_aside()
            sys.stderr.write(
                f"moatbridge: warning: kept the unusable state file as {printable(str(backup))}.\n"
            )
            return None
        if not (self.path.exists() or self.path.is_symlink()):
            return None
        faults.point("uninstall.before-unlink", str(self.path))
        self.path.unlink()
        return self.path

    @contextmanager
    def locked(self) -> Iterator[StateStore]:
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.lock_path))
        try:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            lock.acquire(timeout=self.lock_timeout)
        except Timeout:
            raise StateBusy(
                f"Another moatbridge command is changing {self.path.parent} right now.",
                "wait for it to finish, then run this again",
            ) from None
        except OSError as exc:  # MOATBRIDGE_HOME names a file, or is not writable (Timeout: above)
            raise InputError(
                f"Cannot use {self.lock_path.parent} for moatbridge's files: {exc.strerror or exc}.",
                "point MOATBRIDGE_HOME at a directory you can write (or unset it)",
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
