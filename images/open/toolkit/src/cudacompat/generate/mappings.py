"""CUDA -> HIP name mappings: read from hipify-perl's table, sorted into header families,
with the hand rules for what the table gets wrong or leaves out. Pure.

hipify-perl is one Perl file whose table rows are single lines
`subst("cudaMalloc", "hipMalloc", "memory");` inside `sub simpleSubstitutions`. Only that
sub is used: the roc* and experimental tables are for other modes.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from . import releases
from .inventory import without_comments

_SUB = re.compile(r"^sub\s+(\w+)")
_ROW = re.compile(r'^\s*subst\("([^"]+)",\s*"([^"]*)",\s*"([^"]+)"\);')
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# Header families: which compat header defines a mapping (by the CUDA name's prefix).
FAMILIES = ("runtime", "cublas", "cublaslt", "cusparse", "curand", "cufft", "cusolver", "nvrtc")
# Families only some stacks have the library for (stack.env): family -> the library.
OPTIONAL_FAMILIES = {"cublaslt": "hipblaslt"}
_LIBRARY_PREFIXES = (
    ("cublaslt", "cublaslt"), ("cublas", "cublas"), ("cusparse", "cusparse"), ("curand", "curand"),
    ("cufft", "cufft"), ("cusolver", "cusolver"), ("nvrtc", "nvrtc"),
)  # fmt: skip
_DROPPED_PREFIXES = ("cudnn", "caffe2", "cub_", "thrust")

# Names the hand-written overrides define (semantics differ from a plain rename), and rows
# whose HIP target is known wrong for the headers we include.
OVERRIDDEN = frozenset(
    {
        "cudaMallocHost", "cudaGetDeviceProperties", "cudaDeviceGetAttribute", "cudaHostAlloc",
        "cudaHostGetDevicePointer", "cudaFuncGetAttributes", "cudaFuncSetCacheConfig", "cudaFuncSetAttribute",
        "cudaFuncSetSharedMemConfig",
        "__nv_bfloat16", "__nv_bfloat162", "nv_bfloat16", "nv_bfloat162",
        "__CUDACC__", "__CUDA_ARCH__", "CUDA_VERSION", "CUDART_VERSION", "cudaDeviceProp",
        "cudaGetDeviceProperties_v2", "CUresult",
        "cudaProfilerStart", "cudaProfilerStop", "cuProfilerStart", "cuProfilerStop",
        "cudaRuntimeGetVersion", "cudaDriverGetVersion", "cuDriverGetVersion",
        "nvrtcCompileProgram",
        # the driver calls moatbridge/driver.h declares as CUDA does
        "cuMemcpyHtoD", "cuMemcpyHtoDAsync", "cuMemcpy", "cuMemcpyAsync", "cuMemcpyPeer", "cuMemcpyPeerAsync",
        "cuMemsetD2D8", "cuMemsetD2D8Async", "cuMemsetD2D16", "cuMemsetD2D16Async", "cuMemsetD2D32",
        "cuMemsetD2D32Async", "cuCtxGetApiVersion", "cuModuleLoadFatBinary", "cuFuncSetCacheConfig",
        "cuFuncSetSharedMemConfig", "cuFuncSetAttribute", "cuOccupancyMaxPotentialBlockSize",
        "cuOccupancyMaxPotentialBlockSizeWithFlags", "cuGraphExecGetFlags", "cuStreamGetCaptureInfo",
        "cuGraphKernelNodeCopyAttributes", "cuStreamGetDevice", "cuStreamGetId", "cuEventRecordWithFlags",
        "cuDeviceGetTexture1DLinearMaxWidth", "cuOccupancyAvailableDynamicSMemPerBlock", "cuGraphExecUpdate",
        "CUgraphExecUpdateResultInfo", "cuMemPrefetchAsync_v2", "cuMemAdvise_v2",
        "cuuint32_t", "cuuint64_t", "CUoccupancyB2DSize",
    }
)  # fmt: skip


# Runtime and driver functions a CUDA release redeclared with other parameters (CUDA 13.0: a
# cudaMemLocation where 12 took a device, graph edge data beside each dependency, the
# destination first): from that release on the hand-written moatbridge/runtime_13.h declares
# them, so no rename onto the HIP function of the old shape is written.
REDECLARED = {
    "13.0": frozenset(
        {
            "cudaMemPrefetchAsync", "cudaMemAdvise", "cudaGraphAddDependencies",
            "cudaGraphRemoveDependencies", "cudaGraphGetEdges", "cudaGraphNodeGetDependencies",
            "cudaGraphNodeGetDependentNodes", "cudaStreamGetCaptureInfo",
            "cudaStreamUpdateCaptureDependencies", "cudaGraphKernelNodeCopyAttributes", "cudaGraphAddNode",
            # and the driver's forms of the same
            "cuMemPrefetchAsync", "cuMemAdvise", "cuGraphAddDependencies", "cuGraphRemoveDependencies",
            "cuGraphGetEdges", "cuGraphNodeGetDependencies", "cuGraphNodeGetDependentNodes",
            "cuStreamGetCaptureInfo", "cuStreamUpdateCaptureDependencies", "cuGraphAddNode", "cuCtxCreate",
        }
    ),
}  # fmt: skip


def redeclared(cuda_version: str) -> frozenset[str]:
    """The names the releases up to the one `cuda_version` mimics redeclared."""
    upto = releases.RELEASES.index(releases.release_of(cuda_version)) + 1
    return frozenset().union(*(REDECLARED.get(release, frozenset()) for release in releases.RELEASES[:upto]))


@dataclass(frozen=True)
class Mapping:
    cuda: str
    hip: str
    category: str
    family: str


@dataclass(frozen=True)
class Dropped:
    cuda: str
    hip: str
    family: str
    reason: str


def parse_hipify(text: str, section: str = "simpleSubstitutions") -> list[tuple[str, str, str]]:
    rows: list[tuple[str, str, str]] = []
    current = ""
    for line in text.splitlines():
        sub = _SUB.match(line)
        if sub:
            current = sub.group(1)
            continue
        if current != section:
            continue
        row = _ROW.match(line)
        if row:
            rows.append((row.group(1).replace("\\/", "/"), row.group(2).replace("\\/", "/"), row.group(3)))
    return rows


def family_of(cuda_name: str) -> str | None:
    lowered = cuda_name.lower()
    if lowered.startswith(_DROPPED_PREFIXES):
        return None
    for prefix, family in _LIBRARY_PREFIXES:
        if lowered.startswith(prefix):
            return family
    return "runtime"


# Rows whose HIP target is a stub in ROCm's HIP runtime (clr answers hipErrorNotSupported on
# every stack we serve, 5.7 to 7.2) while another HIP call does what the CUDA call does, or
# whose target hands back something else than the CUDA call does.
RETARGETED = {
    # cuCtxSynchronize waits for the current context's work. HIP's contexts are the devices'
    # primary ones (cuCtxSetCurrent selects the device), so that wait is hipDeviceSynchronize.
    "cuCtxSynchronize": "hipDeviceSynchronize",
    # NVRTC's CUBIN is the loadable binary (cuModuleLoadData takes it): hiprtc's is the code
    # object, hiprtcGetCode. hipify's hiprtcGetBitcode is LLVM bitcode, there only after
    # -fgpu-rdc, else HIPRTC_ERROR_INVALID_INPUT and size 0.
    "nvrtcGetCUBIN": "hiprtcGetCode",
    "nvrtcGetCUBINSize": "hiprtcGetCodeSize",
}


def _hand_fix(cuda: str, hip: str, family: str) -> str:
    if cuda in RETARGETED:
        return RETARGETED[cuda]
    # hipify 6.0 emits hipBLAS 6 `_v2` names; hipBLAS 5.5 has the same functions without it.
    if family == "cublas" and hip.endswith("_v2"):
        return hip[: -len("_v2")]
    return hip


def select(rows: Iterable[tuple[str, str, str]]) -> tuple[list[Mapping], list[Dropped]]:
    """Rows worth emitting as `#define cuda hip`, and the rest with the reason they are left out."""
    kept: list[Mapping] = []
    dropped: list[Dropped] = []
    seen: set[str] = set()
    for cuda, hip, category in rows:
        family = family_of(cuda)
        if category.startswith("include"):
            continue  # header names: the compat headers themselves cover these
        if family is None:
            dropped.append(
                Dropped(cuda, hip, "-", "no HIP counterpart in this stack (cuDNN, caffe2, CUB macros)")
            )
            continue
        if cuda in OVERRIDDEN:
            continue
        if cuda == hip:
            continue
        if not _IDENTIFIER.match(cuda) or not _IDENTIFIER.match(hip):
            dropped.append(Dropped(cuda, hip, family, "not a plain identifier"))
            continue
        if re.fullmatch(r"[a-z]+", cuda):
            dropped.append(Dropped(cuda, hip, family, "bare word: renaming it would touch unrelated code"))
            continue
        if cuda in seen:
            continue
        seen.add(cuda)
        kept.append(Mapping(cuda, _hand_fix(cuda, hip, family), category, family))
    return _drop_ambiguous(kept, dropped)


def _drop_ambiguous(kept: list[Mapping], dropped: list[Dropped]) -> tuple[list[Mapping], list[Dropped]]:
    """Distinct CUDA runtime enumerators collapsing onto one HIP value would change meaning
    (e.g. cudaDevAttrMaxSurface2DWidth and ...Height) and clash as duplicate case labels."""
    targets: dict[str, list[Mapping]] = defaultdict(list)
    for mapping in kept:
        if mapping.category == "numeric_literal" and mapping.cuda.startswith("cuda"):
            targets[mapping.hip].append(mapping)
    ambiguous = {m.cuda for group in targets.values() if len(group) > 1 for m in group}
    result = [m for m in kept if m.cuda not in ambiguous]
    dropped = dropped + [
        Dropped(m.cuda, m.hip, m.family, "several CUDA enumerators share this HIP value")
        for m in kept
        if m.cuda in ambiguous
    ]
    return result, dropped


_HIPSOLVER_NAME = re.compile(r"\b(hipsolverDn\w+|HIPSOLVER_\w+|hipsolver\w*_t)\b")


def cusolver_rules(hipsolver_headers: str) -> list[Mapping]:
    """hipify-perl has no cuSOLVER rows: map cusolverDn*/CUSOLVER_*/cusolver*_t onto the names
    hipSOLVER's compatibility API declares (validated by the probe like every other row)."""
    mappings: dict[str, Mapping] = {}
    for name in sorted(set(_HIPSOLVER_NAME.findall(hipsolver_headers))):
        if name.startswith("hipsolverDn"):
            cuda = "cusolverDn" + name[len("hipsolverDn") :]
        elif name.startswith("HIPSOLVER_"):
            cuda = "CUSOLVER_" + name[len("HIPSOLVER_") :]
        else:
            cuda = "cusolver" + name[len("hipsolver") :]
        mappings.setdefault(cuda, Mapping(cuda, name, "hand", "cusolver"))
    # Names CUDA spells differently from hipSOLVER's compat API.
    extra = {
        "cusolverDnHandle_t": "hipsolverDnHandle_t",
        "cusolverStatus_t": "hipsolverStatus_t",
        "cusolverEigMode_t": "hipsolverEigMode_t",
        "cusolverEigType_t": "hipsolverEigType_t",
        "cusolverEigRange_t": "hipsolverEigRange_t",
        "syevjInfo_t": "hipsolverSyevjInfo_t",
        "gesvdjInfo_t": "hipsolverGesvdjInfo_t",
    }
    for cuda, hip in extra.items():
        mappings[cuda] = Mapping(cuda, hip, "hand", "cusolver")
    return list(mappings.values())


# Library names newer than hipify-perl's table, by prefix: (HIP prefix, CUDA prefix, family).
PREFIX_RULES = (
    ("hipfftXt", "cufftXt", "cufft"), ("hipLibXt", "cudaLibXt", "cufft"),
    ("HIPFFT_", "CUFFT_", "cufft"), ("hiprand", "curand", "curand"), ("HIPRAND_", "CURAND_", "curand"),
)  # fmt: skip
_NOT_BY_PREFIX = re.compile(r"VER|_H_*$|_HPP")
_HIP_IDENTIFIER = re.compile(r"\b(?:hipfftXt|hipLibXt|HIPFFT_|hiprand|HIPRAND_)\w+\b")


def prefix_rules(hip_headers: str, existing: Iterable[str]) -> list[Mapping]:
    """Names hipify-perl's table lacks (cufftXtMakePlanMany, curandStateSobol64, ...): each
    hipfftXt*/hipLibXt*/HIPFFT_*/hiprand*/HIPRAND_* name the headers declare, under its CUDA
    name, unless the table maps that already (validated by the probe like every other row)."""
    known = set(existing)
    rules = []
    for name in sorted(set(_HIP_IDENTIFIER.findall(hip_headers))):
        if _NOT_BY_PREFIX.search(name):
            continue  # versions and include guards are the CUDA release's (cuda_headers.tsv), not ROCm's
        for hip_prefix, cuda_prefix, family in PREFIX_RULES:
            if name.startswith(hip_prefix):
                cuda = cuda_prefix + name[len(hip_prefix) :]
                if cuda not in known:
                    known.add(cuda)
                    rules.append(Mapping(cuda, name, "hand", family))
                break
    return rules


_CUDA_IDENTIFIER = re.compile(r"\bcuda[A-Z]\w*")


def runtime_api_rules(api_names: Iterable[str], hip_headers: str, existing: Iterable[str]) -> list[Mapping]:
    """CUDA runtime names hipify-perl's table lacks though HIP declares them under the same
    name with `hip` for `cuda` (HIP 5.7's external-semaphore graph nodes, say): `api_names`
    are the runtime API's functions and the types in their signatures (cuda_api.tsv)."""
    known = set(existing)
    declared = set(re.findall(r"\bhip[A-Z]\w*", without_comments(hip_headers)))
    rules = []
    for cuda in sorted({name for text in api_names for name in _CUDA_IDENTIFIER.findall(text)}):
        hip = "hip" + cuda[len("cuda") :]
        if cuda not in known and cuda not in OVERRIDDEN and hip in declared:
            rules.append(Mapping(cuda, hip, "hand", "runtime"))
    return rules
