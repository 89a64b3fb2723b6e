"""CUDA architecture options (-arch, -code, -gencode) mapped onto one AMD target.

As in SCALE's model, a toolkit directory serves one gfx target: every compute capability a
build system asks for compiles to that target. What is kept from the request is the virtual
architecture number, because CUDA code reads it back as __CUDA_ARCH__ and CMake parses
`-arch compute_NN` out of `nvcc -v`. An explicit gfx name (`-arch gfx1100`) is honoured as is.
Pure.
"""

from __future__ import annotations

from typing import NamedTuple

from ..targets import is_processor, processor_of
from .options import CommandLine, NvccUsageError

# Real architectures CUDA 11.8, 12.x and 13.0 know, for -arch=all/all-major and
# --list-gpu-arch/-code (in the order nvcc lists them). A number below the oldest is refused,
# as nvcc refuses it: CUDA 13 dropped everything before Turing.
KNOWN_11 = (35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90)
KNOWN_12 = (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90)
KNOWN_13 = (75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121)

# (No `re` here: the driver's start-up time is part of every compile.)
_PREFIXES = ("sm_", "compute_", "lto_")


def _number(value: str) -> int | None:
    """sm_86, compute_90a, lto_80 -> the number; anything else -> None."""
    for prefix in _PREFIXES:
        if value.startswith(prefix):
            digits = value[len(prefix) :].rstrip("af")
            return int(digits) if digits.isdigit() else None
    return None


def _is_gfx(value: str) -> bool:
    return is_processor(processor_of(value))


class ArchRequest(NamedTuple):
    capabilities: tuple[int, ...]  # requested virtual architectures, e.g. (75, 86)
    gfx_targets: tuple[str, ...]  # explicit AMD targets given instead of sm_NN


def known_capabilities(cuda_major: int) -> tuple[int, ...]:
    return KNOWN_11 if cuda_major < 12 else KNOWN_12 if cuda_major == 12 else KNOWN_13


def _capability(value: str, mimic: int, cuda_major: int) -> list[int]:
    value = value.strip().strip('"').strip("'")
    known = known_capabilities(cuda_major)
    if value in ("all", "all-major"):
        # all-major: every major's .0 and the oldest architecture (sm_75 under CUDA 13)
        oldest = min(known)
        return [c for c in known if value == "all" or c % 10 == 0 or c == oldest]
    if value == "native":
        return [mimic]
    number = _number(value)
    if number is not None and number < min(known):
        raise NvccUsageError(f"Unsupported gpu architecture '{value}'")
    if number is not None:
        return [number]
    raise NvccUsageError(f"Value '{value}' is not defined for option 'gpu-architecture'")


def _gencode_parts(value: str) -> list[str]:
    """`arch=compute_86,code=[sm_86,compute_86]` -> ['compute_86', 'sm_86', 'compute_86']."""
    text = value.strip().strip('"').strip("'")
    parts: list[str] = []
    rest = text
    while rest:
        key, equals, rest = rest.partition("=")
        if not equals or key.strip() not in ("arch", "code"):
            break
        if rest[:1] in ("[", '"', "'"):
            closing = {"[": "]", '"': '"', "'": "'"}[rest[0]]
            end = rest.find(closing, 1)
            body, rest = (rest[1:], "") if end < 0 else (rest[1:end], rest[end + 1 :])
        else:
            body, _, rest = rest.partition(",")
            body = body.strip()
            parts.extend([body] if body else [])
            continue
        parts.extend(piece.strip() for piece in body.split(",") if piece.strip())
        rest = rest.lstrip(",")
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
        if _is_gfx(value):
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
