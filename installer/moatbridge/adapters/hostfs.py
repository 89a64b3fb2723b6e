"""The one seam through which detection reads the host: files under a root.

Every path passed in is the *logical* absolute path (``/sys/...``); with
``root="/mnt/other"`` it is read from ``/mnt/other/sys/...``. Tests and users point
the root at a fixture tree or a mounted system.

Everything read from outside goes through ``read_limited``: regular files only (a FIFO
or a link to ``/dev/zero`` is refused without blocking), and at most a bounded size.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from moatbridge.adapters.accounts import current_identity
from moatbridge.core.host import Identity
from moatbridge.errors import InputError

# sysfs/procfs attributes are a page; amdgpu.ids, pci.ids and dpkg's status are larger.
HOST_FILE_LIMIT = 64 << 20
USER_FILE_LIMIT = 4 << 20


def _open_regular(path: str | os.PathLike[str], follow_links: bool) -> int:
    """A descriptor of a regular file; OSError otherwise (with ``follow_links=False`` a
    symlink too: ELOOP).

    Opened non-blocking (a FIFO opens at once) and checked with fstat on the open
    descriptor (no race with a swapped path): directories, FIFOs, sockets and devices are
    refused with an OSError carrying errno and strerror, like any unreadable file.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_head(path: str | os.PathLike[str], size: int, follow_links: bool = True) -> bytes:
    """The first ``size`` bytes of a regular file (fewer when it is shorter); OSError otherwise."""
    fd = _open_regular(path, follow_links)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def read_limited(path: str | os.PathLike[str], limit: int, follow_links: bool = True) -> bytes:
    """A regular file's bytes, at most ``limit`` of them; raises OSError otherwise
    (EFBIG when it is larger)."""
    fd = _open_regular(path, follow_links)
    try:
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes", str(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_user_file(path: Path, what: str, limit: int = USER_FILE_LIMIT) -> str:
    """A file the user named (answers, credentials): UTF-8 text, or one clear InputError."""
    try:
        data = read_limited(path, limit)
    except FileNotFoundError:
        raise InputError(f"The {what} {path} does not exist.", "check the path") from None
    except IsADirectoryError:
        raise InputError(f"The {what} {path} is a directory, not a file.", "pass the file") from None
    except OSError as exc:
        raise InputError(
            f"The {what} {path} cannot be read: {exc.strerror or exc}.",
            "pass a regular, readable file of reasonable size",
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"The {what} {path} is not UTF-8 text (byte {exc.start + 1} is not).",
            "save it as UTF-8",
        ) from None


class HostFS:
    def __init__(self, root: str = "/") -> None:
        self.root = os.path.abspath(root)

    @property
    def is_live(self) -> bool:
        """True when reading this machine itself (then the process's identity applies)."""
        return self.root == "/"

    def path(self, logical: str) -> str:
        return os.path.join(self.root, logical.lstrip("/"))

    def read_text(self, logical: str) -> str:
        """Read a whole (bounded, regular) file; raises OSError (FileNotFoundError,
        PermissionError, EINVAL for a FIFO or device, EFBIG when too large ...).
        Undecodable bytes are replaced: host files are parsed, never trusted."""
        return read_limited(self.path(logical), HOST_FILE_LIMIT).decode("utf-8", errors="replace")

    def read_optional(self, logical: str) -> str | None:
        """The file's text, or None when it is absent, not a file, or unreadable."""
        try:
            return self.read_text(logical)
        except OSError:
            return None

    def listdir(self, logical: str) -> list[str]:
        try:
            return sorted(os.listdir(self.path(logical)))
        except OSError:
            return []

    def exists(self, logical: str) -> bool:
        return os.path.exists(self.path(logical))

    def isdir(self, logical: str) -> bool:
        return os.path.isdir(self.path(logical))

    def link_name(self, logical: str) -> str | None:
        """Basename of a symlink's target (``.../device -> ../../../0000:03:00.0``)."""
        try:
            return os.path.basename(os.readlink(self.path(logical)).rstrip("/"))
        except OSError:
            return None

    def can_read_write(self, logical: str) -> bool:
        """Effective access for this process's real ids; honours POSIX ACLs."""
        return os.access(self.path(logical), os.R_OK | os.W_OK)

    def owner_gid(self, logical: str) -> int | None:
        try:
            return os.stat(self.path(logical)).st_gid
        except OSError:
            return None

    def identity(self, gids: set[int]) -> Identity:
        return current_identity(None if self.is_live else self.read_optional("/etc/group"), gids)
