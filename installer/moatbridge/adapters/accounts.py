"""Who is running moatbridge, and which groups they have now vs. on next login."""

from __future__ import annotations

import grp
import os
import pwd

from moatbridge.core.host import GroupEntry, Identity
from moatbridge.core.textsafe import parse_uint


def _parse_group_file(text: str) -> tuple[GroupEntry, ...]:
    entries = []
    for line in text.splitlines():
        fields = line.split(":")
        gid = parse_uint(fields[2]) if len(fields) >= 4 and fields[2].strip() == fields[2] else None
        if gid is None:
            continue
        members = frozenset(m for m in fields[3].split(",") if m)
        entries.append(GroupEntry(fields[0], gid, members))
    return tuple(entries)


def _nss_group(gid: int) -> GroupEntry | None:
    try:
        entry = grp.getgrgid(gid)
    except KeyError:  # a host gid with no name inside a container
        return None
    return GroupEntry(entry.gr_name, entry.gr_gid, frozenset(entry.gr_mem))


def current_identity(group_file: str | None, gids: set[int]) -> Identity:
    """The invoking user, with the group database entries for ``gids``.

    ``group_file``: the text of a mounted system's ``/etc/group`` (its gids mean what its
    own database says), or None for the live system, whose entries come from NSS (``grp``),
    so LDAP/SSSD groups count.
    """
    uid = os.getuid()
    try:
        user: str | None = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = None
    groups: dict[int, GroupEntry] = {}
    if group_file is not None:
        groups = {e.gid: e for e in _parse_group_file(group_file) if e.gid in gids}
    else:
        for gid in gids:
            entry = _nss_group(gid)
            if entry is not None:
                groups[gid] = entry
    return Identity(user, os.getgid(), frozenset(os.getgroups()), groups)
