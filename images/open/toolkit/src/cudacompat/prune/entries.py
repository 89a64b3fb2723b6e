"""The code objects a bundle lists (``Entry``: offset, size, triple) and which of them a kept
GPU loads, as the offload bundler and the ROCm loader decide: its own processor's code, else
its generic processor's. Names this script does not know are never pruned."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..targets import GENERIC_TARGETS, PROCESSOR, generic_of

PROCESSOR_RE = re.compile(rf"{PROCESSOR}\Z")


def is_known(name: str) -> bool:
    """A processor (gfx1030) or a generic processor (gfx11-generic) this script knows."""
    return PROCESSOR_RE.match(name) is not None or name in GENERIC_TARGETS


def loadable(name: str, keep: frozenset[str]) -> bool:
    """Whether a kept target can load code built for ``name`` (a processor, not a target ID:
    an xnack or sramecc feature does not matter, the device's mode is unknown at build time).
    Names this script does not know count as loadable: their code is never pruned."""
    if not is_known(name):
        return True
    return name in keep or bool(GENERIC_TARGETS.get(name, frozenset()) & keep)


def loaded_by(entries: Iterable[Entry], target: str) -> list[Entry]:
    """The entries a ``target`` GPU would load from one bundle: those for its own processor (any
    feature variant) if there are any, else those for its generic processor."""
    entries = [e for e in entries if not e.is_host]
    own = [e for e in entries if e.processor == target]
    generic = generic_of(target)
    return own or [e for e in entries if generic is not None and e.processor == generic]


@dataclass(frozen=True)
class Entry:
    """One code object listed in a bundle header; the offset is relative to the bundle start."""

    offset: int
    size: int
    triple: str

    @property
    def is_host(self) -> bool:
        return self.triple.startswith("host-")

    @property
    def target_id(self) -> str:
        """``hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+`` -> ``gfx90a:xnack+`` (kind-arch-vendor-os-env-id).

        Old triples had no environment: ``hip-amdgcn-amd-amdhsa-gfx906``.
        """
        parts = self.triple.split("-", 5)
        if len(parts) == 5 and parts[4].startswith("gfx"):
            return parts[4]
        return parts[5] if len(parts) == 6 else ""

    @property
    def processor(self) -> str:
        return self.target_id.split(":", 1)[0]

    @property
    def label(self) -> str:
        return "host" if self.is_host else self.processor or self.triple

    def dropped_by(self, keep: frozenset[str]) -> bool:
        """Only code for a known processor or generic processor that no kept target can load
        goes; anything else (host code, names this script does not know) stays."""
        return not self.is_host and not loadable(self.processor, keep)
