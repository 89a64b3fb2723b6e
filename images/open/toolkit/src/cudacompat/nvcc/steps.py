"""The steps a planned nvcc command runs: processes, and text files written first. Pure data."""

from __future__ import annotations

from typing import NamedTuple


class Run(NamedTuple):
    argv: tuple[str, ...]
    compiles: str | None = None  # the source file a compile step reads (for diagnostics)
    # An archive's unbundling for the device link, (input, output): an input with no archive
    # members (glibc's libpthread.a and libdl.a since 2.34, a linker script named lib*.a, both
    # on CMake's device-link line) is written as an empty archive instead: the bundler
    # refuses either ("file too small to be an archive").
    unbundles_archive: tuple[str, str] | None = None


class WriteText(NamedTuple):
    path: str
    text: str


class NvccDepfile(NamedTuple):
    """Rewrite the make dependency file the compiler wrote into nvcc's shape."""

    path: str


class FatbinWrapper(NamedTuple):
    """Write the device link's wrapper assembly once the objects exist: clang 18 and later
    give each relocatable object its own fatbin and handle names (__hip_fatbin_<CUID hash>),
    read from the objects' undefined symbols with `nm` and defined as aliases of one."""

    path: str
    fatbin: str
    objects: tuple[str, ...]
    nm: str


class BindStaticNames(NamedTuple):
    """After a relocatable compile: point the device code's references to the unit's own
    internal-linkage device variables at their externalized names (see static_names)."""

    object: str
    objcopy: str
    disassembler: str
    assembler: str


Step = Run | WriteText | NvccDepfile | FatbinWrapper | BindStaticNames


def _make_words(text: str) -> list[str]:
    """Words of a make rule: split at blanks, except backslash-escaped ones (`a\\ b.h`).
    (No `re`: this module loads on every nvcc start.)"""
    words: list[str] = []
    current = ""
    for index, char in enumerate(text):
        if char in " \t" and not (index > 0 and text[index - 1] == "\\"):
            if current:
                words.append(current)
            current = ""
        else:
            current += char
    return [*words, current] if current else words


def nvcc_depfile_text(text: str) -> str:
    """clang's make rule (`t.o: a.cu b.h \\` with several files a line) as nvcc writes it:
    `t.o : a.cu \\`, then one file a line, indented by four. FindCUDA's make2cmake.cmake
    strips the target with `^.* : ` and splits files at line ends only, so both matter;
    make, ninja and CMake read either shape. Later rules (-MP's phony ones) stay."""
    lines = text.split("\n")
    end = 0
    while end < len(lines) - 1 and lines[end].endswith("\\"):
        end += 1
    rule = " ".join(line[:-1] if line.endswith("\\") else line for line in lines[: end + 1])
    words = _make_words(rule)
    ends_rule = [w == ":" or (w.endswith(":") and not w.endswith("\\:")) for w in words]
    colon = ends_rule.index(True) if True in ends_rule else None
    if colon is None:
        return text
    targets = words[:colon] + ([words[colon][:-1]] if words[colon] != ":" else [])
    files = words[colon + 1 :]
    head = " ".join(targets) + " :" + (f" {files[0]}" if files else "")
    body = [head, *(f"    {name}" for name in files[1:])]
    joined = " \\\n".join(body)
    return "\n".join([joined, *lines[end + 1 :]])
