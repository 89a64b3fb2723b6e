"""AMD GPU processor names: the one grammar of a gfx name and the generic-processor table.

The in-image tools (the nvcc driver, the pruner) and the installer on the host read target
names by these rules; the installer imports this module rather than keep its own copy.
Standard library only.
"""

from __future__ import annotations

import re

# gfx, a major version (6-9 or 1x), a minor digit and a hex stepping: gfx803, gfx90a, gfx1030.
PROCESSOR = r"gfx(?:[6-9]|1[0-9])[0-9][0-9a-f]"
# Anything spelled like a generic processor, known or not: gfx11-generic, gfx9-4-generic.
GENERIC = r"gfx[0-9]+(?:-[0-9]+)*-generic"

_PROCESSOR_RE = re.compile(PROCESSOR, re.ASCII)

# Generic processors (LLVM's AMDGPUUsage, "Generic Processors"; clang 19+, code object v6):
# one code object that loads on every member. Debian's newer ROCm libraries ship them instead
# of one object per chip. The offload bundler and the ROCm loader hand a member the code for
# its own processor if a bundle has it, else the code for its generic processor.
GENERIC_TARGETS: dict[str, frozenset[str]] = {
    "gfx9-generic": frozenset({"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"}),
    "gfx9-4-generic": frozenset({"gfx940", "gfx941", "gfx942", "gfx950"}),
    "gfx10-1-generic": frozenset({"gfx1010", "gfx1011", "gfx1012", "gfx1013"}),
    "gfx10-3-generic": frozenset({f"gfx103{i}" for i in range(7)}),
    "gfx11-generic": frozenset(
        {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"}
    ),
    "gfx12-generic": frozenset({"gfx1200", "gfx1201"}),
}


def is_processor(name: str) -> bool:
    """A processor name (gfx1030, gfx90a), without target features (``:xnack+``)."""
    return _PROCESSOR_RE.fullmatch(name) is not None


def processor_of(target_id: str) -> str:
    """The processor of a target ID: ``gfx90a:xnack+`` -> ``gfx90a``."""
    return target_id.split(":", 1)[0]


def generic_of(processor: str) -> str | None:
    """The generic processor whose code objects load on ``processor``, if any."""
    return next((g for g, members in GENERIC_TARGETS.items() if processor in members), None)


def is_code_target(name: str) -> bool:
    """A name device code is built for: a processor, or a generic processor this table knows."""
    return is_processor(name) or name in GENERIC_TARGETS
