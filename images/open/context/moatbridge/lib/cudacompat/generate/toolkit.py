"""Write the CUDA-toolkit-shaped tree: the shared part (/opt/moatbridge/toolkit: generated
headers, linker-script libraries) and one directory per target (/opt/moatbridge/targets/<gfx>)
that build systems take for a CUDA Toolkit install."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..nvcc.config import CONFIG_RELATIVE, ToolkitConfig
from . import headers, signatures
from .mappings import Dropped, Mapping

# lib64 entries: CUDA library name -> what it really is here.
_EMPTY_ARCHIVE = "!<arch>\n"
LINKER_SCRIPTS: dict[str, str] = {
    "libcudart.so": "INPUT(-lamdhip64)",
    "libcudart_static.a": "INPUT(-lamdhip64)",
    "stubs/libcuda.so": "INPUT(-lamdhip64)",
    "libcuda.so": "INPUT(-lamdhip64)",
    "libnvrtc.so": "INPUT(-lamdhip64)",
    "libcublas.so": "INPUT(-lhipblas)",
    "libcublas_static.a": "INPUT(-lhipblas)",
    "libcufft.so": "INPUT(-lhipfft)",
    "libcufft_static.a": "INPUT(-lhipfft)",
    "libcurand.so": "INPUT(-lhiprand)",
    "libcurand_static.a": "INPUT(-lhiprand)",
    "libcusparse.so": "INPUT(-lhipsparse)",
    "libcusparse_static.a": "INPUT(-lhipsparse)",
    "libcusolver.so": "INPUT(-lhipsolver)",
    "libcusolver_static.a": "INPUT(-lhipsolver)",
    "libnccl.so": "INPUT(-lrccl)",
    "libnccl_static.a": "INPUT(-lrccl)",
}
PLACEHOLDERS: dict[str, str] = {
    "libcublasLt.so": "cuBLASLt has no counterpart in Debian's ROCm 5.7 (no hipBLASLt); "
    "cuBLAS works without it",
    "libcublasLt_static.a": "see libcublasLt.so",
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


def write_libraries(lib64: Path, llvm_lib: str = "/usr/lib/llvm-17/lib") -> None:
    header = "/* moatbridge: the CUDA name of a ROCm library (GNU ld / lld linker script) */\n"
    for name, script in LINKER_SCRIPTS.items():
        write_text(lib64 / name, header + script + "\n")
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


def mapping_header(family: str, mappings: Sequence[Mapping], source: str) -> str:
    lines = [
        f"/* Generated at image build by moatbridge from {source}; do not edit.",
        f"   {len(mappings)} CUDA names of the {family} family, each compile-probed against the",
        "   HIP headers of this image. Left-out names: /opt/moatbridge/toolkit/compat-report.md */",
        "#pragma once",
    ]
    lines += [f"#define {m.cuda} {m.hip}" for m in mappings]
    return "\n".join(lines) + "\n"


def version_header(cuda_version: str, mimic_cc: int) -> str:
    major, minor = (int(part) for part in cuda_version.split(".")[:2])
    number = major * 1000 + minor * 10
    return (
        "/* Generated at image build by moatbridge: the CUDA version this toolkit mimics. */\n"
        "#pragma once\n"
        f"#define MOATBRIDGE_CUDA_VERSION_NUMBER {number}\n"
        f"#define MOATBRIDGE_MIMIC_CC_MAJOR {mimic_cc // 10}\n"
        f"#define MOATBRIDGE_MIMIC_CC_MINOR {mimic_cc % 10}\n"
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
        if plan.kind in ("runtime", "alias"):
            write_text(path, headers.generated_header(plan))
        elif plan.kind == "hand" and (plan.defines or plan.includes):
            text = path.read_text(encoding="utf-8")
            text = text.split(_BLOCK_START, 1)[0].rstrip("\n") + "\n"
            write_text(path, text + headers.defines_block(plan))


def report_markdown(
    resolved: dict[str, int], unresolved: Iterable[Mapping], dropped: Iterable[Dropped],
    header_plans: Iterable[headers.HeaderPlan] = (), api_gaps: Iterable[signatures.Gap] = (),
) -> str:  # fmt: skip
    lines = ["# CUDA -> HIP mappings left out of the compatibility headers", ""]
    lines.append("| family | emitted |")
    lines.append("|---|---|")
    lines += [f"| {family} | {count} |" for family, count in sorted(resolved.items())]
    lines += ["", "## HIP name not declared by this image's headers (compile probe failed)", ""]
    lines += [f"- `{m.cuda}` -> `{m.hip}` ({m.family})" for m in unresolved]
    lines += ["", "## Not emitted by rule", ""]
    lines += [f"- `{d.cuda}` -> `{d.hip}`: {d.reason}" for d in dropped]
    lines += ["", *headers.report_lines(header_plans)]
    lines += ["", "## CUDA runtime functions not provided (cuda_api.tsv, probed by the tests)", ""]
    lines += [f"- `{gap.name}`: {gap.reason}" for gap in api_gaps]
    return "\n".join(lines) + "\n"


def write_report(
    shared: Path, resolved: dict[str, int], unresolved: list[Mapping], dropped: list[Dropped],
    header_plans: list[headers.HeaderPlan] | None = None, api_functions: int = 0,
    gaps: Sequence[signatures.Gap] = (),
) -> None:  # fmt: skip
    plans = header_plans or []
    data = {
        "api": {"functions": api_functions, "unsupported": {gap.name: gap.reason for gap in gaps}},
        "emitted": resolved,
        "unresolved": [{"cuda": m.cuda, "hip": m.hip, "family": m.family} for m in unresolved],
        "dropped": [{"cuda": d.cuda, "hip": d.hip, "reason": d.reason} for d in dropped],
        "headers": {
            "provided": {p.path: p.kind for p in plans if p.kind != "unsupported"},
            "unsupported": {p.path: p.reason for p in plans if p.kind == "unsupported"},
            "defines": {p.path: [name for name, _ in p.defines] for p in plans if p.defines},
        },
    }
    write_text(shared / "compat-report.json", json.dumps(data, indent=1, sort_keys=True) + "\n")
    write_text(shared / "compat-report.md", report_markdown(resolved, unresolved, dropped, plans, gaps))


def write_shadow_tree(include: Path, system_dir: Path, library: str) -> int:
    """Wrappers for every header of a library that must not see nvcc's macros (rocThrust
    picks its CUDA backend when __CUDACC__ is defined)."""
    count = 0
    for header in sorted(system_dir.rglob("*")):
        if not header.is_file():
            continue
        relative = header.relative_to(system_dir).as_posix()
        write_text(
            include / "moatbridge" / "shadow" / library / relative,
            "/* moatbridge: hides nvcc's macros from the ROCm implementation of this header */\n"
            "#include <moatbridge/hide_cuda_macros.h>\n"
            f"#include_next <{library}/{relative}>\n"
            "#include <moatbridge/restore_cuda_macros.h>\n",
        )
        count += 1
    return count


_COMPLEX_OPERATORS = "COMPLEX_NEG_OP_OVERLOAD(hipFloatComplex)"


def without_complex_operators(text: str) -> str | None:
    """HIP's complex header with its operators on hipFloatComplex/hipDoubleComplex switched
    off. Those types are float2/double2, which have no operators in CUDA: with HIP's, every
    `float2 - float2` of code that defines its own vector operators (cuda-samples'
    helper_math.h, and the many projects that copy it) is ambiguous, and `float2 * float2`
    would be a complex product. None if the header does not have the expected shape."""
    lines = text.split("\n")
    try:
        first = next(i for i, line in enumerate(lines) if line.strip() == _COMPLEX_OPERATORS)
    except StopIteration:
        return None
    opening = next((i for i in range(first, -1, -1) if lines[i].strip() == "#if __cplusplus"), None)
    if opening is None:
        return None
    lines[opening] = "#if 0 /* moatbridge: CUDA's float2/double2 have no operators (see toolkit.py) */"
    return "\n".join(lines)


_FRIEND_OPERATOR = re.compile(
    r"friend (__HOST_DEVICE__ inline constexpr HIP_vector_type operator([*/])\(\s*)HIP_vector_type x,"
)


# The arithmetic compound assignments of two vectors (the bitwise ones are templates already).
_COMPOUND_MEMBER = re.compile(
    r"(\n[ \t]*)__HOST_DEVICE__(\n[ \t]*)HIP_vector_type& operator([-+*/])="
    r"\(const HIP_vector_type& x\) noexcept"
)
_ONLY_THIS_TYPE = (
    "template <class V = HIP_vector_type, typename std::enable_if<std::is_same<V, HIP_vector_type>{}>"
    "::type* = nullptr>"
)


def with_template_vector_friends(text: str) -> str | None:
    """HIP's vector types with their two non-template friend operators (`*` and `/` of two
    vectors) and their four arithmetic compound assignments made templates for that type
    alone. CUDA's vectors have no operators, so code brings its own (helper_math.h:
    `float2 operator*(float2, float2)`); a non-template of HIP's would tie with it, a template
    loses to it. (HIP's own `float4 * float4` then becomes ambiguous, an error as it is on
    NVIDIA's toolkit.) None if the header does not have the expected shape."""
    replaced, count = _FRIEND_OPERATOR.subn(_ONLY_THIS_TYPE + "\n        friend \\1V x,", text)
    replaced, members = _COMPOUND_MEMBER.subn(
        "\\1" + _ONLY_THIS_TYPE + "\\1__HOST_DEVICE__\\2HIP_vector_type& operator\\3=(const V& x) noexcept",
        replaced,
    )
    return replaced if count == 2 and members == 4 else None


_TILE_CLASS = re.compile(
    r"(class thread_block_tile_type : public thread_block_tile_base<tileSize>,\s*public tiled_group,"
    r"\s*public parent_group_info<tileSize, ParentCGTy> \{\n"
    r"\s*_CG_STATIC_CONST_DECL_ unsigned int numThreads = tileSize;\n)"
)
_TILE_BASE_SYNC = re.compile(
    r"(class thread_block_tile_base : public tile_base<size> \{.*?\n public:\n)", re.S
)


def with_unambiguous_tiles(text: str) -> str | None:
    """HIP 5.7's cooperative groups with tile.thread_rank()/size()/sync() unambiguous on tiles
    of a parent group (`tiled_partition<16>(this_thread_block())`: only the parentless
    specialisation says which base they come from) and with CUDA 12's num_threads() on
    tiles. None if the header does not have the expected shape."""
    text, tiles = _TILE_CLASS.subn(
        "\\1 public:  /* moatbridge: as the parentless specialisation does */\n"
        "  using thread_block_tile_base<tileSize>::size;\n"
        "  using thread_block_tile_base<tileSize>::sync;\n"
        "  using thread_block_tile_base<tileSize>::thread_rank;\n"
        " private:\n",
        text,
    )
    text, bases = _TILE_BASE_SYNC.subn(
        "\\1  __CG_STATIC_QUALIFIER__ unsigned int num_threads() { return size; }  /* moatbridge */\n",
        text,
        count=1,
    )
    return text if tiles == 1 and bases == 1 else None


_NODISCARD = "#define __HIP_NODISCARD [[nodiscard]]"


def without_nodiscard_errors(text: str) -> str | None:
    """HIP's runtime API with hipError_t no longer [[nodiscard]]: CUDA's cudaError_t is not, so
    CUDA code ignores results freely (`cudaFree(p);`), and a project's -Wall (Meson adds it
    to every compile) would otherwise warn at each such call. None if the header does not
    have the expected shape."""
    if text.count(_NODISCARD) != 1:
        return None
    return text.replace(_NODISCARD, "#define __HIP_NODISCARD /* moatbridge: not [[nodiscard]], as in CUDA */")


def write_vector_shadows(include: Path, system_include: Path) -> list[str]:
    """Shadowed copies of HIP headers whose behaviour differs from CUDA's where code can see it
    (the functions above); returns those that did not have the expected shape and were left
    as they are."""
    left: list[str] = []
    for name, change in (
        ("amd_detail/amd_hip_complex.h", without_complex_operators),
        ("amd_detail/amd_hip_vector_types.h", with_template_vector_friends),
        ("amd_detail/amd_hip_cooperative_groups.h", with_unambiguous_tiles),
        ("hip_runtime_api.h", without_nodiscard_errors),
    ):
        source = system_include / "hip" / name
        text = change(source.read_text(encoding="utf-8")) if source.is_file() else None
        if text is None:
            left.append(name)
            continue
        write_text(include / "moatbridge" / "shadow" / "hip" / name, text)
    return left


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
            ("cuda", "CUDA SDK"), ("cuda_nvcc", "CUDA NVCC (moatbridge, clang-17 HIP)"),
            ("cuda_cudart", "CUDA Runtime (HIP 5.7)"), ("libcublas", "CUDA cuBLAS (hipBLAS)"),
        )
    }  # fmt: skip
    write_text(root / "version.json", json.dumps(components, indent=2, sort_keys=True) + "\n")
    return root
