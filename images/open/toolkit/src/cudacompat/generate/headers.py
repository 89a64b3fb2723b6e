"""Which of the real CUDA toolkit's headers the open toolkit provides, and how. Pure.

Every header in the inventory (cuda_headers.tsv, NVIDIA's CUDA 12.4) is one of:

* hand-written here (toolkit/include in the image context), or
* a part of the runtime (in CUDA, cuda_runtime.h includes it): it includes our runtime, or
* an alias of a header we have (curand's device sub-headers are all in curand_kernel.h), or
* unsupported, with the reason (the compat report lists it; the header is not written, so
  `__has_include` and build-system checks see it missing, as on a toolkit without it).

Provided headers then define the include guard and the feature macros (versions, API
decorations, type-exists markers) of the real header, and include the provided headers whose
guards the real one makes visible (cusparse.h brings cuda_fp16.h; cuda_runtime.h, which nvcc
force-includes, brings driver_types.h, ...): code that tests `#ifdef __DRIVER_TYPES_H__` or
`#ifdef CUSPARSEAPI` (NVIDIA's cuda-samples helpers do) takes the same branch as with
NVIDIA's toolkit, and finds what that branch uses.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .inventory import BASELINE, Inventory

RUNTIME_PARTS = frozenset(
    {
        "builtin_types.h", "channel_descriptor.h", "common_functions.h", "cudart_platform.h",
        "device_atomic_functions.h", "device_atomic_functions.hpp", "device_double_functions.h",
        "device_functions.h", "device_launch_parameters.h", "device_types.h", "driver_functions.h",
        "driver_types.h", "host_config.h", "host_defines.h", "library_types.h", "math_functions.h",
        "surface_functions.h", "surface_indirect_functions.h", "surface_types.h", "texture_fetch_functions.h",
        "texture_indirect_functions.h", "texture_types.h", "vector_functions.h", "vector_functions.hpp",
        "vector_types.h", "cuda_surface_types.h", "cuda_texture_types.h", "cuda_device_runtime_api.h",
        "cudaProfiler.h",
        "crt/common_functions.h", "crt/cudacc_ext.h", "crt/device_double_functions.h",
        "crt/device_double_functions.hpp", "crt/device_functions.h", "crt/device_functions.hpp",
        "crt/func_macro.h", "crt/host_config.h", "crt/host_defines.h", "crt/host_runtime.h",
        "crt/math_functions.h", "crt/math_functions.hpp", "crt/sm_70_rt.h", "crt/sm_70_rt.hpp",
        "crt/sm_80_rt.h", "crt/sm_80_rt.hpp", "crt/sm_90_rt.h", "crt/sm_90_rt.hpp", "crt/storage_class.h",
    }
)  # fmt: skip
_SM_HEADERS = ("sm_20_atomic_functions", "sm_20_intrinsics", "sm_30_intrinsics", "sm_32_atomic_functions",
               "sm_32_intrinsics", "sm_35_atomic_functions", "sm_35_intrinsics", "sm_60_atomic_functions",
               "sm_61_intrinsics")  # fmt: skip
RUNTIME_PARTS |= {f"{name}{suffix}" for name in _SM_HEADERS for suffix in (".h", ".hpp")}

_CURAND_PARTS = ("discrete", "discrete2", "globals", "lognormal", "mrg32k3a", "mtgp32", "mtgp32_host",
                 "mtgp32_kernel", "mtgp32dc_p_11213", "normal", "normal_static", "philox4x32_x", "poisson",
                 "precalc", "uniform")  # fmt: skip
ALIASES = {
    **{f"curand_{name}.h": "curand_kernel.h" for name in _CURAND_PARTS},
    "cudalibxt.h": "cufftXt.h",
}

_GRAPHICS = "graphics interop (OpenGL, EGL, VDPAU) is not mapped: no display stack in the image"
_DRIVER_TYPEDEFS = "driver-API function-pointer typedefs (PFN_cu*) for cuGetProcAddress, which {hip} lacks"
UNSUPPORTED = {
    "cublasXt.h": "cuBLASXt (multi-GPU host BLAS) has no hipBLAS counterpart",
    "cufftw.h": "the FFTW-style cuFFT interface has no hipFFT counterpart",
    "cusolverMg.h": "multi-GPU cuSOLVER has no hipSOLVER counterpart",
    "cusolverRf.h": "cuSOLVER's refactorisation API is not mapped",
    "cusolverSp.h": "sparse cuSOLVER: hipSOLVER 5.5 has no sparse API",
    "cusolverSp_LOWLEVEL_PREVIEW.h": "sparse cuSOLVER: hipSOLVER 5.5 has no sparse API",
    "mma.h": "warp matrix functions (wmma): rocWMMA is not packaged in Debian trixie",
    "crt/mma.h": "warp matrix functions (wmma): rocWMMA is not packaged in Debian trixie",
    "crt/mma.hpp": "warp matrix functions (wmma): rocWMMA is not packaged in Debian trixie",
    "cuda_awbarrier.h": "asynchronous barriers (sm_80 hardware) have no {hip} counterpart",
    "cuda_awbarrier_helpers.h": "asynchronous barriers (sm_80 hardware) have no {hip} counterpart",
    "cuda_awbarrier_primitives.h": "asynchronous barriers (sm_80 hardware) have no {hip} counterpart",
    "cuda_pipeline.h": "asynchronous copy pipelines (sm_80 hardware) have no {hip} counterpart",
    "cuda_pipeline_helpers.h": "asynchronous copy pipelines (sm_80 hardware) have no {hip} counterpart",
    "cuda_pipeline_primitives.h": "asynchronous copy pipelines (sm_80 hardware) have no {hip} counterpart",
    "cooperative_groups/memcpy_async.h": "cooperative_groups::memcpy_async is not in {hip}",
    "cudaGL.h": _GRAPHICS, "cudaGLTypedefs.h": _GRAPHICS, "cuda_gl_interop.h": _GRAPHICS,
    "cudaEGL.h": _GRAPHICS, "cudaEGLTypedefs.h": _GRAPHICS, "cuda_egl_interop.h": _GRAPHICS,
    "cudaVDPAU.h": _GRAPHICS, "cudaVDPAUTypedefs.h": _GRAPHICS, "cuda_vdpau_interop.h": _GRAPHICS,
    "cudaTypedefs.h": _DRIVER_TYPEDEFS, "cudaProfilerTypedefs.h": _DRIVER_TYPEDEFS,
    "fatbinary_section.h": "NVIDIA fat-binary internals: AMD code objects are not fat binaries",
    "nvFatbin.h": "NVIDIA fat-binary creation: AMD code objects are not fat binaries",
    "nvJitLink.h": "PTX/cubin JIT linking has no AMD counterpart",
    "nvPTXCompiler.h": "PTX compilation has no AMD counterpart",
    "nvjpeg.h": "nvJPEG has no counterpart in Debian's ROCm (rocJPEG is not packaged)",
    "nv_decode.h": "NVIDIA's video decoder has no counterpart in the image",
    "nvblas.h": "NVBLAS (BLAS call interposition) has no counterpart",
    "nvToolsExtOpenCL.h": "OpenCL is not part of the toolkit image",
    "nvtx3/nvToolsExtOpenCL.h": "OpenCL is not part of the toolkit image",
    "nvfunctional": "nvstd::function is not mapped",
    "crt/nvfunctional": "nvstd::function is not mapped",
}  # fmt: skip
_NPP = "NPP (NVIDIA Performance Primitives) has no open counterpart in Debian's ROCm"
# Version macros of the CUDA-X libraries: the numbers of the inventory's CUDA release, only
# defined when that is the release this toolkit mimics.
_LIBRARY_VERSION_PREFIXES = ("CUBLAS_VER", "CUFFT_VER", "CURAND_VER", "CUSPARSE_VER", "CUSOLVER_VER",
                             "NVJPEG_VER")  # fmt: skip
INVENTORY_CUDA = "12.4"


# Headers provided only on stacks with the library: header -> (stack library, what it includes,
# the generated mapping family).
LIBRARY_HEADERS = {"cublasLt.h": ("hipblaslt", "hipblaslt/hipblaslt.h", "cublaslt")}
# What moatbridge adds to such a header over the library (names the library lacks).
LIBRARY_ADDITIONS = {"cublasLt.h": "moatbridge/cublaslt_hipblaslt_additions.h"}
# What serves such a header on stacks without the library: one of moatbridge's own (cuBLASLt
# over hipBLAS, its library built with the image's targets: cublaslt.py).
LIBRARY_FALLBACKS = {"cublasLt.h": "moatbridge/cublaslt_hipblas.h"}


class HeaderPlan(NamedTuple):
    path: str
    kind: str  # "hand", "runtime", "alias", "library", "unsupported"
    target: str = ""  # the header an alias includes
    reason: str = ""  # why it is unsupported
    defines: tuple[tuple[str, str], ...] = ()  # its own guard and feature macros: (name, value)
    includes: tuple[str, ...] = ()  # provided headers the real one brings in


def unsupported_reason(path: str, hip: str = "HIP 5.7") -> str | None:
    if path in UNSUPPORTED:
        return UNSUPPORTED[path].replace("{hip}", hip)
    if path.startswith("npp"):
        return _NPP
    return None


def _values(inventory: Inventory) -> dict[str, str]:
    return {name: value for header in inventory.headers for name, value in header.features}


def plan(
    inventory: Inventory, hand_written: Iterable[str], cuda_version: str,
    libraries: Iterable[str] = (), hip: str = "HIP 5.7",
) -> list[HeaderPlan]:  # fmt: skip
    """One plan per inventory header, with the macros each provided one must define.
    `libraries`: the optional libraries the stack has (LIBRARY_HEADERS); `hip`: how reasons
    name the stack's HIP."""
    hand = frozenset(hand_written)
    available = frozenset(libraries)
    kinds: dict[str, HeaderPlan] = {}
    for header in inventory.headers:
        path = header.path
        reason = unsupported_reason(path, hip)
        if path in hand:
            kinds[path] = HeaderPlan(path, "hand")
        elif path in LIBRARY_HEADERS and LIBRARY_HEADERS[path][0] in available:
            kinds[path] = HeaderPlan(path, "library", target=LIBRARY_HEADERS[path][1])
        elif path in LIBRARY_FALLBACKS:
            kinds[path] = HeaderPlan(path, "alias", target=LIBRARY_FALLBACKS[path])
        elif reason is not None:
            kinds[path] = HeaderPlan(path, "unsupported", reason=reason)
        elif path in RUNTIME_PARTS:
            kinds[path] = HeaderPlan(path, "runtime")
        elif path in ALIASES:
            kinds[path] = HeaderPlan(path, "alias", target=ALIASES[path])
        else:
            kinds[path] = HeaderPlan(path, "unsupported", reason="not mapped yet")
    provided = {path for path, p in kinds.items() if p.kind != "unsupported"}
    values = _values(inventory)
    definable = _definable(inventory, provided, cuda_version)
    by_guard = {h.guard: h.path for h in inventory.headers if h.guard and h.path in provided}
    plans: list[HeaderPlan] = []
    for header in inventory.headers:
        current = kinds[header.path]
        if current.kind == "unsupported":
            plans.append(current)
            continue
        own = [header.guard] if header.guard else []
        own += [name for name, _ in header.features]
        defines = tuple((name, values.get(name, "")) for name in dict.fromkeys(own) if name in definable)
        seen = list(inventory.sees.get(header.path, ()))
        if header.path == "cuda_runtime.h":
            seen += list(inventory.sees.get(BASELINE, ()))
        includes = tuple(
            dict.fromkeys(by_guard[m] for m in seen if m in by_guard and by_guard[m] != header.path)
        )
        plans.append(current._replace(defines=defines, includes=includes))
    return plans


def _definable(inventory: Inventory, provided: set[str], cuda_version: str) -> frozenset[str]:
    """Guards of provided headers; feature macros of provided headers, except the libraries'
    version numbers when this toolkit mimics another CUDA release than the inventory's.
    CUDA_VERSION and CUDART_VERSION come from the mimicked version (moatbridge/runtime.h)."""
    names: set[str] = set()
    same_release = ".".join(cuda_version.split(".")[:2]) == INVENTORY_CUDA
    for header in inventory.headers:
        if header.path not in provided:
            continue
        if header.guard:
            names.add(header.guard)
        for name, value in header.features:
            if name in ("CUDA_VERSION", "CUDART_VERSION"):
                continue
            if name.startswith(_LIBRARY_VERSION_PREFIXES) and not same_release:
                continue
            if "VER" in name and not value:
                continue  # a version that depends on the compiler (CUSPARSE_CPP_VERSION)
            names.add(name)
    return frozenset(names)


def defines_block(header: HeaderPlan) -> str:
    """A header's guard and feature macros (each only if not defined already), then the
    headers NVIDIA's header of this name brings in."""
    lines = ["/* moatbridge: what NVIDIA's header of this name makes visible (cuda_headers.tsv) */"]
    for name, value in header.defines:
        lines.append(f"#ifndef {name}\n#define {name}{' ' + value if value else ''}\n#endif")
    lines += [f"#include <{path}>" for path in header.includes]
    return "\n".join(lines) + "\n"


def generated_header(header: HeaderPlan) -> str:
    """The text of a runtime-part, alias or library header."""
    if header.kind == "library":
        family = LIBRARY_HEADERS[header.path][2]
        return (
            "/* moatbridge CUDA compatibility header (generated at image build): this CUDA library is\n"
            f"   {header.target.split('/')[0]} in this stack; its names are mapped in "
            f"moatbridge/generated/{family}.h. */\n"
            "#pragma once\n"
            "#include <moatbridge/runtime.h>\n"
            "#include <moatbridge/hide_cuda_macros.h>\n"
            f"#include <{header.target}>\n"
            "#include <moatbridge/restore_cuda_macros.h>\n"
            f"#include <moatbridge/generated/{family}.h>\n"
            + "".join(f"#include <{extra}>\n" for extra in [LIBRARY_ADDITIONS.get(header.path)] if extra)
            + defines_block(header)
        )
    include = "moatbridge/runtime.h" if header.kind == "runtime" else header.target
    return (
        "/* moatbridge CUDA compatibility header (generated at image build; see cuda_headers.tsv). */\n"
        "#pragma once\n"
        f"#include <{include}>\n" + defines_block(header)
    )


def report_lines(plans: Iterable[HeaderPlan]) -> list[str]:
    plans = list(plans)
    provided = [p for p in plans if p.kind != "unsupported"]
    lines = ["## The CUDA toolkit's headers (NVIDIA CUDA 12.4's inventory)", ""]
    lines.append(f"{len(provided)} of {len(plans)} headers provided; the others are not written:")
    lines.append("")
    lines += [f"- `{p.path}`: {p.reason}" for p in plans if p.kind == "unsupported"]
    return lines
