"""Separate compilation as NVIDIA's Makefiles do it (cuda-samples' simpleSeparateCompilation):
device code compiled with -dc in one nvcc call, put in a static library with -lib, and linked
by a plain `nvcc -o app lib.a main.o` that never says -rdc. nvcc finds the relocatable device
code in its inputs and device-links it; so must ours, on every stack's clang (17 names one
__hip_fatbin, 18 and later one per object)."""

from __future__ import annotations

import pytest

from conftest import REPO, docker_run
from support import device_symbols
from support.open_stacks import MIMICKED, OPEN_STACKS

pytestmark = pytest.mark.engine


LIBRARY = r"""
__device__ int offset = 7;
__device__ int transform(int x) { return 3 * x + offset; }
"""

MAIN = r"""
#include <cstdio>
extern __device__ int offset;
__device__ int transform(int x);
__global__ void apply(int* v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = transform(v[i]);
}
int main() {
    int* v = nullptr;
    cudaError_t status = cudaMalloc(&v, 64 * sizeof(int));
    if (status != cudaSuccess) { std::printf("no device: %s\n", cudaGetErrorString(status)); return 3; }
    apply<<<1, 64>>>(v, 64);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
"""


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_device_code_from_a_library_links_without_rdc_on_the_link_line(
    request: pytest.FixtureRequest, gfx: str, fixture: str
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    script = f""". /opt/moatbridge/bin/activate {gfx} >/dev/null
set -eu
mkdir -p /tmp/t && cd /tmp/t
cat > library.cu <<'CU'
{LIBRARY}
CU
cat > main.cu <<'CU'
{MAIN}
CU
nvcc -dc -gencode arch=compute_86,code=sm_86 -o library.o -c library.cu
nvcc -lib -o library.a library.o
nvcc -dc -gencode arch=compute_86,code=sm_86 -o main.o -c main.cu
nvcc -gencode arch=compute_86,code=sm_86 -o app library.a main.o
llvm-nm --defined-only app | grep -c ' __hip_fatbin' || true
./app || echo "app rc=$?"
# CMake's device-link line also names the libraries the target links: glibc's libpthread.a (an
# archive of no members) and the toolkit's static libraries (linker scripts naming ROCm's)
static="$CUDA_PATH/lib64/libcublas_static.a"
head -c 7 "$static" | grep -q '!<arch>' && echo "not a linker script: $static"
nvcc -gencode arch=compute_86,code=sm_86 -dlink main.o library.a /usr/lib/x86_64-linux-gnu/libpthread.a "$static" \
    -o dlink.o && echo "device link with libraries: ok"
"""
    result = docker_run(image, script)
    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
    lines = result.stdout.splitlines()
    assert int(lines[0]) >= 1, "the program has no device code object"
    assert "app rc=3" in result.stdout and "no device" in result.stdout, result.stdout
    assert "device link with libraries: ok" in result.stdout and "not a linker script" not in result.stdout


SEPARABLE_PROJECT = REPO / "tests" / "cuda_projects" / "rdc_app"
# Each file's internal-linkage variables the host fills (tables.cu: c_Table; kernels.cu:
# c_Table, d_Bias, threads_run), and the extern ones the library defines.
INTERNAL = {"_ZL7c_Table": 2, "_ZL6d_Bias": 1, "_ZL11threads_run": 1}
EXTERN = {"scale_factor", "offsets"}


@pytest.mark.parametrize(("gfx", "fixture", "release"), MIMICKED)
def test_a_separable_compilation_project_links_every_device_variable(
    request: pytest.FixtureRequest, gfx: str, fixture: str, release: str
) -> None:
    """CMake's CUDA_SEPARABLE_COMPILATION with a static library, for three architectures at
    once (all three ones CUDA 13 still builds): cmake_device_link.o resolves extern and
    `static` device variables across the files, and every name the host registers is defined
    in the linked device code, whichever release the toolkit mimics."""
    image = str(request.getfixturevalue(fixture)["reference"])
    script = f""". /opt/moatbridge/bin/activate {gfx} >/dev/null
set -eu
cp -r /project /tmp/p && cd /tmp/p
cmake -S . -B build -G Ninja "-DCMAKE_CUDA_ARCHITECTURES=75;86;89" >configure.log
sed -n 's/.*The CUDA compiler identification is //p' configure.log
cmake --build build -v >build.log 2>&1 || {{ tail -n 40 build.log; exit 1; }}
grep -c -- '-dlink .*-o CMakeFiles/rdc_app.dir/cmake_device_link.o' build.log
cat > /tmp/listing.sh <<'SH'
{device_symbols.LISTING_SCRIPT}
SH
bash -eu /tmp/listing.sh build/rdc_app
"""
    result = docker_run(image, script, "-v", f"{SEPARABLE_PROJECT}:/project:ro")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    compiler, device_links = result.stdout.splitlines()[:2]
    assert compiler.startswith(f"NVIDIA {release}."), compiler
    assert device_links == "1", "CMake ran no device link"
    targets, host = device_symbols.parse_listing(result.stdout)
    assert list(targets) == [f"hipv4-amdgcn-amd-amdhsa--{gfx}"], targets
    registered = device_symbols.externalized_names(host)
    found = {prefix: {n for n in registered if n.startswith(f"{prefix}.static.") and not n.endswith(".managed")}
             for prefix in INTERNAL}  # fmt: skip
    assert {prefix: len(names) for prefix, names in found.items()} == INTERNAL, registered
    for code_object in targets.values():
        assert registered | EXTERN <= code_object, sorted((registered | EXTERN) - code_object)
