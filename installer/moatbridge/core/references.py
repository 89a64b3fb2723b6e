"""Image references (``registry/repo:tag@digest``) and retry timing (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from moatbridge.errors import InputError

_REFERENCE = re.compile(
    r"^(?P<repository>[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)"
    r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[0-9a-f]{64}))?$"
)


@dataclass(frozen=True)
class Reference:
    repository: str
    tag: str | None
    digest: str | None

    @property
    def pull_tag(self) -> str:
        """What the engine's pull API takes as ``tag``: the digest when pinned."""
        return self.digest or self.tag or "latest"

    def __str__(self) -> str:
        text = self.repository
        if self.tag:
            text += f":{self.tag}"
        if self.digest:
            text += f"@{self.digest}"
        return text


def parse_reference(text: str) -> Reference:
    match = _REFERENCE.fullmatch(text)
    if not match:
        raise InputError(
            f"{text!r} is not an image reference.",
            "write it like registry.example:5000/team/image:tag or image@sha256:<64 hex>",
        )
    return Reference(match["repository"], match["tag"], match["digest"])


def backoff_delays(attempts: int, first: float = 1.0, factor: float = 2.0, cap: float = 30.0) -> list[float]:
    """Waits between ``attempts`` tries: 1, 2, 4 ... seconds, capped."""
    return [min(cap, first * factor**i) for i in range(max(0, attempts - 1))]
