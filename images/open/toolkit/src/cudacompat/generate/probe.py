"""Compile-probe mappings against the HIP headers in the image: a mapping is emitted only if
its HIP name really exists there.

Each non-macro name is probed with a namespace-scope using-declaration, which accepts every
kind of entity (functions incl. overloads and templates, types, variables, enumerators);
macro targets are checked against `clang -E -dM`. One probe file per family, one probe per
line, so each error line names exactly one failing mapping.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .mappings import Mapping

RUNTIME_INCLUDES = (
    "hip/hip_runtime.h",
    "hip/hip_complex.h",
    "hip/hip_fp16.h",
    "hip/hip_bf16.h",
    "hip/hip_cooperative_groups.h",
)
# What each family's compat header includes (after the runtime's), and so what its probe sees.
FAMILY_PREAMBLE: dict[str, str] = {
    "runtime": "",
    "cublas": "#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1\n#include <hipblas/hipblas.h>\n",
    "cublaslt": "#include <hipblaslt/hipblaslt.h>\n",
    "cusparse": "#include <hipsparse/hipsparse.h>\n",
    "curand": "#include <hiprand/hiprand.h>\n#include <hiprand/hiprand_kernel.h>\n",
    "cufft": "#include <hipfft/hipfft.h>\n#include <hipfft/hipfftXt.h>\n",
    "cusolver": "#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX 1\n#define HIPSOLVER_USE_HIPBLAS_ENUMS 1\n"
    "#include <hipblas/hipblas.h>\n#include <hipsolver/hipsolver.h>\n",
    "nvrtc": "#include <hip/hiprtc.h>\n",
}
_ERROR_LINE = re.compile(r"^probe\.hip:(\d+):\d+: error:", re.MULTILINE)


@dataclass(frozen=True)
class ProbeResult:
    resolved: tuple[Mapping, ...]
    unresolved: tuple[Mapping, ...]


def preamble(family: str) -> str:
    runtime = "".join(f"#include <{header}>\n" for header in RUNTIME_INCLUDES)
    return "#define __HIP_PLATFORM_AMD__ 1\n" + runtime + FAMILY_PREAMBLE[family]


def _clang(clangxx: str, source: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [clangxx, "-x", "hip", "--cuda-host-only", "-nogpulib", "-ferror-limit=0", "-w", *extra, str(source)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def defined_macros(clangxx: str, family: str) -> set[str]:
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "probe.hip")
        source.write_text(preamble(family), encoding="utf-8")
        result = _clang(clangxx, source, "-E", "-dM")
        if result.returncode != 0:
            raise RuntimeError(f"the {family} headers do not preprocess:\n{result.stderr[-2000:]}")
    return {
        line.split()[1].split("(")[0] for line in result.stdout.splitlines() if line.startswith("#define ")
    }


def probe(clangxx: str, family: str, mappings: Sequence[Mapping]) -> ProbeResult:
    macros = defined_macros(clangxx, family)
    candidates = [m for m in mappings if m.hip not in macros]
    failing: set[int] = set()
    head = preamble(family)
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
