"""Every function of NVIDIA's CUDA-X library headers (cuBLAS, cuBLASLt, cuFFT and cuFFTXt,
cuRAND, cuSPARSE, cuSOLVER's dense API) of one release, read by clang from the real headers,
and the list of those the open toolkit does not provide, with the reason.

A function is provided when a call written against NVIDIA's signature compiles through our
nvcc (cudacompat.generate.signatures writes the probe: `std::declval` arguments of NVIDIA's
parameter types, the result converting to NVIDIA's result type). The gaps file says on which
ROCm releases each gap holds: a stack's failing functions must be exactly its listed ones.
Pure, but for reading the real headers through a compiler the caller runs."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from cudacompat.generate import signatures

GAPS = Path(__file__).parents[1] / "cudax_api_gaps.tsv"
# header a program includes -> (the prefix of the functions it declares, prefixes of
# functions it shows that another header of this table owns)
HEADERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "cublas_v2.h": ("cublas", ("cublasLt", "cublasXt")),
    "cublasLt.h": ("cublasLt", ()),
    "cufft.h": ("cufft", ("cufftXt",)),
    "cufftXt.h": ("cufftXt", ()),
    "curand.h": ("curand", ()),
    "cusparse.h": ("cusparse", ()),
    "cusolverDn.h": ("cusolver", ()),
}
_ROCM = re.compile(r"\d+\.\d+")


@dataclass(frozen=True)
class Gap:
    name: str
    rocm: frozenset[str]  # the ROCm releases (stacks) the function is missing on
    reason: str


def functions(header: str, read: Callable[[str, str], tuple[str, str]]) -> list[signatures.Signature]:
    """The functions `header` declares (as code spells them: cublasSgemm, not _v2), given
    `read(header, prefix)` -> (clang's JSON AST of the declarations named prefix..., -dM)."""
    prefix, others = HEADERS[header]
    ast, defines = read(header, prefix)
    found = signatures.signatures(ast, defines, header, prefix)
    return [s for s in found if not s.name.startswith(others)]


def load_gaps(path: Path = GAPS) -> list[Gap]:
    """`name<TAB>ROCm releases (space separated)<TAB>reason` lines; # starts a comment."""
    gaps = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        name, rocm, reason = line.split("\t")
        releases = frozenset(rocm.split())
        if (
            not re.fullmatch(r"[A-Za-z_]\w*", name)
            or not releases
            or not all(_ROCM.fullmatch(r) for r in releases)
            or not reason.strip()
        ):
            raise ValueError(f"{path.name}:{number}: not 'name<TAB>ROCm releases<TAB>reason': {line!r}")
        gaps.append(Gap(name, releases, reason.strip()))
    return gaps


def listed_for(gaps: Iterable[Gap], rocm: str, declared: Iterable[str]) -> dict[str, str]:
    """name -> reason, for the gaps that hold on `rocm` among the functions `declared`."""
    names = set(declared)
    return {gap.name: gap.reason for gap in gaps if rocm in gap.rocm and gap.name in names}
