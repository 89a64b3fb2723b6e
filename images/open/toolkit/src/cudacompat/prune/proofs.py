"""The proof a rewritten copy must pass before it replaces the original: the bytes outside the
planned ranges and each kept code object hash the same, the new headers read back as planned,
the zeroed ranges are zero, every kept target loads the same code from each bundle as before
(a compressed bundle is decompressed again from the copy), and no bundle lists code that no
kept target loads."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from ..targets import generic_of
from .bundles import Bundle, LayoutError, parse_bundle
from .compressed import Codec, CodecError, load_digests, parse_compressed, truncated_md5
from .entries import is_known, loaded_by
from .plans import CompressedPlan, RewritePlan
from .ranges import ZEROS, Range, merge_ranges, pieces


class ProofError(Exception):
    """A rewritten copy that differs from the original where it should not."""


def sha256_of(buf: Any, start: int, end: int) -> str:
    digest = hashlib.sha256()
    with memoryview(buf) as view:
        for a, b in pieces(buf, start, end):
            digest.update(view[a:b])
    return digest.hexdigest()


def masked_sha256(buf: Any, size: int, masked: Iterable[Range]) -> str:
    """sha256 of the file size and every byte outside ``masked``."""
    digest = hashlib.sha256(size.to_bytes(8, "little"))
    pos = 0
    with memoryview(buf) as view:
        for mask_start, mask_end in [*merge_ranges(masked), (size, size)]:
            for a, b in pieces(buf, pos, mask_start):
                digest.update(view[a:b])
            pos = mask_end
    return digest.hexdigest()


def all_zero(buf: Any, start: int, end: int) -> bool:
    return all(buf[a:b] == ZEROS[: b - a] for a, b in pieces(buf, start, end, len(ZEROS)))


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
        new = parse_compressed(rewritten, old.start, old.start, section_end)
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
