"""Mappings that collide with the hand-written headers, found by compiling them.

A mapping `#define cudaX hipX` is emitted when the stack's HIP declares hipX (probe.py). The
hand-written headers (toolkit/include in the image context) define some CUDA names themselves,
on purpose: a fuller enum than HIP's (cudaLaunchAttributeID), a placeholder for an attribute
an older HIP lacked (cudaDevAttrHostRegisterSupported). Where a newer HIP declares the HIP name
too, the mapping turns the hand-written definition into a second definition of HIP's name.

This probe compiles every provided header the way nvcc compiles a CUDA source, reads each
"redefinition of 'hipX'" (and its kin) located in a hand-written header, and drops the mapping
whose HIP name is hipX and whose CUDA name is on that line: the hand-written definition wins,
as it was written to. A hand-written `#define cudaX` after a mapping's is the same collision
(clang's macro-redefined warning, made an error here): that mapping is dropped too. Repeated
until the headers hold no such collision (a dropped type's enumerators collide next).
Hand-written code that must know whether a name is its own or HIP's tests `#ifdef cudaX` (a
mapping is a macro). Other errors are returned for the report.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .mappings import Dropped, Mapping

_ERROR = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):\d+: error: (?P<message>.*)$", re.M)
# How clang words a second definition of one name.
_KINDS = (
    "redefinition", "conflicting types", "conflicts with typedef of the same name",
    "static declaration of",  # a hand-written static fallback for a function HIP gained
)  # fmt: skip
# What resolve adds: a macro redefined in any header (the provided ones are system headers)
# is an error, so a hand-written #define after a mapping's shows.
MACRO_COLLISIONS = ("-Wno-everything", "-Wsystem-headers", "-Werror=macro-redefined")
_TYPEDEF_NAME = re.compile(r"\b(\w+)\s*;\s*$")
ROUNDS = 12


@dataclass(frozen=True)
class Collision:
    mapping: Mapping
    where: str  # header:line, relative to include/


def probe_source(headers: Iterable[str]) -> str:
    return "".join(f"#include <{path}>\n" for path in headers)


def compile_flags(include: Path, cuda_version: str, warnings: bool = False) -> list[str]:
    """A host-only syntax check of CUDA code against the layer's headers; `warnings`: keep
    the compiler's warnings (macro redefinitions are how a collision shows)."""
    major, minor = cuda_version.split(".")[:2]
    return [
        "-x", "hip", "--cuda-host-only", "-nogpulib", "-fsyntax-only", "-ferror-limit=0",
        *([] if warnings else ["-w"]),
        "-isystem", str(include / "moatbridge" / "shadow"), "-isystem", str(include),
        "-include", "moatbridge/nvcc_prelude.h",
        f"-D__CUDACC_VER_MAJOR__={major}", f"-D__CUDACC_VER_MINOR__={minor}", "-D__CUDACC_VER_BUILD__=0",
        f"-D__CUDA_API_VER_MAJOR__={major}", f"-D__CUDA_API_VER_MINOR__={minor}",
        "-D__CUDA_ARCH_LIST__=860", "-D__MOATBRIDGE_CUDA_ARCH__=860", "-D__CUDACC_EXTENDED_LAMBDA__=1",
    ]  # fmt: skip


def _hand_written(path: str, include: Path) -> str | None:
    """`path` relative to include/ when it is a hand-written header (not generated, not HIP's)."""
    try:
        relative = Path(path).resolve().relative_to(include.resolve()).as_posix()
    except ValueError:
        return None
    if relative.startswith(("moatbridge/generated/", "moatbridge/shadow/")):
        return None
    return relative


def collisions(stderr: str, include: Path, mappings: Sequence[Mapping]) -> tuple[list[Collision], list[str]]:
    """The mappings behind each redefinition in a hand-written header; the other errors."""
    by_hip: dict[str, list[Mapping]] = {}
    for mapping in mappings:
        by_hip.setdefault(mapping.hip, []).append(mapping)
    found: dict[str, Collision] = {}
    others: list[str] = []
    for error in _ERROR.finditer(stderr):
        relative = _hand_written(error.group("file"), include)
        line_no = int(error.group("line"))
        message = error.group("message")
        source_line = ""
        if relative is not None:
            lines = (include / relative).read_text(encoding="utf-8", errors="replace").splitlines()
            source_line = lines[line_no - 1] if 0 < line_no <= len(lines) else ""
        names = re.findall(r"'(\w+)'", message)
        if "macro redefined" in message:
            # Only a hand-written header's is a collision; clang's own predefined macros and
            # HIP's headers redefine some as a matter of course.
            hits = [m for m in mappings if relative is not None and names and m.cuda == names[0]]
            if hits:
                found.setdefault(hits[0].cuda, Collision(hits[0], f"{relative}:{line_no}"))
            continue
        if any(kind in message for kind in _KINDS):
            typedef = None
            if "typedef redefinition" in message:
                # the message names both types, not the typedef: the line names it, as CUDA spells it
                match = _TYPEDEF_NAME.search(source_line)
                typedef = match.group(1) if match else None
                names = []
            hits = [m for m in mappings if relative is not None and m.cuda == typedef]
            hits += [
                m
                for name in names
                for m in by_hip.get(name, [])
                if relative is not None and re.search(rf"\b{re.escape(m.cuda)}\b", source_line)
            ]
            if hits:
                for mapping in hits:
                    found.setdefault(mapping.cuda, Collision(mapping, f"{relative}:{line_no}"))
                continue
        others.append(f"{relative or error.group('file')}:{line_no}: {message}")
    return list(found.values()), others


def compile_source(clangxx: str, include: Path, cuda_version: str, source_text: str) -> str:
    """Compile ``source_text`` (as probe.cu) against the provided headers the way nvcc would;
    the compiler's messages, with the file called probe.cu."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "probe.cu")
        source.write_text(source_text, encoding="utf-8")
        result = subprocess.run(
            [clangxx, *compile_flags(include, cuda_version), "probe.cu"],
            capture_output=True, text=True, check=False, cwd=scratch,
        )  # fmt: skip
    return result.stderr


def resolve(
    clangxx: str, include: Path, headers: Sequence[str], cuda_version: str,
    mappings: dict[str, list[Mapping]], write_family: Callable[[str, list[Mapping]], None],
) -> tuple[list[Dropped], list[str]]:  # fmt: skip
    """Drop the colliding mappings (rewriting their families' headers through `write_family`)
    until the provided headers compile without a collision; returns what was dropped and the
    errors that remain (none on a stack the layer supports: the report lists them)."""
    dropped: list[Dropped] = []
    others: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "headers.cu")
        source.write_text(probe_source(headers), encoding="utf-8")
        for _round in range(ROUNDS):
            flags = compile_flags(include, cuda_version, warnings=True)
            result = subprocess.run(
                [clangxx, *flags, *MACRO_COLLISIONS, str(source)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if result.returncode == 0:
                return dropped, []
            every = [m for members in mappings.values() for m in members]
            found, others = collisions(result.stderr, include, every)
            if not found:
                return dropped, others
            gone = {c.mapping.cuda for c in found}
            for family, members in mappings.items():
                if any(m.cuda in gone for m in members):
                    mappings[family] = [m for m in members if m.cuda not in gone]
                    write_family(family, mappings[family])
            dropped += [
                Dropped(c.mapping.cuda, c.mapping.hip, c.mapping.family,
                        f"the hand-written headers define it ({c.where}); HIP's name would collide")
                for c in found
            ]  # fmt: skip
    raise RuntimeError("the hand-written headers still collide with mappings after "
                       f"{ROUNDS} rounds:\n" + "\n".join(others[:20]))  # fmt: skip
