"""What detection reads a system through, as a protocol: ``adapters.hostfs.HostFS`` is the
real one (a root-relative file seam), tests compose trees for it. Core code depends on
this, never on the adapter, so detection stays testable and free of side effects of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class GroupEntry:
    name: str
    gid: int
    members: frozenset[str]


@dataclass(frozen=True)
class Identity:
    user: str | None
    primary_gid: int
    # Groups this process holds right now (what the kernel checks).
    session_gids: frozenset[int]
    # The group database entries for the gids asked about (missing: no name).
    groups: dict[int, GroupEntry]

    def group_name(self, gid: int) -> str | None:
        entry = self.groups.get(gid)
        return entry.name if entry else None

    def membership(self, gid: int) -> str:
        """ "active", "needs-relogin" (in the database, not in this session) or "none"."""
        if gid in self.session_gids or gid == self.primary_gid:
            return "active"
        entry = self.groups.get(gid)
        if entry is not None and self.user is not None and self.user in entry.members:
            return "needs-relogin"
        return "none"


class Host(Protocol):
    root: str

    @property
    def is_live(self) -> bool:
        """Reading this machine itself (then the process's own identity applies)."""
        ...

    def read_text(self, logical: str) -> str: ...

    def read_optional(self, logical: str) -> str | None: ...

    def listdir(self, logical: str) -> list[str]: ...

    def exists(self, logical: str) -> bool: ...

    def isdir(self, logical: str) -> bool: ...

    def link_name(self, logical: str) -> str | None: ...

    def can_read_write(self, logical: str) -> bool: ...

    def owner_gid(self, logical: str) -> int | None: ...

    def identity(self, gids: set[int]) -> Identity:
        """Who runs moatbridge, with the group entries for ``gids``."""
        ...
