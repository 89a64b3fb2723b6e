"""Which MOATBRIDGE_HOMEs of this account keep toolchains: the per-account registry that
keeps one home's uninstall from removing an image another home's toolchain still records.

State is per MOATBRIDGE_HOME while the engine, and so every image, is per account (CI jobs,
two checkouts with their own MOATBRIDGE_HOME). Each home that records a toolchain has one
entry, <Paths.homes_registry>/<Paths.engine_key>, holding its resolved path; the entry goes
with the home's last toolchain. The registry is under the passwd entry's home, not $HOME
(or where $MOATBRIDGE_HOMES_DIR says), so homes made under another HOME of the account meet.
Before an image is removed the other homes' states are read: one that records it (or
cannot be read) keeps it.

Accounts do not see each other's registry (`sudo -H` is root's account): what another
account's warm containers use is asked of the engine instead (services/toolchain_removal).
The registry is best effort: a home that cannot write it (no passwd entry, a read-only home)
works as before, unseen by other homes.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from moatbridge.adapters.filesystem import atomic_write_bytes
from moatbridge.adapters.hostfs import read_limited

ENTRY_MAX_BYTES = 8192


def register(registry: str | None, home: str, key: str) -> None:
    """Record that the home (resolved) keeps toolchains; quietly nothing when it cannot."""
    if registry is None:
        return
    where = Path(registry)
    entry, line = where / key, os.fsencode(home) + b"\n"
    with contextlib.suppress(OSError):
        if entry.is_file() and read_limited(entry, ENTRY_MAX_BYTES) == line:
            return  # already there: no write on every state change
        where.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(entry, line, 0o644)


def unregister(registry: str | None, key: str) -> None:
    """The home keeps no toolchain any more; the registry's directories go when empty."""
    if registry is None:
        return
    where = Path(registry)
    with contextlib.suppress(OSError):
        (where / key).unlink(missing_ok=True)
        where.rmdir()
        if where.parent.name == "moatbridge":  # the default's moatbridge/ (a lock file keeps it)
            where.parent.rmdir()


def other_homes(registry: str | None, key: str) -> list[Path]:
    """The other registered homes that still exist (entries of vanished homes are dropped)."""
    found: list[Path] = []
    if registry is None or not Path(registry).is_dir():
        return found
    where = Path(registry)
    for entry in sorted(where.iterdir()):
        if entry.name == key or not entry.is_file():
            continue
        try:
            home = Path(os.fsdecode(read_limited(entry, ENTRY_MAX_BYTES).rstrip(b"\n")))
        except OSError:
            continue
        if not home.is_absolute():
            continue
        if not home.exists():
            with contextlib.suppress(OSError):
                entry.unlink()  # a home deleted by hand (a CI job's workspace): no longer a user
            continue
        found.append(home)
    return found
