"""Files moatbridge owns: content digests and crash-safe writes."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def tree_digest(root: Path) -> str:
    """sha256 over every regular file under ``root`` (relative path, mode bit x, content)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        relative = path.relative_to(root).as_posix()
        executable = os.access(path, os.X_OK)
        digest.update(f"{relative}\0{int(executable)}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


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
        with path.open("r+b") as handle:
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        return
    atomic_write_bytes(path, data, info.st_mode & 0o7777, (info.st_uid, info.st_gid))


def atomic_write_bytes(path: Path, data: bytes, mode: int, owner: tuple[int, int] | None = None) -> None:
    """atomic_write_text's bytes: with `owner` (uid, gid), the new file keeps that owner too."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if owner is not None and (os.getuid() == 0 or owner[0] == os.getuid()):
            with contextlib.suppress(PermissionError):  # a group the user is not in: keep theirs
                os.chown(temp, *owner)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def read_json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default
    except (OSError, ValueError):
        # A damaged state file is set aside, not trusted and not silently lost.
        path.replace(path.with_name(path.name + ".corrupt"))
        return default


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
