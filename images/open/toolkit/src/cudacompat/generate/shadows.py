"""Shadowed copies of the stack's HIP headers (HIP 5.7, 6.4 or 7.2): where HIP's behaviour
differs from CUDA's in a way code can see, a copy of HIP's header, changed by one function
each, is written under include/moatbridge/shadow/hip/ (searched before the system's HIP
headers by nvcc). Each change checks the header has the shape it expects and leaves it alone
(returns None) otherwise; a probe decides which changes a stack needs."""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import NamedTuple

from .toolkit import write_text

# The C++ the changes insert, and the probes, are files of their own beside this module
# (fragments/, package data: read through importlib.resources, so they are found wherever the
# package is, /opt/moatbridge/lib in the image or src/ on the host). Each file opens with a
# `/* fragment: ... */` comment saying what it is and where it goes; that comment is for its
# reader and stays out of the headers and probes. (A blank line a fragment follows where it is
# inserted is the splice's, so it is added where the fragment is loaded.)
_FRAGMENTS = resources.files(__package__) / "fragments"
_DESCRIPTION = re.compile(r"/\* fragment: .*?\*/\n", re.S)


def _fragment(name: str) -> str:
    """The text of fragments/NAME after its leading description comment."""
    text = (_FRAGMENTS / name).read_text(encoding="utf-8")
    description = _DESCRIPTION.match(text)
    if description is None:
        raise ValueError(f"fragments/{name} does not open with its /* fragment: ... */ description")
    return text[description.end() :]


_COMPLEX_OPERATORS = "COMPLEX_NEG_OP_OVERLOAD(hipFloatComplex)"


def without_complex_operators(text: str) -> str | None:
    """HIP's complex header with its operators on hipFloatComplex/hipDoubleComplex switched
    off. Those types are float2/double2, which have no operators in CUDA: with HIP's, every
    `float2 - float2` of code that defines its own vector operators (cuda-samples'
    helper_math.h, and the many projects that copy it) is ambiguous, and `float2 * float2`
    would be a complex product. None if the header does not have the expected shape."""
    lines = text.split("\n")
    try:
        first = next(i for i, line in enumerate(lines) if line.strip() == _COMPLEX_OPERATORS)
    except StopIteration:
        return None
    opening = next((i for i in range(first, -1, -1) if lines[i].strip() == "#if __cplusplus"), None)
    if opening is None:
        return None
    lines[opening] = "#if 0 /* moatbridge: CUDA's float2/double2 have no operators (see toolkit.py) */"
    return "\n".join(lines)


_FRIEND_OPERATOR = re.compile(
    r"friend (__HOST_DEVICE__ inline constexpr HIP_vector_type operator([*/])\(\s*)HIP_vector_type x,"
)


# The arithmetic compound assignments of two vectors (the bitwise ones are templates already).
# (HIP 5.7 and 6.x put `__HOST_DEVICE__` on a line of its own, HIP 7 on the operator's line)
_COMPOUND_MEMBER = re.compile(
    r"(\n[ \t]*)__HOST_DEVICE__(\s+)HIP_vector_type& operator([-+*/])="
    r"\(const HIP_vector_type& x\) noexcept"
)
_ONLY_THIS_TYPE = (
    "template <class V = HIP_vector_type, typename std::enable_if<std::is_same<V, HIP_vector_type>{}>"
    "::type* = nullptr>"
)


def with_template_vector_friends(text: str) -> str | None:
    """HIP's vector types with their two non-template friend operators (`*` and `/` of two
    vectors) and their four arithmetic compound assignments made templates for that type
    alone. CUDA's vectors have no operators, so code brings its own (helper_math.h:
    `float2 operator*(float2, float2)`); a non-template of HIP's would tie with it, a template
    loses to it. (HIP's own `float4 * float4` then becomes ambiguous, an error as it is on
    NVIDIA's toolkit.) None if the header does not have the expected shape."""
    replaced, count = _FRIEND_OPERATOR.subn(_ONLY_THIS_TYPE + "\n        friend \\1V x,", text)
    replaced, members = _COMPOUND_MEMBER.subn(
        "\\1" + _ONLY_THIS_TYPE + "\\1__HOST_DEVICE__\\2HIP_vector_type& operator\\3=(const V& x) noexcept",
        replaced,
    )
    return replaced if count == 2 and members == 4 else None


_TILE_CLASS = re.compile(
    r"(class thread_block_tile_type : public thread_block_tile_base<tileSize>,\s*public tiled_group,"
    r"\s*public parent_group_info<tileSize, ParentCGTy> \{\n"
    r"\s*_CG_STATIC_CONST_DECL_ unsigned int numThreads = tileSize;\n)"
)
_TILE_USINGS = re.compile(r"using tbtBase::size;\s*using tbtBase::sync;\s*using tbtBase::thread_rank;")
_TILE_BASE_SYNC = re.compile(
    r"(class thread_block_tile_base : public tile_base<size> \{.*?\n public:\n)", re.S
)


def with_unambiguous_tiles(text: str) -> str | None:
    """HIP 5.7's cooperative groups with tile.thread_rank()/size()/sync() unambiguous on tiles
    of a parent group (`tiled_partition<16>(this_thread_block())`: only the parentless
    specialisation says which base they come from; HIP 6.x does it, then only the rest is
    added) and with CUDA 12's num_threads() on tiles. None if the header does not have the
    expected shape."""
    # HIP 6.x: the tile class with a parent says it too (5.7: the parentless one only)
    if len(_TILE_USINGS.findall(text)) >= 2:
        tiles = 1
    else:
        text, tiles = _TILE_CLASS.subn(
            "\\1 public:  /* moatbridge: as the parentless specialisation does */\n"
            "  using thread_block_tile_base<tileSize>::size;\n"
            "  using thread_block_tile_base<tileSize>::sync;\n"
            "  using thread_block_tile_base<tileSize>::thread_rank;\n"
            " private:\n",
            text,
        )
    text, bases = _TILE_BASE_SYNC.subn(
        "\\1  __CG_STATIC_QUALIFIER__ unsigned int num_threads() { return size; }  /* moatbridge */\n",
        text,
        count=1,
    )
    return text if tiles == 1 and bases == 1 else None


_VALID_TYPE_ASSERT = 'static_assert(is_valid_type<T>::value, "Neither an integer or float type.");'
_SHUFFLE_CALL = re.compile(r"\b(__shfl(?:_up|_down|_xor)?)\(var,")
_CG_NAMESPACE = "\nnamespace cooperative_groups {\n"
# Shuffles of any trivially copyable type, one 32-bit word at a time, for the tiles' methods.
_WORDWISE_SHUFFLES = "\n" + _fragment("cg_wordwise_shuffles.h")


def with_shuffles_of_any_type(text: str) -> str | None:
    """HIP 5.7's tile and coalesced-group shuffles with CUDA's reach: any trivially copyable
    type (`tile.shfl_xor(uint4, 1)`, a struct) and the bfloat16 pair, not integers and floats
    only; other types go one 32-bit word at a time. None if the header does not have the
    expected shape."""
    asserts = text.count(_VALID_TYPE_ASSERT)
    text = text.replace(
        _VALID_TYPE_ASSERT,
        "static_assert(std::is_trivially_copyable<T>::value || ::moatbridge_cg::shuffled_by_words<T>::value,"
        ' "a shuffled type must be trivially copyable");',
    )
    text, calls = _SHUFFLE_CALL.subn("::moatbridge_cg::\\1(var,", text)
    # HIP 5.7 and 6.x assert the type in each shuffle method; HIP 7 (whose header knows
    # HIP_DISABLE_WARP_SYNC_BUILTINS) has no such assert and only calls __shfl*
    hip7 = not asserts and calls and "HIP_DISABLE_WARP_SYNC_BUILTINS" in text
    if not (asserts or hip7) or calls < asserts or _CG_NAMESPACE not in text:
        return None
    return text.replace(_CG_NAMESPACE, _WORDWISE_SHUFFLES + _CG_NAMESPACE, 1)


_COALESCED_FRIEND = "  friend __CG_QUALIFIER__ coalesced_group coalesced_threads();\n"
_CG_END = "}  // namespace cooperative_groups\n"
# CUDA 11's partitions of a tile or coalesced group by a predicate or a label: the lanes of
# the parent that voted alike, as a coalesced group (built through a friend of its class).
_PARTITION_HELPERS = "\n" + _fragment("cg_partition_helpers.h")
_BINARY_PARTITION = _fragment("cg_binary_partition.h")
_LABELED_PARTITION = _fragment("cg_labeled_partition.h")


def _with_partitions(text: str, binary: bool, labeled: bool) -> str | None:
    end = text.rfind(_CG_END)
    if text.count(_COALESCED_FRIEND) != 1 or end < 0 or _CG_NAMESPACE not in text:
        return None
    friend = "  friend struct ::moatbridge_cg::coalesced_access;\n"
    text = text.replace(_COALESCED_FRIEND, _COALESCED_FRIEND + friend)
    end = text.rfind(_CG_END) + len(_CG_END)
    added = (
        _PARTITION_HELPERS + (_BINARY_PARTITION if binary else "") + (_LABELED_PARTITION if labeled else "")
    )
    text = text[:end] + added + text[end:]
    forward = "\nnamespace moatbridge_cg {\nstruct coalesced_access;\n}"
    return text.replace(_CG_NAMESPACE, forward + _CG_NAMESPACE, 1)


def with_partitions(text: str) -> str | None:
    """CUDA's cg::binary_partition and cg::labeled_partition, which HIP 5.7 lacks: a friend
    of coalesced_group (declared before the groups) builds the group from the lanes that
    voted alike. None if the header does not have the expected shape."""
    return _with_partitions(text, binary=True, labeled=True)


def with_labeled_partition(text: str) -> str | None:
    """cg::labeled_partition alone, for HIPs that have binary_partition (6.x)."""
    return _with_partitions(text, binary=False, labeled=True)


_BF16_STRUCT = "struct __hip_bfloat16 {\n  unsigned short data;\n};\n"
_BF162_STRUCT = "struct __hip_bfloat162 {\n  __hip_bfloat16 x;\n  __hip_bfloat16 y;\n};\n"
_BF16_FROM_BITS = re.compile(r"__hip_bfloat16\{([^{}]+)\}")
_QUOTED_INCLUDE = re.compile(r'^#include "([\w.]+\.h)"', re.M)
_BF16_CLASS = _fragment("bf16_class.h")
_BF162_CLASS = _fragment("bf162_class.h")
# The members and CUDA's operators, defined once the conversions above them are.
_BF16_OPERATORS = "\n" + _fragment("bf16_operators.h")


def with_bfloat16_class(text: str) -> str | None:
    """HIP 5.7's __hip_bfloat16 as the class CUDA's __nv_bfloat16 is (conversions to and from
    float, arithmetic and comparison operators, for bfloat162 too), where HIP 5.7 has a plain
    struct that code must convert by hand. Quoted includes become <hip/amd_detail/...> so the
    shadow finds its siblings. None if the header does not have the expected shape."""
    if text.count(_BF16_STRUCT) != 1 or text.count(_BF162_STRUCT) != 1:
        return None
    text = text.replace(_BF16_STRUCT, _BF16_CLASS).replace(_BF162_STRUCT, _BF162_CLASS)
    text, from_bits = _BF16_FROM_BITS.subn("__hip_bfloat16(moatbridge_bf16_bits(), \\1)", text)
    text = _QUOTED_INCLUDE.sub("#include <hip/amd_detail/\\1>", text)
    guard_end = text.rfind("\n#endif")
    if from_bits != 2 or guard_end < 0:
        return None
    return text[:guard_end] + "\n" + _BF16_OPERATORS + text[guard_end:]


_NODISCARD = "#define __HIP_NODISCARD [[nodiscard]]"


def without_nodiscard_errors(text: str) -> str | None:
    """HIP's runtime API with hipError_t no longer [[nodiscard]]: CUDA's cudaError_t is not, so
    CUDA code ignores results freely (`cudaFree(p);`), and a project's -Wall (Meson adds it
    to every compile) would otherwise warn at each such call. None if the header does not
    have the expected shape."""
    if text.count(_NODISCARD) != 1:
        return None
    return text.replace(_NODISCARD, "#define __HIP_NODISCARD /* moatbridge: not [[nodiscard]], as in CUDA */")


# Each shadow: the HIP header it copies, the change, and a probe: a HIP source that uses the
# CUDA behaviour the change brings. Where the probe compiles against the image's own HIP
# headers, HIP does it right already and the shadow is skipped; otherwise the change must
# apply and the probe must compile with the shadow in front, or the build fails (never a
# silently missing behaviour). Probes run with the stack's clang (`--cuda-host-only` off:
# host and device sides both).
PROBES: dict[str, str] = {
    # `-` and `+` only: HIP's own `*` and `/` of two vectors are vector_friends' business
    "complex_operators": _fragment("probes/complex_operators.hip"),
    # cuda-samples' helper_math.h operators on float2/double2, and code that uses them
    "vector_friends": _fragment("probes/vector_friends.hip"),
    "tiles": _fragment("probes/tiles.hip"),
    "shuffles": _fragment("probes/shuffles.hip"),
    "binary_partition": _fragment("probes/binary_partition.hip"),
    "labeled_partition": _fragment("probes/labeled_partition.hip"),
    "bfloat16_class": _fragment("probes/bfloat16_class.hip"),
    "no_nodiscard": _fragment("probes/no_nodiscard.hip"),
}
# clang flags a probe adds (no_nodiscard: the warning CUDA code must not see, as an error).
# (clang 17 says -Wunused-result, clang 21 -Wunused-value)
_PROBE_FLAGS = {
    "no_nodiscard": ("-Wunused-result", "-Wunused-value", "-Werror=unused-result", "-Werror=unused-value")
}


class Shadow(NamedTuple):
    header: str  # under hip/
    change: Callable[[str], str | None]
    probe: str  # key of PROBES
    covered_by: str = ""  # a shadow (its probe) whose change brings this one's too


SHADOWS: tuple[Shadow, ...] = (
    Shadow("amd_detail/amd_hip_complex.h", without_complex_operators, "complex_operators"),
    Shadow("amd_detail/amd_hip_vector_types.h", with_template_vector_friends, "vector_friends"),
    Shadow("amd_detail/amd_hip_cooperative_groups.h", with_unambiguous_tiles, "tiles"),
    Shadow("amd_detail/amd_hip_cooperative_groups.h", with_shuffles_of_any_type, "shuffles"),
    Shadow("amd_detail/amd_hip_cooperative_groups.h", with_partitions, "binary_partition"),
    Shadow(
        "amd_detail/amd_hip_cooperative_groups.h",
        with_labeled_partition,
        "labeled_partition",
        "binary_partition",
    ),
    Shadow("amd_detail/amd_hip_bf16.h", with_bfloat16_class, "bfloat16_class"),
    Shadow("hip_runtime_api.h", without_nodiscard_errors, "no_nodiscard"),
)


class ShadowResult(NamedTuple):
    probe: str
    header: str
    outcome: str  # "applied", "not needed" (HIP does it), "missing" (neither)
    detail: str = ""


# What moatbridge/runtime.h sets before HIP's headers, so probes see what CUDA code will: HIP 7's
# own *_sync warp functions (64-bit masks only) left out, as HIP 5.7 and 6 leave them out.
HIP_CONFIG = (
    "#include <hip/hip_version.h>\n"
    "#if HIP_VERSION_MAJOR >= 7 && !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)\n"
    "#define HIP_DISABLE_WARP_SYNC_BUILTINS 1\n"
    "#endif\n"
)


def compiles(
    clangxx: str, source: str, include_first: Path | None = None, extra: tuple[str, ...] = ()
) -> str:
    """'' when the probe compiles (host and device side, for gfx1030), else clang's error."""
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch, "probe.hip")
        path.write_text("#define __HIP_PLATFORM_AMD__ 1\n" + HIP_CONFIG + source, encoding="utf-8")
        argv = [clangxx, "-x", "hip", "-std=c++17", "--offload-arch=gfx1030", "-nogpulib", "-fsyntax-only"]
        argv += [] if extra else ["-w"]  # a probe with its own flags is about a warning
        if include_first is not None:
            argv += ["-isystem", str(include_first)]
        result = subprocess.run([*argv, *extra, str(path)], capture_output=True, text=True, check=False)
    return "" if result.returncode == 0 else (result.stderr.strip()[-1500:] or "failed")


def write_vector_shadows(include: Path, system_include: Path, clangxx: str) -> list[ShadowResult]:
    """Shadowed copies of HIP headers whose behaviour differs from CUDA's where code can see it
    (SHADOWS), each decided by its probe. Raises when HIP lacks a behaviour and its header
    cannot be changed to bring it, or when a shadow does not make its probe compile."""
    results: list[ShadowResult] = []
    texts: dict[str, str] = {}
    shadow_root = include / "moatbridge" / "shadow"
    for shadow in SHADOWS:
        extra = _PROBE_FLAGS.get(shadow.probe, ())
        if shadow.covered_by and any(
            r.probe == shadow.covered_by and r.outcome == "applied" for r in results
        ):
            results.append(ShadowResult(shadow.probe, shadow.header, "applied", f"with {shadow.covered_by}"))
            continue
        # with the shadows decided so far in front: each probe judges what code will see
        if texts:
            for header, text in texts.items():
                write_text(shadow_root / "hip" / header, text)
        if not compiles(clangxx, PROBES[shadow.probe], shadow_root if texts else None, extra):
            results.append(ShadowResult(shadow.probe, shadow.header, "not needed"))
            continue
        source = system_include / "hip" / shadow.header
        base = texts.get(shadow.header)
        if base is None and source.is_file():
            base = source.read_text(encoding="utf-8")
        changed = shadow.change(base) if base is not None else None
        if changed is None:
            results.append(ShadowResult(shadow.probe, shadow.header, "missing", "unexpected header shape"))
            continue
        texts[shadow.header] = changed
        results.append(ShadowResult(shadow.probe, shadow.header, "applied"))
    for header, text in texts.items():
        write_text(shadow_root / "hip" / header, text)
    failures = []
    for result in results:
        if result.outcome != "applied":
            continue
        error = compiles(clangxx, PROBES[result.probe], shadow_root, _PROBE_FLAGS.get(result.probe, ()))
        if error:
            failures.append(f"{result.probe} ({result.header}):\n{error}")
    if failures:
        raise RuntimeError("shadowed HIP headers do not give CUDA's behaviour:\n" + "\n".join(failures))
    missing = [r for r in results if r.outcome == "missing"]
    if missing:
        raise RuntimeError(
            "HIP lacks CUDA behaviour that moatbridge's shadows add, and its headers have an unknown "
            "shape: " + ", ".join(f"{r.probe} ({r.header})" for r in missing)
        )
    return results
