"""CUDA's device functions and intrinsics, as facts, and compile probes against ours.

NVIDIA's headers (Debian's CUDA 12.4, read by the tests, never at image build) are parsed by
clang++-17 in C++ mode as nvcc's host pass sees them (`__CUDACC__`, no `__CUDA_ARCH__`, so
every architecture's declarations are visible), with `__device__` made a clang annotation
so that the JSON AST says which functions are device functions. device_api.tsv beside this
file keeps, for every global-namespace device function declared in HEADERS, its name, result
type and parameter types (one row per overload); no header text is kept.

A probe is an `extern "C" __global__` kernel per signature (and arity, when parameters have
defaults) taking a pointer to each parameter type and to the result type, so the call is
compiled for real: nothing is constant, and nvcc -c links the device code, so a function that
is declared but not defined for AMD fails as an undefined symbol of that kernel. Compile
errors name the probe's line, link errors its kernel; device_gaps.tsv lists every function
that fails, with the reason.

Not probed: function templates (sm_90's 16-byte atomicCAS/atomicExch), the device-side
runtime API (cuda_device_runtime_api.h: dynamic parallelism), texture/surface fetches
(texture_indirect_functions.h, surface_indirect_functions.h: templates over the texel
type), make_<vector> (vector_functions.h) and the half/bfloat16 headers (cuda_fp16.h,
cuda_bf16.h), and nvcc-internal helpers (EXCLUDED).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .signatures import Signature, check_plain, from_text, plain, to_text

SIGNATURES = Path(__file__).with_name("device_api.tsv")
GAPS = Path(__file__).with_name("device_gaps.tsv")
# The headers whose device functions are probed (a .hpp counts as its .h).
HEADERS = (
    "crt/common_functions.h",
    "crt/device_double_functions.h",
    "crt/device_functions.h",
    "crt/math_functions.h",
    "crt/sm_70_rt.h",
    "crt/sm_80_rt.h",
    "crt/sm_90_rt.h",
    "device_atomic_functions.h",
    "sm_20_atomic_functions.h",
    "sm_20_intrinsics.h",
    "sm_30_intrinsics.h",
    "sm_32_atomic_functions.h",
    "sm_32_intrinsics.h",
    "sm_35_atomic_functions.h",
    "sm_35_intrinsics.h",
    "sm_60_atomic_functions.h",
    "sm_61_intrinsics.h",
)
# nvcc's own helpers, which those headers declare for their inline code: CUDA code never calls them.
EXCLUDED = ("__cuda", "__internal", "__nv_associate_access_property", "__nv_memcpy_async", "__u128Atomic")
PREAMBLE = (
    "# CUDA's device functions (NVIDIA CUDA 12.4 as Debian packages it): names and types only.",
    "# Written by `python -m cudacompat.generate.device_functions INCLUDE`; tests check it and probe ours.",
    "# header\tname\tresult\trequired parameters\tparameter types (; separated)",
)

# What the parse includes: nvcc's `__location__(device)` made an annotation the AST shows.
_LOCATIONS = (
    "constant", "cudart_builtin", "device_builtin", "device_builtin_surface_type",
    "device_builtin_texture_type", "global", "grid_constant", "host", "managed", "shared",
)  # fmt: skip
SOURCE = "\n".join(
    [
        "#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__",
        "#include <crt/host_defines.h>",
        "#undef __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__",
        "#undef __location__",
        "#define __location__(a) __moatbridge_location_##a",
        '#define __moatbridge_location_device __attribute__((annotate("device")))',
        *(f"#define __moatbridge_location_{name}" for name in _LOCATIONS),
        "#include <cuda_runtime.h>",
        "",
    ]
)
CLANG_FLAGS = (
    "-x", "c++", "-std=c++17", "-D__CUDACC__", "-D__NVCC__", "-D__CUDACC_VER_MAJOR__=12",
    "-D__CUDACC_VER_MINOR__=4", "-D__NV_NO_HOST_COMPILER_CHECK", "-ferror-limit=0",
)  # fmt: skip
# In C++ mode clang holds NVIDIA's float overloads in namespace std (not probed) against
# libstdc++'s constexpr ones, and glibc 2.41's sinpi/cospi against NVIDIA's earlier ones.
_TOLERATED = re.compile(
    r"non-constexpr declaration of '\w+' follows constexpr declaration"
    r"|exception specification in declaration does not match previous declaration"
)
_ERROR = re.compile(r"^(.*?): error: (.*)$", re.MULTILINE)
# a location's file (group 2), or the file it was included from (group 1 set)
_FILE = re.compile(r'("includedFrom": \{\s*)?"file": "((?:[^"\\]|\\.)*)"')
_TOP_CONST = re.compile(r"\s*\bconst$|^const\s+(?=[^*&]*$)")


# --- reading the real headers' AST (pure) ----------------------------------------------------


def _last_file(text: str, start: int, end: int) -> str | None:
    """The file clang's JSON dumper last named in text[start:end] (a location's `file`, not
    the `includedFrom` beside it): it names a file only when it changes."""
    last = None
    for match in _FILE.finditer(text, start, end):
        if match.group(1) is None:
            last = match.group(2)
    return None if last is None else str(json.loads(f'"{last}"'))


def _track(node: Any, state: list[str | None]) -> None:
    """Follow the dumper's current file through `node`, in the order it was written."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "file" and isinstance(value, str):
                state[0] = value
            elif key != "includedFrom" and isinstance(value, (dict, list)):
                _track(value, state)
    elif isinstance(node, list):
        for item in node:
            _track(item, state)


def _functions(decl: dict[str, Any], state: list[str | None]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(file, FunctionDecl) for the global-namespace functions of a top-level declaration."""
    if decl.get("kind") == "LinkageSpecDecl":  # extern "C" { ... }
        for key, value in decl.items():
            if key == "inner":
                for inner in value:
                    yield from _functions(inner, state)
            else:
                _track(value, state)
        return
    _track(decl.get("loc"), state)
    file = state[0]
    _track({key: value for key, value in decl.items() if key != "loc"}, state)
    if decl.get("kind") == "FunctionDecl" and not decl.get("isImplicit") and file is not None:
        yield file, decl


def declarations(ast_json: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(file, FunctionDecl) for every function at global scope (or in extern "C") of clang's
    `-ast-dump=json` of a translation unit, read one top-level declaration at a time."""
    decoder = json.JSONDecoder()
    opening = re.search(r'"kind": "TranslationUnitDecl".*?"inner": \[', ast_json, re.S)
    if opening is None:
        return
    index = opening.end()
    state: list[str | None] = [None]
    while True:
        while index < len(ast_json) and ast_json[index] in " \t\r\n,":
            index += 1
        if index >= len(ast_json) or ast_json[index] == "]":
            return
        decl, end = decoder.raw_decode(ast_json, index)
        if isinstance(decl, dict) and decl.get("kind") in ("LinkageSpecDecl", "FunctionDecl"):
            yield from _functions(decl, state)
        else:  # not walked (namespace std is most of the dump): only where it left the file
            state[0] = _last_file(ast_json, index, end) or state[0]
        index = end


def _header(file: str, include: str) -> str | None:
    """The include-relative header of an AST file name, if it is one of HEADERS."""
    prefix = include.rstrip("/") + "/"
    if not file.startswith(prefix):
        return None
    header = file[len(prefix) :]
    header = header[: -len(".hpp")] + ".h" if header.endswith(".hpp") else header
    return header if header in HEADERS else None


def _parameter_type(qual_type: str) -> str:
    """A parameter's type as the function's type has it: no top-level const, no struct/enum."""
    return _TOP_CONST.sub("", plain(qual_type)).strip()


def signatures(ast_json: str, include: str) -> list[Signature]:
    found: dict[tuple[str, tuple[str, ...]], Signature] = {}
    for file, decl in declarations(ast_json):
        header = _header(file, include)
        name = decl.get("name", "")
        inner = decl.get("inner", [])
        device = any(node.get("kind") == "AnnotateAttr" for node in inner)
        if header is None or not device or not name or name.startswith(EXCLUDED):
            continue
        parameters = [node for node in inner if node.get("kind") == "ParmVarDecl"]
        types = tuple(_parameter_type(p["type"]["qualType"]) for p in parameters)
        required = sum(1 for p in parameters if "init" not in p)
        result = plain(decl["type"]["qualType"].split("(", 1)[0])
        found.setdefault((name, types), Signature(header, name, result, types, required))
    return sorted(found.values(), key=lambda s: (s.header, s.name, s.parameters))


def clang_errors(diagnostics: str) -> list[str]:
    """The errors of the parse other than the tolerated redeclaration disagreements."""
    return [m.group(0) for m in _ERROR.finditer(diagnostics) if not _TOLERATED.search(m.group(2))]


# --- probes (pure) ----------------------------------------------------------------------------


def probe_source(
    items: Iterable[Signature], declarations: Iterable[str] = ()
) -> tuple[str, dict[int, str], dict[str, str]]:
    """A CUDA source with one kernel per line (after `declarations`, lines of C++ the probes
    may need); returns it, line number -> function name and kernel name -> function name."""
    lines = ["#include <cuda_runtime.h>", "#include <type_traits>", *declarations]
    names: dict[int, str] = {}
    kernels: dict[str, str] = {}
    for index, item in enumerate(items):
        check_plain(item)
        for count in sorted({item.required, len(item.parameters)}):
            kernel = f"probe_{index}_{count}"
            parameters = [f"std::add_pointer_t<{t}> a{i}" for i, t in enumerate(item.parameters[:count])]
            call = f"{item.name}({', '.join(f'*a{i}' for i in range(count))})"
            if item.result == "void":
                body = f"{call};"
            else:
                parameters.insert(0, f"std::add_pointer_t<std::remove_cv_t<{item.result}>> r")
                body = f"*r = {call};"
            names[len(lines) + 1] = item.name
            kernels[kernel] = item.name
            lines.append(f'extern "C" __global__ void {kernel}({", ".join(parameters)}) {{ {body} }}')
    return "\n".join(lines) + "\n", names, kernels


# --- reading the real headers (I/O) -----------------------------------------------------------


def read_real(include: Path, clang: str) -> list[Signature]:
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "device.cpp"
        source.write_text(SOURCE, encoding="utf-8")
        command = [clang, *CLANG_FLAGS, "-isystem", str(include), "-fsyntax-only", str(source)]
        dump = ["-Xclang", "-ast-dump=json"]
        result = subprocess.run([*command, *dump], capture_output=True, text=True)
    unexpected = clang_errors(result.stderr)
    if unexpected or not result.stdout:
        details = "\n".join(unexpected) or result.stderr[-3000:]
        raise RuntimeError(f"clang could not read the headers:\n{details}")
    return signatures(result.stdout, str(include))


def load(path: Path = SIGNATURES) -> list[Signature]:
    return from_text(path.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="cudacompat.generate.device_functions")
    parser.add_argument("include", type=Path, help="the real toolkit's include directory")
    parser.add_argument("--clang", default="clang++-17")
    parser.add_argument("--output", type=Path, default=SIGNATURES)
    args = parser.parse_args(argv)
    found = read_real(args.include, args.clang)
    args.output.write_text(to_text(found, PREAMBLE), encoding="utf-8")
    print(f"{len(found)} signatures of {len({s.name for s in found})} device functions", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
