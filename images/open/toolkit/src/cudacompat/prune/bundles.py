"""Uncompressed clang offload bundles: reading a bundle header (``Bundle``) and writing a new one."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .entries import Entry

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


class LayoutError(Exception):
    """A file whose layout this script does not understand; it must not be touched."""


@dataclass(frozen=True)
class Bundle:
    """An uncompressed offload bundle; ``start`` is an absolute file offset."""

    start: int
    header_size: int
    entries: tuple[Entry, ...]

    @property
    def end(self) -> int:
        return self.start + max([self.header_size, *(e.offset + e.size for e in self.entries)])


def build_header(entries: Sequence[Entry]) -> bytes:
    parts = [BUNDLE_MAGIC, struct.pack("<Q", len(entries))]
    for entry in entries:
        triple = entry.triple.encode("latin-1")
        parts.append(struct.pack("<QQQ", entry.offset, entry.size, len(triple)) + triple)
    return b"".join(parts)


def parse_bundle(buf: Any, start: int, limit: int) -> Bundle:
    """Read the bundle header at ``start``; every entry must lie after it and before ``limit``."""
    if bytes(buf[start : start + len(BUNDLE_MAGIC)]) != BUNDLE_MAGIC:
        raise LayoutError(f"no bundle magic at {start:#x}")
    pos = start + len(BUNDLE_MAGIC) + 8
    if pos > limit:
        raise LayoutError(f"bundle header at {start:#x} is cut off")
    (count,) = struct.unpack_from("<Q", buf, pos - 8)
    if count > (limit - pos) // 24:
        raise LayoutError(f"bundle at {start:#x} claims {count} entries")
    entries = []
    for _ in range(count):
        if pos + 24 > limit:
            raise LayoutError(f"bundle header at {start:#x} is cut off")
        offset, size, length = struct.unpack_from("<QQQ", buf, pos)
        pos += 24
        if length > 4096 or pos + length > limit:
            raise LayoutError(f"bundle at {start:#x} has a triple of {length} bytes")
        triple = bytes(buf[pos : pos + length]).decode("latin-1")
        pos += length
        if not (triple.isascii() and triple.isprintable()):
            raise LayoutError(f"bundle at {start:#x} has an unreadable triple {triple!r}")
        entries.append(Entry(offset, size, triple))
    header_size = pos - start
    for entry in entries:
        inside = start + entry.offset + entry.size <= limit
        if not inside or (entry.size and entry.offset < header_size):
            raise LayoutError(f"bundle at {start:#x}: {entry.triple} overlaps its header or the section end")
    return Bundle(start, header_size, tuple(entries))
