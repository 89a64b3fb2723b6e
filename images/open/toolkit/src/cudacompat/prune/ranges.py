"""Byte ranges of a buffer: merging and subtracting ``(start, end)`` ranges, and walking one
in steps so that hashing, zeroing or comparing a large mmap keeps the process small."""

from __future__ import annotations

import mmap
from collections.abc import Iterable, Iterator
from typing import Any

ZEROS = bytes(1 << 20)
_STEP = 64 << 20

Range = tuple[int, int]


def pieces(buf: Any, start: int, end: int, step: int = _STEP) -> Iterator[tuple[int, int]]:
    """``[start, end)`` in steps. Pages of an mmap are unmapped once their step is done, so the
    process stays small: the page cache keeps them (and dirty ones until written back)."""
    while start < end:
        stop = min(end, start + step)
        yield start, stop
        if isinstance(buf, mmap.mmap):
            low = start - start % mmap.PAGESIZE
            buf.madvise(mmap.MADV_DONTNEED, low, stop - low)
        start = stop


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
