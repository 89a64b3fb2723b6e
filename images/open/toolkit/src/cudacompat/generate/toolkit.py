"""Write the CUDA-toolkit-shaped tree: the shared part (/opt/moatbridge/toolkit: generated
headers, linker-script libraries) and one directory per target (/opt/moatbridge/targets/<gfx>)
that build systems take for a CUDA Toolkit install."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from ..nvcc.config import CONFIG_RELATIVE, ToolkitConfig
from . import deprecations, headers, signatures
from .mappings import Dropped, Mapping
from .stack import Stack

# lib64 entries: CUDA library name -> what it really is here.
_EMPTY_ARCHIVE = "!<arch>\n"
LINKER_SCRIPTS: dict[str, str] = {
    "libcudart.so": "INPUT(-lamdhip64)",
    "libcudart_static.a": "INPUT(-lamdhip64)",
    "stubs/libcuda.so": "INPUT(-lamdhip64)",
    "libcuda.so": "INPUT(-lamdhip64)",
    "libcublas.so": "INPUT(-lhipblas)",
    "libcublas_static.a": "INPUT(-lhipblas)",
    "libcufft.so": "INPUT(-lhipfft)",
    "libcufft_static.a": "INPUT(-lhipfft)",
    "libcurand.so": "INPUT(-lhiprand -lrocrand)",
    "libcurand_static.a": "INPUT(-lhiprand -lrocrand)",
    "libcusparse.so": "INPUT(-lhipsparse)",
    "libcusparse_static.a": "INPUT(-lhipsparse)",
    "libcusolver.so": "INPUT(-lhipsolver)",
    "libcusolver_static.a": "INPUT(-lhipsolver)",
}
# Only on stacks with the library (stack.env): otherwise a placeholder says why not.
OPTIONAL_SCRIPTS: dict[str, tuple[str, str]] = {
    "libcublasLt.so": ("hipblaslt", "INPUT(-lhipblaslt)"),
    "libcublasLt_static.a": ("hipblaslt", "INPUT(-lhipblaslt)"),
    "libnccl.so": ("rccl", "INPUT(-lrccl)"),
    "libnccl_static.a": ("rccl", "INPUT(-lrccl)"),
}
OPTIONAL_MISSING = {
    "hipblaslt": "no hipBLASLt in this stack: cuBLASLt over hipBLAS is built here with the image's "
    "targets (cudacompat.generate --only-targets)",
    "rccl": "NCCL has no counterpart in this stack (no RCCL)",
}
PLACEHOLDERS: dict[str, str] = {
    "libnvToolsExt.so": "NVTX ranges are no-ops here (header-only stubs in include/nvToolsExt.h)",
    "libcufftw.so": "FFTW-style cuFFT API is not provided",
    "libnvJitLink.so": "PTX JIT linking has no AMD meaning; empty, so links that name it "
    "(cuSOLVER 12's) succeed",
}
EMPTY_ARCHIVES = (
    "libcudadevrt.a",
    "libculibos.a",
    "libcusolver_lapack_static.a",
    "libcusolver_metis_static.a",
)


def write_text(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def _symlink(link: Path, target: str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target)


def write_libraries(lib64: Path, stack: Stack) -> None:
    header = "/* moatbridge: the CUDA name of a ROCm library (GNU ld / lld linker script) */\n"
    for name, script in LINKER_SCRIPTS.items():
        write_text(lib64 / name, header + script + "\n")
    # HIP 7 moved hiprtc out of libamdhip64 into libhiprtc; before, libamdhip64 has it.
    nvrtc = "INPUT(-lhiprtc -lamdhip64)" if stack.hip_major >= 7 else "INPUT(-lamdhip64)"
    write_text(lib64 / "libnvrtc.so", header + nvrtc + "\n")
    for name, (library, script) in OPTIONAL_SCRIPTS.items():
        if getattr(stack, library):
            write_text(lib64 / name, header + script + "\n")
        else:
            write_text(lib64 / name, f"/* moatbridge placeholder: {OPTIONAL_MISSING[library]} */\n")
    llvm_lib = stack.llvm_lib
    # clang's -fopenmp (CUDA sources) calls LLVM's OpenMP runtime, which also implements GNU
    # libgomp's ABI: a link asking for -lgomp (cuda-samples do; g++ -fopenmp does) gets it.
    write_text(
        lib64 / "libgomp.so",
        "/* moatbridge: LLVM's OpenMP runtime, for clang- and gcc-compiled objects alike */\n"
        f"INPUT({llvm_lib}/libomp.so)\n",
    )
    for name, why in PLACEHOLDERS.items():
        write_text(lib64 / name, f"/* moatbridge placeholder: {why} */\n")
    for name in EMPTY_ARCHIVES:
        write_text(lib64 / name, _EMPTY_ARCHIVE)


def mapping_header(
    family: str, mappings: Sequence[Mapping], source: str, declared: dict[str, bool] | None = None
) -> str:
    """`#define cudaX hipX` for each mapping but the ones declared as functions of their own
    (declared: CUDA name -> deprecated, see deprecations.py)."""
    declared = declared or {}
    lines = [
        f"/* Generated at image build by moatbridge from {source}; do not edit.",
        f"   {len(mappings)} CUDA names of the {family} family, each compile-probed against the",
        "   HIP headers of this image. Left-out names: /opt/moatbridge/toolkit/compat-report.md */",
        "#pragma once",
    ]
    lines += [f"#define {m.cuda} {m.hip}" for m in mappings if m.cuda not in declared]
    lines += deprecations.block(
        family, [deprecations.declaration(m, declared[m.cuda]) for m in mappings if m.cuda in declared]
    )
    return "\n".join(lines) + "\n"


def version_header(cuda_version: str, mimic_cc: int, include: Path) -> str:
    """The mimicked CUDA version (major.minor.build) and compute capability, and where the
    headers are: runtime compilation (nvrtc.h) hands the directory to hiprtc."""
    major, minor, build = (int(part) for part in cuda_version.split(".")[:3])
    number = major * 1000 + minor * 10
    return (
        "/* Generated at image build by moatbridge: the CUDA version this toolkit mimics. */\n"
        "#pragma once\n"
        f"#define MOATBRIDGE_CUDA_VERSION_NUMBER {number}\n"
        f"#define MOATBRIDGE_CUDA_MAJOR {major}\n"
        f"#define MOATBRIDGE_CUDA_MINOR {minor}\n"
        f"#define MOATBRIDGE_CUDA_BUILD {build}\n"
        f"#define MOATBRIDGE_MIMIC_CC_MAJOR {mimic_cc // 10}\n"
        f"#define MOATBRIDGE_MIMIC_CC_MINOR {mimic_cc % 10}\n"
        f'#define MOATBRIDGE_INCLUDE_DIR "{include}"\n'
    )


def hand_written_headers(include: Path) -> list[str]:
    """The CUDA headers copied from the image context (not moatbridge's own, not generated)."""
    return sorted(
        path.relative_to(include).as_posix()
        for path in include.rglob("*")
        if path.is_file() and not path.relative_to(include).as_posix().startswith("moatbridge/")
    )


_BLOCK_START = "/* moatbridge: what NVIDIA's header of this name makes visible"


def write_headers(include: Path, plans: Iterable[headers.HeaderPlan]) -> None:
    """Runtime-part and alias headers written; hand-written ones get their macro block (once:
    a rerun replaces it)."""
    for plan in plans:
        path = include / plan.path
        if plan.kind in ("runtime", "alias", "library"):
            write_text(path, headers.generated_header(plan))
        elif plan.kind == "hand" and (plan.defines or plan.includes):
            text = path.read_text(encoding="utf-8")
            text = text.split(_BLOCK_START, 1)[0].rstrip("\n") + "\n"
            write_text(path, text + headers.defines_block(plan))


def report_markdown(
    resolved: dict[str, int], unresolved: Iterable[Mapping], dropped: Iterable[Dropped],
    header_plans: Iterable[headers.HeaderPlan] = (), api_gaps: Iterable[signatures.Gap] = (),
    device_gaps: Iterable[signatures.Gap] = (), stack: Stack | None = None,
    shadows: Iterable[tuple[str, str, str]] = (),
) -> str:  # fmt: skip
    lines = ["# CUDA -> HIP mappings left out of the compatibility headers", ""]
    if stack is not None:
        lines += [
            f"Stack: clang {stack.clang_version}, ROCm {stack.rocm_version}, HIP {stack.hip_version}; "
            f"hipBLASLt {'yes' if stack.hipblaslt else 'no'}, RCCL {'yes' if stack.rccl else 'no'}.",
            "",
        ]
    lines.append("| family | emitted |")
    lines.append("|---|---|")
    lines += [f"| {family} | {count} |" for family, count in sorted(resolved.items())]
    shadows = list(shadows)
    if shadows:
        lines += [
            "",
            "## HIP behaviour changed to CUDA's (shadowed HIP headers, each decided by a probe)",
            "",
        ]
        lines += [f"- {probe} (`hip/{header}`): {outcome}" for probe, header, outcome in shadows]
    lines += ["", "## HIP name not declared by this image's headers (compile probe failed)", ""]
    lines += [f"- `{m.cuda}` -> `{m.hip}` ({m.family})" for m in unresolved]
    lines += ["", "## Not emitted by rule", ""]
    lines += [f"- `{d.cuda}` -> `{d.hip}`: {d.reason}" for d in dropped]
    lines += ["", *headers.report_lines(header_plans)]
    lines += ["", "## CUDA runtime and driver functions not provided (cuda_api.tsv, probed by the tests)", ""]
    lines += [f"- `{gap.name}`: {gap.reason}" for gap in api_gaps]
    lines += ["", "## CUDA device functions not provided (device_api.tsv, probed by the tests)", ""]
    lines += [f"- `{gap.name}`: {gap.reason}" for gap in device_gaps]
    return "\n".join(lines) + "\n"


def write_report(
    shared: Path, resolved: dict[str, int], unresolved: list[Mapping], dropped: list[Dropped],
    header_plans: list[headers.HeaderPlan] | None = None, api_functions: int = 0,
    gaps: Sequence[signatures.Gap] = (), device_functions: Sequence[signatures.Signature] = (),
    device_gaps: Sequence[signatures.Gap] = (), stack: Stack | None = None,
    shadows: Sequence[tuple[str, str, str]] = (),
) -> None:  # fmt: skip
    plans = header_plans or []
    data: dict[str, object] = {
        "api": {"functions": api_functions, "unsupported": {gap.name: gap.reason for gap in gaps}},
        "device": {
            "functions": len({s.name for s in device_functions}),
            "signatures": len(device_functions),
            "unsupported": {gap.name: gap.reason for gap in device_gaps},
        },
        "emitted": resolved,
        "unresolved": [{"cuda": m.cuda, "hip": m.hip, "family": m.family} for m in unresolved],
        "dropped": [{"cuda": d.cuda, "hip": d.hip, "reason": d.reason} for d in dropped],
        "headers": {
            "provided": {p.path: p.kind for p in plans if p.kind != "unsupported"},
            "unsupported": {p.path: p.reason for p in plans if p.kind == "unsupported"},
            "defines": {p.path: [name for name, _ in p.defines] for p in plans if p.defines},
        },
    }
    if stack is not None:
        data["stack"] = {
            "clang": stack.clang_version, "rocm": stack.rocm_version, "hip": stack.hip_version,
            "hipblaslt": stack.hipblaslt, "rccl": stack.rccl,
        }  # fmt: skip
    if shadows:
        data["shadows"] = {
            probe: {"header": header, "outcome": outcome} for probe, header, outcome in shadows
        }
    write_text(shared / "compat-report.json", json.dumps(data, indent=1, sort_keys=True) + "\n")
    write_text(
        shared / "compat-report.md",
        report_markdown(resolved, unresolved, dropped, plans, gaps, device_gaps, stack, shadows),
    )


# rocThrust keeps NVIDIA's CUDA system headers beside its HIP ones, unbuildable (they need
# NVIDIA's CUB); the public ones are served by their HIP counterparts instead.
_THRUST_CUDA_SYSTEM = "system/cuda/"
_THRUST_HIP_SYSTEM = "system/hip/"


class ThrustAddition(NamedTuple):
    """A moatbridge header included after rocThrust's header `after`, unless that header
    already declares `unless_declared` (a newer rocThrust)."""

    after: str
    header: str
    unless_declared: str | None = None


THRUST_ADDITIONS = (
    ThrustAddition("system/hip/error.h", "moatbridge/thrust_cuda_error.h"),
    ThrustAddition(
        "system/hip/memory.h", "moatbridge/thrust_host_pinned_memory.h", "universal_host_pinned_allocator"
    ),
    ThrustAddition(
        "system/hip/vector.h", "moatbridge/thrust_host_pinned_vector.h", "universal_host_pinned_vector"
    ),
)


# rocThrust headers that define, at global scope, a function CUDA's math library declares too
# (rocThrust's host erfcinv, `static`, against the CUDA host one of moatbridge/host_math.h):
# renamed while the header is read; the calls after it reach CUDA's.
THRUST_RENAMED = {"random/detail/erfcinv.h": ("erfcinv",)}


def thrust_wrapper(relative: str, thrust_dir: Path) -> str:
    """The wrapper for rocThrust's header thrust/RELATIVE: nvcc's macros hidden around it (a
    rocThrust that sees __CUDACC__ picks its CUDA backend), then moatbridge/thrust_cuda.h,
    which names the HIP system with CUDA's names, and the additions (THRUST_ADDITIONS) that
    header needs on this stack."""
    target = f"thrust/{relative}"
    include = "#include_next"
    if relative.startswith(_THRUST_CUDA_SYSTEM):
        counterpart = _THRUST_HIP_SYSTEM + relative[len(_THRUST_CUDA_SYSTEM) :]
        if (thrust_dir / counterpart).is_file():
            target, include = f"thrust/{counterpart}", "#include"
    additions = [
        f"#include <{addition.header}>\n"
        for addition in THRUST_ADDITIONS
        if addition.after == relative
        and (
            addition.unless_declared is None
            or addition.unless_declared
            not in (thrust_dir / relative).read_text(encoding="utf-8", errors="replace")
        )
    ]
    renamed = THRUST_RENAMED.get(relative, ())
    return (
        "/* moatbridge: hides nvcc's macros from the ROCm implementation of this header */\n"
        "#include <moatbridge/hide_cuda_macros.h>\n"
        + "".join(f"#define {name} moatbridge_rocthrust_{name}\n" for name in renamed)
        + f"{include} <{target}>\n"
        + "".join(f"#undef {name}\n" for name in renamed)
        + "#include <moatbridge/thrust_cuda.h>\n"
        + "".join(additions)
        + "#include <moatbridge/restore_cuda_macros.h>\n"
    )


def write_thrust_shadows(include: Path, thrust_dir: Path) -> int:
    """A wrapper (thrust_wrapper) for every rocThrust header, under moatbridge/shadow/thrust/."""
    count = 0
    for header in sorted(thrust_dir.rglob("*")):
        if not header.is_file():
            continue
        relative = header.relative_to(thrust_dir).as_posix()
        write_text(
            include / "moatbridge" / "shadow" / "thrust" / relative, thrust_wrapper(relative, thrust_dir)
        )
        count += 1
    return count


def write_cub_headers(include: Path, hipcub_dir: Path) -> int:
    """<cub/...cuh> for every hipCUB header: the same API under `namespace cub = hipcub`."""
    count = 0
    for header in sorted(hipcub_dir.rglob("*.hpp")):
        relative = header.relative_to(hipcub_dir).as_posix()
        if relative.startswith("backend/"):
            continue
        cuda_name = "cub/cub.cuh" if relative == "hipcub.hpp" else f"cub/{relative[: -len('.hpp')]}.cuh"
        write_text(
            include / cuda_name,
            "/* moatbridge: CUB on AMD GPUs is hipCUB (same API, namespace hipcub) */\n"
            "#pragma once\n"
            "#include <cuda_runtime.h>\n"
            "#include <moatbridge/hide_cuda_macros.h>\n"
            f"#include <hipcub/{relative}>\n"
            "#include <moatbridge/restore_cuda_macros.h>\n"
            "namespace cub = hipcub;\n",
        )
        count += 1
    return count


NVCC_LAUNCHER = """#!/usr/bin/python3 -IS
# moatbridge nvcc for {gfx} (generated at image build). The driver is {lib}/cudacompat/nvcc.
import sys

sys.path.insert(0, "{lib}")
from cudacompat.nvcc.main import entry  # noqa: E402

sys.exit(entry(sys.argv[1:], "{root}"))
"""


def write_target(prefix: Path, shared: Path, config: ToolkitConfig) -> Path:
    root = Path(config.root)
    relative_shared = os.path.relpath(shared, root)
    write_text(
        root / "bin" / "nvcc", NVCC_LAUNCHER.format(gfx=config.gfx, lib=prefix / "lib", root=root), 0o755
    )
    for name in ("include", "lib64", "nvvm"):
        _symlink(root / name, f"{relative_shared}/{name}")
    _symlink(root / "lib", "lib64")
    _symlink(root / "targets" / "x86_64-linux" / "include", "../../include")
    _symlink(root / "targets" / "x86_64-linux" / "lib", "../../lib64")
    write_text(root / CONFIG_RELATIVE, config.to_text())
    write_text(root / "version.txt", f"CUDA Version {config.cuda_version}\n")
    components = {
        name: {"name": label, "version": config.cuda_version}
        for name, label in (
            ("cuda", "CUDA SDK"),
            ("cuda_nvcc", f"CUDA NVCC (moatbridge, clang-{config.clang_version} HIP)"),
            ("cuda_cudart", f"CUDA Runtime (HIP {config.hip_version})"),
            ("libcublas", "CUDA cuBLAS (hipBLAS)"),
        )
    }  # fmt: skip
    write_text(root / "version.json", json.dumps(components, indent=2, sort_keys=True) + "\n")
    return root
