"""C and C++ math in CUDA sources resolves as NVIDIA's nvcc resolves it, and CUDA's own math
functions give right numbers in host code.

* The oracle is NVIDIA's CUDA 13 nvcc from PyPI, run in the same image (its g++, libstdc++ and
  glibc) on the same probe: every function NVIDIA's math_functions.h and the image's <cmath>
  declare, with each floating type, called unqualified, as `::f`, as `std::f` and after `using
  namespace std` from host functions, host templates, `__host__ __device__` functions and
  kernels. Each call NVIDIA's nvcc compiles, ours must compile.
* CUDA's own functions (erfinv, erfcinv, erfcx, normcdf, normcdfinv, rcbrt, rsqrt, sincospi,
  float sincos) called from host code are measured against correctly rounded values (mpmath).
"""

from __future__ import annotations

import math
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, docker_run
from support import exact_math, math_probes, nvidia_pypi
from support.open_stacks import OPEN_STACKS

PROGRAM = REPO / "tests" / "cuda_programs" / "host_math.cu"
# Most a result may be from the correctly rounded one, in ulps (measured: at most 2.2, in erfcx).
# The float forms round a double result once more.
# rsqrt is glibc's own from 2.42 (sid), 1.28 ulp off at 75 in both precisions.
ULPS = {"rcbrt": 1.0, "rsqrt": 1.5, "rsqrt.float": 1.5, "sinpi": 2.0, "cospi": 2.0}
DOUBLE_ULPS = 3.0
FLOAT_ULPS = 1.0


# --- the probes (pure) -----------------------------------------------------------------------

NVIDIA_LIKE = """
extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ __CUDA_MATH_CRTIMP double __cdecl frexp(double x, int *nptr) __THROW;
extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ float erfinvf(float x) __THROW;
/* float commented(float x); */
static __inline__ __DEVICE_FUNCTIONS_DECL__ bool isfinite(const long double a);
extern __DEVICE_FUNCTIONS_DECL__ __device_builtin__ double nan(const char *tagp) __THROW;
extern __device__ void __internal_helper(float a);
template <typename T> T templated(T a);
"""
CMATH_LIKE = """
  using ::acos;
  using ::acosf;
  using ::nexttowardl;
  constexpr float
  acos(float __x)
  { return __builtin_acosf(__x); }
  inline long double nexttoward(long double __x, long double __y);
"""


def test_inventory_reads_declarations_as_the_headers_write_them() -> None:
    nvidia = math_probes.declared(NVIDIA_LIKE)
    assert math_probes.Call("frexp", ("double", "int*")) in nvidia  # a macro between type and name
    assert math_probes.Call("isfinite", ("long double",)) in nvidia  # const dropped
    assert math_probes.Call("nan", ("const char*",)) in nvidia
    assert {c.name for c in nvidia} == {"frexp", "erfinvf", "isfinite", "nan"}  # no comment, helper, template
    standard = math_probes.declared(CMATH_LIKE) | {math_probes.Call("acos", ("double",))}
    brought = math_probes.brought_in(CMATH_LIKE, standard)
    assert math_probes.Call("acosf", ("float",)) in brought  # typed from its stem
    assert math_probes.Call("nexttowardl", ("long double", "long double")) in brought


def test_inventory_adds_the_other_floating_types() -> None:
    calls = math_probes.with_other_types([math_probes.Call("frexp", ("double", "int*"))])
    assert math_probes.Call("frexp", ("long double", "int*")) in calls
    assert math_probes.Call("frexp", ("int", "int*")) not in calls  # an output pointer stays
    calls = math_probes.with_other_types([math_probes.Call("isless", ("float", "float"))])
    assert {c.parameters for c in calls} >= {("double", "double"), ("int", "int")}


def test_probe_lines_and_error_attribution() -> None:
    text, probes = math_probes.source([math_probes.Call("isnan", ("float",))])
    lines = text.splitlines()
    assert len(probes) == len(math_probes.FORMS)
    for number, probe in probes.items():  # one line per probe, the call in it
        assert "isnan(a0)" in lines[number - 1], probe
    assert "std::isnan(a0)" in lines[next(n for n, p in probes.items() if p.form == "host_std") - 1]
    diagnostics = (
        "probe.cu:4:10: error: no matching function\n/w/probe.cu(7): error: identifier\nprobe.cu:9:1: warning: x\n"
        "lld: error: undefined hidden symbol: lgammal\n>>> referenced by /tmp/probe-gfx1030-1.o:(k12(long double))\n"
        'probe.cu(15): warning #20011-D: calling a __host__ function("sinl") from a __host__ __device__ function'
        ' ("h15") is not allowed\nprobe.cu(16): warning #2809-D: ignoring return value'
    )
    assert math_probes.error_lines(diagnostics) == {4, 7, 12, 15}


def test_failing_lines_found_over_rounds() -> None:
    text = "ok\nbad\nok\nworse\n"
    seen: list[str] = []

    def compile_source(attempt: str) -> tuple[bool, str]:
        seen.append(attempt)
        if "bad" in attempt:  # a compiler that stops at its first error
            return False, f"probe.cu:{attempt.splitlines().index('bad') + 1}:1: error: x"
        if "worse" in attempt:
            return False, f"probe.cu({attempt.splitlines().index('worse') + 1}): error: y"
        return True, ""

    assert math_probes.failing(text, compile_source) == {2, 4}
    assert len(seen) == 3
    with pytest.raises(AssertionError, match="naming no probe line"):
        math_probes.failing(text, lambda attempt: (False, "ld: cannot find -lm"))


def test_ulps_against_exact_values() -> None:
    value, rounded = exact_math.exact("erfinv", 0.5, single=False)
    assert rounded == pytest.approx(0.4769362762044699, abs=1e-16)
    assert exact_math.ulp_error(rounded, value, rounded, single=False) <= 0.5
    assert 1.5 < exact_math.ulp_error(rounded + 2 * math.ulp(rounded), value, rounded, single=False) < 2.5
    _, pole = exact_math.exact("rcbrt", -0.0, single=False)
    assert pole == -math.inf
    assert (
        exact_math.ulp_error(math.inf, *exact_math.exact("rcbrt", -0.0, single=False), single=False)
        == math.inf
    )
    value, rounded = exact_math.exact("erfcx", -30.0, single=False)
    assert rounded == math.inf  # exp(900) overflows
    value, rounded = exact_math.exact("erfcx", -10.0, single=True)
    assert rounded == math.inf  # beyond FLT_MAX
    value, rounded = exact_math.exact("normcdf", -1.0, single=True)
    assert exact_math.ulp_error(rounded, value, rounded, single=True) <= 0.5


# --- in the images ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cuda_13() -> Path:
    return nvidia_pypi.cuda_13()


def _compiler(image: str, workdir: Path, toolkit: Path, command: str) -> Callable[[str], tuple[bool, str]]:
    def compile_source(text: str) -> tuple[bool, str]:
        (workdir / "probe.cu").write_text(text)
        result = docker_run(
            image, f"cd {workdir} && {command}",
            "-v", f"{workdir}:{workdir}", "-v", f"{toolkit}:/nvidia:ro",
        )  # fmt: skip
        return result.returncode == 0, result.stdout + result.stderr

    return compile_source


def _describe(lines: set[int], probes: dict[int, math_probes.Probe]) -> str:
    calls: dict[math_probes.Call, list[str]] = {}
    for number in sorted(lines):
        calls.setdefault(probes[number].call, []).append(probes[number].form)
    return "\n".join(f"{c.name}({', '.join(c.parameters)}): {', '.join(forms)}" for c, forms in calls.items())


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_math_calls_nvidias_nvcc_compiles_compile_with_ours(
    request: pytest.FixtureRequest, gfx: str, fixture: str, shared_tmp: Path, cuda_13: Path
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    # the <cmath> g++ includes (one word per line of its dependency list)
    cmath = docker_run(
        image, "cat \"$(echo '#include <cmath>' | g++ -x c++ -M - | tr ' ' '\\n' | grep '/cmath$')\""
    )
    assert cmath.returncode == 0 and "using ::acos;" in cmath.stdout, cmath.stderr[-2000:]
    nvidia_header = (cuda_13 / "include" / "crt" / "math_functions.h").read_text()
    calls = math_probes.inventory(nvidia_header, cmath.stdout)
    assert len({c.name for c in calls}) > 200
    text, probes = math_probes.source(calls)
    workdir = shared_tmp / gfx
    workdir.mkdir()
    nvidia = math_probes.failing(text, _compiler(
        image, workdir, cuda_13,
        "/nvidia/bin/nvcc -ccbin g++ -allow-unsupported-compiler -std=c++17 -arch=sm_80"
        " -Xcudafe --error_limit=100000 -c probe.cu -o /dev/null",
    ))  # fmt: skip
    ours = math_probes.failing(text, _compiler(
        image, workdir, cuda_13,
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null && nvcc -std=c++17 -Xcompiler -ferror-limit=0 -c probe.cu -o /dev/null",
    ))  # fmt: skip
    compiled = len(probes) - len(nvidia)
    assert compiled > len(probes) // 2, "NVIDIA's nvcc refused most probes: the harness is broken"
    missing = ours - nvidia
    by_form = Counter(probes[n].form for n in missing)
    assert not missing, (
        f"{len(missing)} of the {compiled} calls NVIDIA's nvcc compiles fail with ours "
        f"({dict(by_form)}):\n{_describe(missing, probes)[:6000]}"
    )


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_cuda_math_functions_in_host_code_give_right_numbers(
    request: pytest.FixtureRequest, gfx: str, fixture: str, shared_tmp: Path
) -> None:
    image: Any = request.getfixturevalue(fixture)["reference"]
    shutil.copy(PROGRAM, shared_tmp / "host_math.cu")
    result = docker_run(
        str(image),
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null && cd {shared_tmp}"
        " && nvcc -o /tmp/host_math host_math.cu && /tmp/host_math",
        "-v", f"{shared_tmp}:{shared_tmp}",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    worst: dict[str, tuple[float, str]] = {}
    for line in result.stdout.splitlines():
        label, argument_hex, result_hex = line.split()
        name, _, kind = label.partition(".")
        single = kind == "float"
        argument = float.fromhex(argument_hex)
        if single:
            argument = exact_math.to_float32(argument)
        value, rounded = exact_math.exact(name, argument, single)
        error = exact_math.ulp_error(float.fromhex(result_hex), value, rounded, single)
        if error >= worst.get(label, (-1.0, ""))[0]:
            worst[label] = (error, f"{label}({argument!r}) = {result_hex}, correctly rounded {rounded!r}")
    assert len(worst) == 19 and len(result.stdout.splitlines()) > 4000
    too_far = [
        f"{detail}: {error:.3g} ulp"
        for label, (error, detail) in sorted(worst.items())
        if error > ULPS.get(label, FLOAT_ULPS if label.endswith(".float") else DOUBLE_ULPS)
    ]
    assert not too_far, "\n".join(too_far)
