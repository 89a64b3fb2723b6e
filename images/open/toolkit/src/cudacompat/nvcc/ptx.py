"""Find inline PTX assembly, which cannot be compiled for AMD GPUs. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

# asm("..."), asm volatile("..."), __asm__ __volatile__ ("..." "...")
_ASM = re.compile(
    r"\b(?:asm|__asm__|__asm)\s*(?:volatile|__volatile__)?\s*\(\s*((?:\"(?:[^\"\\]|\\.)*\"\s*)+)"
)
# PTX instructions carry type/state suffixes (mov.u32, ld.global.f32, shfl.sync.bfly.b32)
# or name PTX registers/directives; AMDGCN assembly (v_add_f32, s_nop) has neither.
_PTX_HINT = re.compile(r"(?:\b[a-z]+(?:\.[a-z0-9]+)+\b|%%?(?:laneid|warpid|smid|clock|tid|ctaid)\b|\.reg\b)")


@dataclass(frozen=True)
class InlinePtx:
    line: int
    text: str


def find_inline_ptx(source: str) -> list[InlinePtx]:
    found: list[InlinePtx] = []
    for match in _ASM.finditer(source):
        strings = match.group(1)
        if _PTX_HINT.search(strings):
            line = source.count("\n", 0, match.start()) + 1
            first_line = source[match.start() :].splitlines()[0].strip()
            found.append(InlinePtx(line, first_line[:100]))
    return found


def message(path: str, hits: list[InlinePtx]) -> str:
    where = "\n".join(f"{path}:{hit.line}: inline PTX: {hit.text}" for hit in hits)
    return (
        f"{where}\n"
        f"nvcc fatal   : {path} contains inline PTX assembly, which cannot be compiled for AMD GPUs "
        "(PTX is NVIDIA's instruction set).\n"
        "hint: replace the asm() block with CUDA C++ (intrinsics such as __shfl_sync or atomics), "
        "or guard it with #if !defined(__HIP_PLATFORM_AMD__)."
    )
