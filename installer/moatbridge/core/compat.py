"""Host kernel driver vs. container ROCm user space (detection.md section 11; pure).

A container brings its own ROCm user space; only the kernel driver comes from the
host. AMD publishes which user-space releases each driver release supports.
"""

from __future__ import annotations

from dataclasses import dataclass

from moatbridge.core.versions import version_tuple

# Driver release (the ROCm release its amdgpu-dkms came from, or an "AMD GPU Driver"
# 30.x release) -> inclusive range of supported ROCm user-space releases (major, minor).
_MATRIX: dict[tuple[int, int], tuple[tuple[int, int], tuple[int, int]]] = {
    (30, 30): ((6, 3), (7, 2)),
    (30, 10): ((6, 2), (7, 0)),
    (6, 4): ((6, 1), (7, 0)),
    (6, 3): ((6, 1), (7, 0)),
    (6, 2): ((6, 0), (7, 0)),
    (6, 1): ((5, 7), (6, 4)),
    (6, 0): ((5, 6), (6, 2)),
    (5, 7): ((5, 5), (6, 1)),
    (5, 6): ((5, 4), (6, 0)),
    (5, 5): ((5, 3), (5, 7)),
    (5, 4): ((5, 2), (5, 6)),
    (5, 3): ((5, 1), (5, 5)),
}


@dataclass(frozen=True)
class Compatibility:
    verdict: str  # "supported" | "unsupported" | "unknown"
    detail: str


def _mm(version: str) -> tuple[int, int] | None:
    parts = version_tuple(version)
    return (parts[0], parts[1]) if len(parts) >= 2 else None


def driver_supports(driver_release: str | None, container_rocm: str) -> Compatibility:
    """Does a host driver from ``driver_release`` support ``container_rocm`` user space?"""
    if driver_release is None:
        return Compatibility(
            "unknown", "the DKMS driver's ROCm release is not recorded in the package database"
        )
    key, user = _mm(driver_release), _mm(container_rocm)
    if key is None or user is None or key not in _MATRIX:
        return Compatibility("unknown", f"driver release {driver_release} is not in AMD's matrix")
    low, high = _MATRIX[key]
    span = f"{low[0]}.{low[1]}-{high[0]}.{high[1]}"
    if low <= user <= high:
        return Compatibility("supported", f"driver {driver_release} supports ROCm {span}")
    return Compatibility(
        "unsupported", f"driver {driver_release} supports ROCm {span}, the image has {container_rocm}"
    )
