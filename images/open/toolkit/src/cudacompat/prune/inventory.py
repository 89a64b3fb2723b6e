"""What a library tree holds: the ELF files with a ``.hip_fatbin`` section (``FatbinFile``) and
the per-target files, named for the processors they serve (``Inventory``); and the places in it
that still hold code no kept target loads (``verify``)."""

from __future__ import annotations

import mmap
import os
import re
import stat
import struct
from dataclasses import dataclass, field
from pathlib import Path

from ..targets import GENERIC, PROCESSOR
from .bundles import Bundle, LayoutError
from .compressed import Codec, CompressedBundle, read_inner
from .entries import Entry, is_known, loadable
from .ranges import Range
from .section import FATBIN_SECTION, Item, find_section, parse_bundles

# A processor name as a token of a file name: no letter or digit may touch it, so
# "gfx90a-xnack+", "_gfx1030." and "_gfx11-generic." count and "gfx90a68" (ambiguous) does not.
# The generic spelling comes first so "gfx1100-generic" is one (unknown) token, not gfx1100.
FILE_TOKEN_RE = re.compile(rf"(?<![0-9A-Za-z])({GENERIC}|{PROCESSOR})(?![0-9A-Za-z])")


def file_processors(name: str) -> frozenset[str]:
    """The processors and generic processors a per-target file name names (empty for shared
    files); a generic spelling this script does not know is included and keeps the file."""
    return frozenset(FILE_TOKEN_RE.findall(name))


@dataclass
class FatbinFile:
    path: Path
    size: int
    links: int
    section: Range
    items: list[Item]

    @property
    def bundles(self) -> list[Bundle]:
        return [i for i in self.items if isinstance(i, Bundle)]

    @property
    def compressed(self) -> list[CompressedBundle]:
        return [i for i in self.items if isinstance(i, CompressedBundle)]

    @property
    def entries(self) -> list[Entry]:
        """The entries of every bundle, compressed ones included (those that could be read)."""
        return [e for b in self.items for e in b.entries]

    @property
    def unread(self) -> list[CompressedBundle]:
        return [c for c in self.compressed if c.inner is None]

    def loses_code(self, keep: frozenset[str]) -> bool:
        return any(e.dropped_by(keep) for e in self.entries)


@dataclass
class Inventory:
    fatbins: list[FatbinFile] = field(default_factory=list)
    target_files: list[tuple[Path, frozenset[str]]] = field(default_factory=list)

    def processors(self) -> set[str]:
        """Every known processor and generic processor the tree has code for."""
        found = {p for _, procs in self.target_files for p in procs if is_known(p)}
        for fatbin in self.fatbins:
            found |= {e.processor for e in fatbin.entries if is_known(e.processor)}
        return found

    def doomed_files(self, keep: frozenset[str]) -> list[Path]:
        return [path for path, procs in self.target_files if not any(loadable(p, keep) for p in procs)]


def read_fatbin(path: Path, codec: Codec | None = None) -> FatbinFile | None:
    """The bundles of an ELF file's .hip_fatbin section; None for other files. With a codec, the
    headers inside compressed bundles are read too."""
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode) or info.st_size < 64:
        return None
    with path.open("rb") as f:
        if f.read(4) != b"\x7fELF":
            return None
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            try:
                section = find_section(buf)
                if section is None:
                    return None
                items = parse_bundles(buf, section[0], section[0] + section[1])
                if codec is not None:
                    items = [
                        read_inner(buf, i, codec) if isinstance(i, CompressedBundle) else i for i in items
                    ]
            except (LayoutError, struct.error) as error:
                raise LayoutError(f"{path}: {error}") from None
    return FatbinFile(path, info.st_size, info.st_nlink, section, items)


def scan(lib_dir: Path, codec: Codec | None = None) -> Inventory:
    inventory = Inventory()
    for root, dirs, files in os.walk(lib_dir):
        dirs.sort()
        for name in sorted(files):
            path = Path(root, name)
            procs = file_processors(name)
            if procs:
                inventory.target_files.append((path, procs))
            fatbin = read_fatbin(path, codec)
            if fatbin is not None:
                inventory.fatbins.append(fatbin)
    return inventory


def verify(inventory: Inventory, keep: frozenset[str]) -> list[str]:
    """Every place that still holds code no target in ``keep`` can load."""
    problems = []
    for fatbin in inventory.fatbins:
        for bundle in fatbin.items:
            at = f"{FATBIN_SECTION}+{bundle.start - fatbin.section[0]:#x}"
            kind = "compressed bundle" if isinstance(bundle, CompressedBundle) else "bundle"
            problems += [f"{fatbin.path}: {kind} at {at} lists {e.triple}" for e in bundle.entries
                         if e.dropped_by(keep)]  # fmt: skip
    for path in inventory.doomed_files(keep):
        problems.append(f"{path} is code for {', '.join(sorted(file_processors(path.name)))}")
    return problems
