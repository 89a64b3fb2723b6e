"""Pin files of hostile shapes, placed where a shim or command will find them."""

from __future__ import annotations

import os
from pathlib import Path

# Shapes that are no regular file: reading one naively hangs (a FIFO, /dev/zero) or fails.
SHAPES = ("fifo", "dev-zero", "directory", "broken-link")


def place_pin(pin: Path, shape: str) -> None:
    """Make ``pin`` a file system object of ``shape`` (one of SHAPES)."""
    if shape == "fifo":
        os.mkfifo(pin)
    elif shape == "dev-zero":
        pin.symlink_to("/dev/zero")
    elif shape == "directory":
        pin.mkdir()
    elif shape == "broken-link":
        pin.symlink_to(pin.parent / "gone")
    else:
        raise ValueError(f"no pin shape {shape!r}")
