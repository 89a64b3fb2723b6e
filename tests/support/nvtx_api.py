"""NVTX 3's public C API as NVIDIA's headers declare it (read from clang's JSON AST and `-dM`
of a file including nvToolsExt.h and its CUDA, CUDA-runtime and sync extensions), and two
programs made from it: a probe asserting that each function has NVIDIA's type, and a program
printing every enumerator, public macro, structure layout and every function's answer when
called with zeroed arguments. Built against NVIDIA's headers and against ours, the two
programs' output must be the same. Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudacompat.generate import signatures

HEADERS = (
    "nvtx3/nvToolsExt.h",
    "nvtx3/nvToolsExtCuda.h",
    "nvtx3/nvToolsExtCudaRt.h",
    "nvtx3/nvToolsExtSync.h",
)

# Public names have no underscore after `nvtx` (NVIDIA's implementation's own are versioned:
# nvtxGlobals_v3, nvtxMarkA_impl_init_v3, ...).
_FUNCTION = re.compile(r"nvtx[A-Z][A-Za-z]*")
_ENUM = re.compile(r"nvtx[A-Z]\w*")
# the attribute structures callers fill in are versioned: nvtxEventAttributes_v2, ...
_RECORD = re.compile(r"nvtx[A-Z][A-Za-z]*_v\d+")
_MACRO = re.compile(
    r"NVTX_(?:VERSION|SUCCESS|FAIL|ERR_[A-Z_]+|NO_PUSH_POP_TRACKING|RESOURCE_CLASS_[A-Z_]+|[A-Z]+_ATTRIB_STRUCT_SIZE)"
)
_ALIAS = re.compile(r"#define (nvtx[A-Z][A-Za-z]*) (nvtx[A-Z][A-Za-z]*[AW])")
_DEFINE = re.compile(r"#define (\w+)[ (]")
_SAFE_TYPE = re.compile(r"[\w *,]*")


@dataclass(frozen=True)
class NvtxApi:
    functions: tuple[tuple[str, str], ...]  # (name, function type as clang spells it)
    enums: tuple[tuple[str, tuple[str, ...]], ...]  # (enum, its enumerators)
    records: tuple[tuple[str, tuple[str, ...]], ...]  # (structure, its fields)
    macros: tuple[str, ...]  # public numeric macros
    aliases: tuple[tuple[str, str], ...]  # unsuffixed name -> the A form it stands for


def read(ast_json: str, defines: str) -> NvtxApi:
    functions: dict[str, str] = {}
    enums: dict[str, tuple[str, ...]] = {}
    records: dict[str, tuple[str, ...]] = {}
    for decl in signatures.json_documents(ast_json):
        name, kind, inner = decl.get("name", ""), decl.get("kind"), decl.get("inner", [])
        if kind == "FunctionDecl" and _FUNCTION.fullmatch(name):
            qual = decl["type"]["qualType"]
            if not _SAFE_TYPE.fullmatch(qual.replace("(", "").replace(")", "")):
                raise ValueError(f"{name}: unexpected type {qual!r}")
            functions[name] = qual
        elif kind == "EnumDecl" and _ENUM.fullmatch(name):
            enums[name] = tuple(c["name"] for c in inner if c.get("kind") == "EnumConstantDecl")
        elif (
            kind in ("RecordDecl", "CXXRecordDecl")
            and _RECORD.fullmatch(name)
            and decl.get("completeDefinition")
        ):
            records[name] = tuple(f["name"] for f in inner if f.get("kind") == "FieldDecl")
    macros = sorted({m.group(1) for m in _DEFINE.finditer(defines) if _MACRO.fullmatch(m.group(1))})
    aliases = sorted(set(_ALIAS.findall(defines)))
    return NvtxApi(
        tuple(sorted(functions.items())), tuple(sorted(enums.items())), tuple(sorted(records.items())),
        tuple(macros), tuple(aliases),
    )  # fmt: skip


def include_lines() -> list[str]:
    return [f"#include <{header}>" for header in HEADERS]


def pointer_type(qual: str, name: str) -> str:
    """`R (A, B)` -> `R (*name)(A, B)`."""
    result, parameters = qual.split("(", 1)
    return f"{result.strip()} (*{name})({parameters}"


def probe_source(api: NvtxApi) -> str:
    """A translation unit that compiles only if each function has NVIDIA's type."""
    lines = [*include_lines(), "#include <type_traits>"]
    for name, qual in api.functions:
        lines.append(f"typedef {pointer_type(qual, f'{name}_type')};")
        lines.append(f'static_assert(std::is_same<decltype(&{name}), {name}_type>::value, "{name}");')
    return "\n".join(lines) + "\nint main() { return 0; }\n"


def values_source(api: NvtxApi) -> str:
    """A program printing `name value` for every enumerator and public macro, the size of each
    structure and each field's offset, what each alias stands for, and every function's
    answer when called with zeroed arguments."""
    lines = [
        *include_lines(), "#include <cstddef>", "#include <cstdint>", "#include <cstdio>", "#include <type_traits>",
        "#define MB_TEXT2(x) #x", "#define MB_TEXT(x) MB_TEXT2(x)",
        "template <class T> void show(const char* n, T v) {",
        "    if constexpr (std::is_pointer<T>::value) std::printf(\"%s %llu\\n\", n, (unsigned long long)(std::uintptr_t)v);",
        "    else std::printf(\"%s %lld\\n\", n, (long long)v);",
        "}",
        "template <class R, class... A> void call(const char* n, R (*f)(A...)) {",
        "    if constexpr (std::is_void<R>::value) { f(A{}...); std::printf(\"%s returns\\n\", n); }",
        "    else show(n, f(A{}...));",
        "}",
        "int main() {",
    ]  # fmt: skip
    for _, enumerators in api.enums:
        lines += [f'    show("{e}", {e});' for e in enumerators]
    lines += [f'    show("{m}", {m});' for m in api.macros]
    lines.append('    show("NVTX_RESOURCE_MAKE_TYPE(GENERIC, 7)", NVTX_RESOURCE_MAKE_TYPE(GENERIC, 7));')
    for record, fields in api.records:
        lines.append(f'    show("sizeof {record}", sizeof(struct {record}));')
        lines += [f'    show("offsetof {record}.{f}", offsetof(struct {record}, {f}));' for f in fields]
    lines += [f'    std::printf("%s %s\\n", "{alias}", MB_TEXT({alias}));' for alias, _ in api.aliases]
    lines += [f'    call("{name}", &{name});' for name, _ in api.functions]
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def parse_values(output: str) -> dict[str, str]:
    return dict(line.rsplit(" ", 1) for line in output.splitlines() if " " in line.strip())
