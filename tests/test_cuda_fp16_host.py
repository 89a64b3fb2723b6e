"""cuda_fp16.h in host code, with NVIDIA's real header as the oracle. NVIDIA's header gives
host code the whole __half/__half2 API: a plain .cpp file compiled by g++ or clang++, and the
host functions of a .cu file, multiply two __half, convert integers and round in every mode.
HIP's header gives a host compiler only conversions to and from float, and HIP 5.7 makes most
functions device-only in .cu files too.

The inventory the CUDA layer probes HIP's header for (cudacompat.generate.fp16_kinds) is read
from NVIDIA's header here, and one program (tests/cuda_programs/fp16_host_api.cpp) sweeps the
whole host API: built on the host against NVIDIA's header (g++) and in the image against ours
by g++, clang++ and nvcc, the outputs must be the same. In nvcc's build the classes are HIP's:
the lines of their members ("class ...") and, on HIP 6, of HIP's operators differ in NaN and
out-of-range cases (HIP's results), and are reported, not compared."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, docker_run
from support import nvidia_pypi, nvidia_releases
from support.open_stacks import OPEN_STACKS

PROGRAM = REPO / "tests" / "cuda_programs" / "fp16_host_api.cpp"
SWEEP_SUPPORT = REPO / "tests" / "cuda_programs" / "sweep_support.h"  # what it includes
ACROSS_OBJECTS = ("fp16_across_objects.h", "fp16_across_objects.cu", "fp16_across_objects_main.cpp")
# a declaration's name, when its first parameter is one of cuda_fp16.h's argument types
_DECLARATION = re.compile(
    r"\b([A-Za-z_]\w*)\s*\(\s*(?:const\s+)?(?:__half2?|float2?|double|signed char|"
    r"(?:unsigned\s+)?(?:short|int|long long|char)(?:\s+int)?|unsigned)\s*&?\s*\w+\s*[,)]"
)
_LINE_MARKER = re.compile(r'^# \d+ "([^"]*)"')


def _includes(release: str) -> list[str]:
    includes = [nvidia_releases.include_of(release)]
    if release == "13.0":  # CUDA 13's headers include CCCL's <nv/target>
        includes.append(nvidia_pypi.cccl_13_0_include())
    return [option for include in includes for option in ("-I", str(include))]


def _gxx() -> str:
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.fail("g++ is needed to compile against NVIDIA's headers on the host")
    return compiler


def nvidias_host_functions(release: str) -> set[str]:
    """The functions NVIDIA's cuda_fp16.h declares to a host compiler (g++ sees only what host
    code can call), read from its preprocessed text: the lines of cuda_fp16.h and .hpp."""
    preprocessed = subprocess.run(
        [_gxx(), "-std=c++17", "-E", *_includes(release), "-x", "c++", "-"],
        input="#include <cuda_fp16.h>\n", capture_output=True, text=True, check=True, timeout=300,
    ).stdout  # fmt: skip
    own, source = [], ""
    for line in preprocessed.splitlines():
        marker = _LINE_MARKER.match(line)
        if marker:
            source = marker.group(1)
        elif source.endswith(("/cuda_fp16.h", "/cuda_fp16.hpp")):
            own.append(line)
    names = set(_DECLARATION.findall("\n".join(own)))
    # the classes' constructors, sizeof, and nvcc's internal helpers are not API
    return {name for name in names if not name.startswith("__internal")} - {"__half", "__half2", "sizeof"}


@pytest.mark.parametrize("release", ["12.4", "13.0"])
def test_the_probed_inventory_is_nvidias_host_api(release: str) -> None:
    from cudacompat.generate import fp16_kinds

    probed = {entry.key for entry in fp16_kinds.entries() if not entry.key.startswith("op")}
    real = nvidias_host_functions(release)
    assert len(real) > 140
    assert real == probed, (sorted(real - probed), sorted(probed - real))


def _real_output(tmp_path: Path) -> list[str]:
    binary = tmp_path / "fp16-real"
    subprocess.run(
        [_gxx(), "-std=c++17", "-O1", *_includes("12.4"), str(PROGRAM), "-o", str(binary)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return subprocess.run(
        [str(binary)], check=True, capture_output=True, text=True, timeout=300
    ).stdout.splitlines()


def _hips_classes(line: str) -> bool:
    """A line of the program's nvcc build computed by HIP's class members or operators."""
    return line.startswith(("class ", "operator"))


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_host_code_gets_nvidias_fp16_results(
    request: pytest.FixtureRequest, gfx: str, fixture: str, shared_tmp: Path, tmp_path: Path
) -> None:
    real = _real_output(tmp_path)
    assert len(real) > 300 and real[-1] == "expectations failed: 0"
    shutil.copy(PROGRAM, shared_tmp / "fp16.cpp")
    shutil.copy(PROGRAM, shared_tmp / "fp16.cu")
    shutil.copy(SWEEP_SUPPORT, shared_tmp / SWEEP_SUPPORT.name)
    include = f"/opt/moatbridge/targets/{gfx}/include"
    ours = docker_run(
        str(request.getfixturevalue(fixture)["reference"]),
        f". /opt/moatbridge/bin/activate {gfx} && . /opt/moatbridge/stack.env && cd {shared_tmp}"
        f" && g++ -std=c++17 -O1 -I{include} -o /tmp/gxx fp16.cpp && /tmp/gxx"
        f' && echo "--- clang++" && "clang++-$CLANG_VERSION" -std=c++17 -O1 -I{include} -o /tmp/clang fp16.cpp'
        " && /tmp/clang && echo '--- nvcc' && nvcc -O1 -o /tmp/nvcc fp16.cu && /tmp/nvcc",
        "-v", f"{shared_tmp}:{shared_tmp}",
    )  # fmt: skip
    assert ours.returncode == 0, (ours.stdout[-3000:], ours.stderr[-3000:])
    gxx, rest = ours.stdout.split("--- clang++\n")
    clang, nvcc = rest.split("--- nvcc\n")
    for build, output in (("g++", gxx), ("clang++", clang)):
        differing = [(r, o) for r, o in zip(real, output.splitlines(), strict=True) if r != o]
        assert not differing, f"{build}: {len(differing)} lines differ, first: {differing[:5]}"
    nvcc_lines = nvcc.splitlines()
    compared = [(r, o) for r, o in zip(real, nvcc_lines, strict=True) if not _hips_classes(r)]
    assert len(compared) > 280
    differing = [(r, o) for r, o in compared if r != o]
    assert not differing, f"nvcc: {len(differing)} lines differ, first: {differing[:5]}"
    hips = sum(1 for r, o in zip(real, nvcc_lines, strict=True) if _hips_classes(r) and r != o)
    print(f"{gfx}: nvcc's build: {len(compared)} lines as NVIDIA's; {hips} lines of HIP's classes differ")


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_half_values_cross_between_gxx_and_nvcc_objects(
    request: pytest.FixtureRequest, gfx: str, fixture: str, shared_tmp: Path
) -> None:
    """A .cu (nvcc, HIP's classes) and a .cpp (g++, moatbridge's) pass __half and __half2 by
    value both ways, return them and share a struct holding them; linked in both orders at
    -O0, where each object keeps its out-of-line copies of the classes' members."""
    for name in ACROSS_OBJECTS:
        shutil.copy(REPO / "tests" / "cuda_programs" / name, shared_tmp / name)
    ours = docker_run(
        str(request.getfixturevalue(fixture)["reference"]),
        f". /opt/moatbridge/bin/activate {gfx} && cd {shared_tmp}"
        " && nvcc -O0 -c fp16_across_objects.cu -o /tmp/cu.o"
        f" && g++ -O0 -c -I/opt/moatbridge/targets/{gfx}/include fp16_across_objects_main.cpp -o /tmp/main.o"
        " && nvcc /tmp/cu.o /tmp/main.o -o /tmp/cu-first && nvcc /tmp/main.o /tmp/cu.o -o /tmp/cpp-first"
        ' && /tmp/cu-first; echo "exit $?"; /tmp/cpp-first; echo "exit $?"',
        "-v", f"{shared_tmp}:{shared_tmp}",
    )  # fmt: skip
    assert ours.returncode == 0, ours.stderr[-3000:]
    assert ours.stdout.count("failures: 0") == 2, ours.stdout
    assert ours.stdout.count("exit 0") == 2 and "FAIL" not in ours.stdout, ours.stdout
