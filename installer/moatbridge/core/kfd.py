"""Parsing KFD topology ``properties`` files (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from moatbridge.core.textsafe import parse_uint


@dataclass(frozen=True)
class Properties:
    values: dict[str, int]
    # Lines that were not "<key> <unsigned int>": kept so the caller can report them.
    bad_lines: int

    def get(self, key: str, default: int | None = None) -> int | None:
        return self.values.get(key, default)


def parse_properties(text: str) -> Properties:
    """Parse ``"<name> <decimal>"`` lines; unknown keys kept, junk counted, never raises.

    A truncated file simply yields fewer keys; a torn last line is counted as bad.
    """
    values: dict[str, int] = {}
    bad = 0
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        number = parse_uint(parts[1]) if len(parts) == 2 else None
        if number is not None:  # ASCII digits only: '²' passes isdigit() but not int()
            values[parts[0]] = number
        else:
            bad += 1
    return Properties(values, bad)


def is_gpu_node(props: Properties) -> bool:
    """CPU nodes have gfx_target_version 0 and no SIMDs (what LLVM and libhsakmt test)."""
    gfx = props.get("gfx_target_version", 0) or 0
    simd = props.get("simd_count", 0) or 0
    return gfx > 0 or simd > 0


def pci_slot_from_location(domain: int, location_id: int) -> str:
    """Fallback PCI address from KFD's domain + location_id (bus<<8 | devfn).

    Wrong for partitioned parts, whose partition number is OR-ed into location_id;
    the render-node link is preferred whenever it exists.
    """
    bus = (location_id >> 8) & 0xFF
    device = (location_id >> 3) & 0x1F
    function = location_id & 0x7
    return f"{domain:04x}:{bus:02x}:{device:02x}.{function}"
