"""Which of cuda_fp16.h's host-callable functions and operators HIP's fp16 header has, for host
code and for device code, on this stack: the generator probes each and writes
include/moatbridge/generated/fp16_kinds.h, which moatbridge/fp16_functions.h reads.

NVIDIA's header makes its __half and __half2 functions and operators host and device
functions; HIP 5.7's makes most of them device-only (a host reference function's `a * b` on
two __half does not compile), HIP 6.4's lacks the integer conversions in host code, and
each lacks some everywhere (__double2half, the char conversions, __hmax2_nan). Each entry's
kind: 0, HIP has it for host code (with CUDA's result type); 1, for device code only; 2, not
at all; 3, declared for host code but not usable there (its body calls a device-only helper:
HIP's __hadd_sat and the other _sat functions). moatbridge/fp16_functions.h says what each
kind gets. The inventory is the host-callable part of NVIDIA's cuda_fp16.h (12.4 and 13.0
give host code the same): names and, for operators, a key of ours.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from .toolkit import write_text

KINDS = {0: "for host code", 1: "device-only", 2: "missing", 3: "unusable in host code"}


class Entry(NamedTuple):
    key: str  # MOATBRIDGE_FP16_KIND_<key>
    expression: str  # a use of it, over the probe's locals
    result: str  # the type CUDA's gives


# the probe's locals: one of each argument type
LOCALS = (
    "__half h{}; __half2 p{}; float f = 0; double d = 0; float2 f2{}; short s = 0; unsigned short us = 0; "
    "int i = 0; unsigned int u = 0; long long ll = 0; unsigned long long ull = 0;"
)
_INTEGERS = (
    ("short", "s", "short"),
    ("ushort", "us", "unsigned short"),
    ("int", "i", "int"),
    ("uint", "u", "unsigned int"),
    ("ll", "ll", "long long"),
    ("ull", "ull", "unsigned long long"),
)
_RELATIONS = ("eq", "ne", "le", "ge", "lt", "gt", "equ", "neu", "leu", "geu", "ltu", "gtu")
_OPERATORS = (
    ("add", "{a} + {b}"),
    ("sub", "{a} - {b}"),
    ("mul", "{a} * {b}"),
    ("div", "{a} / {b}"),
    ("add_assign", "{a} += {b}"),
    ("sub_assign", "{a} -= {b}"),
    ("mul_assign", "{a} *= {b}"),
    ("div_assign", "{a} /= {b}"),
    ("preinc", "++{a}"),
    ("predec", "--{a}"),
    ("postinc", "{a}++"),
    ("postdec", "{a}--"),
    ("pos", "+{a}"),
    ("neg", "-{a}"),
)
# the operators returning a reference
_BY_REFERENCE = ("add_assign", "sub_assign", "mul_assign", "div_assign", "preinc", "predec")
_COMPARISONS = (("eq", "=="), ("ne", "!="), ("gt", ">"), ("lt", "<"), ("ge", ">="), ("le", "<="))


def entries() -> Iterator[Entry]:
    yield Entry("__half_as_ushort", "__half_as_ushort(h)", "unsigned short")
    yield Entry("__half_as_short", "__half_as_short(h)", "short")
    yield Entry("__ushort_as_half", "__ushort_as_half(us)", "__half")
    yield Entry("__short_as_half", "__short_as_half(s)", "__half")
    yield Entry("__half2float", "__half2float(h)", "float")
    for name in ("__float2half", "__float2half_rn", "__float2half_rz", "__float2half_rd", "__float2half_ru"):
        yield Entry(name, f"{name}(f)", "__half")
    yield Entry("__double2half", "__double2half(d)", "__half")
    yield Entry("__low2float", "__low2float(p)", "float")
    yield Entry("__high2float", "__high2float(p)", "float")
    yield Entry("__half22float2", "__half22float2(p)", "float2")
    yield Entry("__float2half2_rn", "__float2half2_rn(f)", "__half2")
    yield Entry("__floats2half2_rn", "__floats2half2_rn(f, f)", "__half2")
    yield Entry("__float22half2_rn", "__float22half2_rn(f2)", "__half2")
    for name, local, type_ in _INTEGERS:
        yield Entry(f"__half2{name}_rz", f"__half2{name}_rz(h)", type_)
        for mode in ("rn", "rz", "rd", "ru"):
            yield Entry(f"__{name}2half_{mode}", f"__{name}2half_{mode}({local})", "__half")
    yield Entry("__half2char_rz", "__half2char_rz(h)", "signed char")
    yield Entry("__half2uchar_rz", "__half2uchar_rz(h)", "unsigned char")
    yield Entry("make_half2", "make_half2(h, h)", "__half2")
    yield Entry("__halves2half2", "__halves2half2(h, h)", "__half2")
    yield Entry("__half2half2", "__half2half2(h)", "__half2")
    yield Entry("__low2half", "__low2half(p)", "__half")
    yield Entry("__high2half", "__high2half(p)", "__half")
    for name in ("__low2half2", "__high2half2", "__lowhigh2highlow", "__hisnan2", "__hneg2", "__habs2"):
        yield Entry(name, f"{name}(p)", "__half2")
    yield Entry("__lows2half2", "__lows2half2(p, p)", "__half2")
    yield Entry("__highs2half2", "__highs2half2(p, p)", "__half2")
    yield Entry("__hisnan", "__hisnan(h)", "bool")
    yield Entry("__hisinf", "__hisinf(h)", "int")
    yield Entry("__hneg", "__hneg(h)", "__half")
    yield Entry("__habs", "__habs(h)", "__half")
    for operation in ("add", "sub", "mul"):
        for suffix in ("", "_rn", "_sat"):
            yield Entry(f"__h{operation}{suffix}", f"__h{operation}{suffix}(h, h)", "__half")
            yield Entry(f"__h{operation}2{suffix}", f"__h{operation}2{suffix}(p, p)", "__half2")
    yield Entry("__hdiv", "__hdiv(h, h)", "__half")
    yield Entry("__h2div", "__h2div(p, p)", "__half2")
    for extreme in ("max", "min"):
        for suffix in ("", "_nan"):
            yield Entry(f"__h{extreme}{suffix}", f"__h{extreme}{suffix}(h, h)", "__half")
            yield Entry(f"__h{extreme}2{suffix}", f"__h{extreme}2{suffix}(p, p)", "__half2")
    for relation in _RELATIONS:
        yield Entry(f"__h{relation}", f"__h{relation}(h, h)", "bool")
        yield Entry(f"__hb{relation}2", f"__hb{relation}2(p, p)", "bool")
        yield Entry(f"__h{relation}2", f"__h{relation}2(p, p)", "__half2")
        yield Entry(f"__h{relation}2_mask", f"__h{relation}2_mask(p, p)", "unsigned int")
    for prefix, local, type_ in (("op", "h", "__half"), ("op2", "p", "__half2")):
        for name, form in _OPERATORS:
            result = type_ + "&" if name in _BY_REFERENCE else type_
            yield Entry(f"{prefix}_{name}", form.format(a=local, b=local), result)
        for name, symbol in _COMPARISONS:
            yield Entry(f"{prefix}_{name}", f"{local} {symbol} {local}", "bool")


_PREAMBLE = (
    "#define __HIP_PLATFORM_AMD__ 1\n#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n"
    "#include <type_traits>\n"
)
_ERROR_LINE = re.compile(r"^(?:\S*/)?probe\.hip:(\d+):\d+: error:", re.MULTILINE)
# an error in HIP's header inside a function a probe called
_CALLED_BY = re.compile(r"^(?:\S*/)?probe\.hip:\d+:\d+: note: called by 'probe_(\d+)'", re.MULTILINE)


def _failing(clangxx: str, lines: list[str]) -> tuple[set[int], set[int]]:
    """The indices of `lines` (one probe each, after the preamble) that do not compile as host
    code: those failing on their own line, and those failing inside a HIP function they call."""
    first = _PREAMBLE.count("\n") + 1
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch, "probe.hip")
        source.write_text(_PREAMBLE + "\n".join(lines) + "\n", encoding="utf-8")
        result = subprocess.run(
            [
                clangxx,
                "-x",
                "hip",
                "--cuda-host-only",
                "-nogpulib",
                "-fsyntax-only",
                "-ferror-limit=0",
                "-w",
                str(source),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
    direct = {int(match) - first for match in _ERROR_LINE.findall(result.stderr)}
    inside = {int(match) for match in _CALLED_BY.findall(result.stderr)} - direct
    if result.returncode != 0 and not direct | inside:
        raise RuntimeError(f"the fp16 probe failed outside its probes:\n{result.stderr[-2000:]}")
    return direct, inside


def kinds(clangxx: str) -> dict[str, int]:
    """Each entry's kind on this stack's HIP (see the module's docstring). The host probe also
    checks the result type: HIP 5.7's __half converts to float in host code, and a float sum
    is not CUDA's __half one."""
    listed = list(entries())
    typed = 'static_assert(std::is_same<decltype({expression}), {result}>::value, "");'
    host, unusable = _failing(
        clangxx,
        [
            f"__host__ void probe_{n}() {{ {LOCALS} {typed.format(**e._asdict())} (void)({e.expression}); }}"
            for n, e in enumerate(listed)
        ],
    )
    device, _ = _failing(
        clangxx,
        [f"__device__ void probe_{n}() {{ {LOCALS} (void)({e.expression}); }}" for n, e in enumerate(listed)],
    )
    found = {}
    for n, entry in enumerate(listed):
        if n in unusable and entry.key.startswith("op"):
            raise RuntimeError(
                f"HIP's {entry.expression} is declared for host code and unusable there: "
                "an operator cannot be replaced under a macro"
            )
        found[entry.key] = 3 if n in unusable else 0 if n not in host else 1 if n not in device else 2
    return found


def summary(found: dict[str, int]) -> str:
    return ", ".join(f"{sum(1 for k in found.values() if k == kind)} {what}" for kind, what in KINDS.items())


def kinds_header(found: dict[str, int]) -> str:
    counts = summary(found)
    lines = [
        "/* moatbridge: which of cuda_fp16.h's host-callable functions HIP's fp16 header has on this",
        "   stack (cudacompat.generate.fp16_kinds): 0 for host code, 1 for device code only, 2 not at",
        "   all, 3 declared for host code but unusable there.",
        f"   Here: {counts}. */",
        "#pragma once",
    ]
    lines += [f"#define MOATBRIDGE_FP16_KIND_{key} {kind}" for key, kind in found.items()]
    return "\n".join(lines) + "\n"


def replaced_header(found: dict[str, int]) -> str:
    """CUDA's names of the functions ours take the place of (kinds 0 and 3; not operators),
    each naming ours from here on. The same names are cuda_bf16.h's functions on bfloat16
    (__hadd, __heq, __low2float, ...), declared before or after this: a template of ours of
    each name forwards any other argument types to the overloads of the original name."""
    lines = [
        "/* moatbridge: cuda_fp16.h's functions HIP has for host code (or declares there, unusable),",
        "   which moatbridge's take the place of: CUDA's names mean moatbridge's from here on, which",
        "   call HIP's in device code (cudacompat.generate.fp16_kinds). Calls with other types",
        "   (cuda_bf16.h's functions of the same names) go to the original name's overloads. */",
        "#pragma once",
    ]
    for key, kind in found.items():
        if kind in (0, 3) and not key.startswith("op"):
            lines += [
                "template <class... Args>",
                f"static __host__ __device__ inline auto moatbridge_fp16_replaced_{key}(Args... args)"
                f" -> decltype({key}(args...)) {{ return {key}(args...); }}",
                f"#undef {key}",  # a name another moatbridge header renamed (bf16 on HIP 7) is ours now
                f"#define {key} moatbridge_fp16_replaced_{key}",
            ]
    return "\n".join(lines) + "\n"


def write(include: Path, clangxx: str) -> dict[str, int]:
    found = kinds(clangxx)
    write_text(include / "moatbridge" / "generated" / "fp16_kinds.h", kinds_header(found))
    write_text(include / "moatbridge" / "generated" / "fp16_replaced.h", replaced_header(found))
    return found
