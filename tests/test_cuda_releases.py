"""What a toolkit says about the CUDA release it mimics (12.4, and 13.0 built with
`--cuda-version 13.0`), on each stack: nvcc's --version and architecture lists as NVIDIA's
nvcc of that release prints them, the version macros and calls in device and host code, the
toolkit's version files, the image's tag and label, and what CMake reads from the compiler."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import docker_run
from support import nvidia_releases
from support.open_stacks import MIMICKED

pytestmark = pytest.mark.engine

# nvcc --version's build number and --list-gpu-arch's oldest entry of each release
_NVCC = {"12.4": ("V12.4.131", "compute_50"), "13.0": ("V13.0.88", "compute_75")}

VERSIONS = r"""
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>
__global__ void arch(int *out) {
#ifdef __CUDA_ARCH__
    *out = __CUDA_ARCH__;
#endif
}
static_assert(CUDART_VERSION == CUDA_VERSION, "runtime and driver headers agree");
int main() {
    int runtime = -1, driver = -1;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    std::printf("macros %d %d %d.%d\n", CUDART_VERSION, CUDA_VERSION, __CUDACC_VER_MAJOR__, __CUDACC_VER_MINOR__);
    std::printf("calls %d %d\n", runtime, driver);
    return 0;
}
"""

# What CUDA 13 removed (NVIDIA's 13.0 headers declare none of these; 12.4's do)
REMOVED = r"""
#include <cuda_runtime.h>
#include <cufft.h>
int main() {
    cudaThreadSynchronize();
    int results = CUFFT_INCOMPLETE_PARAMETER_LIST + CUFFT_PARSE_ERROR + CUFFT_LICENSE_ERROR;
    return cudaThreadExit() == cudaSuccess ? results : 1;
}
"""

# A call written for the release: CUDA 13's location-based prefetch and edge-data dependency,
# CUDA 12's device-number prefetch (NVIDIA's 13.0 and 12.4 headers each take their own)
LOCATED = r"""
#include <cuda_runtime.h>
int prefetch(float *p, size_t n, cudaStream_t s, cudaGraph_t g, cudaGraphNode_t a, cudaGraphNode_t b) {
#if CUDART_VERSION >= 13000
    cudaMemLocation host;
    host.type = cudaMemLocationTypeHost;
    host.id = 0;
    return cudaMemPrefetchAsync(p, n, host, 0, s) == cudaSuccess &&
           cudaGraphAddDependencies(g, &a, &b, nullptr, 1) == cudaSuccess;
#else
    return cudaMemPrefetchAsync(p, n, cudaCpuDeviceId, s) == cudaSuccess &&
           cudaGraphAddDependencies(g, &a, &b, 1) == cudaSuccess;
#endif
}
"""

CMAKE_PROJECT = """cmake_minimum_required(VERSION 3.18)
project(versions LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
message(STATUS "toolkit ${CUDAToolkit_VERSION} compiler ${CMAKE_CUDA_COMPILER_VERSION}")
add_executable(versions versions.cu)
target_link_libraries(versions PRIVATE CUDA::cudart CUDA::cuda_driver)
"""


def _device_prop_fields(release: str) -> list[str]:
    """The members of cudaDeviceProp NVIDIA's driver_types.h of `release` declares."""
    header = nvidia_releases.include_of(release) / "driver_types.h"
    text = re.sub(r"/\*.*?\*/|//[^\n]*", "", header.read_text(), flags=re.S)
    body = re.search(r"struct\s+__device_builtin__\s+cudaDeviceProp\s*\{(.*?)\};", text, re.S)
    assert body is not None, "no cudaDeviceProp in driver_types.h"
    names = [re.search(r"(\w+)\s*(?:\[[^\]]*\])*\s*$", member.strip()) for member in body[1].split(";")]
    return [name[1] for name in names if name and not name[1].startswith("reserved")]


def _labels(reference: str) -> dict[str, str]:
    out = subprocess.run(["docker", "inspect", reference], capture_output=True, text=True, check=True).stdout
    return dict(json.loads(out)[0]["Config"]["Labels"])


@pytest.mark.parametrize(("gfx", "fixture", "release"), MIMICKED)
def test_the_toolkit_is_the_release_it_mimics(
    request: pytest.FixtureRequest, gfx: str, fixture: str, release: str, tmp_path: Path
) -> None:
    image: dict[str, Any] = request.getfixturevalue(fixture)
    reference = str(image["reference"])
    assert reference.split(":")[-1].startswith(f"{release}-devel-")
    assert _labels(reference)["io.moatbridge.cuda-version"] == release
    (tmp_path / "versions.cu").write_text(VERSIONS)
    (tmp_path / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    fields = _device_prop_fields(release)
    assert len(fields) > 85 and ("gpuPciDeviceID" in fields) == (release == "13.0")
    (tmp_path / "fields.cu").write_text(
        "#include <cuda_runtime.h>\n"
        + "".join(f"auto field_{name} = &cudaDeviceProp::{name};\n" for name in fields)
    )
    (tmp_path / "removed.cu").write_text(REMOVED)
    (tmp_path / "located.cu").write_text(LOCATED)
    script = f"""
        set -e
        . /opt/moatbridge/bin/activate {gfx} >/dev/null
        nvcc --version
        echo "arch-list $(nvcc --list-gpu-arch | head -1) $(nvcc --list-gpu-code | tail -1)"
        python3 -c 'import json,os; print("version.json", json.load(open(os.environ["CUDA_PATH"] + "/version.json"))["cuda"]["version"])'
        cd /tmp && cp /p/versions.cu .
        nvcc -o versions versions.cu -lcuda && ./versions
        if nvcc --dryrun -arch=sm_70 -c versions.cu >/dev/null 2>old.err; then echo "sm_70 accepted"; else echo "sm_70 refused: $(grep fatal old.err)"; fi
        # host code, as g++ compiles it against the toolkit's headers (the device pass adds nothing here)
        cp /p/removed.cu /p/located.cu /p/fields.cu .
        host() {{ g++ -std=c++17 -fsyntax-only -I"$CUDA_PATH/include" -x c++ "$1" 2>"$1.err"; }}
        host fields.cu && echo "every cudaDeviceProp field"
        if host removed.cu; then echo "removed compiles"; else echo "removed refused: $(grep -o "'[A-Za-z_]*' was not declared" removed.cu.err | LC_ALL=C sort -u | tr '\n' ' ')"; fi
        if host located.cu; then echo "located compiles"; else echo "located refused"; head -5 located.cu.err; fi
        if [ {release} = 13.0 ]; then  # CMake reads 12.4 as test_open_toolkit.py checks
            cmake -S /p -B /tmp/build -G Ninja >/tmp/cmake.log 2>&1 || {{ tail -30 /tmp/cmake.log; exit 1; }}
            grep -o 'toolkit .* compiler .*' /tmp/cmake.log
            cmake --build /tmp/build >/dev/null && /tmp/build/versions | head -1
        fi
    """
    result = docker_run(reference, script, "-v", f"{tmp_path}:/p:ro")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    out = result.stdout
    build, oldest = _NVCC[release]
    major, minor = release.split(".")
    number = int(major) * 1000 + int(minor) * 10
    assert f"Cuda compilation tools, release {release}, {build}" in out
    assert f"arch-list {oldest} " in out
    assert f"version.json {build[1:]}" in out
    assert f"macros {number} {number} {release}" in out
    assert f"calls {number} {number}" in out
    assert "located compiles" in out and "every cudaDeviceProp field" in out
    # CUDA 13 dropped every architecture before Turing, as nvcc 13 refuses them, the
    # cudaThread* calls and three cuFFT results
    if release == "13.0":
        assert "sm_70 refused: nvcc fatal   : Unsupported gpu architecture 'sm_70'" in out
        removed = ("CUFFT_INCOMPLETE_PARAMETER_LIST", "CUFFT_LICENSE_ERROR", "CUFFT_PARSE_ERROR",
                   "cudaThreadExit", "cudaThreadSynchronize")  # fmt: skip
        assert "removed refused: " + " ".join(f"'{name}' was not declared" for name in removed) in out, out
        assert f"toolkit {build[1:]} compiler {build[1:]}" in out
        assert out.count(f"macros {number} {number} {release}") == 2, out  # nvcc's build and CMake's
    else:
        assert "sm_70 accepted" in out and "removed compiles" in out
