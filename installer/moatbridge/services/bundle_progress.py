"""The progress display a bundle service counts bytes into while it saves, verifies or
loads: the verb opens and draws it (on stderr), the service only reports to it, so no
service prints."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol


class ByteProgress(Protocol):
    """Told each chunk's size as it passes, and what the engine says it is doing."""

    def __call__(self, count: int) -> None: ...

    def describe(self, text: str) -> None: ...


OpenProgress = Callable[[int | None], AbstractContextManager[ByteProgress]]
"""Opens the display for a transfer of this many bytes (None: the total is not known)."""
