"""CUDA's device functions and intrinsics: NVIDIA's real headers (Debian's CUDA 12.4) are the
oracle for which device functions exist and how code calls them. A kernel calling each with
values of the real parameter types must compile and link against ours, or the function is
listed in device_gaps.tsv with a reason.

* the committed device_api.tsv is exactly what clang reads from the real headers (re-read here);
* reading, probe generation and error attribution keep their rules (pure tests);
* in the open image, every signature of device_api.tsv is probed through our nvcc, compiled
  and linked for the GPU: the failing functions are exactly the listed gaps, the compat
  report lists them, and nvcc names the gap's reason when code uses one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cudacompat.generate import device_functions, signatures, toolkit
from cudacompat.nvcc.config import ToolkitConfig
from cudacompat.nvcc.main import _compat_report_hints

from conftest import docker_run, regenerated_from_real_headers

ACTIVATE = ". /opt/moatbridge/bin/activate gfx1030 >/dev/null"
GAPS = signatures.load_gaps(device_functions.GAPS)

# --- reading clang's AST (pure) -------------------------------------------------------------


def _location(file: str | None = None, included_from: str | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {"offset": 1}
    if file is not None:
        location["file"] = file
        if included_from is not None:
            location["includedFrom"] = {"file": included_from}
    location["line"] = 1
    return location


def _function(name: str, result: str, *parameters: str, device: bool = True, **extra: Any) -> dict[str, Any]:
    inner: list[dict[str, Any]] = [{"kind": "ParmVarDecl", "type": {"qualType": t}} for t in parameters]
    if device:
        inner.append({"kind": "AnnotateAttr", "range": {"begin": {}, "end": {}}})
    return {
        "kind": "FunctionDecl", "loc": extra.pop("loc", {}), "name": name,
        "type": {"qualType": f"{result} ({', '.join(parameters)})"}, "inner": inner, **extra,
    }  # fmt: skip


def _ast() -> str:
    """clang's shape: a file is named only where it changes, `includedFrom` beside it."""
    defaulted = _function(
        "__shfl_sync", "int", "unsigned int", "int", "int", "int", loc=_location("/real/sm_30_intrinsics.h")
    )
    defaulted["inner"][3]["init"] = "c"
    unit = {
        "kind": "TranslationUnitDecl", "loc": {}, "range": {"begin": {}, "end": {}},
        "inner": [
            {"kind": "TypedefDecl", "loc": _location("<built-in>"), "name": "__int128_t"},
            _function("__fadd_rd", "float", "float", "float", loc=_location("/real/crt/device_functions.h", "/real/cuda_runtime.h")),
            _function("__fadd_rn", "float", "float", "float", loc=_location(), isUsed=True),  # same file
            _function("hostOnly", "int", "int", device=False, loc=_location()),
            {"kind": "NamespaceDecl", "name": "std", "loc": _location("/real/crt/math_functions.h"), "inner": [
                _function("sinf", "float", "float", loc=_location()),
                {"kind": "UsingDecl", "loc": _location("/usr/include/c++/14/cmath")},
            ]},
            _function("afterStd", "int", "int", loc=_location()),  # in cmath, where the namespace ended
            # extern "C": its functions, in a file named before the namespace ended
            {"kind": "LinkageSpecDecl", "loc": _location("/real/crt/math_functions.h"), "language": "C", "inner": [
                _function("sinf", "float", "float", loc=_location()),
                _function("__nv_memcpy_async_shared_global_4", "void", "void *", loc=_location()),
                _function("memcpy", "void *", "void *", "const void *", "size_t", isImplicit=True, loc={}),
            ]},
            _function("__ldg", "float4", "const float4 *", loc=_location("/real/sm_32_intrinsics.hpp")),  # definition
            _function("__ldg", "float4", "const float4 *", loc=_location("/real/sm_32_intrinsics.h")),
            _function("__vibmax_s32", "int", "const int", "int", "bool *const", loc=_location("/real/crt/sm_90_rt.h")),
            defaulted,
            _function("cudaMalloc", "cudaError_t", "void **", "size_t", loc=_location("/real/cuda_device_runtime_api.h")),
            _function("outside", "int", "int", loc=_location("/elsewhere/crt/device_functions.h")),
        ],
    }  # fmt: skip
    return json.dumps(unit, indent=2)


def test_device_functions_read_from_clangs_ast_with_their_headers() -> None:
    found = device_functions.signatures(_ast(), "/real")
    by_name = {s.name: s for s in found}
    assert set(by_name) == {"__fadd_rd", "__fadd_rn", "sinf", "__ldg", "__vibmax_s32", "__shfl_sync"}
    assert by_name["__fadd_rd"] == signatures.Signature(
        "crt/device_functions.h", "__fadd_rd", "float", ("float", "float"), 2
    )
    assert by_name["__fadd_rn"].header == "crt/device_functions.h"  # the file carried over
    assert by_name["sinf"].header == "crt/math_functions.h"  # extern "C", not namespace std's
    assert (
        by_name["__ldg"].header == "sm_32_intrinsics.h" and len([s for s in found if s.name == "__ldg"]) == 1
    )
    # a top-level const is no part of a parameter's type
    assert by_name["__vibmax_s32"].parameters == ("int", "int", "bool *")
    assert by_name["__shfl_sync"].required == 3 and len(by_name["__shfl_sync"].parameters) == 4


def test_parse_errors_other_than_the_known_redeclarations_are_refused() -> None:
    stderr = (
        "/real/crt/math_functions.h:11263:70: error: non-constexpr declaration of 'tanh' follows constexpr declaration\n"
        "/usr/include/x86_64-linux-gnu/bits/mathcalls.h:81:1: error: exception specification in declaration does not match previous declaration\n"
        "/real/crt/math_functions.h:11263:70: warning: something\n"
    )
    assert device_functions.clang_errors(stderr) == []
    broken = stderr + "/real/sm_32_intrinsics.h:10:1: error: unknown type name 'x'\n"
    assert device_functions.clang_errors(broken) == [
        "/real/sm_32_intrinsics.h:10:1: error: unknown type name 'x'"
    ]


def test_the_parse_makes_device_an_annotation_and_names_every_location() -> None:
    source = device_functions.SOURCE
    assert '#define __moatbridge_location_device __attribute__((annotate("device")))' in source
    assert source.index("#undef __location__") < source.index("#include <cuda_runtime.h>")
    for name in ("host", "global", "shared", "constant", "managed", "cudart_builtin", "device_builtin"):
        assert f"#define __moatbridge_location_{name}\n" in source


# --- probes (pure) ----------------------------------------------------------------------------


def test_probe_kernels_take_pointers_and_attribute_compile_and_link_errors() -> None:
    items = [
        signatures.Signature("sm_30_intrinsics.h", "__shfl_sync", "int", ("unsigned int", "int", "int", "int"), 3),
        signatures.Signature("crt/device_functions.h", "__syncthreads", "void", (), 0),
        signatures.Signature("sm_32_intrinsics.h", "__ldg", "float4", ("const float4 *",), 1),
    ]  # fmt: skip
    source, lines, kernels = device_functions.probe_source(items, ["__device__ int extra(int);"])
    text = source.splitlines()
    assert text[:3] == ["#include <cuda_runtime.h>", "#include <type_traits>", "__device__ int extra(int);"]
    shuffles = [n for n, name in lines.items() if name == "__shfl_sync"]
    assert len(shuffles) == 2  # with and without the defaulted width
    assert text[shuffles[0] - 1] == (
        'extern "C" __global__ void probe_0_3(std::add_pointer_t<std::remove_cv_t<int>> r, '
        "std::add_pointer_t<unsigned int> a0, std::add_pointer_t<int> a1, std::add_pointer_t<int> a2) "
        "{ *r = __shfl_sync(*a0, *a1, *a2); }"
    )
    assert text[lines_of(lines, "__syncthreads") - 1].endswith("probe_1_0() { __syncthreads(); }")
    assert "std::add_pointer_t<const float4 *> a0" in text[lines_of(lines, "__ldg") - 1]
    assert kernels == {
        "probe_0_3": "__shfl_sync",
        "probe_0_4": "__shfl_sync",
        "probe_1_0": "__syncthreads",
        "probe_2_1": "__ldg",
    }
    output = (
        f"probe.cu:{shuffles[1]}:90: error: use of undeclared identifier '__shfl_sync'\n"
        "/opt/moatbridge/toolkit/include/x.h:3:1: error: unrelated\n"
        "lld: error: undefined hidden symbol: __ldg(HIP_vector_type<float, 4u> const*)\n"
        ">>> referenced by /tmp/probe-gfx1030-1a2b3c.o:(probe_2_1)\n"
        ">>> referenced by /tmp/probe-gfx1030-1a2b3c.o:(probe_2_1)\n\n"
        "lld: error: undefined hidden symbol: helper()\n>>> referenced by /tmp/p.o:(unrelated_kernel)\n"
    )
    assert signatures.failures(output, lines, kernels) == {
        "__shfl_sync": "use of undeclared identifier '__shfl_sync'",
        "__ldg": "undefined hidden symbol: __ldg(HIP_vector_type<float, 4u> const*)",
    }
    assert signatures.failures(output, lines) == {"__shfl_sync": "use of undeclared identifier '__shfl_sync'"}


def lines_of(lines: dict[int, str], name: str) -> int:
    return next(number for number, probed in lines.items() if probed == name)


@pytest.mark.parametrize(
    "bad",
    [
        signatures.Signature("h", "__x) { system(); } void f(", "int", (), 0),
        signatures.Signature("h", "__x", "int", ("int> a0) { evil(); } void g(std::add_pointer_t<int",), 1),
        signatures.Signature("h", "__x", "int\n#include <x>", (), 0),
        signatures.Signature("h", "__x", "int", ('char *"',), 1),
    ],
)
def test_probe_refuses_what_is_not_a_plain_signature(bad: signatures.Signature) -> None:
    with pytest.raises(ValueError):
        device_functions.probe_source([bad])


# --- the committed files ----------------------------------------------------------------------


def test_tsv_round_trips_and_the_committed_files_agree() -> None:
    committed = device_functions.load()
    text = device_functions.SIGNATURES.read_text()
    assert signatures.to_text(committed, device_functions.PREAMBLE) == text
    names = {s.name for s in committed}
    assert len(names) > 500 and len(committed) > 1000
    assert {s.header for s in committed} <= set(device_functions.HEADERS)
    assert not any(name.startswith(device_functions.EXCLUDED) for name in names)
    assert len({g.name for g in GAPS}) == len(GAPS), "a gap is listed twice"
    assert {g.name for g in GAPS} <= names, "a gap names no function of device_api.tsv"
    assert all(g.reason.strip() for g in GAPS)


def test_the_compat_report_and_nvcc_name_a_device_gap(tmp_path: Path) -> None:
    committed = device_functions.load()
    toolkit.write_report(tmp_path, {}, [], [], [], 0, (), committed, GAPS)
    report = json.loads((tmp_path / "compat-report.json").read_text())
    assert report["device"]["functions"] == len({s.name for s in committed})
    assert report["device"]["signatures"] == len(committed)
    assert report["device"]["unsupported"] == {g.name: g.reason for g in GAPS}
    markdown = (tmp_path / "compat-report.md").read_text()
    assert "## CUDA device functions not provided" in markdown and "- `__clusterDim`: " in markdown

    (tmp_path / "target" / "include").mkdir(parents=True)
    (tmp_path / "target" / "compat-report.json").write_text(
        json.dumps({**report, "headers": {"unsupported": {}}})
    )
    config = ToolkitConfig(root=str(tmp_path / "target"), gfx="gfx1030", cuda_version="12.4.131", mimic_cc=86)
    diagnostics = (
        "k.cu:2:10: error: use of undeclared identifier '__clusterDim'\n"
        "k.cu:3:10: error: no matching function for call to '__pm0'\n"
        "k.cu:4:10: error: use of undeclared identifier '__clusterDim'\n"
        "k.cu:5:10: error: use of undeclared identifier 'mine'\n"
    )
    hints = _compat_report_hints(diagnostics, config).splitlines()
    reasons = report["device"]["unsupported"]
    assert hints == [
        f"nvcc: __clusterDim is a CUDA device function the open toolkit lacks: {reasons['__clusterDim']}",
        f"nvcc: __pm0 is a CUDA device function the open toolkit lacks: {reasons['__pm0']}",
    ]


# --- the oracle: the committed signatures are what the real headers say ------------------------


@pytest.mark.engine
def test_committed_device_functions_match_the_real_headers(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    image = str(open_devel_gfx1030["reference"])
    fresh = regenerated_from_real_headers(
        image, "cudacompat.generate.device_functions", "device_api.tsv", tmp_path
    )
    assert fresh == device_functions.SIGNATURES.read_text(), (
        "device_api.tsv is stale: python -m cudacompat.generate.device_functions INCLUDE (clang++-17, in the open image)"
    )


# --- in the image: kernels calling the real signatures compile and link against ours -----------

# A function declared but defined nowhere: the probe must fail it at the device link.
_UNDEFINED = signatures.Signature("sentinel", "moatbridge_probe_undefined", "int", ("int",), 1)


def probe_failures(image: str, directory: Path, *mounts: str) -> tuple[dict[str, str], list[str]]:
    """function -> error for every device function of device_api.tsv that fails through our
    nvcc -c (which links the device code), and the errors no probe line or kernel explains.
    Compile errors stop before the device link, so what compiles is probed again to link."""
    committed = device_functions.load()
    failed: dict[str, str] = {}
    unexplained: list[str] = []
    for stage, items in enumerate((committed, None)):
        probed = (
            [*items] if items is not None else [s for s in committed if s.name not in failed] + [_UNDEFINED]
        )
        source, lines, kernels = device_functions.probe_source(
            probed, ["__device__ int moatbridge_probe_undefined(int);"]
        )
        (directory / f"probe{stage}").mkdir()
        (directory / f"probe{stage}" / "probe.cu").write_text(source)
        result = docker_run(
            image,
            f"{ACTIVATE}; cd /p && nvcc -c probe.cu -o /tmp/probe.o -Xcompiler -ferror-limit=0"
            " -Xcompiler -Xoffload-linker,--error-limit=0",
            "-v", f"{directory / f'probe{stage}'}:/p:ro", *mounts,
        )  # fmt: skip
        found = signatures.failures(result.stderr, lines, kernels)
        if stage == 1:
            assert found.pop(_UNDEFINED.name, "").startswith("undefined"), "the device link was not checked"
            unexplained += [line for line in result.stderr.splitlines() if "error:" in line and "moatbridge_probe_undefined" not in line and "amdgcn-link" not in line]  # fmt: skip
        else:
            unexplained += [line for line in result.stderr.splitlines() if " error: " in line and not line.startswith("probe.cu:")]  # fmt: skip
        failed.update(found)
    return failed, unexplained


@pytest.mark.engine
def test_every_device_function_compiles_or_is_a_listed_gap(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    image = str(open_devel_gfx1030["reference"])
    failed, unexplained = probe_failures(image, tmp_path)
    gaps = {gap.name for gap in GAPS}
    names = {s.name for s in device_functions.load()}
    print(f"\nCUDA device functions: {len(names) - len(failed)} of {len(names)} compile and link as called")
    unexpected = {name: error for name, error in failed.items() if name not in gaps}
    assert not unexpected, "\n".join(f"{name}: {error}" for name, error in sorted(unexpected.items()))
    assert not gaps - set(failed), f"listed as gaps but compile now: {sorted(gaps - set(failed))}"
    assert not unexplained, "\n".join(unexplained[:20])

    report = json.loads(docker_run(image, "cat /opt/moatbridge/toolkit/compat-report.json").stdout)
    assert set(report["device"]["unsupported"]) == gaps


@pytest.mark.engine
def test_nvcc_names_the_reason_a_device_function_is_missing(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "cluster.cu").write_text(
        "__global__ void k(unsigned *out) { __syncthreads(); *out = __clusterDim().x + __clusterDim().y; }\n"
    )
    result = docker_run(
        str(open_devel_gfx1030["reference"]), f"{ACTIVATE}; cd /p && nvcc -c cluster.cu -o /tmp/c.o", "-v", f"{tmp_path}:/p:ro"
    )  # fmt: skip
    assert result.returncode != 0
    assert (
        "nvcc: __clusterDim is a CUDA device function the open toolkit lacks: thread block clusters"
        in result.stderr
    )
    assert result.stderr.count("__clusterDim is a CUDA device function") == 1
    assert "__syncthreads is a" not in result.stderr
