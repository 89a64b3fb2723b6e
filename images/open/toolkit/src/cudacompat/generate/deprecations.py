"""Deprecation as NVIDIA's headers have it: a CUDA call warns exactly where nvcc warns.

A mapping is a `#define cudaX hipX`, so a call warns where HIP deprecates hipX: ROCm marks
its whole context API (cuCtxCreate, cuCtxSetCurrent, cuDevicePrimaryCtxRetain, ...) and
dozens of hipSPARSE routines deprecated where CUDA does not, and a -Werror build that nvcc
takes stops. Where the two disagree, the CUDA name is declared as a function of its own with
the HIP function's type and symbol (`__typeof__` and an asm label: no wrapper, no copy of
the signature), deprecated exactly when NVIDIA's CUDA 12.4 declares it deprecated and
silenced by the macro NVIDIA's header honours. The warning then names the CUDA function, as
under nvcc.

NVIDIA's deprecated functions are read by clang from the real headers (the JSON AST, run by
the tests against Debian's CUDA 12.4 packages, never at image build) into
cuda_deprecated.tsv beside this file: names only. HIP's are found at image build by
compiling a use of each mapped HIP name in this stack's headers.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from . import probe
from .mappings import Mapping as NameMapping
from .signatures import json_documents, read_real_header, renamed

DEPRECATED = Path(__file__).with_name("cuda_deprecated.tsv")
# The real headers read, each with the prefix of the functions it declares.
HEADERS = {
    "cuda.h": "cu",
    "cuda_runtime_api.h": "cuda",
    "cublas_v2.h": "cublas",
    "cusparse.h": "cusparse",
    "curand.h": "curand",
    "cufft.h": "cufft",
    "cusolverDn.h": "cusolver",
    "nvrtc.h": "nvrtc",
}
# The macro that silences a family's deprecations in NVIDIA's headers.
SILENCED_BY = {
    "runtime": "CUDA_ENABLE_DEPRECATED",
    "cusparse": "DISABLE_CUSPARSE_DEPRECATED",
    "cusolver": "DISABLE_CUSOLVER_DEPRECATED",
}
PREAMBLE = (
    "# The functions NVIDIA's CUDA 12.4 headers declare deprecated (Debian's packages): names only.",
    "# Written by `python -m cudacompat.generate.deprecations INCLUDE_DIR`; tests check it.",
    "# header\tname as code writes it",
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WARNING = re.compile(r"^probe\.hip:(\d+):\d+: warning: '(\w+)' is deprecated", re.MULTILINE)
_ERROR_LINE = re.compile(r"^probe\.hip:(\d+):\d+: error:", re.MULTILINE)


# --- reading the real headers (pure) --------------------------------------------------------


def deprecated_functions(ast_json: str, defines: str, prefix: str) -> set[str]:
    """The functions clang's AST shows with a deprecation attribute, by every name code can
    write them with (the declared `_v2` name and the macro that renames to it)."""
    aliases = renamed(defines)
    found: set[str] = set()
    for decl in json_documents(ast_json):
        name = decl.get("name", "")
        if decl.get("kind") != "FunctionDecl" or not name.startswith(prefix):
            continue
        if any(inner.get("kind") == "DeprecatedAttr" for inner in decl.get("inner", [])):
            found.add(name)
            if name in aliases:
                found.add(aliases[name])
    return found


def to_text(items: Iterable[tuple[str, str]]) -> str:
    return "\n".join([*PREAMBLE, *(f"{header}\t{name}" for header, name in sorted(set(items)))]) + "\n"


def from_text(text: str) -> set[str]:
    names = set()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            _header, name = line.split("\t")
            if not _IDENTIFIER.fullmatch(name):
                raise ValueError(f"not a function name: {name!r}")
            names.add(name)
    return names


def load(path: Path = DEPRECATED) -> set[str]:
    return from_text(path.read_text(encoding="utf-8"))


# --- the declarations (pure) ----------------------------------------------------------------


def declaration(mapping: NameMapping, deprecated: bool) -> str:
    """The CUDA name as a function with the HIP function's type and linker symbol."""
    for name in (mapping.cuda, mapping.hip):
        if not _IDENTIFIER.fullmatch(name):
            raise ValueError(f"not a function name: {name!r}")
    attribute = f" {_attribute_macro(mapping.family)}" if deprecated else ""
    return f'extern __typeof__({mapping.hip}) {mapping.cuda} __asm__("{mapping.hip}"){attribute};'


def _attribute_macro(family: str) -> str:
    """The macro a family's deprecated declarations carry: empty under the family's silencer."""
    return f"MOATBRIDGE_DEPRECATED_{family.upper()}" if family in SILENCED_BY else "MOATBRIDGE_DEPRECATED"


def block(family: str, lines: Sequence[str]) -> list[str]:
    """Declarations wrapped so that naming a deprecated HIP function in `__typeof__` is quiet,
    with C linkage as NVIDIA declares them."""
    if not lines:
        return []
    silencer = SILENCED_BY.get(family)
    macro = _attribute_macro(family)
    return [
        f"#ifndef {macro}",
        *([f"#if defined({silencer})", f"#define {macro}", "#else"] if silencer else []),
        f"#define {macro} __attribute__((deprecated))",
        *(["#endif"] if silencer else []),
        "#endif",
        "#pragma GCC diagnostic push",
        '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"',
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        *lines,
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "#pragma GCC diagnostic pop",
    ]


def wanted(
    mappings: Iterable[NameMapping], hip_deprecated: set[str], cuda_deprecated: set[str]
) -> dict[str, bool]:
    """CUDA name -> deprecated, for the mappings deprecated on either side: declared with the
    CUDA name even where both agree, so that the warning names the CUDA function and the
    family's silencing macro works."""
    either = (m for m in mappings if m.hip in hip_deprecated or m.cuda in cuda_deprecated)
    return {m.cuda: m.cuda in cuda_deprecated for m in either}


# --- probes in the image (I/O) --------------------------------------------------------------


def _compile(clangxx: str, text: str, *extra: str) -> str:
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "probe.hip")
        source.write_text(text, encoding="utf-8")
        result = subprocess.run(
            [clangxx, "-x", "hip", "--cuda-host-only", "-nogpulib", "-fsyntax-only", "-ferror-limit=0",
             *extra, str(source)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
    return result.stderr.replace(str(source), "probe.hip")


def hip_deprecated(clangxx: str, preamble: str, names: Iterable[str]) -> set[str]:
    """The names whose use warns as deprecated in this stack's headers."""
    candidates = sorted({n for n in names if _IDENTIFIER.fullmatch(n)})
    offset = preamble.count("\n")
    body = "".join(f"void moatbridge_probe_{i}(void) {{ (void)&::{n}; }}\n" for i, n in enumerate(candidates))
    output = _compile(clangxx, preamble + body, "-Wno-everything", "-Wdeprecated-declarations")
    found = set()
    for line, name in _WARNING.findall(output):
        index = int(line) - offset - 1
        if 0 <= index < len(candidates) and candidates[index] == name:
            found.add(name)
    return found


def declarable(clangxx: str, preamble: str, family: str, mappings: Sequence[NameMapping],
               deprecated: Mapping[str, bool]) -> dict[str, bool]:  # fmt: skip
    """The wanted declarations that compile in this stack (a HIP name that is overloaded, a
    template or a macro has no single type to take): the others stay `#define`s."""
    chosen = [m for m in mappings if m.cuda in deprecated]
    for _round in range(4):
        lines = [declaration(m, deprecated[m.cuda]) for m in chosen]
        text = "\n".join(block(family, lines)) + "\n"
        first = preamble.count("\n") + text.splitlines().index(lines[0]) + 1 if lines else 0
        output = _compile(clangxx, preamble + text, "-w")
        failing = {int(n) - first for n in _ERROR_LINE.findall(output)}
        if not failing:
            return {m.cuda: deprecated[m.cuda] for m in chosen}
        if not failing <= set(range(len(chosen))):
            raise RuntimeError(f"the {family} declarations failed outside themselves:\n{output[-2000:]}")
        chosen = [m for i, m in enumerate(chosen) if i not in failing]
    raise RuntimeError(f"the {family} declarations did not converge")


def declared(
    clangxx: str,
    family: str,
    mappings: Sequence[NameMapping],
    cuda_deprecated: set[str],
    cuda_version: str = "",
) -> dict[str, bool]:
    """CUDA name -> deprecated, for the family's mappings declared as functions in this stack
    (its headers included as a toolkit mimicking `cuda_version` includes them)."""
    preamble = probe.preamble(family, cuda_version)
    macros = probe.defined_macros(clangxx, family, cuda_version)
    functions = [m for m in mappings if m.hip not in macros]
    hip = hip_deprecated(clangxx, preamble, (m.hip for m in functions))
    return declarable(clangxx, preamble, family, functions, wanted(functions, hip, cuda_deprecated))


# --- reading the real headers (I/O) ---------------------------------------------------------


def read_real(include: Path, clang: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for header, prefix in HEADERS.items():
        ast, defines = read_real_header(include, clang, header, prefix)
        found += [(header, name) for name in deprecated_functions(ast, defines, prefix)]
    return found


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="cudacompat.generate.deprecations")
    parser.add_argument("include", type=Path, help="the real toolkit's include directory")
    parser.add_argument("--clang", default="clang++-17")
    parser.add_argument("--output", type=Path, default=DEPRECATED)
    args = parser.parse_args(argv)
    found = read_real(args.include, args.clang)
    args.output.write_text(to_text(found), encoding="utf-8")
    print(f"{len({name for _, name in found})} deprecated functions", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
