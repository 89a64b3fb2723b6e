"""The real CUDA toolkit's public headers, as facts: each header's path, its include guard,
and the guard and feature macros a CUDA source sees once it includes it.

Read from NVIDIA's headers by `python -m cudacompat.generate.inventory` (run by the tests
against Debian's CUDA packages, never at image build) into cuda_headers.tsv beside this file.
Only names go into that file (paths, macro names, version numbers), never header text.
The image build reads the .tsv to give our headers the same guards and feature macros.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

INVENTORY = Path(__file__).with_name("cuda_headers.tsv")
BASELINE = "<nvcc>"  # what every CUDA source sees: nvcc force-includes cuda_runtime.h
# Sub-directories whose headers are part of the inventory; the rest (thrust, cub, libcu++'s
# cuda/ and nv/, nvtx3's and cooperative_groups' details) are other projects or internals.
SUBDIRECTORIES = ("crt", "cooperative_groups", "nvtx3")

_GUARD_IF = re.compile(r"#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(\w+)\s*\)?)\s*")
_DEFINE = re.compile(r"#\s*define\s+(\w+)(?:[ \t]+(.*))?")
# Macros code tests to learn what a header provides: versions, the type-exists markers and
# the API decorations (cuda-samples' helpers test CUSPARSEAPI, CUBLASAPI, ...).
_FEATURE = re.compile(
    r"[A-Z][A-Z0-9_]*_VER_(?:MAJOR|MINOR|PATCH|BUILD)|[A-Z][A-Z0-9_]*_VERSION|__CUDA_\w+_TYPES_EXIST__|"
    r"[A-Z][A-Z0-9]*API"
)
_NUMBER = re.compile(r"\d+")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


class HeaderFacts(NamedTuple):
    path: str  # relative to include/, e.g. "crt/host_defines.h"
    guard: str  # "" when the header has no classic include guard
    features: tuple[tuple[str, str], ...]  # (name, value): value is a number or ""


class Inventory(NamedTuple):
    headers: tuple[HeaderFacts, ...]
    # path -> macros (guards of inventory headers, feature macros) a CUDA source sees once it
    # includes that header, beyond what the baseline already sees; BASELINE -> the baseline.
    sees: dict[str, tuple[str, ...]]

    def guards(self) -> frozenset[str]:
        return frozenset(h.guard for h in self.headers if h.guard)

    def features(self) -> frozenset[str]:
        return frozenset(name for h in self.headers for name, _ in h.features)

    def header(self, path: str) -> HeaderFacts | None:
        return next((h for h in self.headers if h.path == path), None)


def header_paths(include: Path) -> list[str]:
    paths = [p.name for p in include.iterdir() if p.is_file() and not p.name.startswith(".")]
    for sub in SUBDIRECTORIES:
        directory = include / sub
        if directory.is_dir():
            paths += [f"{sub}/{p.name}" for p in directory.iterdir() if p.is_file()]
    return sorted(paths)


def without_comments(text: str) -> str:
    return _COMMENT.sub(" ", text)


def _directives(text: str) -> list[str]:
    """Preprocessor lines, comments removed and continuations joined."""
    text = without_comments(text.replace("\\\n", " "))
    return [line.strip() for line in text.splitlines() if line.strip().startswith("#")]


# Marks nvcc's internal headers while they are included; never a header's own guard.
_NOT_GUARDS = frozenset({"__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__", "EXCLUDE_FROM_RTC"})


def include_guard(text: str) -> str:
    """X for the first `#ifndef X` / `#if !defined(X)` directly followed by `#define X`."""
    directives = _directives(text)
    for condition_line, define_line in pairwise(directives):
        condition = _GUARD_IF.fullmatch(condition_line)
        define = _DEFINE.fullmatch(define_line)
        if condition and define:
            name = condition.group(1) or condition.group(2)
            if define.group(1) == name and name not in _NOT_GUARDS:
                return name
    return ""


def feature_macros(text: str) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for directive in _directives(text):
        match = _DEFINE.fullmatch(directive)
        if match and _FEATURE.fullmatch(match.group(1)):
            value = (match.group(2) or "").strip()
            previous = found.get(match.group(1))
            number = value if _NUMBER.fullmatch(value) else ""
            found[match.group(1)] = number if previous in (None, number) else ""
    return tuple(sorted(found.items()))


def facts(include: Path, path: str) -> HeaderFacts:
    text = (include / path).read_text(encoding="utf-8", errors="replace")
    return HeaderFacts(path, include_guard(text), feature_macros(text))


def defined_macros(dump: str) -> frozenset[str]:
    """Names from `-dM` output."""
    return frozenset(m.group(1) for line in dump.splitlines() if (m := _DEFINE.fullmatch(line.strip())))


def visible(dump: str, known: Iterable[str]) -> tuple[str, ...]:
    names = defined_macros(dump)
    return tuple(sorted(name for name in known if name in names))


# --- the .tsv -------------------------------------------------------------------------------


def to_text(inventory: Inventory) -> str:
    lines = [
        "# The CUDA toolkit's public headers (NVIDIA CUDA 12.4 as Debian packages it): facts only.",
        "# Written by `python -m cudacompat.generate.inventory INCLUDE_DIR NVCC`; tests check it.",
        "# path\tguard\tfeature macros (name=value)\tmacros seen once included (.cu: beyond <nvcc>; .cpp)",
    ]
    baseline = inventory.sees.get(BASELINE, ())
    lines.append(f"{BASELINE}\t\t\t{' '.join(baseline)}")
    for header in inventory.headers:
        features = " ".join(f"{name}={value}" for name, value in header.features)
        sees = " ".join(inventory.sees.get(header.path, ()))
        lines.append(f"{header.path}\t{header.guard}\t{features}\t{sees}")
    return "\n".join(lines) + "\n"


def from_text(text: str) -> Inventory:
    headers: list[HeaderFacts] = []
    sees: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        path, guard, features, seen = [*line.split("\t"), "", "", ""][:4]
        sees[path] = tuple(seen.split())
        if path == BASELINE:
            continue
        pairs = tuple(tuple(item.split("=", 1)) for item in features.split())
        headers.append(HeaderFacts(path, guard, tuple((n, v) for n, v in pairs)))
    return Inventory(tuple(headers), sees)


def load() -> Inventory:
    return from_text(INVENTORY.read_text(encoding="utf-8"))


_ARITHMETIC = re.compile(r"[0-9+*/() \t-]+")


def _preprocess(nvcc: Path, include: Path, source: str, suffix: str, *flags: str) -> tuple[int, str]:
    """`source` through the real nvcc's preprocessor (`nvcc -E`, with the real headers)."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / f"probe{suffix}"
        path.write_text(source, encoding="utf-8")
        result = subprocess.run(
            [str(nvcc), "-E", *flags, f"-I{include}", str(path)], capture_output=True, text=True,
            env={"PATH": f"{nvcc.parent}:/usr/bin:/bin"}, cwd=scratch,
        )  # fmt: skip
    return result.returncode, result.stdout


def _with_values(headers: tuple[HeaderFacts, ...], include: Path, nvcc: Path) -> tuple[HeaderFacts, ...]:
    """Version macros defined by an expression (CUBLAS_VERSION, ...) get their number, as the
    real preprocessor computes it; API decorations and markers keep an empty value."""
    wanted = sorted({name for h in headers for name, value in h.features if not value and "VER" in name})
    includes = "".join(f"#include <{h.path}>\n" for h in headers if any(n in wanted for n, _ in h.features))
    probe = includes + "".join(f"MB_VALUE_{name} = ({name});\n" for name in wanted)
    _, output = _preprocess(nvcc, include, probe, ".cu")
    values: dict[str, str] = {}
    for line in output.splitlines():
        if line.startswith("MB_VALUE_"):
            name, _, expression = line[len("MB_VALUE_") :].partition(" = ")
            expression = expression.rstrip(";").strip()
            if _ARITHMETIC.fullmatch(expression) and any(c.isdigit() for c in expression):
                value = eval(expression, {"__builtins__": {}})  # digits and operators only
                if isinstance(value, int):
                    values[name] = str(value)
    return tuple(
        h._replace(features=tuple((n, v or values.get(n, "")) for n, v in h.features)) for h in headers
    )


def main(argv: list[str] | None = None) -> int:
    """Read the real headers (and, with the real nvcc, what each makes visible) into the .tsv."""
    import argparse

    parser = argparse.ArgumentParser(prog="cudacompat.generate.inventory")
    parser.add_argument("include", type=Path, help="the real toolkit's include directory")
    parser.add_argument("nvcc", type=Path, help="the real nvcc (for what each header makes visible)")
    parser.add_argument("--output", type=Path, default=INVENTORY)
    args = parser.parse_args(argv)
    headers = tuple(facts(args.include, path) for path in header_paths(args.include))
    known = {h.guard for h in headers if h.guard} | {name for h in headers for name, _ in h.features}

    def seen_by(source: str, suffix: str = ".cu") -> tuple[str, ...] | None:
        code, output = _preprocess(args.nvcc, args.include, source, suffix, "-Xcompiler", "-dM")
        return visible(output, known) if code == 0 else None

    headers = _with_values(headers, args.include, args.nvcc)
    baseline = seen_by("") or ()
    sees: dict[str, tuple[str, ...]] = {BASELINE: baseline}
    for header in headers:
        # In a CUDA source (beyond what nvcc's force-included cuda_runtime.h brings) and in a
        # host C++ source (where curand.h, say, brings cuda_runtime.h's headers itself).
        # Headers real nvcc cannot include alone (platform-specific, or internal ones that
        # #error outside their parent) add nothing.
        in_cuda = seen_by(f"#include <{header.path}>\n") or ()
        in_cxx = seen_by(f"#include <{header.path}>\n", ".cpp") or ()
        sees[header.path] = tuple(sorted({m for m in in_cuda if m not in baseline} | set(in_cxx)))
    args.output.write_text(to_text(Inventory(headers, sees)), encoding="utf-8")
    print(f"{len(headers)} headers, {len(baseline)} macros every CUDA source sees", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
