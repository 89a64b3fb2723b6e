"""Compile-probe mappings against the HIP headers in the image: a mapping is emitted only if
its HIP name really exists there.

Each non-macro name is probed with a namespace-scope using-declaration, which accepts every
kind of entity (functions incl. overloads and templates, types, variables, enumerators);
macro targets are checked against `clang -E -dM`. One probe file per family, one probe per
line, so each error line names exactly one failing mapping.

hipify's table is written for one HIP release and the headers are another's: a name whose
spelling differs only in case (hipify 6.4's hipDeviceAttributePciDomainId for HIP 6.4's
hipDeviceAttributePciDomainID) is taken in the headers' spelling when exactly one matches.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .mappings import Mapping

RUNTIME_INCLUDES = (
    "hip/hip_runtime.h",
    "hip/hip_complex.h",
    "hip/hip_fp16.h",
    "hip/hip_bf16.h",
    "hip/hip_cooperative_groups.h",
)
# hipSPARSE takes CUDART_VERSION 13000 and up for CUDA 13 having removed its legacy routines;
# NVIDIA's CUDA 13.0 cuSPARSE still declares them. cusparse.h includes it with this text.
HIPSPARSE_AS_CUDA_12 = (
    '#pragma push_macro("CUDART_VERSION")\n'
    "#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000\n"
    "#undef CUDART_VERSION\n"
    "#define CUDART_VERSION 12090\n"
    "#endif\n"
    "#include <hipsparse/hipsparse.h>\n"
    '#pragma pop_macro("CUDART_VERSION")\n'
)
# What each family's compat header includes (after the runtime's), and so what its probe sees.
FAMILY_PREAMBLE: dict[str, str] = {
    "runtime": "",
    "cublas": "#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1\n#define HIPBLAS_USE_HIP_HALF 1\n"
    "#include <hipblas/hipblas.h>\n",
    "cublaslt": "#include <hipblaslt/hipblaslt.h>\n",
    "cusparse": HIPSPARSE_AS_CUDA_12,
    "curand": "#include <hiprand/hiprand.h>\n#include <hiprand/hiprand_kernel.h>\n",
    "cufft": "#include <hipfft/hipfft.h>\n#include <hipfft/hipfftXt.h>\n",
    "cusolver": "#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1\n#define HIPBLAS_USE_HIP_HALF 1\n"
    "#define HIPSOLVER_USE_HIPBLAS_ENUMS 1\n"
    "#include <hipblas/hipblas.h>\n#include <hipsolver/hipsolver.h>\n",
    "nvrtc": "#include <hip/hiprtc.h>\n",
}
_ERROR_LINE = re.compile(r"^probe\.hip:(\d+):\d+: error:", re.MULTILINE)
_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


@dataclass(frozen=True)
class ProbeResult:
    resolved: tuple[Mapping, ...]
    unresolved: tuple[Mapping, ...]


def preamble(family: str, cuda_version: str = "") -> str:
    """The family's headers as its compat header includes them: after HIP's runtime, with
    CUDART_VERSION the mimicked one (moatbridge/runtime.h defines it there), which the ROCm
    libraries read to hide what that CUDA release removed (hipSPARSE: CUDA 13's removals)."""
    runtime = "".join(f"#include <{header}>\n" for header in RUNTIME_INCLUDES)
    version = ""
    if cuda_version:
        major, minor = cuda_version.split(".")[:2]
        version = f"#define CUDART_VERSION {int(major) * 1000 + int(minor) * 10}\n"
    return "#define __HIP_PLATFORM_AMD__ 1\n" + runtime + version + FAMILY_PREAMBLE[family]


def _clang(clangxx: str, source: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [clangxx, "-x", "hip", "--cuda-host-only", "-nogpulib", "-ferror-limit=0", "-w", *extra, str(source)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def _preprocessed(clangxx: str, family: str, cuda_version: str, *extra: str) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "probe.hip")
        source.write_text(preamble(family, cuda_version), encoding="utf-8")
        result = _clang(clangxx, source, "-E", *extra)
        if result.returncode != 0:
            raise RuntimeError(f"the {family} headers do not preprocess:\n{result.stderr[-2000:]}")
    return result.stdout


def defined_macros(clangxx: str, family: str, cuda_version: str = "") -> set[str]:
    return {
        line.split()[1].split("(")[0]
        for line in _preprocessed(clangxx, family, cuda_version, "-dM").splitlines()
        if line.startswith("#define ")
    }


def declared_names(clangxx: str, family: str, cuda_version: str = "") -> set[str]:
    """Every identifier the family's headers contain after preprocessing, and their macros."""
    names = set(_IDENTIFIER.findall(_preprocessed(clangxx, family, cuda_version)))
    return names | defined_macros(clangxx, family, cuda_version)


def case_corrected(unresolved: Sequence[Mapping], names: set[str]) -> list[Mapping]:
    """The unresolved mappings whose HIP name the headers spell with other capitals, exactly
    one way, respelled so."""
    by_folded: dict[str, set[str]] = {}
    for name in names:
        by_folded.setdefault(name.casefold(), set()).add(name)
    corrected = []
    for mapping in unresolved:
        spellings = by_folded.get(mapping.hip.casefold(), set()) - {mapping.hip}
        if len(spellings) == 1:
            corrected.append(replace(mapping, hip=spellings.pop()))
    return corrected


def _probe_once(clangxx: str, family: str, mappings: Sequence[Mapping], cuda_version: str) -> ProbeResult:
    macros = defined_macros(clangxx, family, cuda_version)
    candidates = [m for m in mappings if m.hip not in macros]
    failing: set[int] = set()
    head = preamble(family, cuda_version)
    offset = head.count("\n")
    for _round in range(4):
        remaining = [m for i, m in enumerate(candidates) if i not in failing]
        index_of = [i for i in range(len(candidates)) if i not in failing]
        body = "".join(
            f"namespace moatbridge_probe_{n} {{ using ::{m.hip}; }}\n" for n, m in enumerate(remaining)
        )
        with tempfile.TemporaryDirectory() as scratch:
            source = Path(scratch, "probe.hip")
            source.write_text(head + body, encoding="utf-8")
            result = _clang(clangxx, source, "-fsyntax-only")
        if result.returncode == 0:
            break
        lines = {int(n) for n in _ERROR_LINE.findall(result.stderr.replace(str(source), "probe.hip"))}
        new = {index_of[line - offset - 1] for line in lines if 0 < line - offset <= len(remaining)}
        if not new:
            raise RuntimeError(f"the {family} probe failed outside the probes:\n{result.stderr[-2000:]}")
        failing |= new
    else:
        raise RuntimeError(f"the {family} probe did not converge")
    resolved = [m for m in mappings if m.hip in macros] + [
        m for i, m in enumerate(candidates) if i not in failing
    ]
    unresolved = [candidates[i] for i in sorted(failing)]
    return ProbeResult(tuple(sorted(resolved, key=lambda m: m.cuda)), tuple(unresolved))


def probe(clangxx: str, family: str, mappings: Sequence[Mapping], cuda_version: str = "") -> ProbeResult:
    """The mappings whose HIP name the family's headers declare, as a toolkit mimicking
    `cuda_version` includes them (none given: without CUDART_VERSION)."""
    first = _probe_once(clangxx, family, mappings, cuda_version)
    if not first.unresolved:
        return first
    respelled = case_corrected(first.unresolved, declared_names(clangxx, family, cuda_version))
    if not respelled:
        return first
    second = _probe_once(clangxx, family, respelled, cuda_version)
    fixed = {m.cuda for m in second.resolved}
    resolved = sorted((*first.resolved, *second.resolved), key=lambda m: m.cuda)
    return ProbeResult(tuple(resolved), tuple(m for m in first.unresolved if m.cuda not in fixed))
