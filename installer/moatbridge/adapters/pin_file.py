"""Reading a pin file (`.moatbridge-toolchain`) and the working directory it is looked up
from, by the rule of core.pins: the checks in the order the shims' runner makes them."""

from __future__ import annotations

import errno
import os
import stat

from moatbridge.adapters.hostfs import read_limited
from moatbridge.core import pins


def read_pin(path: str) -> bytes:
    """The pin file's bytes; raises the InputError of core.pins.unreadable otherwise.

    Asked in the runner's order (exists, directory, regular, readable, size) so both say the
    same; the read itself is non-blocking and checked on the open descriptor (read_limited),
    so a FIFO swapped in after the stat cannot stop the command."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        broken = exc.errno in (errno.ENOENT, errno.ELOOP)
        raise pins.unreadable(path, pins.BROKEN if broken else pins.FAILED) from None
    if stat.S_ISDIR(mode):
        raise pins.unreadable(path, pins.DIRECTORY)
    if not stat.S_ISREG(mode):
        raise pins.unreadable(path, pins.SPECIAL)
    try:
        return read_limited(path, pins.PIN_LIMIT)
    except OSError as exc:
        reason = {
            errno.EACCES: pins.DENIED, errno.EPERM: pins.DENIED, errno.EFBIG: pins.LARGE,
            errno.EISDIR: pins.DIRECTORY, errno.EINVAL: pins.SPECIAL, errno.ENOENT: pins.BROKEN,
        }.get(exc.errno or 0, pins.FAILED)  # fmt: skip
        raise pins.unreadable(path, reason) from None


def working_directory() -> str:
    """The working directory as the shell spells it ($PWD, symlinks kept) when $PWD names it,
    as sh itself decides at start; otherwise the real path. The runner walks up from $PWD, so
    a pin above a symlinked directory is found by both or by neither. OSError when the
    directory was deleted."""
    real = os.getcwd()
    logical = os.environ.get("PWD", "")
    parts = logical.split("/")
    if logical.startswith("/") and "." not in parts and ".." not in parts:
        try:
            if os.path.samestat(os.stat(logical), os.stat(real)):
                return logical
        except OSError:
            pass
    return real
