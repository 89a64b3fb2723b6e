"""A CUDA call warns as deprecated exactly where nvcc with NVIDIA's headers warns.

ROCm deprecates functions CUDA does not (the whole context API: cuCtxCreate, cuCtxSetCurrent,
cuDevicePrimaryCtxRetain, cuMemAllocHost; dozens of hipSPARSE routines), so a `#define` onto
them made -Werror builds that nvcc takes stop. NVIDIA's real headers (Debian's CUDA 12.4) are
the oracle:

* the committed cuda_deprecated.tsv is exactly what clang reads from the real headers;
* reading, declarations and the choice of what to declare keep their rules (pure tests);
* in each open image, a use of every CUDA function our headers map or NVIDIA deprecates warns
  exactly where the same use warns with NVIDIA's headers, with and without the macros that silence NVIDIA's
  deprecations; every function declared so links to the HIP library's symbol.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from cudacompat.generate import deprecations
from cudacompat.generate.mappings import Mapping

from conftest import docker_run, regenerated_from_real_headers
from support import nvidia_toolkit
from support.open_stacks import OPEN_STACKS

# --- reading clang's AST (pure) -------------------------------------------------------------

_AST = """Dumping cuCtxCreate_v2:
{"kind": "FunctionDecl", "name": "cuCtxCreate_v2", "inner": [{"kind": "ParmVarDecl"}]}
Dumping cuCtxDetach:
{"kind": "FunctionDecl", "name": "cuCtxDetach",
 "inner": [{"kind": "ParmVarDecl"}, {"kind": "DeprecatedAttr", "message": ""}]}
Dumping cuTexRefSetAddress2D_v3:
{"kind": "FunctionDecl", "name": "cuTexRefSetAddress2D_v3", "inner": [{"kind": "DeprecatedAttr"}]}
Dumping cuTexRefMode:
{"kind": "EnumDecl", "name": "cuTexRefMode", "inner": [{"kind": "DeprecatedAttr"}]}
{"kind": "FunctionDecl", "name": "helper", "inner": [{"kind": "DeprecatedAttr"}]}
"""
_DEFINES = "#define cuCtxCreate cuCtxCreate_v2\n#define cuTexRefSetAddress2D cuTexRefSetAddress2D_v3\n"


def test_deprecated_functions_are_read_by_every_name_code_writes() -> None:
    found = deprecations.deprecated_functions(_AST, _DEFINES, "cu")
    assert found == {"cuCtxDetach", "cuTexRefSetAddress2D_v3", "cuTexRefSetAddress2D"}


def test_tsv_round_trips_and_refuses_what_is_not_a_name() -> None:
    text = deprecations.to_text([("cuda.h", "cuCtxDetach"), ("cusparse.h", "cusparseXcsr2coo")])
    assert deprecations.from_text(text) == {"cuCtxDetach", "cusparseXcsr2coo"}
    with pytest.raises(ValueError):
        deprecations.from_text('cuda.h\tx"); system("y\n')
    committed = deprecations.load()
    assert {"cuCtxDetach", "cudaThreadSynchronize"} <= committed
    assert not {"cuCtxCreate", "cuCtxSetCurrent", "cuMemAllocHost", "cudaMalloc"} & committed


def test_declarations_take_the_hip_type_and_symbol_and_cudas_deprecation() -> None:
    context = Mapping("cuCtxCreate", "hipCtxCreate", "context", "runtime")
    assert deprecations.declaration(context, False) == (
        'extern __typeof__(hipCtxCreate) cuCtxCreate __asm__("hipCtxCreate");'
    )
    sparse = Mapping("cusparseScsrcolor", "hipsparseScsrcolor", "x", "cusparse")
    assert deprecations.declaration(sparse, True).endswith(
        ' __asm__("hipsparseScsrcolor") MOATBRIDGE_DEPRECATED_CUSPARSE;'
    )
    blas = Mapping("cublasOld", "hipblasOld", "x", "cublas")
    assert deprecations.declaration(blas, True).endswith(" MOATBRIDGE_DEPRECATED;")
    with pytest.raises(ValueError):
        deprecations.declaration(Mapping("cuX", 'hipX") int y; //', "x", "runtime"), False)
    text = "\n".join(deprecations.block("cusparse", ["DECL;"]))
    assert "#if defined(DISABLE_CUSPARSE_DEPRECATED)" in text
    assert text.index('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"') < text.index("DECL;")
    assert text.index("DECL;") < text.index("#pragma GCC diagnostic pop")
    assert deprecations.block("runtime", []) == []


def test_what_is_declared_is_what_either_side_deprecates() -> None:
    maps = [
        Mapping("cuCtxCreate", "hipCtxCreate", "c", "runtime"),  # HIP only: declared, not deprecated
        Mapping("cuCtxDetach", "hipCtxDetach", "c", "runtime"),  # both: declared, deprecated
        Mapping("cudaThreadExit", "hipDeviceReset", "c", "runtime"),  # CUDA only: declared, deprecated
        Mapping("cudaMalloc", "hipMalloc", "c", "runtime"),  # neither: a #define
    ]
    chosen = deprecations.wanted(maps, {"hipCtxCreate", "hipCtxDetach"}, {"cuCtxDetach", "cudaThreadExit"})
    assert chosen == {"cuCtxCreate": False, "cuCtxDetach": True, "cudaThreadExit": True}


# --- the oracle: the committed names are what the real headers say --------------------------


@pytest.mark.engine
def test_committed_deprecations_match_the_real_headers(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    image = str(open_devel_gfx1030["reference"])
    fresh = regenerated_from_real_headers(
        image, "cudacompat.generate.deprecations", "cuda_deprecated.tsv", tmp_path
    )
    assert fresh == deprecations.DEPRECATED.read_text(), (
        "cuda_deprecated.tsv is stale: python -m cudacompat.generate.deprecations INCLUDE (clang++-17, in the open image)"
    )


# --- in the image: a use warns where NVIDIA's warns ------------------------------------------

_MAPPED = re.compile(r"^#define (\w+) \w+$|^extern __typeof__\(\w+\) (\w+) __asm__", re.MULTILINE)
_DECLARED = re.compile(r'^extern __typeof__\(\w+\) (\w+) __asm__\("(\w+)"\)', re.MULTILINE)
_REAL_HEADERS = "".join(f"#include <{header}>\n" for header in deprecations.HEADERS)
_SILENCERS = sorted(set(deprecations.SILENCED_BY.values()))


def _generated(image: str) -> str:
    result = docker_run(image, "cat /opt/moatbridge/toolkit/include/moatbridge/generated/*.h")
    assert result.returncode == 0, result.stderr
    return result.stdout


def _probe(names: list[str]) -> tuple[str, int]:
    """One use per line of every name, after the real headers' includes; the first use's line."""
    body = "".join(f"void moatbridge_use_{i}(void) {{ (void)&::{name}; }}\n" for i, name in enumerate(names))
    return _REAL_HEADERS + body, _REAL_HEADERS.count("\n") + 1


def _verdicts(stderr: str, file: str, first: int, count: int) -> dict[int, str]:
    """probe index -> "error" / "deprecated" for the lines the compiler said something about."""
    verdicts: dict[int, str] = {}
    pattern = re.compile(rf"^(?:\S*/)?{re.escape(file)}:(\d+):\d+: (error|warning): (.*)$", re.MULTILINE)
    for line, kind, message in pattern.findall(stderr):
        index = int(line) - first
        if not 0 <= index < count:
            continue
        if kind == "error":
            verdicts[index] = "error"
        elif "is deprecated" in message and verdicts.get(index) != "error":
            verdicts[index] = "deprecated"
    return verdicts


def _nvidias(names: list[str], defines: list[str], tmp_path: Path, image: str) -> dict[int, str]:
    include = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    source, first = _probe(names)
    (tmp_path / "real.cpp").write_text(source)
    flags = " ".join(f"-D{d}" for d in defines)
    result = docker_run(
        image, f"cd /p && clang++-17 -std=c++17 -fsyntax-only -ferror-limit=0 -isystem /real {flags} real.cpp",
        "-v", f"{include}:/real:ro", "-v", f"{tmp_path}:/p:ro",
    )  # fmt: skip
    return _verdicts(result.stderr, "real.cpp", first, len(names))


def _ours(names: list[str], defines: list[str], tmp_path: Path, image: str, gfx: str) -> dict[int, str]:
    source, first = _probe(names)
    (tmp_path / "ours.cu").write_text(source)
    flags = " ".join(f"-D{d}" for d in defines)
    result = docker_run(
        image,
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null; cd /p && "
        f"nvcc -c ours.cu -o /tmp/ours.o {flags} -Xcompiler -ferror-limit=0",
        "-v", f"{tmp_path}:/p:ro",
    )  # fmt: skip
    return _verdicts(result.stderr, "ours.cu", first, len(names))


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_a_use_warns_as_deprecated_exactly_where_nvidias_headers_warn(
    request: pytest.FixtureRequest, open_devel_gfx1030: dict[str, Any], gfx: str, fixture: str, tmp_path: Path
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    # every function the layer maps, and every one NVIDIA deprecates (some are hand-written)
    names = sorted({a or b for a, b in _MAPPED.findall(_generated(image))} | deprecations.load())
    reference = str(open_devel_gfx1030["reference"])
    for defines in ([], _SILENCERS):
        theirs = _nvidias(names, defines, tmp_path, reference)
        ours = _ours(names, defines, tmp_path, image, gfx)
        both = [i for i in range(len(names)) if theirs.get(i) != "error" and ours.get(i) != "error"]
        assert len(both) > 1000, f"only {len(both)} CUDA functions compared"
        nvidia = {names[i] for i in both if theirs.get(i) == "deprecated"}
        moat = {names[i] for i in both if ours.get(i) == "deprecated"}
        assert moat == nvidia, (
            f"with {defines or 'no silencing macro'}: warned only by ours {sorted(moat - nvidia)[:20]}, "
            f"only by NVIDIA's {sorted(nvidia - moat)[:20]}"
        )
        if not defines:
            assert {"cuCtxDetach", "cusparseXcsr2coo"} & nvidia or len(nvidia) > 20, sorted(nvidia)
            assert not {"cuCtxCreate", "cuCtxSetCurrent", "cuDevicePrimaryCtxRetain"} & moat


_UNDEFINED = re.compile(r"undefined reference to `(\w+)'")
_LIBRARIES = "-lcuda -lcusparse -lcusolver -lcublas -lnvrtc"


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_every_function_declared_for_deprecation_links_as_its_hip_function_does(
    request: pytest.FixtureRequest, gfx: str, fixture: str, tmp_path: Path
) -> None:
    """A program taking the address of every declared CUDA function links to the HIP
    libraries' symbols; where one does not, the HIP library lacks the symbol itself (HIP 5.7
    declares a few texture-reference calls it does not export): a plain C program naming the
    HIP symbol fails to link the same way."""
    image = str(request.getfixturevalue(fixture)["reference"])
    declared = dict(_DECLARED.findall(_generated(image)))
    assert declared.get("cuCtxCreate") == "hipCtxCreate", "cuCtxCreate is not declared onto hipCtxCreate"
    headers = ("cuda.h", "cuda_runtime.h", "cusparse.h", "cusolverDn.h", "cublas_v2.h", "nvrtc.h")
    uses = "".join(f"  (void*)&{cuda},\n" for cuda in declared)
    (tmp_path / "link.cu").write_text(
        "".join(f"#include <{h}>\n" for h in headers)
        + f"#include <cstdio>\nvoid *uses[] = {{\n{uses}}};\n"
        + 'int main() { std::printf("%zu\\n", sizeof uses / sizeof *uses); return 0; }\n'
    )
    activate = f". /opt/moatbridge/bin/activate {gfx} >/dev/null; cd /p"
    ours = docker_run(
        image, f"{activate} && nvcc link.cu -o /tmp/link -Wno-deprecated-declarations {_LIBRARIES} && /tmp/link",
        "-v", f"{tmp_path}:/p",
    )  # fmt: skip
    missing = set(_UNDEFINED.findall(ours.stderr))
    assert ours.returncode == 0 or missing, ours.stderr[-3000:]
    assert missing <= set(declared.values()), sorted(missing - set(declared.values()))
    if ours.returncode == 0:
        assert int(ours.stdout.split()[0]) == len(declared)
    assert len(missing) < len(declared) // 10, f"{len(missing)} of {len(declared)} do not link"
    if missing:  # the same symbols, named by plain C code, do not link either
        plain = "".join(f"void {hip}(void);\n" for hip in sorted(missing))
        plain += "void *uses[] = {" + ", ".join(f"(void*)&{hip}" for hip in sorted(missing)) + "};\n"
        (tmp_path / "plain.c").write_text(plain + "int main(void) { return uses[0] == 0; }\n")
        libraries = '-L"$CUDA_PATH/lib64"'  # the toolkit's libcuda.so etc. name the HIP libraries
        theirs = docker_run(
            image, f"{activate} && gcc plain.c -o /tmp/plain {libraries} {_LIBRARIES}", "-v", f"{tmp_path}:/p"
        )
        assert set(_UNDEFINED.findall(theirs.stderr)) == missing, theirs.stderr[-2000:]
