"""The CUDA runtime and driver APIs' function signatures, as facts, and compile probes against ours.

NVIDIA's `cuda_runtime_api.h` and `cuda.h` are read by clang (its JSON AST of the real headers,
run by the tests against each mimicked release's real toolkit, never at image build) into one
table per release beside this file: each function's header, its name as code writes it, its
result type and its parameter types, with the defaulted ones marked. Names and types are facts;
no header text is kept.

A probe is a call written against the real signature: `std::declval<T>()` for each parameter,
in an unevaluated context, once with every argument and once without the defaulted ones, and
the result must convert to the real result type. Compiled through our nvcc, each failing probe
line names one function; api_gaps.tsv lists every such function with the reason it is missing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from . import releases

SIGNATURES = Path(__file__).with_name("cuda_api.tsv")
# each mimicked release's table (releases.py): read from that release's real header
TABLES = {"12.4": SIGNATURES, "13.0": Path(__file__).with_name("cuda_api-13.0.tsv")}
GAPS = Path(__file__).with_name("api_gaps.tsv")
# header -> the prefix of the functions it declares that are probed
HEADERS = {"cuda_runtime_api.h": "cuda", "cuda.h": "cu"}

_ELABORATED = re.compile(r"\b(?:struct|enum|union)\s+")
# `#define cudaX cudaX_v2`, `#define cudaX __CUDART_API_PTSZ(cudaX_v2)` or the driver's
# `#define cuX __CUDA_API_PTDS(cuX_v2)`: code writes cudaX, cuX
_ALIAS = re.compile(r"#define (\w+) (?:__CUDA(?:RT)?_API_PT[SD][ZS]\()?(\w+)\)?")
_NAME = re.compile(r"[A-Za-z_]\w*")
_TYPE = re.compile(r"[\w :*&<>,()\[\]]+")
_PROBE_ERROR = re.compile(r"^probe\.cu:(\d+):\d+: error: (.*)$", re.MULTILINE)
# lld's `error: undefined hidden symbol: f(int)` and its `>>> referenced by x.o:(probe_1_1)` lines
_LINK_ERROR = re.compile(r"^(?:ld\.)?lld: error: (.*)$((?:\n>>> .*)*)", re.MULTILINE)
_REFERRER = re.compile(r"^>>> referenced by .*:\((\w+)\)$", re.MULTILINE)


class Signature(NamedTuple):
    header: str
    name: str  # as code writes it (the macro's name when the header renames to a _v2)
    result: str
    parameters: tuple[str, ...]  # types, without struct/enum/union keywords
    required: int  # how many parameters have no default


class Gap(NamedTuple):
    name: str
    reason: str


# --- reading the real header (pure) ---------------------------------------------------------


def json_documents(text: str) -> Iterator[dict[str, Any]]:
    """The objects of clang's `-ast-dump=json -ast-dump-filter=...` output (one per match,
    separated by `Dumping NAME:` lines)."""
    decoder = json.JSONDecoder()
    index = 0
    while index < len(text):
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return
        if text[index] != "{":
            index = text.find("\n", index) + 1 or len(text)
            continue
        document, index = decoder.raw_decode(text, index)
        if isinstance(document, dict):
            yield document


def renamed(defines: str) -> dict[str, str]:
    """target -> the name code writes, from `-dM` output (`#define cudaX cudaX_v2`)."""
    names: dict[str, str] = {}
    for line in defines.splitlines():
        match = _ALIAS.fullmatch(line.strip())
        if match and match.group(1) != match.group(2):
            names[match.group(2)] = match.group(1)
    return names


def plain(type_name: str) -> str:
    return _ELABORATED.sub("", type_name).strip()


def signatures(ast_json: str, defines: str, header: str, prefix: str) -> list[Signature]:
    aliases = renamed(defines)
    found: dict[tuple[str, tuple[str, ...]], Signature] = {}
    for decl in json_documents(ast_json):
        name = decl.get("name", "")
        if decl.get("kind") != "FunctionDecl" or not name.startswith(prefix):
            continue
        parameters = [p for p in decl.get("inner", []) if p.get("kind") == "ParmVarDecl"]
        types = tuple(plain(p["type"]["qualType"]) for p in parameters)
        required = sum(1 for p in parameters if "init" not in p)
        result = plain(decl["type"]["qualType"].split("(", 1)[0])
        spelled = aliases.get(name, name)
        found[(spelled, types)] = Signature(header, spelled, result, types, required)
    return sorted(found.values(), key=lambda s: (s.header, s.name, s.parameters))


# --- the .tsv files -------------------------------------------------------------------------


# where each release's real header is read from
_SOURCES = {
    "12.4": "NVIDIA CUDA 12.4 as Debian packages it",
    "13.0": "NVIDIA CUDA 13.0 as its PyPI wheels carry it",
}


def preamble(release: str) -> tuple[str, ...]:
    return (
        f"# The CUDA runtime and driver APIs' functions ({_SOURCES[release]}): names and types only.",
        f"# Written by `python -m cudacompat.generate.signatures INCLUDE_DIR --release {release}`; "
        "tests check it and probe ours.",
        "# header\tname\tresult\trequired parameters\tparameter types (; separated)",
    )


PREAMBLE = preamble("12.4")


def to_text(items: Iterable[Signature], preamble: Iterable[str] = PREAMBLE) -> str:
    lines = list(preamble)
    lines += [f"{s.header}\t{s.name}\t{s.result}\t{s.required}\t{'; '.join(s.parameters)}" for s in items]
    return "\n".join(lines) + "\n"


def from_text(text: str) -> list[Signature]:
    items = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            header, name, result, required, parameters = line.split("\t")
            types = tuple(parameters.split("; ")) if parameters else ()
            items.append(Signature(header, name, result, types, int(required)))
    return items


def load(path: Path = SIGNATURES) -> list[Signature]:
    return from_text(path.read_text(encoding="utf-8"))


def load_release(cuda_version: str) -> list[Signature]:
    """The functions of the release a toolkit mimicking `cuda_version` takes."""
    return load(TABLES[releases.release_of(cuda_version)])


def removed_by(cuda_version: str) -> frozenset[str]:
    """The functions an older release's table declares and the mimicked one's does not (CUDA
    13 removed cudaThreadSynchronize, the _v2 calls, ...): gone from its toolkit too."""
    mimicked = releases.release_of(cuda_version)
    older = releases.RELEASES[: releases.RELEASES.index(mimicked)]
    declared = {s.name for s in load(TABLES[mimicked])}
    return frozenset(s.name for release in older for s in load(TABLES[release]) if s.name not in declared)


def load_gaps(path: Path = GAPS) -> list[Gap]:
    gaps = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, reason = line.split("\t")
            gaps.append(Gap(name, reason))
    return gaps


# --- probes (pure) --------------------------------------------------------------------------


def check_plain(item: Signature) -> None:
    """Refuse what is not a name and plain types before it is written into a probe."""
    plain_types = all(_TYPE.fullmatch(t) for t in (item.result, *item.parameters))
    if not _NAME.fullmatch(item.name) or not plain_types:
        raise ValueError(f"not a plain signature: {item}")


def probe_source(items: Iterable[Signature], includes: Iterable[str] = HEADERS) -> tuple[str, dict[int, str]]:
    """A CUDA source with one probe per line; returns it and line number -> function name."""
    lines = [f"#include <{header}>" for header in includes] + ["#include <type_traits>", "#include <utility>"]
    names: dict[int, str] = {}
    for index, item in enumerate(items):
        check_plain(item)
        for count in sorted({item.required, len(item.parameters)}):
            arguments = ", ".join(f"std::declval<{t}>()" for t in item.parameters[:count])
            call = f"{item.name}({arguments})"
            if item.result == "void":
                line = f"using probe_{index}_{count} = decltype({call});"
            else:
                converts = f"std::is_convertible<decltype({call}), {item.result}>::value"
                line = f'static_assert({converts}, "{item.name}");'
            names[len(lines) + 1] = item.name
            lines.append(line)
    return "\n".join(lines) + "\n", names


def failures(
    compiler_output: str, names: dict[int, str], symbols: dict[str, str] | None = None
) -> dict[str, str]:
    """function -> its first error, for every probe line the compiler reported an error on and,
    given `symbols` (a probe's function symbol -> function), every probe the linker named as
    referring to an undefined symbol."""
    failed: dict[str, str] = {}
    for match in _PROBE_ERROR.finditer(compiler_output):
        name = names.get(int(match.group(1)))
        if name is not None:
            failed.setdefault(name, match.group(2).strip())
    for match in _LINK_ERROR.finditer(compiler_output):
        for symbol in _REFERRER.findall(match.group(2)):
            if symbols and symbol in symbols:
                failed.setdefault(symbols[symbol], match.group(1).strip())
    return failed


def still_missing(
    gaps: Sequence[Gap], committed: Sequence[Signature], compile_probe: Callable[[str], str]
) -> list[Gap]:
    """The listed gaps this stack's headers still have, of the functions `committed` (one
    release's table) has: a gap whose every call compiles here (a newer HIP gained the
    function) is not one, nor is a function the release does not declare (CUDA 13 removed
    the _v2 graph calls). `compile_probe` compiles a probe source named probe.cu and returns
    the compiler's messages; an error outside the probes keeps every gap."""
    by_name = {s.name: s for s in committed}
    gaps = [gap for gap in gaps if gap.name in by_name]
    if not gaps:
        return []
    source, lines = probe_source([s for s in committed if s.name in {gap.name for gap in gaps}])
    output = compile_probe(source)
    if any(" error: " in line and not line.startswith("probe.cu:") for line in output.splitlines()):
        return list(gaps)  # the headers themselves failed: nothing is known of the gaps
    failed = failures(output, lines)
    return [gap for gap in gaps if gap.name in failed]


# --- reading the real header (I/O) ----------------------------------------------------------


def read_real_header(include: Path, clang: str, header: str, prefix: str) -> tuple[str, str]:
    """clang's JSON AST of the declarations named `prefix`... that one real header makes
    visible in C++17 host code, and the macros it defines (`-dM`)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "probe.cpp"
        source.write_text(f"#include <{header}>\n", encoding="utf-8")
        base = [clang, "-x", "c++", "-std=c++17", "-isystem", str(include), str(source)]
        dump = ["-fsyntax-only", "-Xclang", "-ast-dump=json", "-Xclang", f"-ast-dump-filter={prefix}"]
        ast = subprocess.run([*base, *dump], capture_output=True, text=True, check=True)
        defines = subprocess.run([*base, "-E", "-dM"], capture_output=True, text=True, check=True)
    return ast.stdout, defines.stdout


def read_real(include: Path, clang: str) -> list[Signature]:
    found: list[Signature] = []
    for header, prefix in HEADERS.items():
        ast, defines = read_real_header(include, clang, header, prefix)
        found += signatures(ast, defines, header, prefix)
    return found


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="cudacompat.generate.signatures")
    parser.add_argument("include", type=Path, help="the real toolkit's include directory")
    parser.add_argument("--clang", default="clang++-17")
    parser.add_argument(
        "--release", choices=sorted(TABLES), default="12.4", help="the release the header is of"
    )
    parser.add_argument("--output", type=Path, help="default: the release's table beside this module")
    args = parser.parse_args(argv)
    found = read_real(args.include, args.clang)
    output = args.output or TABLES[args.release]
    output.write_text(to_text(found, preamble(args.release)), encoding="utf-8")
    print(f"{len(found)} functions", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
