"""The ``.hip_fatbin`` section of an ELF file: finding it, and reading the bundles it holds,
uncompressed and compressed, separated by zero padding."""

from __future__ import annotations

import struct
from typing import Any

from .bundles import BUNDLE_MAGIC, Bundle, LayoutError, parse_bundle
from .compressed import COMPRESSED_MAGIC, CompressedBundle, parse_compressed
from .ranges import ZEROS, Range, pieces

FATBIN_SECTION = ".hip_fatbin"

Item = Bundle | CompressedBundle


def _skip_zeros(buf: Any, pos: int, limit: int) -> int:
    """The first non-zero byte at or after ``pos`` (``limit`` if none)."""
    for a, b in pieces(buf, pos, limit, len(ZEROS)):
        chunk = buf[a:b]
        if chunk != ZEROS[: b - a]:
            return b - len(chunk.lstrip(b"\0"))
    return limit


def parse_bundles(buf: Any, start: int = 0, end: int | None = None) -> list[Item]:
    """All bundles in ``buf[start:end]`` (a fatbin section): bundles separated by zero padding."""
    end = len(buf) if end is None else end
    items: list[Item] = []
    pos = _skip_zeros(buf, start, end)
    while pos < end:
        head = bytes(buf[pos : pos + len(BUNDLE_MAGIC)])
        item: Item
        if head == BUNDLE_MAGIC:
            item = parse_bundle(buf, pos, end)
        elif head.startswith(COMPRESSED_MAGIC):
            item = parse_compressed(buf, pos, start, end)
        else:
            raise LayoutError(f"neither a bundle nor zero padding at section offset {pos - start:#x}")
        items.append(item)
        pos = _skip_zeros(buf, item.end, end)
    return items


def find_section(buf: Any, name: str = FATBIN_SECTION) -> Range | None:
    """(file offset, size) of a section of a 64-bit little-endian ELF file, or None."""
    if len(buf) < 64 or bytes(buf[:6]) != b"\x7fELF\x02\x01":
        return None
    (shoff,) = struct.unpack_from("<Q", buf, 0x28)
    entsize, shnum, shstrndx = struct.unpack_from("<HHH", buf, 0x3A)
    if shoff == 0 or entsize < 64 or shoff + entsize > len(buf):
        return None

    def header(index: int) -> tuple[int, ...]:
        at = shoff + index * entsize
        if at + 64 > len(buf):
            raise LayoutError(f"section header {index} lies past the end of the file")
        # name, type, flags, addr, offset, size, link, info, addralign, entsize
        return struct.unpack_from("<IIQQQQIIQQ", buf, at)

    first = header(0)  # extended numbering keeps large counts in section 0
    shnum = shnum or first[5]
    shstrndx = first[6] if shstrndx == 0xFFFF else shstrndx
    if shstrndx >= shnum:
        return None
    strtab_offset, strtab_size = header(shstrndx)[4:6]
    wanted = name.encode() + b"\0"
    for index in range(shnum):
        sh = header(index)
        at = strtab_offset + sh[0]
        if sh[0] + len(wanted) <= strtab_size and bytes(buf[at : at + len(wanted)]) == wanted:
            offset, size = sh[4], sh[5]
            if sh[1] == 8 or offset + size > len(buf):  # SHT_NOBITS, or cut off
                raise LayoutError(f"{name} has no bytes in the file")
            return offset, size
    return None
