"""Compressed offload bundles (``CCOB``, clang's ``CompressedOffloadBundle``, versions 1 to 3):
their headers, the zlib/zstd ``Codec``, reading the header of the bundle one holds, and
building the compact bundle and header LLVM would write in its place."""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .bundles import BUNDLE_MAGIC, Bundle, LayoutError, build_header, parse_bundle
from .entries import Entry, loaded_by

COMPRESSED_MAGIC = b"CCOB"
# Bundles are linked into the section at this alignment; only used to find where a
# compressed bundle whose header does not state its size (CCOB version 1) ends.
BUNDLE_ALIGN = 4096
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


def parse_compressed(buf: Any, start: int, base: int, limit: int) -> CompressedBundle:
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
