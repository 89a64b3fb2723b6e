"""Files moatbridge owns: content digests and crash-safe writes."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from moatbridge.adapters import faults
from moatbridge.errors import InputError, MoatbridgeError

# Temp files of atomic writes: ".NAME.moatbridge-tmp-PID-RANDOM" beside the file. A kill -9
# between writing one and renaming it leaves it behind; the next run removes those whose
# process is gone (sweep_stale_temps), so nothing of a killed run piles up.
_TEMP = re.compile(r"\..*\.moatbridge-tmp-([0-9]+)-[^/]*")


class DiskFull(MoatbridgeError):
    exit_code = 74  # EX_IOERR

    def __init__(self, path: Path | str | None) -> None:
        if path is None:  # the output itself (stdout to a full disk, or to /dev/full)
            super().__init__(
                "There is no space left to write the output.",
                "free some space where the output goes, then run this again",
            )
            return
        path = Path(path)
        super().__init__(
            f"There is no space left to write {path}; the file was left as it was.",
            f"free some space on the file system holding {path.parent}, then run this again",
        )


def output_exists(path: Path, what: str, hint: str) -> bool:
    """Whether an output path the user named (-o FILE, a generated project file) holds a
    regular file now; False when nothing is there. Everything else is refused, never
    replaced: a rename over a symlink would cut the link (and /dev/stdout is one), over a
    device node (/dev/full, /dev/null) would swap the machine's device for a file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:  # a name too long, a parent that is a file or unreadable
        raise InputError(f"{path} cannot hold the {what}: {exc.strerror or exc}.", hint) from None
    if stat.S_ISREG(info.st_mode):
        return True
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path} is a directory, not a file.", f"pass a file name for the {what}")
    kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "a device, FIFO or socket"
    raise InputError(f"{path} is {kind}; the {what} is written only to a new or regular file.", hint)


def atomic_write_text(path: Path, text: str, mode: int = 0o644) -> None:
    """Write via a temp file in the same directory + rename: readers see old or new, never half."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def rewrite_preserving(path: Path, data: bytes) -> None:
    """Replace a user's file's bytes, keeping what makes it theirs: mode, owner and, for a
    file with other hard links, its inode (rewritten in place: a rename would split the
    links). Otherwise atomically, via a temp file in the same directory and a rename."""
    try:
        info = path.stat()
    except FileNotFoundError:
        atomic_write_bytes(path, data, 0o644)
        return
    if info.st_nlink > 1:
        # In place, so not atomic: a journal beside it holds the bytes before and after
        # until the rewrite is done; finish_interrupted_rewrite() repairs a killed one.
        old = path.read_bytes()
        atomic_write_bytes(_journal(path), len(old).to_bytes(8, "big") + old + data, 0o600)
        _write_in_place(path, data)
        _journal(path).unlink()
        return
    atomic_write_bytes(path, data, info.st_mode & 0o7777, (info.st_uid, info.st_gid))


def _journal(path: Path) -> Path:
    return path.with_name(f".{path.name}.moatbridge-rewrite")


def _write_in_place(path: Path, data: bytes) -> None:
    with path.open("r+b") as handle:
        handle.write(data)
        handle.flush()
        faults.point("write.in-place-written", str(path))
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


def finish_interrupted_rewrite(path: Path) -> bool:
    """After a kill between an in-place rewrite's write and its truncate (the new bytes,
    then the tail of the old), put the old bytes back; True when it did. A file that is
    neither (edited since) is left as it is. The journal goes either way."""
    journal = _journal(path)
    try:
        record = journal.read_bytes()
    except FileNotFoundError:
        return False
    size = int.from_bytes(record[:8], "big")
    old, new = record[8 : 8 + size], record[8 + size :]
    restored = False
    with contextlib.suppress(FileNotFoundError):
        current = path.read_bytes()
        if current not in (old, new) and current == new + old[len(new) :]:
            _write_in_place(path, old)
            restored = True
    journal.unlink(missing_ok=True)
    return restored


def atomic_write_bytes(path: Path, data: bytes, mode: int, owner: tuple[int, int] | None = None) -> None:
    """atomic_write_text's bytes: with `owner` (uid, gid), the new file keeps that owner too."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        sweep_stale_temps(path.parent, path.name)
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.moatbridge-tmp-{os.getpid()}-", dir=path.parent)
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(path) from None
        raise
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if owner is not None and (os.getuid() == 0 or owner[0] == os.getuid()):
            with contextlib.suppress(PermissionError):  # a group the user is not in: keep theirs
                os.chown(temp, *owner)
        os.chmod(temp, mode)
        faults.point("write.temp-complete", str(path))
        os.replace(temp, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
            raise DiskFull(path) from None
        raise
    faults.point("write.renamed", str(path))


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: alive
        return False
    return False


def sweep_stale_temps(directory: Path, name: str | None = None, recursive: bool = False) -> list[Path]:
    """Remove temp files of atomic writes (of file ``name``, or any) whose writer was killed."""
    pattern = f".{name}.moatbridge-tmp-*" if name is not None else ".*.moatbridge-tmp-*"
    try:
        found = list(directory.rglob(pattern) if recursive else directory.glob(pattern))
    except OSError:
        return []
    removed = []
    for temp in found:
        match = _TEMP.fullmatch(temp.name)
        if match is None or not temp.is_file() or temp.is_symlink() or not _process_gone(int(match[1])):
            continue
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
            removed.append(temp)
    return removed


def read_json(path: Path, default: Any) -> Any:
    from moatbridge.adapters.hostfs import read_limited

    try:
        return json.loads(read_limited(path, 64 << 20).decode("utf-8"))  # a FIFO: refused, no hang
    except FileNotFoundError:
        return default
    except (OSError, ValueError, RecursionError):
        # A damaged state file is set aside, not trusted and not silently lost.
        path.replace(path.with_name(path.name + ".corrupt"))
        return default


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
