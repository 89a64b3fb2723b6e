"""CUDA architecture options (-arch, -code, -gencode) mapped onto one AMD target.

As in SCALE's model, a toolkit directory serves one gfx target: every compute capability a
build system asks for compiles to that target. What is kept from the request is the virtual
architecture number, because CUDA code reads it back as __CUDA_ARCH__ and CMake parses
`-arch compute_NN` out of `nvcc -v`. An explicit gfx name (`-arch gfx1100`) is honoured as is.
Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .options import CommandLine, NvccUsageError

# Real architectures CUDA 11.8 (and 12.x) know, for -arch=all, --list-gpu-arch/-code.
KNOWN_11 = (35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90)
KNOWN_12 = (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90)

_NUMBERED = re.compile(r"^(?:sm|compute|lto)_(\d+)[af]?$")
_GFX = re.compile(r"^gfx[0-9a-f]{3,4}(?::[a-z+-:]+)?$")


@dataclass(frozen=True)
class ArchRequest:
    capabilities: tuple[int, ...]  # requested virtual architectures, e.g. (75, 86)
    gfx_targets: tuple[str, ...]  # explicit AMD targets given instead of sm_NN


def known_capabilities(cuda_major: int) -> tuple[int, ...]:
    return KNOWN_11 if cuda_major < 12 else KNOWN_12


def _capability(value: str, mimic: int, cuda_major: int) -> list[int]:
    value = value.strip().strip('"').strip("'")
    if value in ("all", "all-major"):
        known = known_capabilities(cuda_major)
        return [c for c in known if value == "all" or c % 10 == 0]
    if value == "native":
        return [mimic]
    match = _NUMBERED.match(value)
    if match:
        return [int(match.group(1))]
    raise NvccUsageError(f"Value '{value}' is not defined for option 'gpu-architecture'")


def _gencode_parts(value: str) -> list[str]:
    """`arch=compute_86,code=[sm_86,compute_86]` -> ['compute_86', 'sm_86', 'compute_86']."""
    text = value.strip().strip('"').strip("'")
    parts: list[str] = []
    for key, body in re.findall(r"(arch|code)=(\[[^\]]*\]|\"[^\"]*\"|'[^']*'|[^,]*)", text):
        del key
        body = body.strip("[]\"'")
        parts.extend(piece.strip() for piece in body.split(",") if piece.strip())
    if not parts:
        raise NvccUsageError(f"Value '{value}' is not defined for option 'generate-code'")
    return parts


def requested(cmdline: CommandLine, mimic: int, cuda_major: int) -> ArchRequest:
    capabilities: list[int] = []
    gfx: list[str] = []
    raw = cmdline.values("gpu-architecture", "gpu-code")
    for value in cmdline.values("generate-code"):
        raw.extend(_gencode_parts(value))
    for value in raw:
        if _GFX.match(value):
            gfx.append(value)
        else:
            capabilities.extend(_capability(value, mimic, cuda_major))
    if not capabilities:
        capabilities = [mimic]
    return ArchRequest(tuple(sorted(set(capabilities))), tuple(dict.fromkeys(gfx)))


def cuda_arch_macro(request: ArchRequest) -> int:
    """__CUDA_ARCH__ on the device pass: the highest virtual architecture requested, x10."""
    return max(request.capabilities) * 10


def list_gpu_arch(cuda_major: int) -> str:
    return "\n".join(f"compute_{c}" for c in known_capabilities(cuda_major)) + "\n"


def list_gpu_code(cuda_major: int) -> str:
    return "\n".join(f"sm_{c}" for c in known_capabilities(cuda_major)) + "\n"
