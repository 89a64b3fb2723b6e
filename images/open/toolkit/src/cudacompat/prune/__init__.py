"""Shrink a ROCm library tree to chosen AMD gfx targets, and prove nothing else changed.

Runs inside the image during ``docker build``; standard library only (``python3 -S`` works),
with the folder holding ``cudacompat`` on PYTHONPATH (/opt/moatbridge/lib in the image)::

    python3 -m cudacompat.prune --keep gfx1030[,gfx1100...] [--lib-dir DIR] [--report FILE.json] [--dry-run]
    python3 -m cudacompat.prune --verify-only --keep gfx1030[,gfx1100...] [--lib-dir DIR]

Code is kept for a target that a kept GPU can load, as the offload bundler and the ROCm loader
decide: code for the GPU's own processor (any xnack/sramecc variant: the device's mode is not
known at build time), or for the generic processor it belongs to (``gfx11-generic`` serves
gfx1100 ... gfx1153; the table is cudacompat.targets'). ``--keep gfx1201`` keeps gfx1201 and
gfx12-generic code and drops gfx11-generic code. Code for names this script does not know
stays. Two kinds of device code are pruned:

* Per-target files such as ``Kernels.so-000-gfx90a-xnack+.hsaco``, ``TensileLibrary_gfx1030.co``
  or ``TensileLibrary_gfx11-generic.co`` are deleted when no target named in the file name can
  be loaded. Files that name no processor (``TensileLibrary.dat``), name one ambiguously
  (``gfx90a68.kdb``) or name a generic processor this script does not know, stay.
* Clang offload bundles in the ``.hip_fatbin`` section of ELF files: each uncompressed bundle
  gets a shorter header, written at the bundle start, that lists the host and the kept targets
  with their original offsets and sizes. The rest of the old header and every dropped code
  object are zeroed. Nothing moves and the file keeps its size: the section is allocated, so
  moving it would break addresses. The zeros compress to almost nothing in the image layer.
* Compressed bundles (``CCOB``, clang's ``CompressedOffloadBundle``, versions 1 to 3, zlib or
  zstd): the bundle is decompressed, a new compact bundle (LLVM's layout: header, then the host
  and kept code objects at 4096-byte boundaries) is compressed with the same method and written
  at the old one's start under a new header (same version, new sizes, LLVM's hash: the low 64
  bits of the MD5 of the uncompressed bundle); the rest of the old compressed bytes are zeroed.
  zstd needs Python's ``compression.zstd`` (3.14) or the ``zstd`` tool on PATH
  (``--tools-needed`` prints the Debian packages missing); without one, or when a bundle cannot
  be read, it is left as it is and reported, never an error.

Every rewrite happens on a temporary copy next to the file and must pass a proof before it
replaces the original: each kept code object hashes the same before and after, the whole file
hashes the same with the rewritten ranges masked out, the new headers read back as planned,
the zeroed ranges read back as zeros, every kept target would load from each bundle the same
code objects (triple, place and bytes) as before, and no bundle lists code no kept target
loads. A rewritten compressed bundle is decompressed again from the copy: its header must state
the sizes and hash of what it holds, and every kept target must load byte-identical code
objects (triple and bytes; the places move) as from the original's decompressed bundle.
The report (``--report``) counts, per file and kept target, the bundles whose code for that
target is its own processor's or a generic processor's (``"loads"``), and the compressed
bundles rewritten and left as they were (with the reason).

Exit status: 0 done or verified; 1 ``--verify-only`` found code that no kept target loads;
2 bad arguments, or a ``--keep`` target the tree has no code for, neither its own nor its generic
processor's (nothing changed); 3 a file this script cannot handle safely (nothing changed), or
a failed proof (that file is left as it was; files processed before it stay pruned).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import mmap
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..targets import GENERIC, GENERIC_TARGETS, PROCESSOR, generic_of

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
COMPRESSED_MAGIC = b"CCOB"
FATBIN_SECTION = ".hip_fatbin"
DEFAULT_LIB_DIR = "/usr/lib/x86_64-linux-gnu"
# Bundles are linked into the section at this alignment; only used to find where a
# compressed bundle whose header does not state its size (CCOB version 1) ends.
BUNDLE_ALIGN = 4096
PROCESSOR_RE = re.compile(rf"{PROCESSOR}\Z")
# A processor name as a token of a file name: no letter or digit may touch it, so
# "gfx90a-xnack+", "_gfx1030." and "_gfx11-generic." count and "gfx90a68" (ambiguous) does not.
# The generic spelling comes first so "gfx1100-generic" is one (unknown) token, not gfx1100.
FILE_TOKEN_RE = re.compile(rf"(?<![0-9A-Za-z])({GENERIC}|{PROCESSOR})(?![0-9A-Za-z])")
# clang's CompressedOffloadBundle header per version: magic, version (u16), method (u16:
# llvm::compression::Format), [total size: v2 u32, v3 u64], uncompressed size (v1/v2 u32, v3
# u64), the low 64 bits of the MD5 of the uncompressed bundle; the compressed bytes follow.
CCOB_HEADERS = {1: "<4sHHIQ", 2: "<4sHHIIQ", 3: "<4sHHQQQ"}
ZLIB, ZSTD = 0, 1
METHOD_NAMES = {ZLIB: "zlib", ZSTD: "zstd"}
# Levels for recompressing one target's code: zstd 9 is twice as slow as LLVM's 3 and 4%
# smaller, 19 is 40 times as slow and 10% smaller; zlib 9 is its best.
ZSTD_LEVEL, ZLIB_LEVEL = 9, 9
# Enough decompressed bytes to read a bundle header (15 entries take 864 bytes).
INNER_PREFIX = 1 << 20
_ZEROS = bytes(1 << 20)
_STEP = 64 << 20

Range = tuple[int, int]


def is_known(name: str) -> bool:
    """A processor (gfx1030) or a generic processor (gfx11-generic) this script knows."""
    return PROCESSOR_RE.match(name) is not None or name in GENERIC_TARGETS


def loadable(name: str, keep: frozenset[str]) -> bool:
    """Whether a kept target can load code built for ``name`` (a processor, not a target ID:
    an xnack or sramecc feature does not matter, the device's mode is unknown at build time).
    Names this script does not know count as loadable: their code is never pruned."""
    if not is_known(name):
        return True
    return name in keep or bool(GENERIC_TARGETS.get(name, frozenset()) & keep)


def loaded_by(entries: Iterable[Entry], target: str) -> list[Entry]:
    """The entries a ``target`` GPU would load from one bundle: those for its own processor (any
    feature variant) if there are any, else those for its generic processor."""
    entries = [e for e in entries if not e.is_host]
    own = [e for e in entries if e.processor == target]
    generic = generic_of(target)
    return own or [e for e in entries if generic is not None and e.processor == generic]


class LayoutError(Exception):
    """A file whose layout this script does not understand; it must not be touched."""


class ProofError(Exception):
    """A rewritten copy that differs from the original where it should not."""


# --- bundle format -------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One code object listed in a bundle header; the offset is relative to the bundle start."""

    offset: int
    size: int
    triple: str

    @property
    def is_host(self) -> bool:
        return self.triple.startswith("host-")

    @property
    def target_id(self) -> str:
        """``hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+`` -> ``gfx90a:xnack+`` (kind-arch-vendor-os-env-id).

        Old triples had no environment: ``hip-amdgcn-amd-amdhsa-gfx906``.
        """
        parts = self.triple.split("-", 5)
        if len(parts) == 5 and parts[4].startswith("gfx"):
            return parts[4]
        return parts[5] if len(parts) == 6 else ""

    @property
    def processor(self) -> str:
        return self.target_id.split(":", 1)[0]

    @property
    def label(self) -> str:
        return "host" if self.is_host else self.processor or self.triple

    def dropped_by(self, keep: frozenset[str]) -> bool:
        """Only code for a known processor or generic processor that no kept target can load
        goes; anything else (host code, names this script does not know) stays."""
        return not self.is_host and not loadable(self.processor, keep)


@dataclass(frozen=True)
class Bundle:
    """An uncompressed offload bundle; ``start`` is an absolute file offset."""

    start: int
    header_size: int
    entries: tuple[Entry, ...]

    @property
    def end(self) -> int:
        return self.start + max([self.header_size, *(e.offset + e.size for e in self.entries)])


@dataclass(frozen=True)
class CompressedBundle:
    """A compressed bundle (``CCOB``); ``end`` is where its bytes end (version 1: where the next
    bundle starts). ``inner`` is the header of the bundle it holds (offsets relative to the
    decompressed data), read by ``read_inner``; ``problem`` says why it could not be."""

    start: int
    end: int
    version: int
    method: int
    header_size: int = 0
    uncompressed_size: int = 0
    stored_hash: int = 0
    inner: Bundle | None = None
    problem: str = "not read"

    @property
    def entries(self) -> tuple[Entry, ...]:
        return self.inner.entries if self.inner is not None else ()

    @property
    def method_name(self) -> str:
        return METHOD_NAMES.get(self.method, f"method {self.method}")

    def payload(self, buf: Any) -> bytes:
        return bytes(buf[self.start + self.header_size : self.end])


Item = Bundle | CompressedBundle


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


def _parse_compressed(buf: Any, start: int, base: int, limit: int) -> CompressedBundle:
    if start + 8 > limit:
        raise LayoutError(f"compressed bundle header at {start:#x} is cut off")
    version, method = struct.unpack_from("<HH", buf, start + 4)
    if version not in CCOB_HEADERS:
        # A version this script does not know: only versions 2 and up state their size here.
        (total,) = struct.unpack_from("<I", buf, start + 8) if start + 12 <= limit else (0,)
        if version < 2 or total < 12 or start + total > limit:
            raise LayoutError(f"compressed bundle at {start:#x} has unknown version {version}")
        return CompressedBundle(start, start + total, version, method, problem=f"unknown version {version}")
    layout = CCOB_HEADERS[version]
    header = struct.calcsize(layout)
    if start + header > limit:
        raise LayoutError(f"compressed bundle header at {start:#x} is cut off")
    fields = struct.unpack_from(layout, buf, start)
    usize, stored_hash = fields[-2:]
    if version == 1:
        # Version 1 states no size: it ends where the next bundle starts, on the bundle alignment.
        magics = (BUNDLE_MAGIC, COMPRESSED_MAGIC)
        end = min(_next_aligned(buf, magic, start + 1, base, limit) for magic in magics)
    else:
        total = fields[3]
        if total < header or start + total > limit:
            raise LayoutError(f"compressed bundle at {start:#x} claims {total} bytes")
        end = start + total
    return CompressedBundle(start, end, version, method, header, usize, stored_hash)


def _next_aligned(buf: Any, magic: bytes, pos: int, base: int, limit: int) -> int:
    found = buf.find(magic, pos, limit)
    while found >= 0 and (found - base) % BUNDLE_ALIGN:
        found = buf.find(magic, found + 1, limit)
    return limit if found < 0 else found


def _pieces(buf: Any, start: int, end: int, step: int = _STEP) -> Iterator[tuple[int, int]]:
    """``[start, end)`` in steps. Pages of an mmap are unmapped once their step is done, so the
    process stays small: the page cache keeps them (and dirty ones until written back)."""
    while start < end:
        stop = min(end, start + step)
        yield start, stop
        if isinstance(buf, mmap.mmap):
            low = start - start % mmap.PAGESIZE
            buf.madvise(mmap.MADV_DONTNEED, low, stop - low)
        start = stop


def _skip_zeros(buf: Any, pos: int, limit: int) -> int:
    """The first non-zero byte at or after ``pos`` (``limit`` if none)."""
    for a, b in _pieces(buf, pos, limit, len(_ZEROS)):
        chunk = buf[a:b]
        if chunk != _ZEROS[: b - a]:
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
            item = _parse_compressed(buf, pos, start, end)
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


# --- compressed bundles --------------------------------------------------------------------


class CodecError(Exception):
    """Compressed bytes that cannot be decompressed or compressed here."""


class Codec:
    """zlib from the standard library; zstd from Python's ``compression.zstd`` (3.14) or else
    the ``zstd`` command. ``PRUNE_TARGETS_ZSTD=module|cli|none`` picks one (tests)."""

    def __init__(self, zstd: str | None = None) -> None:
        choice = zstd or os.environ.get("PRUNE_TARGETS_ZSTD", "")
        self.module: Any = None
        self.cli: str | None = None
        if choice in ("", "module"):
            try:
                from compression import zstd as module  # type: ignore[import-not-found]

                self.module = module
            except ImportError:
                pass
        if self.module is None and choice in ("", "cli"):
            self.cli = shutil.which("zstd")

    @property
    def zstd(self) -> str:
        return "compression.zstd" if self.module is not None else "zstd command" if self.cli else ""

    def missing(self, cb: CompressedBundle) -> str:
        """Why this codec cannot rewrite ``cb`` ("" if it can)."""
        if cb.method not in METHOD_NAMES:
            return f"unknown compression method {cb.method}"
        if cb.method == ZSTD and not self.zstd:
            return "no zstd here (Python's compression.zstd or the zstd command)"
        if cb.method == ZSTD and self.module is None and cb.version == 1:
            return "version 1 states no compressed size: its end needs Python's compression.zstd"
        return ""

    def decompress(self, cb: CompressedBundle, payload: bytes, limit: int | None = None) -> bytes:
        """The bytes ``cb`` holds (the first ``limit`` or more of them, if given); the stream must
        end inside ``payload``, followed by nothing but zeros (padding of version 1)."""
        try:
            if cb.method == ZLIB:
                return self._stream(zlib.decompressobj(), payload, limit)
            if self.module is not None:
                z = self.module
                options = {z.DecompressionParameter.window_log_max: 31}
                return self._stream(z.ZstdDecompressor(options=options), payload, limit)
            if self.cli:
                done = subprocess.run([self.cli, "-q", "-d", "-c", "--memory=2048MB"], input=payload,
                                      capture_output=True, check=False)  # fmt: skip
                if done.returncode:
                    raise CodecError(done.stderr.decode(errors="replace").strip() or "zstd failed")
                return done.stdout
        except (zlib.error, OSError) as error:
            raise CodecError(str(error)) from None
        except Exception as error:  # noqa: BLE001 (compression.zstd.ZstdError, absent before 3.14)
            raise CodecError(str(error)) from None
        raise CodecError(self.missing(cb))

    @staticmethod
    def _stream(decompressor: Any, payload: bytes, limit: int | None) -> bytes:
        if limit is not None:
            return bytes(decompressor.decompress(payload, limit))
        out = bytes(decompressor.decompress(payload))
        if not decompressor.eof:
            raise CodecError("the compressed stream is cut off")
        if decompressor.unused_data.strip(b"\0"):
            raise CodecError("bytes follow the compressed stream")
        return out

    def compress(self, method: int, data: bytes) -> bytes:
        if method == ZLIB:
            return zlib.compress(data, ZLIB_LEVEL)
        if self.module is not None:
            return bytes(self.module.compress(data, ZSTD_LEVEL))
        if self.cli:
            done = subprocess.run([self.cli, "-q", "-c", f"-{ZSTD_LEVEL}"], input=data, capture_output=True)
            if done.returncode:
                raise CodecError(done.stderr.decode(errors="replace").strip() or "zstd failed")
            return done.stdout
        raise CodecError("no zstd here")


def truncated_md5(data: Any) -> int:
    """LLVM's ``MD5Result::low()``: the first 8 bytes of the digest, little-endian."""
    return int.from_bytes(hashlib.md5(data).digest()[:8], "little")


def ccob_header(version: int, method: int, compressed_size: int, data: bytes) -> bytes:
    """The header LLVM writes in front of ``compressed_size`` bytes that hold ``data``."""
    layout = CCOB_HEADERS[version]
    total = struct.calcsize(layout) + compressed_size
    sizes = (len(data),) if version == 1 else (total, len(data))
    if (version == 2 and max(sizes) > 0xFFFFFFFF) or (version == 1 and len(data) > 0xFFFFFFFF):
        raise CodecError(f"too large for a version {version} header")
    return struct.pack(layout, COMPRESSED_MAGIC, version, method, *sizes, truncated_md5(data))


def read_inner(buf: Any, cb: CompressedBundle, codec: Codec) -> CompressedBundle:
    """``cb`` with the header of the bundle it holds, read from the start of its decompressed
    bytes, or with the reason it cannot be read (then it is left as it is)."""
    problem = codec.missing(cb) if cb.version in CCOB_HEADERS else cb.problem
    if problem:
        return replace(cb, problem=problem)
    payload = cb.payload(buf)
    try:
        prefix = codec.decompress(cb, payload, min(INNER_PREFIX, cb.uncompressed_size))
        try:
            inner = parse_bundle(prefix, 0, cb.uncompressed_size)
        except (LayoutError, struct.error):
            if len(prefix) >= cb.uncompressed_size:
                raise
            inner = parse_bundle(codec.decompress(cb, payload), 0, cb.uncompressed_size)
    except (CodecError, LayoutError, struct.error) as error:
        return replace(cb, problem=f"cannot read it: {error}")
    return replace(cb, inner=inner, problem="")


def build_bundle(objects: Sequence[tuple[str, Any]], align: int = BUNDLE_ALIGN) -> bytes:
    """An uncompressed bundle as LLVM's ``BinaryFileHandler`` writes one: the header, then each
    code object (in the given order) at the next ``align`` boundary."""
    pos = len(BUNDLE_MAGIC) + 8 + sum(24 + len(triple) for triple, _ in objects)
    entries = []
    for triple, data in objects:
        pos = -(-pos // align) * align
        entries.append(Entry(pos, len(data), triple))
        pos += len(data)
    out = bytearray(build_header(entries))
    for entry, (_, data) in zip(entries, objects, strict=True):
        out += bytes(entry.offset - len(out))  # LLVM pads up to every offset, even an empty one's
        out += data
    return bytes(out)


def load_digests(data: Any, entries: Iterable[Entry], target: str) -> list[tuple[str, int, str]]:
    """What ``target`` loads from a decompressed bundle: (triple, size, sha256) of each object."""
    return sorted(
        (e.triple, e.size, hashlib.sha256(data[e.offset : e.offset + e.size]).hexdigest())
        for e in loaded_by(entries, target)
    )


@dataclass(frozen=True)
class CompressedPlan:
    bundle: CompressedBundle
    kept: tuple[Entry, ...]  # offsets in the original's decompressed bundle
    dropped: tuple[Entry, ...]
    new_inner: Bundle
    blob: bytes  # the new compressed bundle, header included
    loads: dict[str, list[tuple[str, int, str]]]  # per kept target, from the original
    kept_digests: tuple[str, ...]  # sha256 of each kept entry, from the original

    @property
    def zero_ranges(self) -> tuple[Range, ...]:
        return ((self.bundle.start + len(self.blob), self.bundle.end),)

    @property
    def masked_ranges(self) -> list[Range]:
        return [(self.bundle.start, self.bundle.end)]

    @property
    def bytes_zeroed(self) -> int:
        return self.bundle.end - self.bundle.start - len(self.blob)


def plan_compressed(
    buf: Any, cb: CompressedBundle, keep: frozenset[str], codec: Codec
) -> CompressedPlan | str | None:
    """The new compressed bundle that holds only the host and what ``keep`` loads; None if
    nothing goes, a reason if it cannot be rewritten (it is left as it is)."""
    if cb.inner is None:
        return cb.problem
    kept_names = tuple(e for e in cb.entries if not e.dropped_by(keep))
    if len(kept_names) == len(cb.entries):
        return None
    try:
        data = codec.decompress(cb, cb.payload(buf))
    except CodecError as error:
        return f"cannot decompress it: {error}"
    if len(data) != cb.uncompressed_size or truncated_md5(data) != cb.stored_hash:
        return "its header does not state the size and hash of what it holds"
    old = parse_bundle(data, 0, len(data))
    if old.entries != cb.entries:
        return "its header reads differently in full"
    kept = tuple(e for e in old.entries if not e.dropped_by(keep))
    dropped = tuple(e for e in old.entries if e.dropped_by(keep))
    view = memoryview(data)
    inner_bytes = build_bundle([(e.triple, view[e.offset : e.offset + e.size]) for e in kept])
    loads = {k: load_digests(data, old.entries, k) for k in sorted(keep)}
    digests = tuple(hashlib.sha256(view[e.offset : e.offset + e.size]).hexdigest() for e in kept)
    del view, data
    try:
        compressed = codec.compress(cb.method, inner_bytes)
        blob = ccob_header(cb.version, cb.method, len(compressed), inner_bytes) + compressed
    except CodecError as error:
        return f"cannot compress it: {error}"
    if len(blob) > cb.end - cb.start:
        return "the new bundle would not fit in place of the old one"
    new_inner = parse_bundle(inner_bytes, 0, len(inner_bytes))
    return CompressedPlan(cb, kept, dropped, new_inner, blob, loads, digests)


def apply_compressed(buf: Any, plan: CompressedPlan) -> None:
    start = plan.bundle.start
    buf[start : start + len(plan.blob)] = plan.blob
    zeros = memoryview(_ZEROS)
    for a, b in _pieces(buf, start + len(plan.blob), plan.bundle.end, len(_ZEROS)):
        buf[a:b] = zeros[: b - a]


# --- planning and applying a rewrite -------------------------------------------------------


def merge_ranges(ranges: Iterable[Range]) -> list[Range]:
    merged: list[Range] = []
    for a, b in sorted(r for r in ranges if r[0] < r[1]):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def subtract_ranges(ranges: Iterable[Range], holes: Iterable[Range]) -> list[Range]:
    out: list[Range] = []
    holes = merge_ranges(holes)
    for a, b in merge_ranges(ranges):
        for h_start, h_end in holes:
            if h_end <= a or h_start >= b:
                continue
            if h_start > a:
                out.append((a, h_start))
            a = max(a, h_end)
        if a < b:
            out.append((a, b))
    return out


@dataclass(frozen=True)
class RewritePlan:
    bundle: Bundle
    kept: tuple[Entry, ...]
    dropped: tuple[Entry, ...]
    new_header: bytes
    zero_ranges: tuple[Range, ...]  # absolute: the old header's tail and dropped code no kept entry shares

    @property
    def masked_ranges(self) -> list[Range]:
        """Every byte the rewrite may change: the old header and the zeroed code."""
        old_header = (self.bundle.start, self.bundle.start + self.bundle.header_size)
        return merge_ranges([old_header, *self.zero_ranges])

    @property
    def bytes_zeroed(self) -> int:
        return sum(b - a for a, b in self.zero_ranges)

    def kept_ranges(self) -> list[tuple[Entry, Range]]:
        start = self.bundle.start
        return [(e, (start + e.offset, start + e.offset + e.size)) for e in self.kept if e.size]


def plan_rewrite(bundle: Bundle, keep: frozenset[str]) -> RewritePlan | None:
    """What to write and zero so the bundle lists only the host and ``keep``; None if nothing goes."""
    kept = tuple(e for e in bundle.entries if not e.dropped_by(keep))
    dropped = tuple(e for e in bundle.entries if e.dropped_by(keep))
    if not dropped:
        return None
    new_header = build_header(kept)
    start = bundle.start
    absolute = [(start + e.offset, start + e.offset + e.size) for e in (*kept, *dropped)]
    code = subtract_ranges(absolute[len(kept) :], absolute[: len(kept)])
    header_tail = (start + len(new_header), start + bundle.header_size)
    return RewritePlan(bundle, kept, dropped, new_header, tuple(merge_ranges([header_tail, *code])))


def apply_plan(buf: Any, plan: RewritePlan) -> None:
    """Write the new header and the zeros into a writable buffer (bytearray or mmap)."""
    start = plan.bundle.start
    buf[start : start + len(plan.new_header)] = plan.new_header
    zeros = memoryview(_ZEROS)
    for start, end in plan.zero_ranges:
        for a, b in _pieces(buf, start, end, len(_ZEROS)):
            buf[a:b] = zeros[: b - a]


# --- hashing and the proof -----------------------------------------------------------------


def sha256_of(buf: Any, start: int, end: int) -> str:
    digest = hashlib.sha256()
    with memoryview(buf) as view:
        for a, b in _pieces(buf, start, end):
            digest.update(view[a:b])
    return digest.hexdigest()


def masked_sha256(buf: Any, size: int, masked: Iterable[Range]) -> str:
    """sha256 of the file size and every byte outside ``masked``."""
    digest = hashlib.sha256(size.to_bytes(8, "little"))
    pos = 0
    with memoryview(buf) as view:
        for mask_start, mask_end in [*merge_ranges(masked), (size, size)]:
            for a, b in _pieces(buf, pos, mask_start):
                digest.update(view[a:b])
            pos = mask_end
    return digest.hexdigest()


def all_zero(buf: Any, start: int, end: int) -> bool:
    return all(buf[a:b] == _ZEROS[: b - a] for a, b in _pieces(buf, start, end, len(_ZEROS)))


class Hashes(dict[Range, str]):
    """sha256 of byte ranges of one buffer, each computed once."""

    def __init__(self, buf: Any) -> None:
        super().__init__()
        self.buf = buf

    def __missing__(self, key: Range) -> str:
        self[key] = digest = sha256_of(self.buf, *key)
        return digest


def kept_hashes(buf: Any, plans: Sequence[RewritePlan], hashes: Hashes | None = None) -> list[str]:
    hashes = Hashes(buf) if hashes is None else hashes
    return [hashes[r] for plan in plans for _, r in plan.kept_ranges()]


def prove(
    original: Any,
    rewritten: Any,
    size: int,
    section_end: int,
    plans: Sequence[RewritePlan],
    keep: frozenset[str],
    cplans: Sequence[CompressedPlan] = (),
    codec: Codec | None = None,
) -> None:
    """Raise ProofError unless ``rewritten`` is ``original`` with exactly the planned changes, and
    every kept target loads from each rewritten bundle exactly the code it loaded before."""
    masked = merge_ranges(
        [r for plan in plans for r in plan.masked_ranges] + [r for c in cplans for r in c.masked_ranges]
    )
    before, after = masked_sha256(original, size, masked), masked_sha256(rewritten, size, masked)
    if len(rewritten) != size or after != before:
        raise ProofError("bytes outside the rewritten headers and dropped code changed")
    old_hashes, new_hashes = Hashes(original), Hashes(rewritten)
    if kept_hashes(rewritten, plans, new_hashes) != kept_hashes(original, plans, old_hashes):
        raise ProofError("a kept code object changed")
    for plan in plans:
        start = plan.bundle.start
        reread = parse_bundle(rewritten, start, section_end)
        if reread.entries != plan.kept or reread.header_size != len(plan.new_header):
            raise ProofError(f"the new header at {start:#x} does not read back as planned")
        if not all(all_zero(rewritten, a, b) for a, b in plan.zero_ranges):
            raise ProofError(f"a dropped range of the bundle at {start:#x} is not zero")
        prove_loads(plan.bundle, reread, keep, (old_hashes, new_hashes))
    for cplan in cplans:
        prove_compressed(rewritten, section_end, cplan, keep, codec or Codec())


def prove_compressed(
    rewritten: Any, section_end: int, plan: CompressedPlan, keep: frozenset[str], codec: Codec
) -> None:
    """The compressed bundle written at ``plan.bundle.start``, read back and decompressed from
    ``rewritten``, states its sizes and hash, holds only the host and what ``keep`` loads, and
    each kept target loads byte-identical code objects as from the original."""
    old = plan.bundle
    at = f"the compressed bundle at {old.start:#x}"
    try:
        new = _parse_compressed(rewritten, old.start, old.start, section_end)
        if (new.version, new.method) != (old.version, old.method):
            raise ProofError(f"{at} changed its version or method")
        if new.version != 1 and new.end != old.start + len(plan.blob):
            raise ProofError(f"{at} does not state its new size")
        # Version 1 states no size: its bytes reach the old end, zeros after the stream.
        data = codec.decompress(
            new, (replace(new, end=old.end) if new.version == 1 else new).payload(rewritten)
        )
    except (LayoutError, CodecError, struct.error) as error:
        raise ProofError(f"{at} does not read back: {error}") from None
    if len(data) != new.uncompressed_size or truncated_md5(data) != new.stored_hash:
        raise ProofError(f"{at} does not state the size and hash of what it holds")
    try:
        inner = parse_bundle(data, 0, len(data))
    except LayoutError as error:
        raise ProofError(f"{at} holds no readable bundle: {error}") from None
    if inner != plan.new_inner:
        raise ProofError(f"{at} does not hold the planned bundle")
    for target in sorted(keep):
        if load_digests(data, inner.entries, target) != plan.loads[target]:
            raise ProofError(f"{target} would not load the same code from {at}")
    stray = [e.triple for e in inner.entries if not e.is_host and is_known(e.processor)
             and not any(e.processor == k or e.processor == generic_of(k) for k in keep)]  # fmt: skip
    if stray:
        raise ProofError(f"{at} lists {', '.join(stray)}: code no kept target loads")
    if not all_zero(rewritten, old.start + len(plan.blob), old.end):
        raise ProofError(f"the rest of {at} is not zero")


def prove_loads(old: Bundle, new: Bundle, keep: frozenset[str], hashes: tuple[Hashes, Hashes]) -> None:
    """Every kept target loads the same code objects (triple, place and bytes) from ``new`` as
    from ``old`` (its own processor's, else its generic processor's), and ``new`` holds no
    code that no kept target can load."""

    def objects(bundle: Bundle, digests: Hashes, target: str) -> list[tuple[str, int, int, str]]:
        out = []
        for e in loaded_by(bundle.entries, target):
            at = bundle.start + e.offset
            out.append((e.triple, e.offset, e.size, digests[at, at + e.size] if e.size else ""))
        return sorted(out)

    for target in sorted(keep):
        if objects(new, hashes[1], target) != objects(old, hashes[0], target):
            raise ProofError(f"{target} would not load the same code from the bundle at {old.start:#x}")
    stray = [e.triple for e in new.entries if not e.is_host and is_known(e.processor)
             and not any(e.processor == k or e.processor == generic_of(k) for k in keep)]  # fmt: skip
    if stray:
        raise ProofError(f"the bundle at {old.start:#x} lists {', '.join(stray)}: code no kept target loads")


# --- walking the library tree --------------------------------------------------------------


def file_processors(name: str) -> frozenset[str]:
    """The processors and generic processors a per-target file name names (empty for shared
    files); a generic spelling this script does not know is included and keeps the file."""
    return frozenset(FILE_TOKEN_RE.findall(name))


def bundle_loads(bundles: Iterable[Item], keep: frozenset[str]) -> dict[str, dict[str, int]]:
    """For each kept target, how many bundles give it code for which processor ("none": no code);
    compressed bundles that cannot be read are not counted."""
    loads: dict[str, Counter[str]] = {k: Counter() for k in sorted(keep)}
    for bundle in bundles:
        if isinstance(bundle, CompressedBundle) and bundle.inner is None:
            continue
        for target, counts in loads.items():
            counts[",".join(sorted({e.processor for e in loaded_by(bundle.entries, target)})) or "none"] += 1
    return {k: dict(sorted(c.items())) for k, c in loads.items()}


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


# --- pruning one file ----------------------------------------------------------------------


def rewrite_file(
    fatbin: FatbinFile, keep: frozenset[str], dry_run: bool, codec: Codec | None = None
) -> dict[str, Any]:
    """Plan, apply (on a temporary copy), prove and install the rewrite of one file."""
    codec = codec or Codec()
    plans = [p for p in (plan_rewrite(b, keep) for b in fatbin.bundles) if p is not None]
    section_start, section_end = fatbin.section[0], fatbin.section[0] + fatbin.section[1]
    kept: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    for bundle in fatbin.bundles:
        for entry in bundle.entries:
            (dropped if entry.dropped_by(keep) else kept)[entry.label] += 1
    loads = bundle_loads(fatbin.items, keep)
    cplans: list[CompressedPlan] = []
    left: list[dict[str, Any]] = []
    with fatbin.path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as original:
        for cb in fatbin.compressed:
            planned = plan_compressed(original, cb, keep, codec)
            if isinstance(planned, CompressedPlan):
                cplans.append(planned)
                kept.update(e.label for e in planned.kept)
                dropped.update(e.label for e in planned.dropped)
                continue
            kept.update(e.label for e in cb.entries)
            if planned is not None:
                targets = sorted({e.label for e in cb.entries if not e.is_host})
                left.append({"offset": cb.start - section_start, "size": cb.end - cb.start,
                             "version": cb.version, "method": cb.method_name, "reason": planned,
                             "targets": targets})  # fmt: skip
        objects = [
            {"bundle": plan.bundle.start - section_start, "target": entry.target_id,
             "offset": a, "size": b - a, "sha256": sha256_of(original, a, b)}
            for plan in plans for entry, (a, b) in plan.kept_ranges()
        ]  # fmt: skip
        objects += [
            {"bundle": cp.bundle.start - section_start, "compressed": True, "target": new.target_id,
             "offset": new.offset, "size": new.size, "sha256": digest}
            for cp in cplans for new, digest in zip(cp.new_inner.entries, cp.kept_digests, strict=True)
            if new.size
        ]  # fmt: skip
        if (plans or cplans) and not dry_run:
            _rewrite_copy(fatbin, original, section_end, plans, keep, cplans, codec)
    changed = plans or cplans
    return {
        "path": str(fatbin.path),
        "size": fatbin.size,
        "bundles": len(fatbin.bundles) + len(fatbin.compressed),
        "bundles_rewritten": len(plans) + len(cplans),
        "compressed_bundles": len(fatbin.compressed),
        "compressed_bundles_rewritten": [
            {
                "offset": cp.bundle.start - section_start,
                "version": cp.bundle.version,
                "method": cp.bundle.method_name,
                "size": cp.bundle.end - cp.bundle.start,
                "new_size": len(cp.blob),
                "uncompressed_size": cp.bundle.uncompressed_size,
                "new_uncompressed_size": cp.new_inner.end,
            }
            for cp in cplans
        ],
        "compressed_bundles_left": left,
        "entries_kept": dict(sorted(kept.items())),
        "entries_dropped": dict(sorted(dropped.items())),
        "loads": loads,
        "bytes_zeroed": sum(p.bytes_zeroed for p in plans) + sum(c.bytes_zeroed for c in cplans),
        "kept_objects": objects,
        "proof": "skipped (dry run)"
        if dry_run and changed
        else "passed"
        if changed
        else "nothing to rewrite",
    }


def _rewrite_copy(
    fatbin: FatbinFile,
    original: Any,
    section_end: int,
    plans: Sequence[RewritePlan],
    keep: frozenset[str],
    cplans: Sequence[CompressedPlan] = (),
    codec: Codec | None = None,
) -> None:
    path = fatbin.path
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".prune")
    os.close(fd)
    copy = Path(name)
    try:
        shutil.copyfile(path, copy)
        with copy.open("r+b") as writable, mmap.mmap(writable.fileno(), 0) as buf:
            for plan in plans:
                apply_plan(buf, plan)
            for cplan in cplans:
                apply_compressed(buf, cplan)
            buf.flush()
        with copy.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as rewritten:
            prove(original, rewritten, fatbin.size, section_end, plans, keep, cplans, codec)
        info = path.stat()
        shutil.copystat(path, copy)  # mode, times, extended attributes
        if (info.st_uid, info.st_gid) != (copy.stat().st_uid, copy.stat().st_gid):
            os.chown(copy, info.st_uid, info.st_gid)
        os.replace(copy, path)
    except ProofError as error:
        raise ProofError(f"{path}: {error}; the file was left as it was") from None
    finally:
        copy.unlink(missing_ok=True)


# --- command line --------------------------------------------------------------------------


def parse_keep(values: Sequence[str]) -> frozenset[str]:
    keep = {v.strip().lower() for value in values for v in value.split(",") if v.strip()}
    if keep == {"none"}:
        # The image's targets have no library code at all (e.g. gfx942 on Debian's
        # libraries): keep host code only, drop every target's device code.
        return frozenset()
    generic = sorted(v for v in keep if v in GENERIC_TARGETS)
    if generic:
        raise ValueError(
            f"--keep takes the GPUs' own processor names, not the generic {', '.join(generic)} "
            "(code for a generic processor is kept when one of its members is)"
        )
    bad = sorted(v for v in keep if not PROCESSOR_RE.match(v))
    if bad:
        raise ValueError(
            f"--keep takes processor names like gfx1030 or gfx90a, not {', '.join(bad)} "
            "(every xnack/sramecc variant of a kept processor is kept)"
        )
    if not keep:
        raise ValueError("--keep names no target (use 'none' to drop every target's code)")
    return frozenset(keep)


def _human(n: float) -> str:
    units = ["B", "KB", "MB", "GB"]
    while n >= 1000 and len(units) > 1:
        n, units = n / 1000, units[1:]
    return f"{n:.0f} B" if units[0] == "B" else f"{n:.1f} {units[0]}"


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


def prune(
    inventory: Inventory, keep: frozenset[str], dry_run: bool, codec: Codec | None = None
) -> dict[str, Any]:
    doomed = inventory.doomed_files(keep)
    codec = codec or Codec()
    files = [rewrite_file(f, keep, dry_run, codec) for f in inventory.fatbins if f.path not in doomed]
    deleted: list[dict[str, Any]] = []
    for path in doomed:
        deleted.append({"path": str(path), "size": path.lstat().st_size})
        if not dry_run:
            path.unlink()
    dropped: Counter[str] = Counter()
    loads: dict[str, Counter[str]] = {k: Counter() for k in sorted(keep)}
    for result in files:
        dropped.update(result["entries_dropped"])
        for target, counts in result["loads"].items():
            loads[target].update(counts)
    totals = {
        "files_with_fatbin": len(files),
        "files_rewritten": sum(1 for r in files if r["bundles_rewritten"]),
        "bundles": sum(r["bundles"] for r in files),
        "bundles_rewritten": sum(r["bundles_rewritten"] for r in files),
        "compressed_bundles": sum(r["compressed_bundles"] for r in files),
        "compressed_bundles_rewritten": sum(len(r["compressed_bundles_rewritten"]) for r in files),
        "compressed_bundles_left": sum(len(r["compressed_bundles_left"]) for r in files),
        "entries_dropped": dict(sorted(dropped.items())),
        "loads": {k: dict(sorted(c.items())) for k, c in loads.items()},
        "bytes_zeroed": sum(r["bytes_zeroed"] for r in files),
        "kept_objects_verified": 0 if dry_run else sum(len(r["kept_objects"]) for r in files),
        "files_deleted": len(deleted),
        "bytes_deleted": sum(d["size"] for d in deleted),
    }
    return {"keep": sorted(keep), "dry_run": dry_run, "zstd": codec.zstd or None, "files": files,
            "deleted": deleted, "totals": totals}  # fmt: skip


def summary(report: dict[str, Any], seconds: float) -> str:
    totals = report["totals"]
    lines = [f"prune_targets: keeping {', '.join(report['keep'])} (and host code) in {report['lib_dir']}"]
    for r in report["files"]:
        if r["bundles_rewritten"] or r["compressed_bundles_left"]:
            left = r["compressed_bundles_left"]
            packed = len(r["compressed_bundles_rewritten"])
            reasons = sorted({c["reason"] for c in left})
            lines.append(
                f"  {Path(r['path']).name}: {r['bundles_rewritten']}/{r['bundles']} bundles rewritten"
                + (f" ({packed} compressed)" if packed else "")
                + f", {sum(r['entries_dropped'].values())} code objects dropped, "
                f"{_human(r['bytes_zeroed'])} zeroed"
                + (
                    f", {len(left)} compressed bundles left as they were ({'; '.join(reasons)})"
                    if left
                    else ""
                )
                + f"; proof {r['proof']}"
            )
    for target, counts in totals["loads"].items():
        if counts:
            code = ", ".join(f"{'no' if p == 'none' else p} code from {n}" for p, n in counts.items())
            lines.append(f"  {target} loads {code} bundles")
    zeroed, deleted = ("would zero", "would delete") if report["dry_run"] else ("zeroed", "deleted")
    lines.append(
        f"  {zeroed} {_human(totals['bytes_zeroed'])} in {totals['files_rewritten']} files, {deleted} "
        f"{totals['files_deleted']} per-target files ({_human(totals['bytes_deleted'])}) in {seconds:.1f} s"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="append", help="gfx targets to keep, comma separated")
    parser.add_argument("--lib-dir", type=Path, default=Path(DEFAULT_LIB_DIR))
    parser.add_argument("--report", type=Path, help="write a JSON report here")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
    mode.add_argument("--verify-only", action="store_true", help="check that only kept targets remain")
    needed = "print the Debian packages (zstd) this tree's compressed bundles need here, if any"
    mode.add_argument("--tools-needed", action="store_true", help=needed)
    args = parser.parse_args(argv)
    if args.tools_needed:
        return _tools_needed(args.lib_dir)
    if not args.keep:
        parser.error("--keep is required")
    try:
        keep = parse_keep(args.keep)
    except ValueError as error:
        parser.error(str(error))
    if not args.lib_dir.is_dir():
        parser.error(f"--lib-dir {args.lib_dir} is not a directory")
    began = time.monotonic()
    try:
        codec = Codec()
        inventory = scan(args.lib_dir, codec)
    except (LayoutError, OSError) as error:
        return _fail(f"cannot handle {error}; nothing was changed", 3)
    if args.verify_only:
        return _verify_only(inventory, keep, args.lib_dir)
    available = inventory.processors()
    missing = sorted(k for k in keep if k not in available and generic_of(k) not in available)
    if missing:
        has = f"{args.lib_dir} has code for {', '.join(sorted(available)) or 'no gfx target'}"
        return _fail(f"--keep {', '.join(missing)}: no such code ({has}); nothing was changed", 2)
    linked = [str(f.path) for f in inventory.fatbins if f.links > 1 and f.loses_code(keep)]
    if linked:
        return _fail(f"cannot rewrite hard links {', '.join(linked)}; nothing was changed", 3)
    try:
        report = {"lib_dir": str(args.lib_dir), **prune(inventory, keep, args.dry_run, codec)}
    except (ProofError, LayoutError, OSError) as error:
        return _fail(str(error), 3)
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n")
    print(summary(report, time.monotonic() - began))
    return 0


def _tools_needed(lib_dir: Path) -> int:
    """Print "zstd" if a compressed bundle under ``lib_dir`` needs zstd and this Python has no
    ``compression.zstd``, nor is the zstd command here. Reads only the bundle headers."""
    if not lib_dir.is_dir():
        return _fail(f"--lib-dir {lib_dir} is not a directory", 2)
    codec = Codec()
    try:
        fatbins = scan(lib_dir).fatbins
    except (LayoutError, OSError) as error:
        return _fail(f"cannot handle {error}", 3)
    # The command serves versions 2 and 3 (version 1 bundles need compression.zstd).
    if (
        codec.module is None
        and codec.cli is None
        and any(c.method == ZSTD for f in fatbins for c in f.compressed)
    ):
        print("zstd")
    return 0


def _verify_only(inventory: Inventory, keep: frozenset[str], lib_dir: Path) -> int:
    problems = verify(inventory, keep)
    for line in problems[:20]:
        print(f"prune_targets: {line}", file=sys.stderr)
    unread = [c for f in inventory.fatbins for c in f.unread]
    reasons = "; ".join(sorted({c.problem for c in unread}))
    note = f" ({len(unread)} compressed bundles not inspected: {reasons})" if unread else ""
    if problems:
        return _fail(f"{len(problems)} places hold code that no kept target loads{note}", 1)
    print(f"prune_targets: only {', '.join(sorted(keep))} and host code remain in {lib_dir}{note}")
    return 0


def _fail(message: str, status: int) -> int:
    print(f"prune_targets: {message}", file=sys.stderr)
    return status
