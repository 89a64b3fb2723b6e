"""CUDA's error codes, every one: the runtime's cudaError_t and the driver's CUresult.

HIP has one hipError_t for both, and names only some of CUDA's errors (HIP 5.7: 74 of
CUDA 12.4's 127 runtime errors, 61 of its 96 driver errors). Code that switches over every
CUDA error (error-name helpers, Thrust's `errc`, retry policies) needs them all, each a
value of its own as in CUDA. A mapping is a `#define cudaX hipX`; the names HIP lacks are
defined here the same way, by the CUDA value:

- a name whose CUDA value another CUDA name of the same value maps to (CUDA's deprecated
  aliases, and the runtime and driver names of one error) takes that name's HIP error;
- otherwise the CUDA value itself, where no HIP error has it, else the first value above
  HIP's that none has. Values stay within hipError_t's range (below 2048, the width HIP's
  largest enumerator gives it), so a constant expression may convert to it.

The CUDA names and values come from NVIDIA's CUDA 12.4 headers (driver_types.h, cuda.h),
read by `python -m cudacompat.generate.error_codes INCLUDE_DIR` into cuda_errors.tsv beside
this file (names and numbers only); the tests check it is current.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ERRORS = Path(__file__).with_name("cuda_errors.tsv")
# (header, the enum's opening, the enumerators' prefix)
_REAL_ENUMS = (
    ("driver_types.h", re.compile(r"enum\s+(?:__device_builtin__\s+)?cudaError\s*\{"), "cudaError"),
    ("cuda.h", re.compile(r"enum\s+cudaError_enum\s*\{"), "CUDA_ERROR_"),
)
_ENUMERATOR = re.compile(r"^\s*(\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)\s*,?", re.M)
_HIP_ENUM = re.compile(r"enum\s+(?:\w+\s+)*hipError_t\s*\{")
_HIP_ENUMERATOR = re.compile(r"\s*(hip\w+)\s*(?:=\s*(\d+)\s*)?", re.S)
_CUDA_SUCCESS = ("cudaSuccess", "CUDA_SUCCESS")
# hipError_t's largest value is below 2048: values above it up to here keep the enum's range.
FIRST_SPARE = 1100
LAST_SPARE = 2047


@dataclass(frozen=True)
class ErrorCode:
    name: str
    value: int


def read_real(include: Path) -> list[ErrorCode]:
    """Every cudaError_t and CUresult enumerator NVIDIA's headers under `include` declare."""
    codes: list[ErrorCode] = []
    for header, opening, prefix in _REAL_ENUMS:
        text = (include / header).read_text(encoding="utf-8", errors="replace")
        start = opening.search(text)
        if start is None:
            raise ValueError(f"{header} has no {opening.pattern}")
        body = text[start.end() : text.index("}", start.end())]
        body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
        for match in _ENUMERATOR.finditer(body):
            if match[1].startswith(prefix) or match[1] in _CUDA_SUCCESS:
                codes.append(ErrorCode(match[1], int(match[2], 0)))
    return codes


def to_text(codes: Iterable[ErrorCode]) -> str:
    lines = [
        "# The error codes NVIDIA's CUDA 12.4 headers declare (driver_types.h's cudaError, cuda.h's",
        "# cudaError_enum): names and values only. Written by `python -m cudacompat.generate.error_codes",
        "# INCLUDE_DIR`; tests check it.",
        "# name\tvalue",
    ]
    lines += [f"{code.name}\t{code.value}" for code in codes]
    return "\n".join(lines) + "\n"


def from_text(text: str) -> list[ErrorCode]:
    codes = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.split("\t")
            codes.append(ErrorCode(name, int(value)))
    return codes


def load(path: Path = ERRORS) -> list[ErrorCode]:
    return from_text(path.read_text(encoding="utf-8"))


def hip_values(hip_runtime_api: str) -> dict[str, int]:
    """hipError_t's enumerators and values (an enumerator without `= N` is the previous plus
    one, as hipErrorTbd is), from the text of HIP's hip_runtime_api.h."""
    start = _HIP_ENUM.search(hip_runtime_api)
    if start is None:
        raise ValueError("hip_runtime_api.h declares no enum hipError_t")
    body = hip_runtime_api[start.end() : hip_runtime_api.index("}", start.end())]
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.S)
    values: dict[str, int] = {}
    following = 0
    for item in body.split(","):
        parts = _HIP_ENUMERATOR.fullmatch(item)
        if parts is None:
            continue
        following = int(parts[2]) if parts[2] is not None else following
        values[parts[1]] = following
        following += 1
    return values


@dataclass(frozen=True)
class Definitions:
    aliases: dict[str, str]  # CUDA name -> the HIP error of the same CUDA value
    values: dict[str, int]  # CUDA name -> its value, a new enumerator of hipError_t


def definitions(codes: Iterable[ErrorCode], mapped: Mapping[str, str], hip: Mapping[str, int]) -> Definitions:
    """What each CUDA error the mappings lack becomes. `mapped` is CUDA name -> HIP name for
    the errors the mappings give, `hip` hipError_t's values."""
    codes = list(codes)
    hip_of_value: dict[int, str] = {}
    for code in codes:
        if code.name in mapped and mapped[code.name] in hip:
            hip_of_value.setdefault(code.value, mapped[code.name])
    taken = set(hip.values())
    if max(taken, default=0) >= FIRST_SPARE:
        raise ValueError(f"HIP has an error value from {FIRST_SPARE} up: the spare range must move")
    spare = iter(range(FIRST_SPARE, LAST_SPARE + 1))
    value_of: dict[int, int] = {}
    aliases: dict[str, str] = {}
    values: dict[str, int] = {}
    for code in codes:
        if code.name in mapped:
            continue
        if code.value in hip_of_value:
            aliases[code.name] = hip_of_value[code.value]
            continue
        if code.value not in value_of:
            value_of[code.value] = code.value if code.value not in taken else next(spare)
            taken.add(value_of[code.value])
        values[code.name] = value_of[code.value]
    return Definitions(aliases, values)


def header(defined: Definitions) -> str:
    """The aliases as mappings are (`#define cudaX hipX`), and the new enumerators named by
    macros of their own name, so `#ifdef cudaX` finds every CUDA error as it finds a mapping."""
    lines = [
        "/* moatbridge: CUDA's error codes HIP has no name for (generated by",
        "   cudacompat/generate/error_codes.py): the HIP error of the same CUDA value, or an",
        "   enumerator the shadowed hip_runtime_api.h adds to hipError_t. */",
        "#pragma once",
    ]
    for name, hip_name in defined.aliases.items():
        lines += [f"#ifndef {name}", f"#define {name} {hip_name}", "#endif"]
    for name in defined.values:
        lines += [f"#ifndef {name}", f"#define {name} {name}", "#endif"]
    return "\n".join(lines) + "\n"


_HIP_ENUM_END = re.compile(r"\n\}\s*hipError_t\s*;")


def with_error_codes(hip_runtime_api: str, defined: Definitions) -> str | None:
    """HIP's runtime API with the new enumerators at the end of hipError_t (after hipErrorTbd,
    whose value counts on from the one before it), so a switch over cudaError_t with them
    is a switch over the enum's own values, as in CUDA. None if the header does not have the
    expected shape."""
    start = _HIP_ENUM.search(hip_runtime_api)
    if start is None:
        return None
    end = _HIP_ENUM_END.search(hip_runtime_api, start.end())
    if end is None or not defined.values:
        return None if end is None else hip_runtime_api
    added = "".join(f"    , {name} = {value}\n" for name, value in defined.values.items())
    insert = (
        "\n    /* moatbridge: CUDA's error codes HIP has no name for (error_codes.py) */\n"
        + added.rstrip("\n")
    )
    return hip_runtime_api[: end.start()] + insert + hip_runtime_api[end.start() :]


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="cudacompat.generate.error_codes")
    parser.add_argument("include", type=Path, help="NVIDIA's CUDA include directory")
    parser.add_argument("--output", type=Path, default=ERRORS)
    args = parser.parse_args(argv)
    args.output.write_text(to_text(read_real(args.include)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
