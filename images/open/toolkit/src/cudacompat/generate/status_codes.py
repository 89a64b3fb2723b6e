"""CUDA's status codes, every one: the runtime's cudaError_t, the driver's CUresult and the
CUDA-X libraries' status enums, each with CUDA's whole value set (and enums of another kind
that code switches over the same way, such as cudaMemLocationType).

HIP names only some of them (HIP 5.7: 74 of CUDA 12.4's 127 runtime errors, 61 of its 96
driver errors; hipSOLVER 12 of cuSOLVER's 25 statuses), and a mapping may fold two CUDA
statuses into one HIP status (hipify maps CUSOLVER_STATUS_IRS_INTERNAL_ERROR to
HIPSOLVER_STATUS_INTERNAL_ERROR). Code that switches over every status (error-name helpers,
Thrust's `errc`, retry policies) needs each name, each a value of its own as in CUDA, and an
enumerator of the type it switches over (a case outside the enum warns). So, per enum:

- where mapped names of different CUDA values share one HIP status, the one HIP names (same
  suffix), else the smallest, keeps it, and the others are unmapped;
- an unmapped name whose CUDA value a mapped name of the same enum has (CUDA's aliases, the
  runtime and driver names of one error) takes that name's HIP status;
- any other becomes an enumerator of the HIP enum, added at its end in a shadowed copy of
  the HIP header: CUDA's value where no HIP status has it, else a value above all of them.

HIP's library calls return HIP's statuses, which keep comparing equal to the CUDA names
mapped to them; the added ones are CUDA's alone.

The CUDA names and values come from NVIDIA's headers of each mimicked release (CUDA 12.4's,
and CUDA 13.0's as its PyPI wheels carry them), read by `python -m
cudacompat.generate.status_codes 12.4=INCLUDE_DIR 13.0=INCLUDE_DIR` into cuda_statuses.tsv
beside this file (names, numbers and the releases that declare each); the tests check it is
current. A toolkit mimicking another release takes the table's newest release not after it
(12.4's for 12.1 and 11.8).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from . import releases
from .releases import RELEASES

STATUSES = Path(__file__).with_name("cuda_statuses.tsv")
_ENUMERATOR = re.compile(r"\s*([A-Za-z_]\w*)\s*(?:=\s*(\w+)\s*)?", re.S)
_NUMBER = re.compile(r"0x[0-9a-fA-F]+|\d+")
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


@dataclass(frozen=True)
class CudaEnum:
    header: str  # NVIDIA's header
    opening: str  # a pattern that ends at the enum's `{`
    prefix: str  # its enumerators'; the success name too, where it has another


@dataclass(frozen=True)
class StatusEnum:
    key: str  # the column of cuda_statuses.tsv
    family: str  # the mapping family that holds the CUDA names
    cuda: tuple[CudaEnum, ...]
    hip_header: str  # under the system include directory
    hip_enum: str  # the type the HIP header's `} NAME;` closes
    hip_prefix: str  # its enumerators'
    # the shadow holds a copy of the whole library directory: its headers include each other
    # by relative path ("internal/hipsolver-types.h"), which a lone shadowed header would miss
    whole_library: bool = False
    # where other stacks' HIP declares the enum instead (HIP 7 moved some to driver_types.h)
    other_hip_headers: tuple[str, ...] = ()


ENUMS = (
    StatusEnum(
        "runtime",
        "runtime",
        (
            CudaEnum("driver_types.h", r"enum\s+(?:__device_builtin__\s+)?cudaError\s*\{", "cuda"),
            CudaEnum("cuda.h", r"enum\s+cudaError_enum\s*\{", "CUDA_"),
        ),
        "hip/hip_runtime_api.h",
        "hipError_t",
        "hip",
    ),
    # not a status, but CUDA code switches over it too, and CUDA 12.2's host locations are
    # what prefetch and advice by location take (HIP 5.7 and 6.4 name devices only)
    StatusEnum(
        "mem_location",
        "runtime",
        (
            CudaEnum(
                "driver_types.h",
                r"enum\s+__device_builtin__\s+cudaMemLocationType\s*\{",
                "cudaMemLocationType",
            ),
        ),
        "hip/hip_runtime_api.h",
        "hipMemLocationType",
        "hipMemLocationType",
        other_hip_headers=("hip/driver_types.h",),
    ),
    StatusEnum(
        "cufft",
        "cufft",
        (CudaEnum("cufft.h", r"typedef\s+enum\s+cufftResult_t\s*\{", "CUFFT_"),),
        "hipfft/hipfft.h",
        "hipfftResult",
        "HIPFFT_",
        whole_library=True,
    ),
    StatusEnum(
        "cusolver",
        "cusolver",
        (
            CudaEnum(
                "cusolver_common.h",
                r"typedef\s+enum\s*\{(?=[^}]*CUSOLVER_STATUS_SUCCESS)",
                "CUSOLVER_STATUS_",
            ),
        ),
        "hipsolver/internal/hipsolver-types.h",
        "hipsolverStatus_t",
        "HIPSOLVER_STATUS_",
        whole_library=True,
    ),
)
ENUM_OF = {spec.key: spec for spec in ENUMS}


@dataclass(frozen=True)
class StatusCode:
    enum: str  # a StatusEnum's key
    name: str
    value: int
    releases: tuple[str, ...] = RELEASES  # the CUDA releases (of RELEASES) that declare it


def of_release(codes: Iterable[StatusCode], cuda_version: str) -> list[StatusCode]:
    """The codes NVIDIA's headers of the release `cuda_version` maps to declare."""
    release = releases.release_of(cuda_version)
    return [code for code in codes if release in code.releases]


def removed_by(codes: Iterable[StatusCode], cuda_version: str) -> frozenset[str]:
    """The names an older release declares and the release `cuda_version` maps to does not
    (CUDA 13 removed three cuFFT results): no mapping may give them back."""
    release = releases.release_of(cuda_version)
    older = set(releases.RELEASES[: releases.RELEASES.index(release)])
    return frozenset(
        code.name for code in codes if release not in code.releases and older & set(code.releases)
    )


def read_releases(includes: Mapping[str, Path]) -> list[StatusCode]:
    """The codes of every release (release -> NVIDIA's include directory), each once with the
    releases that declare it, in the order the releases list them (the newest adds at the end)."""
    seen: dict[tuple[str, str, int], list[str]] = {}
    for release in RELEASES:
        for code in read_real(includes[release]):
            seen.setdefault((code.enum, code.name, code.value), []).append(release)
    return [StatusCode(enum, name, value, tuple(found)) for (enum, name, value), found in seen.items()]


def enumerators(body: str) -> dict[str, int]:
    """name -> value of an enum body's enumerators (between its braces): a number, an earlier
    enumerator's name, or none (the previous plus one, as hipErrorTbd is); commas may lead
    lines (`, cudaMemLocationTypeHost = 2`). One of another form, and the implicit ones after
    it, are left out."""
    values: dict[str, int] = {}
    following: int | None = 0
    for item in _COMMENTS.sub("", body).split(","):
        parts = _ENUMERATOR.fullmatch(item)
        if parts is None:
            following = None if item.strip() else following
            continue
        name, value = parts[1], parts[2]
        if value is None:
            current = following
        elif _NUMBER.fullmatch(value):
            current = int(value, 0)
        else:
            current = values.get(value)
        if current is not None:
            values[name] = current
        following = None if current is None else current + 1
    return values


def read_real(include: Path) -> list[StatusCode]:
    """Every enumerator of ENUMS' CUDA enums NVIDIA's headers under `include` declare."""
    codes: list[StatusCode] = []
    for spec in ENUMS:
        for cuda in spec.cuda:
            text = (include / cuda.header).read_text(encoding="utf-8", errors="replace")
            start = re.search(cuda.opening, text)
            if start is None:
                raise ValueError(f"{cuda.header} has no enum matching {cuda.opening}")
            body = text[start.end() : text.index("}", start.end())]
            for name, value in enumerators(body).items():
                if name.startswith(cuda.prefix):
                    codes.append(StatusCode(spec.key, name, value))
    return codes


def to_text(codes: Iterable[StatusCode]) -> str:
    lines = [
        "# The status codes NVIDIA's CUDA headers declare (cudaError_t, CUresult, cufftResult,",
        "# cusolverStatus_t): names, values and the releases declaring each. Written by",
        "# `python -m cudacompat.generate.status_codes 12.4=INCLUDE_DIR 13.0=INCLUDE_DIR`; tests check it.",
        "# enum\tname\tvalue\treleases",
    ]
    lines += [f"{code.enum}\t{code.name}\t{code.value}\t{','.join(code.releases)}" for code in codes]
    return "\n".join(lines) + "\n"


def from_text(text: str) -> list[StatusCode]:
    codes = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            enum, name, value, declared = line.split("\t")
            codes.append(StatusCode(enum, name, int(value), tuple(declared.split(","))))
    return codes


def load(path: Path = STATUSES) -> list[StatusCode]:
    return from_text(path.read_text(encoding="utf-8"))


def _hip_body(text: str, hip_enum: str) -> tuple[int, int] | None:
    """The span of the HIP enum's enumerators: from after its `{` to its `} NAME;`."""
    end = re.search(r"\}\s*" + re.escape(hip_enum) + r"\s*;", text)
    if end is None:
        return None
    start = text.rfind("{", 0, end.start())
    return None if start < 0 else (start + 1, end.start())


def hip_values(text: str, spec: StatusEnum) -> dict[str, int]:
    """The HIP enum's enumerators and values (an enumerator without `= N` is the previous plus
    one, as hipErrorTbd is), from the text of its header."""
    span = _hip_body(text, spec.hip_enum)
    if span is None:
        raise ValueError(f"{spec.hip_header} declares no {spec.hip_enum}")
    values = enumerators(text[span[0] : span[1]])
    return {name: value for name, value in values.items() if name.startswith(spec.hip_prefix)}


@dataclass(frozen=True)
class Definitions:
    unmapped: frozenset[str]  # mapped names that must not be: they folded into another's status
    aliases: dict[str, str]  # CUDA name -> the HIP status of the same CUDA value
    values: dict[str, int]  # CUDA name -> its value, a new enumerator of the HIP enum


def _suffix(name: str, prefix: str) -> str:
    return name[len(prefix) :] if name.startswith(prefix) else name


def definitions(
    codes: Iterable[StatusCode], spec: StatusEnum, mapped: Mapping[str, str], hip: Mapping[str, int]
) -> Definitions:
    """What each CUDA status of `spec` the mappings lack, or fold, becomes. `mapped` is CUDA
    name -> HIP name for the mappings of the family, `hip` the HIP enum's values."""
    codes = [code for code in codes if code.enum == spec.key]
    prefix_of = {
        code.name: next(c.prefix for c in spec.cuda if code.name.startswith(c.prefix)) for code in codes
    }
    sharing: dict[str, list[StatusCode]] = defaultdict(list)
    for code in codes:
        if mapped.get(code.name) in hip:
            sharing[mapped[code.name]].append(code)
    unmapped: set[str] = set()
    for hip_name, group in sharing.items():
        if len({code.value for code in group}) < 2:
            continue
        named = [c for c in group if _suffix(c.name, prefix_of[c.name]) == _suffix(hip_name, spec.hip_prefix)]
        keeper = named[0] if named else min(group, key=lambda c: c.value)
        unmapped |= {c.name for c in group if c.value != keeper.value}
    hip_of_value = {
        code.value: mapped[code.name]
        for code in codes
        if mapped.get(code.name) in hip and code.name not in unmapped
    }
    taken = set(hip.values())
    spare = max([*taken, *(code.value for code in codes)], default=0) + 1
    value_of: dict[int, int] = {}
    aliases: dict[str, str] = {}
    values: dict[str, int] = {}
    for code in codes:
        if mapped.get(code.name) in hip and code.name not in unmapped:
            continue
        if code.value in hip_of_value:
            aliases[code.name] = hip_of_value[code.value]
            continue
        if code.value not in value_of:
            if code.value in taken:
                value_of[code.value], spare = spare, spare + 1
            else:
                value_of[code.value] = code.value
            taken.add(value_of[code.value])
        values[code.name] = value_of[code.value]
    return Definitions(frozenset(unmapped), aliases, values)


def header(defined: Iterable[Definitions]) -> str:
    """The aliases as mappings are (`#define cudaX hipX`), and the new enumerators named by
    macros of their own name, so `#ifdef cudaX` finds every CUDA status as it finds a mapping.
    Included after the mapping headers, which leave out the unmapped names."""
    lines = [
        "/* moatbridge: CUDA's status codes HIP has no name for, or folds into another's (generated",
        "   by cudacompat/generate/status_codes.py): the HIP status of the same CUDA value, or an",
        "   enumerator the shadowed HIP header adds to the HIP enum. */",
        "#pragma once",
    ]
    for each in defined:
        for name, hip_name in each.aliases.items():
            lines += [f"#ifndef {name}", f"#define {name} {hip_name}", "#endif"]
        for name in each.values:
            lines += [f"#ifndef {name}", f"#define {name} {name}", "#endif"]
    return "\n".join(lines) + "\n"


def with_status_codes(text: str, spec: StatusEnum, defined: Definitions) -> str | None:
    """The HIP header with the new enumerators at the end of its enum (after the last, whose
    value may count on from the one before it), so a switch over the CUDA type with them is
    a switch over the enum's own values, as in CUDA. None if the header does not have the
    expected shape."""
    span = _hip_body(text, spec.hip_enum)
    if span is None:
        return None
    if not defined.values:
        return text
    # after the last enumerator's line (its comment ends there), or before the `}` sharing it
    end = text.rfind("\n", span[0], span[1])
    if end < 0 or text[end : span[1]].strip():
        end = span[1]
    # HIP's list may end with a comma (hipSOLVER's does) or not (hipError_t's)
    trailing = _COMMENTS.sub("", text[span[0] : span[1]]).rstrip().endswith(",")
    lead = "" if trailing else ", "
    added = [f"{name} = {value}" for name, value in defined.values.items()]
    insert = "\n    /* moatbridge: CUDA's status codes HIP has no name for (status_codes.py) */\n    "
    insert += lead + ",\n    ".join(added) + ("," if trailing else "")
    return text[:end] + insert + text[end:]


def for_family(
    family: str, codes: list[StatusCode], mapped: Mapping[str, str], system_include: Path
) -> list[tuple[StatusEnum, Definitions]]:
    """The definitions of the status enums whose CUDA names `family` maps (none where the
    stack lacks the HIP header)."""
    found = []
    for spec in ENUMS:
        if spec.family != family:
            continue
        for header in (spec.hip_header, *spec.other_hip_headers):
            path = system_include / header
            text = path.read_text(encoding="utf-8") if path.is_file() else ""
            if _hip_body(text, spec.hip_enum) is not None:
                here = replace(spec, hip_header=header)
                found.append((here, definitions(codes, here, mapped, hip_values(text, here))))
                break
    return found


def write_shadows(
    shadow_root: Path, system_include: Path, defined: list[tuple[StatusEnum, Definitions]]
) -> int:
    """Each HIP header with its new enumerators, under `shadow_root` (over a shadow already
    there, e.g. hip_runtime_api.h without [[nodiscard]]); the whole library beside it where
    its headers include each other by relative path. Returns the enumerators added."""
    added = 0
    for spec, each in defined:
        if not each.values:
            continue  # HIP's header as it is
        target = shadow_root / spec.hip_header
        if spec.whole_library:
            library = spec.hip_header.split("/", 1)[0]
            for source in sorted((system_include / library).rglob("*")):
                copy = shadow_root / library / source.relative_to(system_include / library)
                if source.is_file() and not copy.exists():
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    copy.write_bytes(source.read_bytes())
        base = target if target.is_file() else system_include / spec.hip_header
        changed = with_status_codes(base.read_text(encoding="utf-8"), spec, each)
        if changed is None:
            raise RuntimeError(f"{spec.hip_header} has no {spec.hip_enum} of the expected shape")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(changed, encoding="utf-8")
        added += len(each.values)
    return added


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="cudacompat.generate.status_codes")
    parser.add_argument(
        "includes", nargs="+", metavar="RELEASE=DIR", help="NVIDIA's include directory of each release"
    )
    parser.add_argument("--output", type=Path, default=STATUSES)
    args = parser.parse_args(argv)
    try:
        includes = releases.include_arguments(args.includes)
    except ValueError as error:
        parser.error(str(error))
    codes = read_releases(includes)
    args.output.write_text(to_text(codes), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
