"""The open image's CUDA layer for real: the toolkit directory, nvcc against clang-17, the
generated headers, and unmodified CMake and make projects (CMake from the image and two
older releases from PyPI's wheels).

No GPU here: programs are expected to reach the HIP runtime and stop with its
"no ROCm-capable device" / "invalid device ordinal" errors, not crash or miss symbols.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, docker_run
from support import pypi

pytestmark = pytest.mark.engine

PROJECTS = REPO / "tests" / "cuda_projects"
TARGET = "/opt/moatbridge/targets/gfx1030"
NO_DEVICE = ("no ROCm-capable device is detected", "invalid device ordinal")
OLDER_CMAKES = ("3.25.2", "3.28.3")
CACHE = Path(os.environ.get("MOATBRIDGE_TEST_CACHE", "/var/tmp/moatbridge-test-cache"))


def _image(info: dict[str, Any]) -> str:
    return str(info["reference"])


def _in_image(image: str, script: str, *mounts: str) -> subprocess.CompletedProcess[str]:
    volumes: list[str] = []
    for mount in mounts:
        volumes += ["-v", mount]
    return docker_run(image, f"set -e\n. /opt/moatbridge/bin/activate gfx1030\n{script}", *volumes)


def _ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, (
        f"exit {result.returncode}\nstdout:\n{result.stdout[-4000:]}\nstderr:\n{result.stderr[-6000:]}"
    )
    return result.stdout


# --- the toolkit directory ----------------------------------------------------------------


def test_toolkit_directory_looks_like_a_cuda_install(open_devel_gfx1030: dict[str, Any]) -> None:
    out = _ok(
        _in_image(
            _image(open_devel_gfx1030),
            f"""
            cd {TARGET}
            test -x bin/nvcc && test -f include/cuda_runtime.h && test -d nvvm/libdevice
            cat version.txt; python3 -c 'import json; print(json.load(open("version.json"))["cuda"]["version"])'
            for lib in libcudart.so libcudart_static.a libcudadevrt.a stubs/libcuda.so libcublas.so libcublasLt.so \
                       libcufft.so libcurand.so libcusparse.so libcusolver.so libnccl.so libnvToolsExt.so; do
                test -f lib64/$lib || echo "missing $lib"
            done
            ls lib/libcudart.so targets/x86_64-linux/include/cuda.h >/dev/null
            echo "which=$(command -v nvcc)" "CUDA_HOME=$CUDA_HOME" "CUDACXX=$CUDACXX"
            """,
        )
    )
    assert "CUDA Version 12.4.131" in out
    assert "\n12.4.131\n" in out
    assert "missing" not in out
    assert f"which={TARGET}/bin/nvcc CUDA_HOME={TARGET} CUDACXX={TARGET}/bin/nvcc" in out


def test_every_library_name_links_to_its_rocm_library(open_devel_gfx1030: dict[str, Any]) -> None:
    out = _ok(
        _in_image(
            _image(open_devel_gfx1030),
            """
            cd /tmp && printf 'int main(){return 0;}\\n' > m.cu
            nvcc m.cu -o m -lcublas -lcublasLt -lcufft -lcurand -lcusparse -lcusolver -lnccl -lnvToolsExt -lcuda \
                -Xlinker --no-as-needed
            readelf -d m | grep NEEDED
            nvcc -cudart shared m.cu -o m2 && readelf -d m2 | grep -c amdhip64
            """,
        )
    )
    for needed in (
        "libamdhip64",
        "libhipblas",
        "libhipfft",
        "libhiprand",
        "libhipsparse",
        "libhipsolver",
        "librccl",
        "libcublasLt.so.12",  # no hipBLASLt on trixie: cuBLASLt over hipBLAS, under NVIDIA's soname
    ):
        assert needed in out


def test_compat_report_lists_emitted_and_left_out_mappings(open_devel_gfx1030: dict[str, Any]) -> None:
    out = _ok(_in_image(_image(open_devel_gfx1030), "cat /opt/moatbridge/toolkit/compat-report.json"))
    report = json.loads(out)
    for family in ("runtime", "cublas", "cusparse", "curand", "cufft", "cusolver", "nvrtc"):
        assert report["emitted"][family] > 20, family
    assert report["emitted"]["runtime"] > 1000
    # hipify's table is newer than the libraries: some names must have failed the probe
    assert report["unresolved"], "a probe that rejects nothing proves nothing"
    assert any(d["reason"].startswith("no HIP counterpart") for d in report["dropped"])


def test_generated_headers_compile_as_cuda_and_as_plain_cxx(open_devel_gfx1030: dict[str, Any]) -> None:
    headers = [
        "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "device_launch_parameters.h", "cuda_fp16.h",
        "cuda_bf16.h", "cooperative_groups.h", "cublas_v2.h", "curand.h", "curand_kernel.h", "cufft.h",
        "cusparse.h", "cusolverDn.h", "nccl.h", "nvrtc.h", "nvToolsExt.h", "nvtx3/nvToolsExt.h",
        "cuComplex.h", "math_constants.h", "cuda_profiler_api.h", "thrust/device_vector.h", "cub/cub.cuh",
    ]  # fmt: skip
    includes = "".join(f"#include <{h}>\\n" for h in headers)
    host_headers = [h for h in headers if h not in ("curand_kernel.h", "cooperative_groups.h", "cub/cub.cuh")]
    host_includes = "".join(f"#include <{h}>\\n" for h in host_headers if not h.startswith("thrust"))
    _ok(
        _in_image(
            _image(open_devel_gfx1030),
            f"""
            cd /tmp
            printf '{includes}int main() {{ cudaError_t e = cudaSuccess; return (int)e + CUDART_VERSION / 100000; }}\\n' > all.cu
            nvcc -c all.cu -o all.o
            printf '{host_includes}int main() {{ int n = 0; return cudaGetDeviceCount(&n) == cudaSuccess ? 0 : 1; }}\\n' > host.cpp
            clang++-17 -std=c++17 -isystem $CUDA_HOME/include -c host.cpp -o host.o
            """,
        )
    )


# --- the driver ---------------------------------------------------------------------------


def test_nvcc_identifies_itself_like_nvcc(open_devel_gfx1030: dict[str, Any]) -> None:
    out = _ok(
        _in_image(
            _image(open_devel_gfx1030),
            """
            nvcc --version
            nvcc -v __cmake_determine_cuda 2>&1 | grep -E '^#\\$ (TOP|NVVMIR_LIBRARY_DIR|LIBRARIES)=' || true
            nvcc --list-gpu-arch | head -1
            nvcc .c -Xcompiler --version 2>/dev/null | head -1 || true
            """,
        )
    )
    assert "nvcc: NVIDIA (R) Cuda compiler driver" in out and "release 12.4, V12.4.131" in out
    # ggml's CMake asks for the host compiler this way (the ".c" input does not exist)
    assert "clang version 17" in out
    assert f"#$ TOP={TARGET}/bin/.." in out
    assert f'LIBRARIES=  "-L{TARGET}/bin/../lib64/stubs" "-L{TARGET}/bin/../lib64"' in out
    assert "compute_50" in out


def test_nvcc_errors_look_like_nvccs(open_devel_gfx1030: dict[str, Any]) -> None:
    image = _image(open_devel_gfx1030)
    unknown = docker_run(
        image, f"cd /tmp && printf '__global__ void k(){{}}\\n' > k.cu && {TARGET}/bin/nvcc -c --no-such k.cu"
    )
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == "nvcc fatal   : Unknown option '--no-such'"
    missing = docker_run(image, f"cd /tmp && {TARGET}/bin/nvcc -c missing.cu")
    assert missing.returncode == 1
    assert missing.stderr.strip() == "nvcc fatal   : Could not open input file 'missing.cu'"


def test_inline_ptx_fails_with_file_and_line(open_devel_gfx1030: dict[str, Any]) -> None:
    source = (
        "__device__ unsigned lane() { unsigned id;\\n"
        '  asm volatile(\\"mov.u32 %%0, %%%%laneid;\\" : \\"=r\\"(id));\\n'
        "  return id; }\\n"
        "__global__ void k(unsigned* out) { out[0] = lane(); }\\n"
    )
    result = docker_run(
        _image(open_devel_gfx1030),
        f'cd /tmp && printf "{source}" > ptx.cu && cat ptx.cu >&2 && {TARGET}/bin/nvcc -c ptx.cu',
    )
    assert result.returncode == 1, result.stderr
    assert "ptx.cu:2: inline PTX" in result.stderr
    assert "cannot be compiled for AMD GPUs" in result.stderr and "hint:" in result.stderr
    assert "error: invalid" not in result.stderr  # clang's wall stays hidden without -v


def test_preprocess_dependencies_dryrun_and_env_flags(open_devel_gfx1030: dict[str, Any]) -> None:
    out = _ok(
        _in_image(
            _image(open_devel_gfx1030),
            """
            cd /tmp && mkdir -p inc && printf '#define SCALE 3\\n' > inc/cfg.h
            printf '#include "cfg.h"\\n__global__ void k(int* p) { *p = SCALE * __CUDACC_VER_MAJOR__; }\\n' > k.cu
            nvcc -E -Iinc k.cu | grep -c '= 3 \\* 12' || true
            nvcc -M -Iinc k.cu | tr -d '\\\\\\n' | grep -o 'inc/cfg.h' | head -1
            nvcc -c -Iinc -MD -MF k.d -MT k.o k.cu && head -1 k.d
            nvcc --dryrun -c -Iinc k.cu -o dry.o 2>&1 | grep -c '^#\\$ /usr/bin/clang++-17'; test ! -e dry.o && echo no-output
            printf -- '-Iinc\\n' > flags.rsp
            NVCC_APPEND_FLAGS='-DEXTRA=1' nvcc -v --options-file flags.rsp -c k.cu -o k2.o 2>&1 | grep -c -- '-DEXTRA=1'
            """,
        )
    )
    lines = out.split("\n")
    assert lines[0] == "1"  # __CUDACC_VER_MAJOR__ expanded, include found
    assert lines[1] == "inc/cfg.h"
    assert lines[2] == "k.o : k.cu \\"  # nvcc's shape: `target : first`, then one file a line
    assert lines[3] == "1" and lines[4] == "no-output"
    assert lines[5] == "1"


# --- build systems ------------------------------------------------------------------------


def test_plain_makefile_project(open_devel_gfx1030: dict[str, Any], tmp_path: Path) -> None:
    project = tmp_path / "make_app"
    shutil.copytree(PROJECTS / "make_app", project)
    result = _in_image(
        _image(open_devel_gfx1030),
        "cd /src && make\n./histogram || echo rc=$?\n/usr/lib/llvm-17/bin/llvm-readelf -S histogram | grep -c hip_fatbin",
        f"{project}:/src",
    )
    out = _ok(result)
    assert any(message in result.stderr for message in NO_DEVICE), result.stderr
    assert "rc=1" in out and out.strip().endswith("1")
    assert "-fgpu-rdc" not in out  # make echoes nvcc commands, not clang's


def _cmake_release(version: str) -> Path:
    """CMake `version` from PyPI's binary wheel, unpacked once into the test cache."""
    target = CACHE / f"cmake-{version}"
    if (target / "bin" / "cmake").exists():
        return target
    wheel = pypi.download_wheel(
        f"cmake=={version}", "--platform", "manylinux2014_x86_64", "--python-version", "3.11"
    )
    staging = CACHE / f"cmake-{version}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if member.startswith("cmake/data/"):
                archive.extract(member, staging)
    data = staging / "cmake" / "data"
    for tool in (data / "bin").iterdir():
        tool.chmod(tool.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    shutil.rmtree(target, ignore_errors=True)
    data.rename(target)
    shutil.rmtree(staging, ignore_errors=True)
    return target


@pytest.fixture(scope="session")
def older_cmakes() -> dict[str, Path]:
    return {version: _cmake_release(version) for version in OLDER_CMAKES}


@pytest.mark.parametrize(
    ("cmake", "architectures"),
    [("image", "86"), ("image", "all"), ("image", "native"), ("3.25.2", "86"), ("3.25.2", "all"),
     ("3.28.3", "86"), ("3.28.3", "native")],
)  # fmt: skip
def test_unmodified_cmake_cuda_project(
    open_devel_gfx1030: dict[str, Any], older_cmakes: dict[str, Path], cmake: str, architectures: str
) -> None:
    mounts = [f"{PROJECTS / 'cmake_app'}:/src:ro"]
    binary = "cmake"
    if cmake != "image":
        mounts.append(f"{older_cmakes[cmake]}:/opt/cmake:ro")
        binary = "/opt/cmake/bin/cmake"
    result = _in_image(
        _image(open_devel_gfx1030),
        f"""
        {binary} --version | head -1
        {binary} -S /src -B /tmp/build -G Ninja -DCMAKE_CUDA_ARCHITECTURES={architectures} -DCMAKE_CXX_COMPILER=clang++-17
        {binary} --build /tmp/build
        grep -E '^CMAKE_CUDA_COMPILER_(ID|VERSION|TOOLKIT_ROOT):' /tmp/build/CMakeCache.txt || true
        grep -h 'CMAKE_CUDA_COMPILER_ID \\|CMAKE_CUDA_COMPILER_VERSION ' /tmp/build/CMakeFiles/*/CMakeCUDACompiler.cmake
        cd /tmp/build
        ./saxpy || echo "saxpy rc=$?"
        ./rdc_app || echo "rdc_app rc=$?"
        """,
        *mounts,
    )
    out = _ok(result)
    if cmake != "image":
        assert f"cmake version {cmake}" in out
    assert 'set(CMAKE_CUDA_COMPILER_ID "NVIDIA")' in out
    assert 'set(CMAKE_CUDA_COMPILER_VERSION "12.4.131")' in out
    assert "saxpy rc=1" in out and "rdc_app rc=1" in out
    assert any(message in result.stderr for message in NO_DEVICE), result.stderr
    assert "error while loading shared libraries" not in result.stderr


CALLS_WITHOUT_A_GPU = r"""
#include <cstdio>
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
// What CUDA answers without touching the GPU: the profiler marks succeed with no profiler
// attached, and the versions are CUDA's numbers (the toolkit's CUDART_VERSION).
int main() {
    int runtime = -1, driver = -1, driverApi = -1;
    bool ok = cudaProfilerStart() == cudaSuccess && cudaProfilerStop() == cudaSuccess;
    ok = ok && cuProfilerStart() == CUDA_SUCCESS && cuProfilerStop() == CUDA_SUCCESS;
    ok = ok && cudaRuntimeGetVersion(&runtime) == cudaSuccess && runtime == CUDART_VERSION;
    ok = ok && cudaDriverGetVersion(&driver) == cudaSuccess && driver >= runtime;
    ok = ok && cuDriverGetVersion(&driverApi) == CUDA_SUCCESS && driverApi == driver;
    ok = ok && cudaRuntimeGetVersion(nullptr) == cudaErrorInvalidValue;
    std::printf("runtime %d driver %d driver-api %d\n%s\n", runtime, driver, driverApi, ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
"""


def test_profiler_marks_and_versions_answer_as_cuda_does(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    """HIP's profiler calls are stubs that fail and its versions are HIP's: a program that
    checks cudaProfilerStart (the cuda-samples do) stopped there. Runs without a GPU."""
    (tmp_path / "calls.cu").write_text(CALLS_WITHOUT_A_GPU)
    result = _in_image(str(open_devel_gfx1030["reference"]),
                       "cd /src && nvcc -o calls calls.cu -lcuda && ./calls", f"{tmp_path}:/src")  # fmt: skip
    assert result.returncode == 0 and "PASSED" in result.stdout, result.stdout + result.stderr
    assert "runtime 12040 driver 12040" in result.stdout, result.stdout


NVRTC_AS_THE_SAMPLES_DRIVE_IT = r"""
#include <cstdio>
#include <cstring>
#include <vector>
#include <nvrtc.h>
// NVRTC as cuda-samples' nvrtc_helper.h drives it: an NVIDIA architecture and NVRTC's own
// spellings of -I and -D, in a char* array; then the CUBIN, which cuModuleLoadData takes.
// No GPU here, so --offload-arch names the one hiprtc would otherwise ask the device for.
static const char* kSource =
    "#include \"scale.h\"\n"
    "extern \"C\" __global__ void scale(float* x) { x[threadIdx.x] *= SCALE * OFFSET; }\n";

static bool compile(int count, char** options, const char* what) {
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, kSource, "scale.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return false;
    nvrtcResult compiled = nvrtcCompileProgram(prog, count, options);
    size_t logSize = 0, size = 0;
    nvrtcGetProgramLogSize(prog, &logSize);
    std::vector<char> log(logSize + 1);
    nvrtcGetProgramLog(prog, log.data());
    nvrtcResult sized = nvrtcGetCUBINSize(prog, &size);
    std::vector<char> cubin(size + 1);
    nvrtcResult got = nvrtcGetCUBIN(prog, cubin.data());
    bool elf = size > 4 && std::memcmp(cubin.data(), "\x7f" "ELF", 4) == 0;
    std::printf("%s: compile %s, CUBIN %s/%s, %zu bytes, ELF %d\n%s\n", what, nvrtcGetErrorString(compiled),
                nvrtcGetErrorString(sized), nvrtcGetErrorString(got), size, elf, log.data());
    nvrtcDestroyProgram(&prog);
    return compiled == NVRTC_SUCCESS && sized == NVRTC_SUCCESS && got == NVRTC_SUCCESS && elf;
}

int main() {
    char* joined[] = {strdup("--gpu-architecture=sm_86"), strdup("--include-path=/src/inc"),
                      strdup("--define-macro=OFFSET=1.0f"), strdup("--offload-arch=gfx1030")};
    char* split[] = {strdup("-arch"), strdup("compute_80"), strdup("--include-path=/src/inc"),
                     strdup("-DOFFSET=1.0f"), strdup("--offload-arch=gfx1030")};
    bool ok = compile(4, joined, "joined") && compile(5, split, "split");
    ok = ok && std::strcmp(joined[0], "--gpu-architecture=sm_86") == 0 && std::strcmp(split[1], "compute_80") == 0;
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
"""


def test_nvrtc_takes_nvidia_options_and_hands_back_the_code_object(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    """Every cuda-samples *_nvrtc program passes --gpu-architecture=sm_XY, on which hiprtc
    aborts the process (HIP 5.7 and 6.4: "free(): invalid pointer"), and reads the CUBIN,
    which hipify maps onto hiprtcGetBitcode (LLVM bitcode, an error without -fgpu-rdc). The
    header drops the NVIDIA architecture, spells --include-path/--define-macro as -I/-D and
    reads the code object. Runs without a GPU."""
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.h").write_text("#define SCALE 2.0f\n")
    (tmp_path / "rtc.cpp").write_text(NVRTC_AS_THE_SAMPLES_DRIVE_IT)
    result = _in_image(_image(open_devel_gfx1030), "cd /src && nvcc -o rtc rtc.cpp -lnvrtc && ./rtc",
                       f"{tmp_path}:/src")  # fmt: skip
    assert result.returncode == 0 and "PASSED" in result.stdout, result.stdout + result.stderr
