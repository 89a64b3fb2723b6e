"""The CUDA releases whose NVIDIA headers the committed tables (status codes, runtime API
signatures) are read from, and which of them a toolkit mimicking a given version takes: the
newest not after it (12.4's for 12.1 and 11.8, whose headers are not read). Pure."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

# oldest first
RELEASES = ("12.4", "13.0")


def _numbers(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def release_of(cuda_version: str) -> str:
    """The table's release a toolkit mimicking `cuda_version` (major.minor[.build]) takes."""
    older = [r for r in RELEASES if _numbers(r) <= _numbers(cuda_version)]
    return older[-1] if older else RELEASES[0]


def include_arguments(items: Iterable[str]) -> dict[str, Path]:
    """`RELEASE=DIR` command-line arguments, one for each release, as release -> directory."""
    found: dict[str, Path] = {}
    for item in items:
        release, equals, directory = item.partition("=")
        if not equals or release not in RELEASES or release in found:
            raise ValueError(f"expected one RELEASE=DIR for each of {', '.join(RELEASES)}, got {item!r}")
        found[release] = Path(directory)
    if sorted(found) != sorted(RELEASES):
        raise ValueError(f"expected one RELEASE=DIR for each of {', '.join(RELEASES)}")
    return found
