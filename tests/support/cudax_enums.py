"""Every enum of NVIDIA's CUDA-X library headers (cuBLAS, cuRAND, cuSPARSE, cuFFT, cuSOLVER
and library_types.h), read from the real headers of a release, and a probe that switches over
each one: a `case` for every value, the aliases named beside it. Compiled against NVIDIA's
headers it must pass; against ours each failing line names its enum. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HEADERS = (
    "cublas_api.h", "curand.h", "cusparse.h", "cufft.h", "cusolver_common.h", "cusolverDn.h",
    "library_types.h",
)  # fmt: skip
# what a program includes to see all of them
INCLUDES = ("cublas_v2.h", "curand.h", "cusparse.h", "cufft.h", "cusolverDn.h", "library_types.h")

_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_TYPEDEF_ENUM = re.compile(r"typedef\s+enum\s*\w*\s*\{([^{}]*)\}\s*(\w+)\s*;", re.S)
_PROBE_ERROR = re.compile(r"^probe\.(?:cu|cpp):(\d+):\d+: error: (.*)$", re.M)
_NAME = re.compile(r"[A-Za-z_]\w*")
_ITEM = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:=\s*(\S+?)\s*)?", re.S)
_INTEGER = re.compile(r"-?(?:0x[0-9A-Fa-f]+|\d+)[uUlL]*")


@dataclass(frozen=True)
class CudaEnum:
    header: str
    name: str
    members: tuple[tuple[str, int], ...]  # (enumerator, value) in declaration order


def members(body: str) -> tuple[tuple[str, int], ...]:
    """(name, value) of an enum body's enumerators: each a (signed, hexadecimal) number, an
    earlier enumerator, or none (the previous plus one). Anything else is refused: no enum is
    measured with a guessed value."""
    values: dict[str, int] = {}
    following = 0
    for item in body.split(","):
        if not item.strip():
            continue
        parts = _ITEM.fullmatch(item)
        if parts is None:
            raise ValueError(f"an enumerator this reader cannot tell: {item.strip()!r}")
        name, value = parts[1], parts[2]
        if value is None:
            current = following
        elif _INTEGER.fullmatch(value):
            current = int(value.rstrip("uUlL"), 0)
        elif value in values:
            current = values[value]
        else:
            raise ValueError(f"an enumerator this reader cannot tell: {item.strip()!r}")
        values[name] = current
        following = current + 1
    return tuple(values.items())


def read(include: Path) -> list[CudaEnum]:
    """Every `typedef enum {...} NAME;` of HEADERS under `include` (preprocessor lines inside
    an enum's braces dropped: the releases' headers have none that choose between values)."""
    found: list[CudaEnum] = []
    for header in HEADERS:
        text = _COMMENTS.sub("", (include / header).read_text(encoding="utf-8", errors="replace"))
        for body, name in _TYPEDEF_ENUM.findall(text):
            body = "\n".join(line for line in body.splitlines() if not line.strip().startswith("#"))
            found.append(CudaEnum(header, name, members(body)))
    return found


def probe_source(enums: list[CudaEnum]) -> tuple[str, dict[int, str]]:
    """One function per enum switching over it: the first name of each value is a case, the
    other names of that value are used beside it. Returns the source and line -> enum."""
    lines = [f"#include <{header}>" for header in INCLUDES]
    owners: dict[int, str] = {}
    for index, enum in enumerate(enums):
        if not all(_NAME.fullmatch(name) for name, _ in ((enum.name, 0), *enum.members)):
            raise ValueError(f"not a plain enum: {enum}")
        body = [f"int probe_{index}({enum.name} value) {{", "    switch (value) {"]
        seen: dict[int, str] = {}
        aliases = []
        for name, number in enum.members:
            if number in seen:
                aliases.append(f"    (void)static_cast<{enum.name}>({name});")
            else:
                seen[number] = name
                body.append(f"    case {name}: return {len(seen)};")
        body += ["    }", *aliases, "    return 0;", "}"]
        for line in body:
            lines.append(line)
            owners[len(lines)] = enum.name
    return "\n".join(lines) + "\n", owners


def failures(compiler_output: str, owners: dict[int, str]) -> dict[str, str]:
    """enum -> its first error, for every enum whose probe lines the compiler reported."""
    failed: dict[str, str] = {}
    for match in _PROBE_ERROR.finditer(compiler_output):
        owner = owners.get(int(match.group(1)))
        if owner is not None:
            failed.setdefault(owner, match.group(2).strip())
    return failed
