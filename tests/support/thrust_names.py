"""The public names of Thrust's CUDA system, read from NVIDIA's Thrust headers
(thrust/system/cuda/): what `thrust::cuda::...`, `thrust::system::cuda::...` and
`thrust::cuda_category` name there, and the CUDA error each `errc` enumerator stands for.

A reader of declarations, not a C++ parser: Thrust declares its CUDA system's public names
as using-declarations, alias declarations, typedefs, enumerations and namespaces at namespace
scope, and that is all it reads. Names inside function bodies and `detail` namespaces are
not public and are left out."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DIRECTIVE = re.compile(r"^[ \t]*#.*$", re.M)
_TOKEN = re.compile(
    r"\bnamespace\s+(?P<namespace>\w+)\s*(?P<opens>\{|=\s*[\w:]+\s*;)"
    r"|(?P<brace>[{}])"
    r"|\busing\s+(?:typename\s+)?(?P<used>[\w:]+)\s*;"
    r"|\busing\s+(?P<alias>\w+)\s*="
    r"|\btypedef\s[^;{}]*?(?P<typedef>\w+)\s*;"
    r"|\benum\s+(?P<enum>\w+)\s*\{(?P<enumerators>[^}]*)\}"
    r"|\binline\s+[\w:&<>* ]+?[&*\s](?P<function>\w+)\s*\([^;{)]*\)\s*;"
)
_ENUMERATOR = re.compile(r"\s*(\w+)\s*(?:=\s*(\w+))?\s*")
# The namespaces whose members are Thrust's CUDA system, relative to thrust::.
_PUBLIC = re.compile(r"(?:system::)?cuda::\w+(?:::\w+)?|(?:system::)?cuda_category")


@dataclass(frozen=True)
class ThrustCudaNames:
    names: frozenset[str]  # relative to thrust::, e.g. "cuda::par", "system::cuda::vector"
    namespaces: frozenset[str]  # the namespaces among them, e.g. "cuda::errc"
    # enumerator -> the CUDA error it equals, e.g. "invalid_value" -> "cudaErrorInvalidValue"
    errc: dict[str, str]


def read_declarations(texts: list[str]) -> ThrustCudaNames:
    names: set[str] = set()
    namespaces: set[str] = set()
    errc: dict[str, str] = {}
    for raw in texts:
        text = _DIRECTIVE.sub("", _COMMENT.sub("", raw))
        # THRUST_NAMESPACE_BEGIN is a macro: the text's outermost scope is thrust::.
        scopes: list[str | None] = []
        for token in _TOKEN.finditer(text):
            if token["brace"] == "}":
                if scopes:
                    scopes.pop()
                continue
            # a declaration is public at namespace scope (not in a body), outside `detail`
            public = not (scopes and scopes[-1] is None) and "detail" not in scopes
            where = [scope for scope in scopes if scope]
            if token["brace"] == "{":
                scopes.append(None)
                continue
            if token["namespace"]:  # a namespace opened, or an alias of one
                if token["opens"] == "{":
                    scopes.append(token["namespace"])
                if public and token["namespace"] != "detail":
                    names.add("::".join([*where, token["namespace"]]))
                    namespaces.add("::".join([*where, token["namespace"]]))
                continue
            if not public:
                continue
            declared = token["alias"] or token["typedef"] or token["enum"] or token["function"]
            if token["used"]:
                declared = token["used"].split("::")[-1]
            assert declared is not None
            names.add("::".join([*where, declared]))
            if token["enum"]:
                for enumerator in token["enumerators"].split(","):
                    parts = _ENUMERATOR.fullmatch(enumerator)
                    if parts and parts[1]:
                        names.add("::".join([*where, parts[1]]))
                        if where[-1:] == ["errc"] and parts[2]:
                            errc[parts[1]] = parts[2]
    public = {name for name in names if _PUBLIC.fullmatch(name)}
    return ThrustCudaNames(names=frozenset(public), namespaces=frozenset(namespaces & public), errc=errc)


def read_headers(include: Path) -> ThrustCudaNames:
    """The names NVIDIA's Thrust under `include` (thrust/system/cuda/...) declares."""
    system = include / "thrust" / "system" / "cuda"
    paths = sorted([*system.rglob("*.h"), *system.rglob("*.inl")])
    if not paths:
        raise AssertionError(f"no Thrust CUDA system headers under {system}")
    return read_declarations([path.read_text(encoding="utf-8", errors="replace") for path in paths])


def public_headers(include: Path) -> list[str]:
    """NVIDIA's public headers of the CUDA system (thrust/system/cuda/*.h, not detail/)."""
    system = include / "thrust" / "system" / "cuda"
    return sorted(f"thrust/system/cuda/{path.name}" for path in system.glob("*.h"))


def union(*readings: ThrustCudaNames) -> ThrustCudaNames:
    errc: dict[str, str] = {}
    for reading in readings:
        errc.update(reading.errc)
    return ThrustCudaNames(
        names=frozenset().union(*(r.names for r in readings)),
        namespaces=frozenset().union(*(r.namespaces for r in readings)),
        errc=errc,
    )


@dataclass(frozen=True)
class Probe:
    source: str
    line_of: dict[int, str]  # source line -> the name, or "errc::<enumerator>" for a value check


def probe(inventory: ThrustCudaNames, headers: list[str]) -> Probe:
    """One translation unit that names every inventoried name on a line of its own (a
    using-declaration, or a namespace alias for a namespace) and checks each errc enumerator
    equals its CUDA error: a compile error's line says which name or value is wrong."""
    lines = [f"#include <{header}>" for header in headers]
    lines.append("#include <thrust/system_error.h>")
    line_of: dict[int, str] = {}
    for index, name in enumerate(sorted(inventory.names)):
        if name in inventory.namespaces:
            lines.append(f"namespace probe_{index} = thrust::{name};")
        else:
            lines.append(f"namespace probe_{index} {{ using thrust::{name}; }}")
        line_of[len(lines)] = name
    for enumerator, error in sorted(inventory.errc.items()):
        lines.append(
            f"static_assert(static_cast<int>(thrust::cuda::errc::{enumerator}) == static_cast<int>({error}), "
            f'"{enumerator}");'
        )
        line_of[len(lines)] = f"errc::{enumerator}"
    lines.append("int main() { return 0; }")
    return Probe("\n".join(lines) + "\n", line_of)
