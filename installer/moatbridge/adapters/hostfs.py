"""The one seam through which detection reads the host: files under a root.

Every path passed in is the *logical* absolute path (``/sys/...``); with
``root="/mnt/other"`` it is read from ``/mnt/other/sys/...``. Tests and users point
the root at a fixture tree or a mounted system.
"""

from __future__ import annotations

import os


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
        """Read a whole file; raises OSError (FileNotFoundError, PermissionError ...)."""
        with open(self.path(logical), encoding="utf-8", errors="replace") as handle:
            return handle.read()

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
