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


# Write failures that are the disk's, not the path's: each ends a command with exit 74
# (EX_IOERR) and one sentence saying what became of the file.
WRITE_FAILURES = {
    errno.ENOSPC: "The disk is full",
    errno.EDQUOT: "The disk quota is used up",
    errno.EIO: "The disk reported an input/output error",
}


def _remedy(code: int, where: str) -> str:
    if code == errno.EIO:
        return f"check the disk holding {where} (dmesg says more), then run this again"
    return f"free some space on the file system holding {where}, then run this again"


def shown(path: Path | str) -> str:
    """A path as the user knows it: under their home directory as ``~/...``."""
    text, home = str(path), os.path.expanduser("~")
    return "~" + text[len(home) :] if home not in ("", "/") and text.startswith(home + "/") else text


class DiskFull(MoatbridgeError):
    exit_code = 74  # EX_IOERR

    def __init__(self, path: Path | str | None, code: int = errno.ENOSPC) -> None:
        self.code = code
        if path is None:  # the output itself (stdout to a full disk, or to /dev/full)
            super().__init__(
                "There is no space left to write the output.",
                "free some space where the output goes, then run this again",
            )
            return
        path = Path(path)
        if code == errno.EIO:
            super().__init__(
                f"{WRITE_FAILURES[code]} writing {path}; the file was left as it was.",
                _remedy(code, str(path.parent)),
            )
            return
        super().__init__(
            f"There is no space left to write {path}; the file was left as it was.",
            _remedy(code, str(path.parent)),
        )


class RewriteFailed(DiskFull):
    """An in-place rewrite of a user's file the disk refused: the file holds its old bytes
    again (restored), or, when even that failed, the journal keeps them for the next run."""

    def __init__(self, path: Path, code: int, restored: bool) -> None:
        self.code = code
        cause = WRITE_FAILURES.get(code, "The disk refused the write")
        if restored:
            MoatbridgeError.__init__(
                self,
                f"{cause}; {shown(path)} was restored.",
                _remedy(code, shown(path.parent)),
            )
            return
        MoatbridgeError.__init__(
            self,
            f"{cause} and {shown(path)} could not be restored yet; "
            f"its old bytes are kept in {shown(_journal(path))}.",
            _remedy(code, shown(path.parent)) + " (the next setup or uninstall puts them back)",
        )


class OwnerNotKept(MoatbridgeError):
    """A user's file another account owns and this one may not write: replacing it (the
    folder allows that) would hand it to this account, so it is refused, untouched."""

    exit_code = 2

    def __init__(self, path: Path, uid: int) -> None:
        super().__init__(
            f"{shown(path)} belongs to another account (uid {uid}) and this one cannot write it; "
            "it was left as it was.",
            "make the file yours (or writable for you), or let its owner run this",
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
    links) and for a file another account owns (a rename would hand it to this one; one
    this account cannot write is refused). Otherwise atomically, via a temp file in the
    same directory and a rename. All or nothing either way: a disk that refuses the write
    (full, over quota, failing) leaves the old bytes."""
    try:
        info = path.stat()
    except FileNotFoundError:
        atomic_write_bytes(path, data, 0o644)
        return
    foreign = refuse_unkeepable_owner(path, info)
    if info.st_nlink > 1 or foreign:
        _rewrite_in_place(path, path.read_bytes(), data)
        return
    atomic_write_bytes(path, data, info.st_mode & 0o7777, (info.st_uid, info.st_gid))


def refuse_unkeepable_owner(path: Path, info: os.stat_result) -> bool:
    """Whether another account owns the file (then only an in-place rewrite keeps its owner:
    a rename would hand it to this one); raises OwnerNotKept when this account may not
    write it either. Callers planning a rewrite check it first, before writing anything."""
    foreign = os.geteuid() != 0 and info.st_uid != os.geteuid()
    if foreign and not os.access(path, os.W_OK):
        raise OwnerNotKept(path, info.st_uid)
    return foreign


def _journal(path: Path) -> Path:
    return path.with_name(f".{path.name}.moatbridge-rewrite")


def _rewrite_in_place(path: Path, old: bytes, data: bytes) -> None:
    """In place, so not atomic by itself: a journal beside the file holds the bytes before
    and after until the rewrite is done and read back; on any failure (or a mismatch read
    back) the old bytes are put back here, and after a kill by the next run
    (finish_interrupted_rewrite)."""
    journal = _journal(path)
    try:
        atomic_write_bytes(journal, len(old).to_bytes(8, "big") + old + data, 0o600)
    except DiskFull as error:  # nothing of the file touched yet
        raise DiskFull(path, error.code) from None
    try:
        _write_in_place(path, data, reserve=max(len(old), len(data)))
        if path.read_bytes() != data:
            raise OSError(errno.EIO, "the bytes read back differ from those written", str(path))
    except OSError as error:
        restored = _put_back(path, old)
        if restored:
            journal.unlink(missing_ok=True)
        if error.errno in WRITE_FAILURES or restored:
            raise RewriteFailed(path, error.errno or errno.EIO, restored) from None
        raise
    journal.unlink()


def _put_back(path: Path, old: bytes) -> bool:
    """Write `old` over a rewrite that failed; True when the file reads back as `old`."""
    try:
        _write_in_place(path, old, reserve=0)
        return path.read_bytes() == old
    except OSError:
        return False


def _write_in_place(path: Path, data: bytes, reserve: int) -> None:
    """Overwrite the file's bytes through its own inode. The space the result needs is
    reserved first (`reserve` bytes), so a full disk refuses before a byte is changed
    instead of cutting the file mid-line; every short write is carried on, every error raised."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        if reserve > os.fstat(fd).st_size:
            try:
                os.posix_fallocate(fd, 0, reserve)
            except OSError as error:
                if error.errno in WRITE_FAILURES:
                    raise
                # A file system that cannot reserve (EOPNOTSUPP, EINVAL): the read-back catches the rest.
            faults.point("write.in-place-reserved", str(path))
        view, offset = memoryview(data), 0
        while offset < len(data):
            offset += os.pwrite(fd, view[offset:], offset)
        faults.point("write.in-place-written", str(path))
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def interrupted_rewrite(current: bytes, old: bytes, new: bytes) -> bool:
    """Whether `current` is what in-place rewrites from `old` to `new` (and back, when the
    old bytes were being put back) can leave when cut anywhere: every byte is the one
    `new` or `old` has there, or a zero of the space reserved for `new`, and the file may
    be cut short anywhere (`if [ -`). The whole of `old` or of `new` is not interrupted
    (nothing to repair); anything else was edited since."""
    if current in (old, new) or len(current) > max(len(old), len(new)):
        return False
    reserved = old + bytes(max(0, len(new) - len(old)))
    return all(have == reserved[i] or (i < len(new) and have == new[i]) for i, have in enumerate(current))


def finish_interrupted_rewrite(path: Path) -> bool:
    """After a kill during an in-place rewrite (or a rewrite whose old bytes could not be
    put back at once), put the old bytes back; True when it did. A file that is neither
    the old, the new nor a cut mixture of the two (edited since) is left as it is. The
    journal goes once the file is settled; it stays while the old bytes cannot be written."""
    journal = _journal(path)
    try:
        record = journal.read_bytes()
    except FileNotFoundError:
        return False
    size = int.from_bytes(record[:8], "big")
    old, new = record[8 : 8 + size], record[8 + size :]
    restored = False
    with contextlib.suppress(FileNotFoundError):
        if len(record) >= 8 + size and interrupted_rewrite(path.read_bytes(), old, new):
            if not _put_back(path, old):
                raise RewriteFailed(path, errno.ENOSPC, restored=False)
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
        if error.errno in WRITE_FAILURES:
            raise DiskFull(path, error.errno) from None
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
        if isinstance(error, OSError) and error.errno in WRITE_FAILURES:
            raise DiskFull(path, error.errno) from None
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
