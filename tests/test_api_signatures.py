"""The CUDA runtime and driver APIs' signatures: NVIDIA's real cuda_runtime_api.h and cuda.h
(Debian's CUDA 12.4, the 13.0 wheels) are the oracle for which functions exist and how code
calls them. A call written against the real signature must compile against ours, or the
function is listed in api_gaps.tsv with a reason.

* each release's committed table is exactly what clang reads from the real headers (re-read here);
* reading, probe generation and error attribution keep their rules (pure tests);
* in the open image, every function of cuda_api.tsv is probed through our nvcc: the failing
  ones are exactly the listed gaps, and nvcc names the gap's reason when code uses one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cudacompat.generate import signatures

from conftest import compile_probe, docker_run, regenerated_from_real_headers
from support import nvidia_releases, nvidia_toolkit
from support.open_stacks import MIMICKED, OPEN_STACKS

ACTIVATE = ". /opt/moatbridge/bin/activate gfx1030 >/dev/null"

# --- reading clang's AST (pure) -------------------------------------------------------------

_AST = """Dumping cudaMalloc:
{"kind": "FunctionDecl", "name": "cudaMalloc", "type": {"qualType": "cudaError_t (void **, size_t)"},
 "inner": [{"kind": "ParmVarDecl", "name": "p", "type": {"qualType": "void **"}},
           {"kind": "ParmVarDecl", "name": "n", "type": {"qualType": "size_t"}}]}
Dumping cudaGetDeviceProperties_v2:
{"kind": "FunctionDecl", "name": "cudaGetDeviceProperties_v2",
 "type": {"qualType": "cudaError_t (struct cudaDeviceProp *, int)"},
 "inner": [{"kind": "ParmVarDecl", "type": {"qualType": "struct cudaDeviceProp *"}},
           {"kind": "ParmVarDecl", "type": {"qualType": "int"}}]}
Dumping cudaStreamGetCaptureInfo_v2:
{"kind": "FunctionDecl", "name": "cudaStreamGetCaptureInfo_v2", "type": {"qualType": "cudaError_t (int)"},
 "inner": [{"kind": "ParmVarDecl", "type": {"qualType": "const enum cudaLimit *"}},
           {"kind": "ParmVarDecl", "type": {"qualType": "unsigned int"}, "init": "c", "inner": [{}]}]}
Dumping cudaRoundMode:
{"kind": "EnumDecl", "name": "cudaRoundMode"}
{"kind": "FunctionDecl", "name": "helper", "type": {"qualType": "void (void)"}}
"""
_DEFINES = (
    "#define cudaGetDeviceProperties cudaGetDeviceProperties_v2\n"
    "#define cudaStreamGetCaptureInfo __CUDART_API_PTSZ(cudaStreamGetCaptureInfo_v2)\n"
    "#define cudaArrayDefault 0x00\n#define CUDART_VERSION 12040\n"
)


def test_signatures_read_from_clangs_ast_as_code_writes_them() -> None:
    found = {s.name: s for s in signatures.signatures(_AST, _DEFINES, "cuda_runtime_api.h", "cuda")}
    assert set(found) == {"cudaMalloc", "cudaGetDeviceProperties", "cudaStreamGetCaptureInfo"}
    assert found["cudaMalloc"] == signatures.Signature(
        "cuda_runtime_api.h", "cudaMalloc", "cudaError_t", ("void **", "size_t"), 2
    )
    assert found["cudaGetDeviceProperties"].parameters == ("cudaDeviceProp *", "int")  # no `struct`
    capture = found["cudaStreamGetCaptureInfo"]
    assert capture.parameters == ("const cudaLimit *", "unsigned int") and capture.required == 1


_DRIVER_AST = """Dumping cuMemcpyHtoD_v2:
{"kind": "FunctionDecl", "name": "cuMemcpyHtoD_v2", "type": {"qualType": "CUresult (CUdeviceptr, const void *, size_t)"},
 "inner": [{"kind": "ParmVarDecl", "type": {"qualType": "CUdeviceptr"}},
           {"kind": "ParmVarDecl", "type": {"qualType": "const void *"}},
           {"kind": "ParmVarDecl", "type": {"qualType": "size_t"}}]}
"""


def test_driver_signatures_take_the_names_cuda_h_defines() -> None:
    """cuda.h renames through __CUDA_API_PTDS/PTSZ as the runtime's header does through
    __CUDART_API_PTSZ: code writes cuMemcpyHtoD."""
    defines = "#define cuMemcpyHtoD __CUDA_API_PTDS(cuMemcpyHtoD_v2)\n#define CUDA_VERSION 12040\n"
    found = signatures.signatures(_DRIVER_AST, defines, "cuda.h", "cu")
    assert found == [
        signatures.Signature(
            "cuda.h", "cuMemcpyHtoD", "CUresult", ("CUdeviceptr", "const void *", "size_t"), 3
        )
    ]


def test_tsv_round_trips_and_the_committed_files_agree() -> None:
    names: set[str] = set()
    for release, table in signatures.TABLES.items():
        committed = signatures.load(table)
        assert signatures.from_text(signatures.to_text(committed, signatures.preamble(release))) == committed
        assert len(committed) > 250
        names |= {s.name for s in committed}
    gaps = signatures.load_gaps()
    assert len({g.name for g in gaps}) == len(gaps), "a gap is listed twice"
    assert {g.name for g in gaps} <= names, "a gap names no function of any release's table"
    assert all(g.reason.strip() for g in gaps)


def test_each_release_has_its_own_shapes() -> None:
    """CUDA 13 gave the plain names the location and edge-data forms and dropped the _v2s."""
    older = {s.name: s for s in signatures.load_release("12.4.131")}
    newer = {s.name: s for s in signatures.load_release("13.0.88")}
    assert signatures.load_release("11.8.89") == signatures.load_release("12.4")
    assert older["cudaMemPrefetchAsync"].parameters[2] == "int"
    assert newer["cudaMemPrefetchAsync"].parameters[2] == "cudaMemLocation"
    assert "cudaMemPrefetchAsync_v2" in older and "cudaMemPrefetchAsync_v2" not in newer
    assert "cudaThreadSynchronize" in older and "cudaThreadSynchronize" not in newer
    # and the driver's: a location for a device, a parameter struct for the affinity list
    assert (older["cuMemPrefetchAsync"].parameters[2], newer["cuMemPrefetchAsync"].parameters[2]) == (
        "CUdevice",
        "CUmemLocation",
    )
    assert newer["cuCtxCreate"].parameters[1] == "CUctxCreateParams *"
    assert "cuCtxCreate_v3" in older and "cuCtxCreate_v3" not in newer
    assert {s.header for s in newer.values()} == set(signatures.HEADERS)


def test_probe_lines_call_with_and_without_defaults_and_attribute_errors() -> None:
    items = [
        signatures.Signature("cuda_runtime_api.h", "cudaFree", "cudaError_t", ("void *",), 1),
        signatures.Signature("cuda_runtime_api.h", "cudaEventRecord", "cudaError_t", ("cudaEvent_t", "cudaStream_t"), 1),
        signatures.Signature("cuda_runtime_api.h", "cudaNothing", "void", (), 0),
    ]  # fmt: skip
    source, lines = signatures.probe_source(items)
    text = source.splitlines()
    assert text[0] == "#include <cuda_runtime_api.h>"
    record = [n for n, name in lines.items() if name == "cudaEventRecord"]
    assert len(record) == 2  # both arities
    assert "cudaEventRecord(std::declval<cudaEvent_t>())" in text[record[0] - 1]
    assert "is_convertible" in text[record[1] - 1] and "cudaError_t" in text[record[1] - 1]
    assert text[max(lines) - 1].startswith("using probe_2_0 = decltype(cudaNothing())")
    output = (
        f"probe.cu:{record[1]}:44: error: no matching function for call to 'hipEventRecord'\n"
        "/usr/include/hip/hip_runtime_api.h:10:1: error: unrelated\n"
        f"probe.cu:{record[1]}:50: error: second error, same line\n"
    )
    assert signatures.failures(output, lines) == {
        "cudaEventRecord": "no matching function for call to 'hipEventRecord'"
    }


@pytest.mark.parametrize(
    "bad",
    [
        signatures.Signature("h", "cudaX;int", "cudaError_t", (), 0),
        signatures.Signature("h", "cudaX", "cudaError_t", ('char *"); system("x',), 1),
        signatures.Signature("h", "cudaX", "cudaError_t\n#include <x>", (), 0),
    ],
)
def test_probe_refuses_what_is_not_a_plain_signature(bad: signatures.Signature) -> None:
    with pytest.raises(ValueError):
        signatures.probe_source([bad])


# --- the oracle: the committed signatures are what the real header says ----------------------


@pytest.mark.engine
@pytest.mark.parametrize("release", sorted(signatures.TABLES))
def test_committed_signatures_match_the_real_header(
    open_devel_gfx1030: dict[str, Any], release: str, tmp_path: Path
) -> None:
    image = str(open_devel_gfx1030["reference"])
    table = signatures.TABLES[release]
    fresh = regenerated_from_real_headers(
        image, "cudacompat.generate.signatures", table.name, tmp_path, f"--release {release}",
        nvidia_releases.include_of(release),
    )  # fmt: skip
    assert fresh == table.read_text(), (
        f"{table.name} is stale: python -m cudacompat.generate.signatures INCLUDE --release {release} "
        "(clang++-17, in the open image)"
    )


# --- in the image: calls written against the real signatures compile against ours -------------


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture", "release"), MIMICKED)
def test_every_runtime_and_driver_function_compiles_or_is_a_listed_gap(
    request: pytest.FixtureRequest, gfx: str, fixture: str, release: str, tmp_path: Path
) -> None:
    """A function listed as missing that the stack's HIP has compiles, and is then not
    reported missing: the image's report lists the gaps of its own stack and release."""
    image = str(request.getfixturevalue(fixture)["reference"])
    committed = signatures.load_release(release)
    source, lines = signatures.probe_source(committed)
    result = compile_probe(image, gfx, source, tmp_path)
    failed = signatures.failures(result.stderr, lines)
    listed = {gap.name for gap in signatures.load_gaps()}
    report = json.loads(docker_run(image, "cat /opt/moatbridge/toolkit/compat-report.json").stdout)
    gaps = set(report["api"]["unsupported"])
    assert gaps <= listed, sorted(gaps - listed)
    provided = len({s.name for s in committed}) - len(failed)
    print(
        f"\nCUDA runtime and driver APIs: {provided} of {len({s.name for s in committed})} functions compile as called"
    )
    assert result.returncode != 0 or not gaps  # the probe really compiled, gaps and all
    unexpected = {name: error for name, error in failed.items() if name not in gaps}
    assert not unexpected, "\n".join(f"{name}: {error}" for name, error in sorted(unexpected.items()))
    assert not gaps - set(failed), f"listed as gaps but compile now: {sorted(gaps - set(failed))}"
    # every error was attributed to a probe line (none came from our own headers)
    assert "error:" not in "\n".join(
        line for line in result.stderr.splitlines() if " error: " in line and not line.startswith("probe.cu:")
    )


def _calls_ignoring_results(items: list[signatures.Signature]) -> tuple[str, int]:
    """A host C++ source calling every function once with its result ignored, as CUDA code
    does (`cudaFree(p);`); returns it and the first call's line."""
    lines = ["#include <cuda_runtime_api.h>"]
    for index, item in enumerate(items):
        signatures.check_plain(item)
        lines += [f"using moatbridge_t{index}_{i} = {t};" for i, t in enumerate(item.parameters)]
    first = len(lines) + 1
    for index, item in enumerate(items):
        parameters = ", ".join(f"moatbridge_t{index}_{i} a{i}" for i in range(len(item.parameters)))
        arguments = ", ".join(f"a{i}" for i in range(len(item.parameters)))
        lines.append(f"void moatbridge_call_{index}({parameters}) {{ {item.name}({arguments}); }}")
    return "\n".join(lines) + "\n", first


def _warned_calls(stderr: str, file: str, first: int, count: int) -> set[int]:
    import re

    found = re.findall(rf"^(?:\S*/)?{re.escape(file)}:(\d+):\d+: warning:", stderr, re.MULTILINE)
    return {int(line) - first for line in found if 0 <= int(line) - first < count}


def test_calls_ignoring_results_are_written_one_per_line() -> None:
    items = [
        signatures.Signature("h", "cudaFree", "cudaError_t", ("void *",), 1),
        signatures.Signature("h", "cudaLaunchHostFunc", "cudaError_t", ("cudaStream_t", "cudaHostFn_t", "void *"), 3),
    ]  # fmt: skip
    source, first = _calls_ignoring_results(items)
    lines = source.splitlines()
    assert lines[first - 1] == "void moatbridge_call_0(moatbridge_t0_0 a0) { cudaFree(a0); }"
    assert "using moatbridge_t1_1 = cudaHostFn_t;" in lines
    assert _warned_calls(
        f"x/p.cpp:{first + 1}:3: warning: w\np.cpp:1:1: warning: w\n", "p.cpp", first, 2
    ) == {1}


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_host_code_ignoring_results_is_as_quiet_as_with_nvidias_headers(
    request: pytest.FixtureRequest, open_devel_gfx1030: dict[str, Any], gfx: str, fixture: str, tmp_path: Path
) -> None:
    """g++ -std=c++17 -Wall -Wextra on a .cpp calling every runtime function (but the listed
    gaps) and ignoring the result warns at the same calls with ours as with NVIDIA's headers:
    the deprecated ones (HIP's hipError_t is [[nodiscard]] from C++17 on, and ROCm deprecates
    other functions than CUDA)."""
    gaps = {gap.name for gap in signatures.load_gaps()}
    items = [s for s in signatures.load() if s.name not in gaps and s.header == "cuda_runtime_api.h"]
    source, first = _calls_ignoring_results(items)
    (tmp_path / "calls.cpp").write_text(source)
    include = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    flags = "-std=c++17 -Wall -Wextra -fsyntax-only"
    theirs = docker_run(
        str(open_devel_gfx1030["reference"]), f"cd /p && g++ {flags} -isystem /real calls.cpp",
        "-v", f"{include}:/real:ro", "-v", f"{tmp_path}:/p:ro",
    )  # fmt: skip
    assert theirs.returncode == 0, theirs.stderr[-2000:]
    nvidia = {items[i].name for i in _warned_calls(theirs.stderr, "calls.cpp", first, len(items))}
    assert "cudaThreadSynchronize" in nvidia and len(nvidia) < 30, sorted(nvidia)
    ours = docker_run(
        str(request.getfixturevalue(fixture)["reference"]),
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null; cd /p && g++ {flags} -I\"$CUDA_PATH/include\" calls.cpp",
        "-v", f"{tmp_path}:/p:ro",
    )  # fmt: skip
    assert ours.returncode == 0, ours.stderr[-3000:]
    moat = {items[i].name for i in _warned_calls(ours.stderr, "calls.cpp", first, len(items))}
    assert moat == nvidia, (
        f"warn with ours only: {sorted(moat - nvidia)[:15]}, with NVIDIA's only: {sorted(nvidia - moat)}\n"
        f"{ours.stderr[-1500:]}"
    )


@pytest.mark.engine
def test_nvcc_names_the_reason_a_runtime_function_is_missing(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "graph.cu").write_text(
        "int main() { cudaGraph_t g; cudaGraphExec_t e; unsigned long long f;\n"
        "  cudaGraphInstantiate(&e, g); return cudaGraphExecGetFlags(e, &f); }\n"
    )
    result = docker_run(
        str(open_devel_gfx1030["reference"]), f"{ACTIVATE}; cd /p && nvcc -c graph.cu -o /tmp/g.o", "-v", f"{tmp_path}:/p:ro"
    )  # fmt: skip
    assert result.returncode != 0
    assert "nvcc: cudaGraphExecGetFlags is a CUDA runtime function the open toolkit lacks" in result.stderr
    assert result.stderr.count("cudaGraphExecGetFlags is a CUDA runtime function") == 1
    assert "cudaGraphInstantiate is a CUDA runtime" not in result.stderr
    (tmp_path / "module.cu").write_text(
        "#include <cuda.h>\nint count(CUmodule m) { unsigned int n = 0; return cuModuleGetFunctionCount(&n, m); }\n"
    )
    result = docker_run(
        str(open_devel_gfx1030["reference"]), f"{ACTIVATE}; cd /p && nvcc -c module.cu -o /tmp/m.o", "-v", f"{tmp_path}:/p:ro"
    )  # fmt: skip
    assert result.returncode != 0
    assert "nvcc: cuModuleGetFunctionCount is a CUDA driver function the open toolkit lacks" in result.stderr


# --- device attributes: every name NVIDIA's headers give, distinct where CUDA's are ---------

_ENUMERATOR = r"^\s*({prefix}\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)"


def _distinct_enumerators(text: str, prefix: str) -> list[str]:
    """The enumerators starting with `prefix`, the first of each value (CUDA's aliases share one)."""
    import re

    first: dict[int, str] = {}
    for match in re.finditer(_ENUMERATOR.format(prefix=prefix), text, re.M):
        first.setdefault(int(match.group(2), 0), match.group(1))
    return list(first.values())


def test_distinct_enumerators_skip_aliases() -> None:
    text = "enum a {\n  cudaDevAttrA = 1,\n  cudaDevAttrB = 0x2, /* x */\n  cudaDevAttrAlias = 1,\n  other = 3\n};\n"
    assert _distinct_enumerators(text, "cudaDevAttr") == ["cudaDevAttrA", "cudaDevAttrB"]


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_every_device_attribute_compiles_and_cudas_distinct_ones_stay_distinct(
    request: pytest.FixtureRequest, gfx: str, fixture: str, tmp_path: Path
) -> None:
    include = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    runtime = _distinct_enumerators((include / "driver_types.h").read_text(), "cudaDevAttr")
    driver = _distinct_enumerators((include / "cuda.h").read_text(), "CU_DEVICE_ATTRIBUTE_")
    assert len(runtime) > 100 and len(driver) > 100
    # a switch over each set: an undeclared name is an error, two CUDA attributes folded into
    # one value are a duplicate case label, and a label outside the enum would warn
    lines = ["#include <cuda.h>", "#include <cuda_runtime.h>"]
    lines += _switch("runtime", "cudaDeviceAttr", [(name, i) for i, name in enumerate(runtime)])
    lines += _switch("driver", "CUdevice_attribute", [(name, i) for i, name in enumerate(driver)])
    lines += [
        "int main() {",
        "  int value = 0;",
        "  if (cudaDeviceGetAttribute(&value, cudaDevAttrMaxSurface2DHeight, 0) != cudaSuccess) return 1;",
        "  if (cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS, 0)) return 1;",
        "  return runtime(cudaDevAttrMaxBlocksPerMultiprocessor) + driver(CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED);",
        "}",
    ]
    result = _built_quietly(request, gfx, fixture, tmp_path, lines)
    assert result.returncode == 0, result.stderr[-4000:]
    assert "warning" not in result.stderr, result.stderr[-4000:]


def _switch(function: str, enum: str, cases: list[tuple[str, int]]) -> list[str]:
    """`static int FUNCTION(ENUM e)`: a switch with one case per name, returning its number."""
    lines = [f"static int {function}({enum} e) {{", "  switch (e) {"]
    lines += [f"    case {name}: return {number};" for name, number in cases]
    return [*lines, "    default: return -1;", "  }", "}"]


def _built_quietly(
    request: pytest.FixtureRequest, gfx: str, fixture: str, tmp_path: Path, lines: list[str], *also: str
) -> subprocess.CompletedProcess[str]:
    """probe.cu compiled and linked by the stack's nvcc (to /tmp/probe) and compiled as host C++
    by g++ against the toolkit's headers, then each of `also` (shell commands in the same place)."""
    (tmp_path / "probe.cu").write_text("\n".join(lines) + "\n")
    commands = [
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null",
        "cd /p",
        "nvcc -o /tmp/probe probe.cu -Xcompiler -ferror-limit=0",
        "g++ -I$CUDA_PATH/include -x c++ -c probe.cu -o /tmp/host.o",
        *also,
    ]
    return docker_run(
        str(request.getfixturevalue(fixture)["reference"]), " && ".join(commands), "-v", f"{tmp_path}:/p:ro"
    )


# --- status codes: every cudaError_t, CUresult, cufftResult and cusolverStatus_t of each release --


def _real_status_codes(release: str) -> list[Any]:
    """The status codes NVIDIA's headers of `release` declare: Debian's CUDA 12.4, the 13.0 wheels."""
    from cudacompat.generate import status_codes

    return status_codes.read_real(nvidia_releases.include_of(release))


def test_committed_status_codes_match_the_real_headers() -> None:
    from cudacompat.generate import status_codes

    committed = status_codes.load()
    for release in status_codes.RELEASES:
        real = [(c.enum, c.name, c.value) for c in _real_status_codes(release)]
        mimicked = [(c.enum, c.name, c.value) for c in status_codes.of_release(committed, release)]
        assert sorted(mimicked) == sorted(real), (
            f"cuda_statuses.tsv is stale for CUDA {release}: "
            "python -m cudacompat.generate.status_codes 12.4=INCLUDE 13.0=INCLUDE"
        )


# (CUDA's number of a code, each enum: runtime, driver, cuFFT, cuSOLVER) printed by the probe
_STATUS_PRINTS = {
    "12.4": (
        "runtime_number(cudaErrorInvalidValue), runtime_number(cudaErrorNotPermitted), "
        "runtime_number(cudaErrorTimeout), driver_number(CUDA_ERROR_NOT_PERMITTED), "
        "driver_number(CUDA_ERROR_INVALID_CLUSTER_SIZE), fft_number(CUFFT_NOT_SUPPORTED), "
        "fft_number(CUFFT_LICENSE_ERROR), location_number(cudaMemLocationTypeHostNumaCurrent), solver_number(CUSOLVER_STATUS_INTERNAL_ERROR), "
        "solver_number(CUSOLVER_STATUS_IRS_INTERNAL_ERROR), solver_number(CUSOLVER_STATUS_INVALID_WORKSPACE)",
        ["1", "800", "909", "800", "912", "16", "15", "4", "7", "20", "31"],
    ),
    "13.0": (
        "runtime_number(cudaErrorInvalidValue), runtime_number(cudaErrorContained), "
        "runtime_number(cudaErrorInvalidResourceConfiguration), driver_number(CUDA_ERROR_KEY_ROTATION), "
        "driver_number(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER), fft_number(CUFFT_NOT_SUPPORTED), "
        "fft_number(CUFFT_NVSHMEM_FAILURE), location_number(cudaMemLocationTypeHost), solver_number(CUSOLVER_STATUS_INTERNAL_ERROR), "
        "solver_number(CUSOLVER_STATUS_IRS_INTERNAL_ERROR), solver_number(CUSOLVER_STATUS_INVALID_WORKSPACE)",
        ["1", "226", "915", "916", "36", "16", "20", "2", "7", "20", "31"],
    ),
}


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture", "release"), MIMICKED)
def test_every_status_code_compiles_and_cudas_distinct_ones_stay_distinct(
    request: pytest.FixtureRequest, gfx: str, fixture: str, release: str, tmp_path: Path
) -> None:
    codes = _real_status_codes(release)
    runtime = [code for code in codes if code.enum == "runtime" and code.name.startswith("cuda")]
    driver = [code for code in codes if code.enum == "runtime" and code.name.startswith("CUDA_")]
    locations = [code for code in codes if code.enum == "mem_location"]
    fft = [code for code in codes if code.enum == "cufft"]
    solver = [code for code in codes if code.enum == "cusolver"]
    assert len(runtime) > 120 and len(driver) > 90 and len(fft) > 15 and len(solver) > 20
    # A switch over each enum returning CUDA's number: an undeclared name is an error, two
    # CUDA statuses folded into one value a duplicate case label, a case outside the enum a
    # warning. Run without a GPU, the program maps a few codes (HIP's and ours) back to CUDA's
    # numbers. C code switches over them too.
    lines = [
        "#include <cuda.h>",
        "#include <cuda_runtime.h>",
        "#include <cufft.h>",
        "#include <cusolverDn.h>",
        "#include <stdio.h>",
    ]
    lines += _switch("runtime_number", "cudaError_t", [(code.name, code.value) for code in runtime])
    lines += _switch("driver_number", "CUresult", [(code.name, code.value) for code in driver])
    # distinct values only: CUDA 13's cudaMemLocationTypeNone is Invalid's alias
    distinct = {code.value: code.name for code in reversed(locations)}
    lines += _switch(
        "location_number", "cudaMemLocationType", [(name, value) for value, name in distinct.items()]
    )
    lines += _switch("fft_number", "cufftResult", [(code.name, code.value) for code in fft])
    lines += _switch("solver_number", "cusolverStatus_t", [(code.name, code.value) for code in solver])
    calls, expected = _STATUS_PRINTS[release]
    lines += [
        "int main(void) {",
        f'  printf("{" ".join(["%d"] * len(expected))}\\n", {calls});',
        "  return 0;",
        "}",
    ]
    # C code switches over the runtime's and the driver's (cuSOLVER's header includes cuBLAS's,
    # which is C++ here)
    c_lines = ["#include <cuda.h>", "#include <cuda_runtime.h>"]
    c_lines += _switch("runtime_number", "cudaError_t", [(code.name, code.value) for code in runtime])
    c_lines += _switch("driver_number", "CUresult", [(code.name, code.value) for code in driver])
    (tmp_path / "probe.c").write_text("\n".join(c_lines) + "\n")
    compile_c = "gcc -I$CUDA_PATH/include -c probe.c -o /tmp/c.o"
    result = _built_quietly(request, gfx, fixture, tmp_path, lines, compile_c, "/tmp/probe")
    assert result.returncode == 0, result.stderr[-4000:]
    assert "warning" not in result.stderr, result.stderr[-4000:]
    assert result.stdout.split() == expected, result.stdout
