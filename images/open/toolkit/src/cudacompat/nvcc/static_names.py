"""Internal-linkage device variables under relocatable device code. Pure.

With -fgpu-rdc, clang gives a `static __device__`/`__constant__`/`__managed__` variable that
host code uses (cudaMemcpyToSymbol, cudaGetSymbolAddress) an external name with the unit's
hash (`_ZL7c_Table.static.<hash>`), so the runtime can find it once every object's device code
is linked into one image. But clang (17 to 21 at least) decides on that name only when it
sees the host use: a kernel earlier in the file, compiled before the host function that
copies to the variable, refers to the plain name, which nothing defines, and the device
link fails with `undefined symbol: c_Table`. CUDA code puts kernels first as a rule.

The repair binds such references, in each relocatable object's device bitcode, to the unit's
own definition: a plain name is never external legitimately when the unit defines its
hashed form, because the two denote the same internal-linkage variable (another unit's
variable of the same name carries that unit's hash)."""

from __future__ import annotations

import re

# Where clang puts each offload target's device code in a relocatable object.
BUNDLE_SECTION_PREFIX = b"__CLANG_OFFLOAD_BUNDLE__hip"
# The marker every externalized name carries; absent from an object, nothing needs binding.
EXTERNALIZED_MARKER = b".static."

_NAME_CHARACTER = r"[-a-zA-Z$._0-9]"
_BARE_NAME = rf"[-a-zA-Z$._]{_NAME_CHARACTER}*"  # a name the IR writes without quotes
_NAME = rf'(?:{_BARE_NAME}|"[^"]*")'
_DEFINED_GLOBAL = re.compile(rf"^@({_NAME}) = (?!external )", re.M)
_DEFINED_FUNCTION = re.compile(rf"^define [^@\n]*@({_NAME})\(", re.M)
_DECLARED_GLOBAL = re.compile(rf"^@({_NAME}) = external [^\n]*\n", re.M)
_DECLARED_FUNCTION = re.compile(rf"^declare [^@\n]*@({_NAME})\([^\n]*\n", re.M)
_HASHED = re.compile(r"(.+)\.static\.[0-9a-f]+")


def _unquoted(name: str) -> str:
    return name[1:-1] if name.startswith('"') else name


def _spelled(name: str) -> str:
    """A name as the IR writes it: quoted unless every character may stand bare."""
    return name if re.fullmatch(_BARE_NAME, name) else f'"{name}"'


def bundle_sections(data: bytes) -> list[str]:
    """The names of the device-code sections of an object's bytes (each section name sits
    NUL-terminated in the string table), in order of first appearance, each once."""
    names: dict[str, None] = {}
    start = data.find(BUNDLE_SECTION_PREFIX)
    while start >= 0:
        end = data.find(b"\0", start)
        raw = data[start : end if end >= 0 else len(data)]
        if re.fullmatch(rb"__CLANG_OFFLOAD_BUNDLE__hip[-a-zA-Z0-9_.:+]*", raw):
            names[raw.decode("ascii")] = None
        start = data.find(BUNDLE_SECTION_PREFIX, start + 1)
    return list(names)


def bind_externalized_statics(ir: str) -> str:
    """The textual IR with each external declaration of a name whose `.static.<hash>` form
    the module defines removed, and every reference to it pointing at that definition.
    Unchanged (the same string) when there is nothing to bind."""
    defined = [_unquoted(m.group(1)) for m in _DEFINED_GLOBAL.finditer(ir)]
    defined += [_unquoted(m.group(1)) for m in _DEFINED_FUNCTION.finditer(ir)]
    hashed: dict[str, str] = {}
    for name in defined:
        match = _HASHED.fullmatch(name)
        if match:
            hashed.setdefault(match.group(1), name)
    if not hashed:
        return ir
    declared = [
        (m, _unquoted(m.group(1)))
        for pattern in (_DECLARED_GLOBAL, _DECLARED_FUNCTION)
        for m in pattern.finditer(ir)
    ]
    bound = {name: hashed[name] for _, name in declared if name in hashed}
    if not bound:
        return ir
    # drop the declarations, last first so earlier offsets stay valid
    spans = sorted((m.span() for m, name in declared if name in bound), reverse=True)
    for begin, end in spans:
        ir = ir[:begin] + ir[end:]
    references = re.compile(
        "@("
        + "|".join(re.escape(_spelled(name)) for name in sorted(bound, key=len, reverse=True))
        + ")"
        + f"(?!{_NAME_CHARACTER})"
    )
    return references.sub(lambda m: "@" + _spelled(bound[_unquoted(m.group(1))]), ir)
