"""CUDA's FP8 types (cuda_fp8.h, with CUDA 12.8's E8M0), FP6 and FP4 (cuda_fp6.h, cuda_fp4.h)
are software types in the open toolkit (HIP 5.7 has none); NVIDIA's own header is the oracle:
one program prints every conversion over every half value, special values and every code,
compiled on the host against the real header (g++) and in the image against ours (nvcc). The
outputs must be identical.

The same oracle checks the cuda_bf16.h functions the toolkit adds to HIP's bf16 header
(moatbridge/bf16_functions.h)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, docker_run
from support import nvidia_pypi, nvidia_releases
from support.open_stacks import OPEN_STACKS

pytestmark = pytest.mark.engine

PROGRAM = REPO / "tests" / "cuda_programs" / "fp8_conversions.cpp"
CUDA13_PROGRAM = REPO / "tests" / "cuda_programs" / "cuda13_narrow_conversions.cpp"
BF16_PROGRAM = REPO / "tests" / "cuda_programs" / "bf16_functions.cpp"
SWEEP_SUPPORT = REPO / "tests" / "cuda_programs" / "sweep_support.h"  # what it includes
ACROSS_OBJECTS = ("bf16_across_objects.h", "bf16_across_objects.cu", "bf16_across_objects_main.cpp")


def _real_output(program: Path, tmp_path: Path, release: str = "12.4") -> str:
    includes = [nvidia_releases.include_of(release)]
    if release == "13.0":  # CUDA 13's headers include CCCL's <nv/target>
        includes.append(nvidia_pypi.cccl_13_0_include())
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.fail("g++ is needed to compile against NVIDIA's headers on the host")
    binary = tmp_path / f"{program.stem}-real"
    options = [option for include in includes for option in ("-I", str(include))]
    subprocess.run(
        [compiler, "-std=c++17", "-O1", *options, str(program), "-o", str(binary)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return subprocess.run([str(binary)], check=True, capture_output=True, text=True, timeout=120).stdout


def test_fp8_conversions_match_nvidias_header_bit_for_bit(
    open_devel_gfx1030: dict[str, Any], shared_tmp: Path, tmp_path: Path
) -> None:
    real = _real_output(PROGRAM, tmp_path)
    shutil.copy(PROGRAM, shared_tmp / "fp8.cu")
    ours = docker_run(
        str(open_devel_gfx1030["reference"]),
        f". /opt/moatbridge/bin/activate gfx1030 && cd {shared_tmp} && nvcc -o /tmp/fp8 fp8.cu && /tmp/fp8",
        "-v", f"{shared_tmp}:{shared_tmp}",
    )  # fmt: skip
    assert ours.returncode == 0, ours.stderr[-3000:]
    real_lines, our_lines = real.splitlines(), ours.stdout.splitlines()
    assert len(real_lines) > 250_000
    differing = [(r, o) for r, o in zip(real_lines, our_lines, strict=True) if r != o]
    assert not differing, f"{len(differing)} conversions differ, first: {differing[:5]}"


def test_fp4_fp6_and_e8m0_conversions_match_nvidias_cuda_13_headers_bit_for_bit(
    open_devel_gfx1030_cuda13: dict[str, Any], shared_tmp: Path, tmp_path: Path
) -> None:
    """FP4, FP6 and CUDA 12.8's E8M0 scale factors: every half and bfloat16 value through
    each format, rounding mode and saturation, the boundaries, every code back, the classes'
    conversions (integers, bool) and the pairs and quads (CUDA 13's aligned double4 too). Built by nvcc, which also compiles the program's
    kernel (each function is device code as well), and as plain C++11 by g++ and clang++, as
    a .cpp file including the headers is."""
    real = _real_output(CUDA13_PROGRAM, tmp_path, "13.0")
    shutil.copy(CUDA13_PROGRAM, shared_tmp / "narrow.cu")
    shutil.copy(CUDA13_PROGRAM, shared_tmp / "narrow.cpp")
    include = "/opt/moatbridge/targets/gfx1030/include"
    ours = docker_run(
        str(open_devel_gfx1030_cuda13["reference"]),
        f". /opt/moatbridge/bin/activate gfx1030 && . /opt/moatbridge/stack.env && cd {shared_tmp}"
        " && nvcc -o /tmp/narrow narrow.cu && /tmp/narrow"
        f' && echo "--- g++" && g++ -std=c++11 -I{include} -o /tmp/narrow-gxx narrow.cpp && /tmp/narrow-gxx'
        f' && echo "--- clang++" && "clang++-$CLANG_VERSION" -std=c++11 -I{include} -o /tmp/narrow-clang narrow.cpp'
        " && /tmp/narrow-clang",
        "-v", f"{shared_tmp}:{shared_tmp}",
    )  # fmt: skip
    assert ours.returncode == 0, ours.stderr[-3000:]
    real_lines = real.splitlines()
    assert len(real_lines) > 390_000 and real_lines[-1].startswith("vectors ")
    nvcc, rest = ours.stdout.split("--- g++\n")
    gxx, clang = rest.split("--- clang++\n")
    for build, output in (("nvcc", nvcc), ("g++", gxx), ("clang++", clang)):
        differing = [(r, o) for r, o in zip(real_lines, output.splitlines(), strict=True) if r != o]
        assert not differing, f"{build}: {len(differing)} conversions differ, first: {differing[:5]}"


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_bf16_functions_match_nvidias_header_bit_for_bit(
    request: pytest.FixtureRequest, gfx: str, fixture: str, shared_tmp: Path, tmp_path: Path
) -> None:
    """Exact expectations for the edge cases, then checksums of sweeps, of every host-callable
    function added; ours built host-only (g++ on cuda_bf16.h) and by nvcc, whose build also
    compiles the program's kernel calling every device-only one for the stack's target. The
    g++ build also sweeps the rest of the host API (the class, operators, arithmetic,
    comparisons: g++ gets moatbridge's host bf16 on HIP 6 and later); the nvcc build, on
    HIP's class, stops at the marker before that section."""
    real = _real_output(BF16_PROGRAM, tmp_path)
    shutil.copy(BF16_PROGRAM, shared_tmp / "bf16.cpp")
    shutil.copy(BF16_PROGRAM, shared_tmp / "bf16.cu")
    shutil.copy(SWEEP_SUPPORT, shared_tmp / SWEEP_SUPPORT.name)
    ours = docker_run(
        str(request.getfixturevalue(fixture)["reference"]),
        f". /opt/moatbridge/bin/activate {gfx} && cd {shared_tmp}"
        f" && g++ -std=c++17 -O1 -I/opt/moatbridge/targets/{gfx}/include -o /tmp/bf16-gxx bf16.cpp && /tmp/bf16-gxx"
        " && echo '--- nvcc' && nvcc -o /tmp/bf16-nvcc bf16.cu && /tmp/bf16-nvcc",
        "-v", f"{shared_tmp}:{shared_tmp}",
    )  # fmt: skip
    assert ours.returncode == 0, (ours.stdout[-3000:], ours.stderr[-3000:])
    real_lines = real.splitlines()
    assert len(real_lines) > 300 and real_lines[-1] == "expectations failed: 0"
    marker = real_lines.index("--- the rest of the host API")
    assert len(real_lines) - marker > 60
    gxx, nvcc = ours.stdout.split("--- nvcc\n")
    expected = {"g++": real_lines, "nvcc": [*real_lines[: marker + 1], real_lines[-1]]}
    for build, output in (("g++", gxx), ("nvcc", nvcc)):
        differing = [(r, o) for r, o in zip(expected[build], output.splitlines(), strict=True) if r != o]
        assert not differing, f"{build}: {len(differing)} lines differ, first: {differing[:5]}"


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_bf16_values_cross_between_gxx_and_nvcc_objects(
    request: pytest.FixtureRequest, gfx: str, fixture: str, shared_tmp: Path
) -> None:
    """A .cu (nvcc) and a .cpp (g++, which gets moatbridge's host bf16) pass __nv_bfloat16 and
    __nv_bfloat162 by value both ways, return them and share a struct holding them; linked in
    both orders at -O0, where each object keeps its out-of-line copies of the class's members."""
    for name in ACROSS_OBJECTS:
        shutil.copy(REPO / "tests" / "cuda_programs" / name, shared_tmp / name)
    ours = docker_run(
        str(request.getfixturevalue(fixture)["reference"]),
        f". /opt/moatbridge/bin/activate {gfx} && cd {shared_tmp}"
        " && nvcc -O0 -c bf16_across_objects.cu -o /tmp/cu.o"
        f" && g++ -O0 -c -I/opt/moatbridge/targets/{gfx}/include bf16_across_objects_main.cpp -o /tmp/main.o"
        " && nvcc /tmp/cu.o /tmp/main.o -o /tmp/cu-first && nvcc /tmp/main.o /tmp/cu.o -o /tmp/cpp-first"
        " && /tmp/cu-first; echo \"exit $?\"; /tmp/cpp-first; echo \"exit $?\"",
        "-v", f"{shared_tmp}:{shared_tmp}",
    )  # fmt: skip
    assert ours.returncode == 0, ours.stderr[-3000:]
    runs = ours.stdout.split("failures: ")
    assert len(runs) == 3, ours.stdout
    assert ours.stdout.count("exit 0") == 2 and "FAIL" not in ours.stdout, ours.stdout
