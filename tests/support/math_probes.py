"""CUDA's math library called every way real code calls it, as probes for two compilers.

The inventory is read from the real headers, not chosen: every function NVIDIA's
crt/math_functions.h declares with arithmetic parameters, and every function libstdc++'s <cmath>
declares or brings into std (`using ::acosf;`), each overload also with the other floating
types. Each call is made in one line of a CUDA source, in every context CUDA code calls math
from: a host function (unqualified, `::`, `std::`, after `using namespace std`), a host function
template, a `__host__ __device__` function used on both sides and a kernel. A compiler's errors
name the lines that fail; the probe is compiled again without them until it compiles."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

FLOATING = ("float", "double", "long double")
FORMS = (
    "host", "host_global", "host_std", "host_using_std", "host_template",
    "host_device", "host_device_std", "device", "device_std",
)  # fmt: skip


class Call(NamedTuple):
    name: str
    parameters: tuple[str, ...]


class Probe(NamedTuple):
    form: str
    call: Call


_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_RESULT = r"(?:float|double|int|bool|long double|long int|long long int|long|long long|void|__RETURN_TYPE)"
# `<result> [__attribute-like macros] [*]name(<parameters>)`, as both headers write declarations
_DECLARATION = re.compile(rf"\b{_RESULT}\s+(?:__\w+\s+)*\**\s*([a-z_][a-z0-9_]*)\s*\(([^()]*)\)")
_USING = re.compile(r"^\s*using ::([a-z_][a-z0-9_]*);", re.M)
_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict"}
_TYPE_WORDS = {"unsigned", "int", "long", "double", "float", "char", "bool"}
_TYPE = re.compile(
    r"(?:unsigned )?(?:float|double|long double|int|long int|long long int|long|long long|char|bool)\**"
)


def _parameter_type(text: str) -> str | None:
    """`const float *x` -> `float*`; None for what the probes cannot make (templates, classes)."""
    tokens = re.findall(r"[A-Za-z_]\w*|\*", text)
    tokens = [t for t in tokens if t not in _QUALIFIERS]
    if tokens and tokens[-1] not in _TYPE_WORDS and tokens[-1] != "*":
        tokens.pop()  # the parameter's name
    words = [t for t in tokens if t != "*"]
    kept = " ".join(words) + "*" * (len(tokens) - len(words))
    if kept == "char*":
        return "const char*"  # nan("") and friends
    return kept if _TYPE.fullmatch(kept) else None


def _parameters(text: str) -> tuple[str, ...] | None:
    text = text.strip()
    if not text or text == "void":
        return None  # a call with no argument is not math the host/device split can change
    types = [_parameter_type(part) for part in text.split(",")]
    return None if any(t is None for t in types) else tuple(t for t in types if t is not None)


def declared(header_text: str) -> set[Call]:
    """Every (name, parameter types) a header declares with arithmetic parameters; nvcc's own
    helpers (`__name`) excluded."""
    calls: set[Call] = set()
    for match in _DECLARATION.finditer(_COMMENT.sub("", header_text)):
        name, parameters = match.group(1), _parameters(match.group(2))
        if parameters is not None and not name.startswith("_"):
            calls.add(Call(name, parameters))
    return calls


def brought_in(cmath_text: str, known: Iterable[Call]) -> set[Call]:
    """The C functions <cmath> brings into std with `using ::name;`, typed by a known overload of
    the same name, or of its stem (`acosf`/`acosl` from `acos(double)`)."""
    by_name: dict[str, list[tuple[str, ...]]] = {}
    for call in known:
        by_name.setdefault(call.name, []).append(call.parameters)
    calls: set[Call] = set()
    for name in set(_USING.findall(_COMMENT.sub("", cmath_text))):
        if name in by_name:
            calls.update(Call(name, p) for p in by_name[name])
            continue
        stem, suffix = name[:-1], name[-1:]
        floating = {"f": "float", "l": "long double"}.get(suffix)
        if floating is None or stem not in by_name:
            continue
        for parameters in by_name[stem]:
            calls.add(Call(name, tuple(_retyped(t, "double", floating) for t in parameters)))
    return calls


def _retyped(parameter: str, old: str, new: str) -> str:
    base = parameter.rstrip("*")
    return new + parameter[len(base) :] if base == old else parameter


def with_other_types(calls: Iterable[Call]) -> set[Call]:
    """Each call whose floating parameters share one type, also with each other floating type
    and (where none is a pointer) with int: the overloads and conversions code relies on."""
    result = set(calls)
    for call in list(result):
        bases = {t.rstrip("*") for t in call.parameters} & set(FLOATING)
        if len(bases) != 1:
            continue
        (old,) = bases
        for new in FLOATING:
            result.add(Call(call.name, tuple(_retyped(t, old, new) for t in call.parameters)))
        if not any(t.endswith("*") for t in call.parameters):
            result.add(Call(call.name, tuple(_retyped(t, old, "int") for t in call.parameters)))
    return result


def inventory(math_functions_h: str, cmath: str) -> list[Call]:
    nvidia = declared(math_functions_h)
    standard = declared(cmath)
    found = nvidia | standard
    return sorted(with_other_types(found | brought_in(cmath, found)))


def _line(form: str, index: int, call: Call) -> str:
    parameters = ", ".join(f"{t} a{k}" for k, t in enumerate(call.parameters))
    arguments = ", ".join(f"a{k}" for k in range(len(call.parameters)))
    qualifier = {"host_global": "::", "host_std": "std::", "host_device_std": "std::", "device_std": "std::"}
    expression = f"{qualifier.get(form, '')}{call.name}({arguments})"
    if form in ("host", "host_global", "host_std"):
        return f"auto p{index}({parameters}) {{ return {expression}; }}"
    if form == "host_using_std":
        return f"auto p{index}({parameters}) {{ using namespace std; return {expression}; }}"
    if form == "host_template":
        kinds = ", ".join(f"class T{k}" for k in range(len(call.parameters)))
        typed = ", ".join(f"T{k} a{k}" for k in range(len(call.parameters)))
        return (
            f"template <{kinds}> auto t{index}({typed}) {{ return {expression}; }} "
            f"auto p{index}({parameters}) {{ return t{index}({arguments}); }}"
        )
    if form in ("host_device", "host_device_std"):  # emitted for both sides: used by both
        return (
            f"__host__ __device__ auto h{index}({parameters}) {{ return {expression}; }} "
            f"__global__ void k{index}({parameters}) {{ h{index}({arguments}); }} "
            f"auto p{index}({parameters}) {{ return h{index}({arguments}); }}"
        )
    return f"__global__ void k{index}({parameters}) {{ {expression}; }}"


HEADER = ("#include <cmath>", "#include <cstdlib>")


def source(calls: Iterable[Call], forms: Iterable[str] = FORMS) -> tuple[str, dict[int, Probe]]:
    """The probe source and line number -> probe."""
    lines = list(HEADER)
    probes: dict[int, Probe] = {}
    for call in calls:
        for form in forms:
            probes[len(lines) + 1] = Probe(form, call)
            lines.append(_line(form, len(lines) + 1, call))
    return "\n".join(lines) + "\n", probes


# `probe.cu:12:5: error:` (g++, clang), `probe.cu(12): error:` (nvcc's front end)
_ERROR_LINE = re.compile(r"^(?:.*/)?probe\.cu(?::(\d+):\d+|\((\d+)\)): (?:fatal )?error\b", re.M)
# the device link's `>>> referenced by probe-gfx1030.o:(k4356(long double))`: a probe's functions
# are named after its line
_REFERRER = re.compile(r"^>>> referenced by .*:\([pthk](\d+)\(", re.M)


# nvcc's front end only warns where code calls a function for the wrong side (a host function
# from a `__host__ __device__` one used on the device: "... is not allowed"); clang refuses it.
_NOT_ALLOWED = re.compile(r"^(?:.*/)?probe\.cu\((\d+)\): warning #\d+-D: calling a .* is not allowed", re.M)


def error_lines(diagnostics: str) -> set[int]:
    lines = {int(a or b) for a, b in _ERROR_LINE.findall(diagnostics)}
    lines |= {int(n) for n in _NOT_ALLOWED.findall(diagnostics)}
    return lines | {int(n) for n in _REFERRER.findall(diagnostics)}


def failing(text: str, compile_source: Callable[[str], tuple[bool, str]], rounds: int = 60) -> set[int]:
    """The lines of `text` a compiler refuses (or calls not allowed): compiled again with each
    round's error lines blanked (numbers kept) until it compiles. A failure naming no line is
    an error."""
    lines = text.split("\n")
    failed: set[int] = set()
    for _ in range(rounds):
        attempt = "\n".join("" if number in failed else line for number, line in enumerate(lines, 1))
        ok, diagnostics = compile_source(attempt)
        new = error_lines(diagnostics) - failed
        if ok:
            return failed | new  # what only warned is refused all the same
        if not new:
            raise AssertionError(f"the compiler failed naming no probe line:\n{diagnostics[-3000:]}")
        failed |= new
    raise AssertionError(f"still failing after {rounds} rounds")
