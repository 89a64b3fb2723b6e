"""Rewrite plans: what to write and what to zero so a bundle lists only the host and what the
kept targets load, and writing that into a writable buffer (the temporary copy of the file).
An uncompressed bundle keeps its code objects in place under a shorter header
(``RewritePlan``); a compressed one is replaced by a smaller compressed bundle written at its
start (``CompressedPlan``). Every byte a plan may change lies in its ``masked_ranges``; the
proof checks that the rest did not change."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from .bundles import Bundle, build_header, parse_bundle
from .compressed import (
    Codec,
    CodecError,
    CompressedBundle,
    build_bundle,
    ccob_header,
    load_digests,
    truncated_md5,
)
from .entries import Entry
from .ranges import ZEROS, Range, merge_ranges, pieces, subtract_ranges


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
    zeros = memoryview(ZEROS)
    for start, end in plan.zero_ranges:
        for a, b in pieces(buf, start, end, len(ZEROS)):
            buf[a:b] = zeros[: b - a]


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
    zeros = memoryview(ZEROS)
    for a, b in pieces(buf, start + len(plan.blob), plan.bundle.end, len(ZEROS)):
        buf[a:b] = zeros[: b - a]
