"""The steps a planned nvcc command runs: processes, and text files written first. Pure data."""

from __future__ import annotations

from typing import NamedTuple


class Run(NamedTuple):
    argv: tuple[str, ...]
    compiles: str | None = None  # the source file a compile step reads (for diagnostics)


class WriteText(NamedTuple):
    path: str
    text: str


Step = Run | WriteText
