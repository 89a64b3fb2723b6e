"""The CUDA header inventory: NVIDIA's real headers (Debian's CUDA 12.4) are the oracle for
which headers exist and which include guards and feature macros a CUDA source sees once it
includes one. Our headers must match, or be listed as unsupported with a reason.

* the committed cuda_headers.tsv is exactly what the real headers say (re-read here);
* the header plan classifies every real header and keeps the rules (pure tests);
* in the open image, every provided header defines what its real namesake makes visible,
  compiled as CUDA through our nvcc.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cudacompat.generate import headers, inventory

from conftest import docker_run
from support import nvidia_toolkit
from support.open_stacks import OPEN_STACKS

TARGET = "/opt/moatbridge/targets/gfx1030"


# --- reading real headers (pure) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "guard"),
    [
        ("#ifndef A_H\n#define A_H\n#endif\n", "A_H"),
        ("/* c */\n#if !defined(__B_H__)\n#define __B_H__\n#endif\n", "__B_H__"),
        # an internal-header check first, then the real guard
        (
            "#if !defined(__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__)\n#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__\n"
            "#endif\n#if !defined(__C_H__)\n#define __C_H__\n#endif\n",
            "__C_H__",
        ),
        ("#pragma once\n#include <x.h>\n", ""),
        ("#ifndef A\n#define B\n#endif\n", ""),
    ],
)
def test_include_guard(text: str, guard: str) -> None:
    assert inventory.include_guard(text) == guard


def test_feature_macros_keep_numbers_and_decorations() -> None:
    text = (
        "#define CUBLAS_VER_MAJOR 12\n#define CUBLAS_VERSION (CUBLAS_VER_MAJOR * 10000)\n"
        "#define CUSPARSEAPI\n#define __CUDA_FP16_TYPES_EXIST__\n#define helper(x) x\n#define OTHER 3\n"
    )
    assert dict(inventory.feature_macros(text)) == {
        "CUBLAS_VER_MAJOR": "12",
        "CUBLAS_VERSION": "",
        "CUSPARSEAPI": "",
        "__CUDA_FP16_TYPES_EXIST__": "",
    }


def test_inventory_text_round_trips() -> None:
    loaded = inventory.load()
    assert inventory.from_text(inventory.to_text(loaded)) == loaded
    assert len(loaded.headers) > 150
    assert "__DRIVER_TYPES_H__" in loaded.sees[inventory.BASELINE]


# --- the plan (pure) -----------------------------------------------------------------------

HAND = ["cuda_runtime.h", "cuda_runtime_api.h", "driver_types.h", "cusparse.h", "cuda_fp16.h",
        "cuda_fp16.hpp", "cuComplex.h", "curand.h", "curand_kernel.h", "cublas_api.h", "cublas_v2.h"]  # fmt: skip


def _plans(cuda_version: str = "12.4.131") -> dict[str, headers.HeaderPlan]:
    return {p.path: p for p in headers.plan(inventory.load(), HAND, cuda_version)}


def test_every_real_header_is_provided_or_has_a_reason() -> None:
    plans = _plans()
    assert set(plans) == {h.path for h in inventory.load().headers}
    for plan in plans.values():
        assert plan.kind in ("hand", "runtime", "alias", "unsupported")
        assert (plan.kind == "unsupported") == bool(plan.reason), plan
    # without hipBLASLt, cuBLASLt over hipBLAS; with it, hipBLASLt under CUDA's names
    assert plans["cublasLt.h"] == headers.HeaderPlan(
        "cublasLt.h",
        "alias",
        target="moatbridge/cublaslt_hipblas.h",
        includes=plans["cublasLt.h"].includes,
        defines=plans["cublasLt.h"].defines,
    )
    with_library = {p.path: p for p in headers.plan(inventory.load(), HAND, "12.4.131", ["hipblaslt"])}
    assert with_library["cublasLt.h"].kind == "library"
    assert with_library["cublasLt.h"].target == "hipblaslt/hipblaslt.h"
    # with what cuBLASLt has beyond hipBLASLt (status names, version queries)
    assert "#include <moatbridge/cublaslt_hipblaslt_additions.h>" in headers.generated_header(
        with_library["cublasLt.h"]
    )
    assert plans["nppi.h"].kind == "unsupported"


def test_nvcc_force_include_brings_the_runtime_headers_and_their_guards() -> None:
    plans = _plans()
    runtime = plans["cuda_runtime.h"]
    assert ("__CUDA_RUNTIME_H__", "") in runtime.defines
    assert "driver_types.h" in runtime.includes  # so __DRIVER_TYPES_H__ (helper_cuda.h tests it)
    assert plans["driver_types.h"].defines == (("__DRIVER_TYPES_H__", ""),)
    assert plans["sm_32_intrinsics.h"].kind == "runtime"
    cusparse = dict(plans["cusparse.h"].defines)
    assert cusparse["CUSPARSEAPI"] == "" and cusparse["CUSPARSE_VER_MAJOR"] == "12"
    assert "CUSPARSE_CPP_VERSION" not in cusparse  # its value is the compiler's, not a number
    assert "cuda_fp16.h" in plans["cusparse.h"].includes


def test_library_versions_only_when_mimicking_the_inventorys_release() -> None:
    older = dict(_plans("11.8.89")["cublas_api.h"].defines)
    assert "CUBLAS_API_H_" in older and "CUBLAS_VER_MAJOR" not in older
    assert dict(_plans("12.4.131")["cublas_api.h"].defines)["CUBLAS_VER_MAJOR"] == "12"
    assert "CUDART_VERSION" not in dict(_plans()["cuda_runtime_api.h"].defines)  # the mimicked one rules


def test_generated_text_defines_then_includes() -> None:
    plans = _plans()
    text = headers.generated_header(plans["curand_uniform.h"])
    assert "#include <curand_kernel.h>" in text and "#define CURAND_UNIFORM_H_" in text
    block = headers.defines_block(plans["cusparse.h"])
    assert block.index("#define CUSPARSE_H_") < block.index("#include <cuda_fp16.h>")


# --- the oracle: the committed inventory is what the real headers say ------------------------


@pytest.fixture(scope="module")
def real_toolkit() -> tuple[Path, Path]:
    return nvidia_toolkit.required(nvidia_toolkit.real_include_dir), nvidia_toolkit.required(
        nvidia_toolkit.real_nvcc
    )


def test_committed_inventory_matches_the_real_headers(
    real_toolkit: tuple[Path, Path], tmp_path: Path
) -> None:
    include, nvcc = real_toolkit
    output = tmp_path / "cuda_headers.tsv"
    assert inventory.main([str(include), str(nvcc), "--output", str(output)]) == 0
    assert output.read_text() == inventory.INVENTORY.read_text(), (
        "cuda_headers.tsv is stale: python -m cudacompat.generate.inventory INCLUDE NVCC"
    )


# --- in the image: our headers define what the real ones make visible -------------------------


@pytest.mark.engine
def test_provided_headers_define_what_the_real_ones_make_visible(open_devel_gfx1030: dict[str, Any]) -> None:
    image = str(open_devel_gfx1030["reference"])
    report = json.loads(_ok(docker_run(image, "cat /opt/moatbridge/toolkit/compat-report.json")))
    provided = sorted(report["headers"]["provided"])
    unsupported = report["headers"]["unsupported"]
    cuda_version = _ok(docker_run(image, f"grep cuda_version= {TARGET}/share/moatbridge/target.conf")).strip()
    same_release = cuda_version.split("=", 1)[1].startswith(headers.INVENTORY_CUDA + ".")
    inv = inventory.load()
    owner = {h.guard: h.path for h in inv.headers if h.guard}
    owner.update({name: h.path for h in inv.headers for name, _ in h.features})
    value_less_versions = {n for h in inv.headers for n, v in h.features if "VER" in n and not v}

    def expected(path: str) -> set[str]:
        facts = inv.header(path)
        assert facts is not None
        names = {facts.guard} | {n for n, _ in facts.features} | set(inv.sees.get(path, ()))
        names |= set(inv.sees[inventory.BASELINE])
        keep = set()
        for name in names - {""}:
            if owner.get(name) in unsupported or name in value_less_versions:
                continue
            if name.startswith(headers._LIBRARY_VERSION_PREFIXES) and not same_release:
                continue
            keep.add(name)
        return keep

    # two at a time (two cores); each header's macros go to its own file, printed in order
    script = (
        "mkdir -p /tmp/h && cd /tmp/h && printf '%s\\n' " + " ".join(provided) + " | xargs -P2 -I{} sh -c '"
        'n=$(echo "{}" | tr / _); printf "#include <%s>\\n" "{}" > "$n.cu"; '
        'nvcc -E -Xcompiler -dM "$n.cu" 2>&1 | grep -E "^#define " | cut -d" " -f2 > "$n.txt" || true\'\n'
        "for h in " + " ".join(provided) + '; do echo "== $h"; cat "/tmp/h/$(echo "$h" | tr / _).txt"; done\n'
    )
    out = _ok(docker_run(image, f". /opt/moatbridge/bin/activate gfx1030\n{script}"))
    seen: dict[str, set[str]] = {}
    current = ""
    for line in out.splitlines():
        if line.startswith("== "):
            current = line[3:]
            seen[current] = set()
        elif current:
            seen[current].add(line.strip())
    gaps = {path: sorted(expected(path) - seen.get(path, set())) for path in provided}
    gaps = {path: missing for path, missing in gaps.items() if missing}
    assert len(seen) == len(provided)
    assert not gaps, "\n".join(f"{p}: {m}" for p, m in gaps.items())


def _ok(result: Any) -> str:
    assert result.returncode == 0, result.stderr[-4000:]
    return str(result.stdout)


@pytest.mark.engine
def test_cuda_h_status_types_in_c_and_cpp(open_devel_gfx1030: dict[str, Any]) -> None:
    """CUresult is its own type in C++ (overloads on it and on cudaError_t are distinct, as
    with NVIDIA's two enums) and a plain typedef in C; a C file including cuda.h compiles."""
    image = str(open_devel_gfx1030["reference"])
    script = r"""
mkdir -p /tmp/s && cd /tmp/s
cat > plain.c <<'C'
#include <cuda.h>
#include <stdio.h>
int report(CUresult status) { const char* name = 0; cuGetErrorName(status, &name); return printf("%s\n", name ? name : "?"); }
int main(void) { CUresult status = cuInit(0); return report(status) < 0 || status == CUDA_SUCCESS ? 0 : 1; }
C
cat > overloads.cpp <<'CPP'
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <type_traits>
static_assert(!std::is_same<CUresult, cudaError_t>::value, "CUresult is not cudaError_t");
static_assert(sizeof(CUresult) == sizeof(cudaError_t), "CUresult has the enum's size");
static_assert(std::is_trivially_copyable<CUresult>::value, "CUresult is trivially copyable");
static int kind(cudaError_t) { return 1; }
static int kind(CUresult) { return 2; }
int main() {
    CUresult driver = cuInit(0);
    cudaError_t runtime = cudaFree(0);
    CUresult zero = static_cast<CUresult>(0);
    bool same = driver == CUDA_SUCCESS || driver != CUDA_SUCCESS;
    switch (zero) { case CUDA_SUCCESS: break; default: return 3; }
    std::printf("%d %d %d %d\n", kind(driver), kind(runtime), kind(cuInit(0)), static_cast<int>(zero));
    return same ? 0 : 4;
}
CPP
nvcc -o plain plain.c && nvcc -o overloads overloads.cpp && ./overloads
"""
    out = _ok(docker_run(image, f". /opt/moatbridge/bin/activate gfx1030\n{script}"))
    # kind(cuInit(0)): HIP's driver calls return hipError_t, so the runtime overload is the
    # exact match there, as CUDA code that checks both kinds with one template expects.
    assert out.split()[-4:] == ["2", "1", "1", "0"], out


# --- in the image: each header alone, in every language mode -------------------------------------

STANDALONE = r"""
cd /tmp && mkdir -p alone && cd alone
# one line per (header, standard, whose): "ok" or "FAIL"; NVIDIA's are read from /real
check() {  # header std whose flags...
    h=$1 std=$2 whose=$3; shift 3
    n=$(echo "$h-$std-$whose" | tr / _)
    printf '#include <%s>\nint main() { return 0; }\n' "$h" > "$n.cpp"
    if g++ -std="$std" -fsyntax-only "$@" "$n.cpp" > "$n.log" 2>&1; then r=ok; else r=FAIL; fi
    echo "$h $std $whose $r"
}
export -f check
for h in HEADERS; do
    for std in c++11 c++17; do
        [ -f "/real/$h" ] && echo "check $h $std nvidia -I/real"
        echo "check $h $std ours -isystem $CUDA_HOME/include"
    done
done | xargs -P2 -I{} bash -c '{}' > results.txt
cat results.txt
for f in *-ours.log; do [ -s "$f" ] && { echo "== $f"; head -c 1500 "$f"; }; done > logs.txt || true
"""


def _public_headers(image: str) -> list[str]:
    """The headers the toolkit provides that a program includes (not crt/ internals or .hpp parts)."""
    report = json.loads(_ok(docker_run(image, "cat /opt/moatbridge/toolkit/compat-report.json")))
    return sorted(h for h in report["headers"]["provided"] if h.endswith(".h") and not h.startswith("crt/"))


def _standalone_results(
    image: str, gfx: str, names: list[str], real: Path
) -> tuple[dict[tuple[str, str, str], str], str]:
    script = f". /opt/moatbridge/bin/activate {gfx}\n" + STANDALONE.replace("HEADERS", " ".join(names))
    script += "echo '#logs'; cat logs.txt\n"
    out = _ok(docker_run(image, script, "-v", f"{real}:/real:ro"))
    table, _, logs = out.partition("#logs\n")
    results = {}
    for line in table.splitlines():
        header, std, whose, outcome = line.split()
        results[(header, std, whose)] = outcome
    return results, logs


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_each_header_compiles_alone_in_host_code_where_nvidias_does(
    gfx: str, fixture: str, request: pytest.FixtureRequest
) -> None:
    """A host-only .cpp (g++, as the samples' Makefiles build them) includes one CUDA header, in
    C++11 and C++17: wherever NVIDIA's header compiles alone, ours must. C++14 names in C++11
    mode and device-only content outside a device compile are what this catches."""
    image = str(request.getfixturevalue(fixture)["reference"])
    real = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    provided = _public_headers(image)
    results, logs = _standalone_results(image, gfx, provided, real)
    expected = {
        (h, std) for (h, std, whose), outcome in results.items() if whose == "nvidia" and outcome == "ok"
    }
    assert len(expected) > 60, f"NVIDIA's headers should mostly compile alone: {sorted(expected)}"
    broken = sorted(f"{h} -std={std}" for h, std in expected if results.get((h, std, "ours")) != "ok")
    assert not broken, "\n".join(broken) + "\n" + logs[-6000:]


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_every_header_compiles_together_as_cuda_in_every_standard(
    gfx: str, fixture: str, request: pytest.FixtureRequest
) -> None:
    """All the toolkit's public headers in one .cu through our nvcc, with -std=c++11 and
    -std=c++17, and the same set as a host .cpp through g++: one translation unit per mode.
    Then in C++20 and C++23 with every standard library header after them, as NVIDIA's allow:
    a macro of ours or HIP's that a library header spells (libstdc++'s
    [[__gnu__::__noinline__]] in <format>) breaks that."""
    image = str(request.getfixturevalue(fixture)["reference"])
    provided = _public_headers(image)
    includes = "".join(f"#include <{h}>\\n" for h in provided)
    script = f"""
    . /opt/moatbridge/bin/activate {gfx}
    set -e
    cd /tmp
    printf '{includes}__global__ void k(int* x) {{ x[threadIdx.x] = 1; }}\\nint main() {{ return 0; }}\\n' > all.cu
    cp all.cu all.cpp
    sed -i '/__global__/d' all.cpp
    for std in c++11 c++17; do
        nvcc -std=$std -c all.cu -o all-$std.o
        g++ -std=$std -fsyntax-only -isystem $CUDA_HOME/include all.cpp
    done
    {{ grep -v '^int main' all.cpp; echo '#include <bits/stdc++.h>'; echo 'int main() {{ return 0; }}'; }} > library.cpp
    for std in c++20 c++23; do
        g++ -std=$std -fsyntax-only -isystem $CUDA_HOME/include library.cpp
    done
    echo compiled
    """
    assert _ok(docker_run(image, script)).strip().endswith("compiled")
