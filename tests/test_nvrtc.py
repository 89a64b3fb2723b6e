"""NVRTC as CUDA programs drive it, measured against NVIDIA's NVRTC (Debian's libnvrtc12, CUDA
12.4, fetched at test time; it compiles without a GPU). One driver program compiles each case
with the real NVRTC and with ours (nvrtc.h over hiprtc) in the same image, and both must give
the expected outcome: NVRTC's option spellings (joined, separate, NVIDIA-only ones accepted),
its predefined macros and __CUDA_ARCH__, quoted includes from the directory of the program's
name and not from the working directory, and CUDA's device headers (cooperative groups and
their reductions, fp16, bf16, warp functions) from the toolkit's include directory or from a
copy next to the kernel, as cuda-samples' matrixMul_nvrtc makes. Runs without a GPU: ours
names the target hiprtc would otherwise ask the device for."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cudacompat.generate import device_functions, signatures

from conftest import docker_run
from support import nvidia_toolkit
from support.open_stacks import OPEN_STACKS

pytestmark = pytest.mark.engine

DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#ifdef ORACLE  /* NVIDIA's entry points and result codes, declared here: no CUDA header needed */
extern "C" {
typedef struct _nvrtcProgram* nvrtcProgram;
typedef int nvrtcResult;
nvrtcResult nvrtcCreateProgram(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
nvrtcResult nvrtcCompileProgram(nvrtcProgram, int, const char* const*);
nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram, size_t*);
nvrtcResult nvrtcGetProgramLog(nvrtcProgram, char*);
nvrtcResult nvrtcDestroyProgram(nvrtcProgram*);
nvrtcResult nvrtcGetPTXSize(nvrtcProgram, size_t*);
nvrtcResult nvrtcGetPTX(nvrtcProgram, char*);
}
enum { NVRTC_SUCCESS = 0, NVRTC_ERROR_INVALID_OPTION = 5, NVRTC_ERROR_COMPILATION = 6 };
#else
#include <nvrtc.h>
#endif
// argv: the program's name (its source is read from there, as the samples do), then options.
int main(int argc, char** argv) {
    std::ifstream file(argv[1]);
    std::stringstream text;
    text << file.rdbuf();
    std::string source = text.str();
    std::vector<char*> options;
#ifdef EXTRA_OPTION
    options.push_back(const_cast<char*>(EXTRA_OPTION));
#endif
    for (int i = 2; i < argc; ++i) options.push_back(argv[i]);
    nvrtcProgram program;
    if (nvrtcCreateProgram(&program, source.c_str(), argv[1], 0, NULL, NULL) != NVRTC_SUCCESS) return 1;
    nvrtcResult result = nvrtcCompileProgram(program, (int)options.size(), options.data());
    size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    std::string log(size + 1, '\0');
    nvrtcGetProgramLog(program, &log[0]);
    std::fprintf(stderr, "== the log of %s\n%s\n", argv[1], log.c_str());
    if (result == NVRTC_SUCCESS && std::getenv("NVRTC_CODE") != NULL) {  // NVIDIA's PTX, our code object
        size_t code_size = 0;
        nvrtcGetPTXSize(program, &code_size);
        std::string code(code_size, '\0');
        nvrtcGetPTX(program, &code[0]);
        std::ofstream(std::getenv("NVRTC_CODE"), std::ios::binary).write(code.data(), (std::streamsize)code.size());
    }
    nvrtcDestroyProgram(&program);
    bool warned = log.find("warning") != std::string::npos;
    std::printf("%s\n", result == NVRTC_SUCCESS ? (warned ? "compiled, with warnings" : "compiled")
                        : result == NVRTC_ERROR_INVALID_OPTION ? "invalid option"
                        : result == NVRTC_ERROR_COMPILATION ? "compile error" : "other");
    return 0;
}
"""

SOURCES = {
    "plain.cu": 'extern "C" __global__ void kernel(float* x) { x[threadIdx.x] = 1.0f; }\n',
    "macros.cu": (
        "#if !defined(__CUDACC__) || !defined(__CUDACC_RTC__) || defined(__NVCC__)\n#error identity\n#endif\n"
        "#if __CUDACC_VER_MAJOR__ != 12 || __CUDACC_VER_MINOR__ != 4 || CUDART_VERSION != 12040\n#error version\n#endif\n"
        "#if __CUDA_API_VER_MAJOR__ != 12 || __CUDA_API_VER_MINOR__ != 4\n#error api version\n#endif\n"
        '__device__ void kernel() { static_assert(__CUDA_ARCH__ == 520 && __CUDA_ARCH_LIST__ == 520, "default"); }\n'
    ),
    "sm86.cu": '__device__ void f() { static_assert(__CUDA_ARCH__ == 860, "sm_86"); }\n',
    "sm80.cu": '__device__ void f() { static_assert(__CUDA_ARCH__ == 800, "compute_80"); }\n',
    "sm90.cu": '__device__ void f() { static_assert(__CUDA_ARCH__ == 900, "the last one"); }\n',
    "kernels/quoted.cu": '#include "local.cuh"\n__device__ int f() { return LOCAL; }\n',
    "kernels/local.cuh": "#define LOCAL 1\n",
    "kernels/cwd.cu": '#include "top.cuh"\n__device__ int f() { return TOP; }\n',
    "top.cuh": "#define TOP 1\n",
    "angle.cu": "#include <inc.cuh>\n__device__ int f() { return INC; }\n",
    "inc/inc.cuh": "#define INC 1\n",
    "inc/pre.h": "#define PRE 1\n",
    "inc/prenull.h": "__device__ inline int* pre_null() { return NULL; }\n",
    "prenull.cu": "__device__ int f() { return pre_null() == 0; }\n",
    "preinc.cu": "__device__ int f() { return PRE; }\n",
    "builtins.cu": (
        '__device__ void f(int* p) { assert(p != NULL); size_t n = sizeof(ptrdiff_t); printf("%d", (int)n);\n'
        '    static_assert(sizeof(NULL) == sizeof(int), "NVRTC\'s NULL is 0"); }\n'
    ),
    "ndebug.cu": "__device__ void f() { assert(nonexistent); }\n",
    "define.cu": "#if !defined(ONE) || TWO != 2\n#error macros\n#endif\n__device__ int f() { return TWO; }\n",
    "groups.cu": r"""
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
namespace cg = cooperative_groups;
extern "C" __global__ void kernel(float* out, const __half* h, const __nv_bfloat16* b) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float v = __half2float(__hmul(h[threadIdx.x], h[threadIdx.x])) + __bfloat162float(b[threadIdx.x]);
    v = cg::reduce(warp, v, cg::plus<float>());
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    unsigned mask = __ballot_sync(__activemask(), v > 0.0f);
    __syncwarp();
    cg::sync(block);
    if (warp.thread_rank() == 0) out[blockIdx.x] = v + (float)__popc(mask) + __int_as_float(__brev(mask));
}
""",
    "copied/matrix.cu": r"""
#include <cooperative_groups.h>
extern "C" __global__ void kernel(float* c, const float* a) {
    cooperative_groups::thread_block cta = cooperative_groups::this_thread_block();
    __shared__ float tile[16][16];
    tile[threadIdx.y][threadIdx.x] = a[threadIdx.y * 16 + threadIdx.x];
    cooperative_groups::sync(cta);
    c[threadIdx.y * 16 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
""",
}

# NVIDIA-only options NVRTC 12.4 accepts, each once (it refuses a second -arch or -lineinfo):
# ours must accept them too (and drop or translate them).
ACCEPTED_JOINED = [
    "--use_fast_math", "-lineinfo", "-G", "-rdc=true", "--ftz=true", "--prec-div=false", "--prec-sqrt=true",
    "--fmad=false", "--std=c++17", "-w", "-default-device", "--maxrregcount=32", "--ptxas-options=-v", "-dopt=on",
    "--restrict", "--extra-device-vectorization", "-device-int128", "-err-no", "--diag-suppress=177", "-dlto",
    "-jtd=50", "-builtin-move-forward=true", "-modify-stack-limit=false", "-brief-diag=true",
]  # fmt: skip
ACCEPTED_SEPARATE = [
    "--generate-line-info", "--device-debug", "--disable-warnings", "-use_fast_math", "-std=c++14",
    "--relocatable-device-code", "false", "-ftz", "false", "-maxrregcount", "32", "-Xptxas", "-v",
    "-diag-suppress", "177", "-fmad", "true", "-dopt", "on", "-ewp",
]  # fmt: skip
CUDA = "@CUDA_INCLUDE@"  # NVIDIA's include directory for the real NVRTC, the toolkit's for ours

# (case, directory to run in, program name, options, outcome NVRTC gives)
CASES: list[tuple[str, str, str, list[str], str]] = [
    ("plain", ".", "plain.cu", [], "compiled"),
    ("predefined macros, default arch", ".", "macros.cu", [], "compiled"),
    ("NULL, assert, size_t, ptrdiff_t, printf without an include", ".", "builtins.cu", [], "compiled"),
    ("assert under -DNDEBUG", ".", "ndebug.cu", ["-DNDEBUG"], "compiled"),
    ("assert without NDEBUG", ".", "ndebug.cu", [], "compile error"),
    ("arch joined", ".", "sm86.cu", ["-arch=sm_86"], "compiled"),
    ("arch long joined", ".", "sm86.cu", ["--gpu-architecture=sm_86"], "compiled"),
    ("arch separate virtual", ".", "sm80.cu", ["-arch", "compute_80"], "compiled"),
    ("arch long separate", ".", "sm90.cu", ["--gpu-architecture", "sm_90"], "compiled"),
    ("another arch asserted", ".", "sm90.cu", ["-arch=sm_86"], "compile error"),
    ("quoted include from the name's directory", ".", "kernels/quoted.cu", [], "compiled"),
    ("a name without a directory: the working one", "kernels", "quoted.cu", [], "compiled"),
    ("quoted include not from the working directory", ".", "kernels/cwd.cu", [], "compile error"),
    ("-no-source-include", ".", "kernels/quoted.cu", ["-no-source-include"], "compile error"),
    ("quoted include from an include path", ".", "kernels/quoted.cu",
     ["-no-source-include", "--include-path=kernels"], "compiled"),
    ("angle include without a path", ".", "angle.cu", [], "compile error"),
    ("-I separate", ".", "angle.cu", ["-I", "inc"], "compiled"),
    ("-I joined", ".", "angle.cu", ["-Iinc"], "compiled"),
    ("-I=", ".", "angle.cu", ["-I=inc"], "compiled"),
    ("--include-path separate", ".", "angle.cu", ["--include-path", "inc"], "compiled"),
    ("-D joined and separate", ".", "define.cu", ["-DONE", "-D", "TWO=2"], "compiled"),
    ("--define-macro", ".", "define.cu", ["--define-macro=ONE", "--define-macro", "TWO=2"], "compiled"),
    ("-U", ".", "define.cu", ["-DONE", "-DTWO=2", "-UONE"], "compile error"),
    ("--pre-include", ".", "preinc.cu", ["--pre-include=inc/pre.h"], "compiled"),
    ("-include separate", ".", "preinc.cu", ["-include", "inc/pre.h"], "compiled"),
    ("a pre-included header sees NVRTC's built-ins", ".", "prenull.cu", ["--pre-include=inc/prenull.h"], "compiled"),
    ("NVIDIA-only options, joined", ".", "plain.cu", ACCEPTED_JOINED, "compiled"),
    ("NVIDIA-only options, separate", ".", "plain.cu", ACCEPTED_SEPARATE, "compiled"),
    ("a true/false option without its value", ".", "plain.cu", ["-rdc"], "invalid option"),
    ("a true/false option with another value", ".", "plain.cu", ["--ftz=yes"], "invalid option"),
    ("a valued option at the end", ".", "plain.cu", ["-arch"], "invalid option"),
    ("CUDA's device headers from the toolkit", ".", "groups.cu", [f"--include-path={CUDA}", "-arch=sm_86"],
     "compiled"),
    ("cooperative_groups.h copied next to the kernel", ".", "copied/matrix.cu", ["--include-path=copied"],
     "compiled"),
]  # fmt: skip


def _drivers(gfx: str) -> str:
    """The image's shell, activated for `gfx`, with DRIVER built twice from /p/driver.cpp:
    /tmp/real against NVIDIA's NVRTC (mounted at /real/lib), /tmp/ours against ours."""
    return f""". /opt/moatbridge/bin/activate {gfx} >/dev/null
set -eu
g++ -DORACLE -o /tmp/real /p/driver.cpp /real/lib/libnvrtc.so.12
nvcc '-DEXTRA_OPTION="--offload-arch={gfx}"' -o /tmp/ours /p/driver.cpp -lnvrtc"""


def _script(driver: str) -> str:
    """Runs every case with `driver`, one line each: case, then outcome."""
    lines = []
    for case, directory, name, options, _ in CASES:
        words = " ".join(shlex.quote(o).replace(CUDA, '"$CUDA_INCLUDE"') for o in options)
        lines.append(f'echo "{case}: $(cd {shlex.quote(directory)} && {driver} {shlex.quote(name)} {words})"')
    return "\n".join(lines)


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_nvrtc_compiles_what_nvidias_does_and_refuses_what_it_refuses(
    request: pytest.FixtureRequest, gfx: str, fixture: str, tmp_path: Path
) -> None:
    include = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    nvrtc = nvidia_toolkit.required(nvidia_toolkit.real_nvrtc_library)
    image = str(request.getfixturevalue(fixture)["reference"])
    (tmp_path / "driver.cpp").write_text(DRIVER)
    cases = tmp_path / "cases"
    for relative, text in SOURCES.items():
        (cases / relative).parent.mkdir(parents=True, exist_ok=True)
        (cases / relative).write_text(text)
    copy_groups = (
        'cp "$CUDA_INCLUDE/cooperative_groups.h" copied/ && cp -r "$CUDA_INCLUDE/cooperative_groups" copied/'
    )
    script = f"""{_drivers(gfx)}
cp -r /p/cases /tmp/real-cases && cp -r /p/cases /tmp/our-cases
cd /tmp/real-cases && CUDA_INCLUDE=/real/include && {copy_groups}
echo "== NVIDIA"
export LD_LIBRARY_PATH=/real/lib
{_script("/tmp/real")}
unset LD_LIBRARY_PATH
cd /tmp/our-cases && CUDA_INCLUDE="$CUDA_PATH/include" && {copy_groups}
echo "== ours"
{_script("/tmp/ours")}
"""
    result = docker_run(
        image, script, "-v", f"{include}:/real/include:ro", "-v", f"{nvrtc.parent}:/real/lib:ro",
        "-v", f"{tmp_path}:/p:ro",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    _, real, ours = result.stdout.split("== ")
    expected = [f"{case}: {outcome}" for case, *_, outcome in CASES]
    assert real.splitlines()[1:] == expected, "NVIDIA's NVRTC disagrees with the expectations:\n" + real
    assert ours.splitlines()[1:] == expected, result.stderr[-8000:]


# Namespace-scope device variables declared `static`: NVRTC keeps each under its own name (its
# PTX declares and reads them) and cuModuleGetGlobal finds them, as binomialOptions_nvrtc does
# for its `static __constant__` options. Ours must give them symbols the runtime finds.
STATIC_VARIABLES = r"""
static __constant__ float c_static[4];
__device__ static int d_static = 3;
static __device__ float twice(float x) { return 2.0f * x; }
extern "C" __global__ void kernel(float* out) { out[threadIdx.x] = twice(c_static[threadIdx.x]) + d_static; }
"""
# The source rewrite that does it (moatbridge/nvrtc_source.h), case by case: "@static" marks a
# `static` that must be blanked for hiprtc, a plain `static` one that must stay.
SCAN_CASES = {
    "constant array": "@static __constant__ float c[4];\n",
    "device scalar": "@static __device__ int counter;\n",
    "specifiers in another order": "__device__ @static volatile unsigned long long ticks = 3;\n",
    "managed": "@static __managed__ int shared_with_host;\n",
    "several declarators": "@static __device__ int a, b[2], *c;\n",
    "brace-initialised": "@static __device__ int braced{7};\n",
    "array initialiser, then another": "@static __device__ int t[] = {1, 2, 3};\n@static __constant__ float k = 1.0f;\n",
    "a device function": "static __device__ float twice(float x) { return 2 * x; }\n",
    "a function declared": "static __device__ float half(float);\n",
    "a template argument list with a comma": "template <class A, class B> struct P {};\nstatic __device__ P<int, int> make(int);\n",
    "a kernel": "static __global__ void k(float* x) { x[0] = 1; }\n",
    "a host variable": "static int host_only = 1;\n",
    "static_assert": 'static_assert(sizeof(int) == 4, "int");\n',
    "a class member": "struct S { static __device__ int m(); static const int n = 2; };\n",
    "a local": "__global__ void k(int* o) { static __shared__ int t[4]; t[0] = 1; o[0] = t[0]; }\n",
    "in a namespace": "namespace tables { inline namespace v1 { @static __constant__ float c[2]; } }\n",
    'in extern "C"': 'extern "C" {\n@static __device__ int v;\n}\n',
    "after a function body with a lambda": (
        "__device__ int g() { auto l = [] { return 1; }; return l(); }\n@static __device__ int e;\n"
    ),
    "attributes and alignment": (
        "[[maybe_unused]] @static __device__ __align__(16) float a[4];\n"
        "@static __constant__ __attribute__((aligned(8))) double d[2];\n"
        "static __device__ __attribute__((noinline)) float f(float x) { return x; }\n"
    ),
    "comments, literals and directives": (
        "// static __device__ int line;\n/* static __constant__ int block; */\n"
        '__device__ const char* s = "static __device__ int quoted;";\n'
        '__device__ const char* r = R"x(static __device__ int raw; )" )x";\n'
        "#define DECLARE static __device__ int macro; \\\n    static __device__ int continued;\n"
        "__device__ int n = 1'000'000; __device__ char q = '\\'';\n@static __device__ int after;\n"
    ),
    "CRLF lines": "@static __device__ int crlf;\r\nstatic __device__ int g(int x) { return x; }\r\n",
    "sizeof an array type": "@static __device__ int z = sizeof(char[3]);\n",
    "an unterminated comment": "@static __device__ int last; /* static __device__ int never;",
}
SCAN_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <moatbridge/nvrtc_source.h>
/* each argument a file; writes FILE.out, the source as hiprtc gets it */
int main(int argc, char** argv) {
    static char text[1 << 20];
    char name[4096];
    int i;
    for (i = 1; i < argc; i++) {
        FILE* in = fopen(argv[i], "rb");
        FILE* out;
        size_t n;
        char* copy;
        if (in == NULL) return 1;
        n = fread(text, 1, sizeof text - 1, in);
        fclose(in);
        text[n] = '\0';
        copy = moatbridge_nvrtc_external_device_variables(text);
        snprintf(name, sizeof name, "%s.out", argv[i]);
        if ((out = fopen(name, "wb")) == NULL) return 1;
        fputs(copy != NULL ? copy : text, out);
        fclose(out);
        free(copy);
    }
    return 0;
}
"""
_SYMBOL = re.compile(r"^\s*\d+: [0-9a-f]+\s+(\d+) (\w+)\s+(\w+)\s+\w+\s+\S+ (\S+)$", re.MULTILINE)


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_static_device_variables_keep_their_names_as_under_nvrtc(
    request: pytest.FixtureRequest, gfx: str, fixture: str, tmp_path: Path
) -> None:
    nvrtc = nvidia_toolkit.required(nvidia_toolkit.real_nvrtc_library)
    image = str(request.getfixturevalue(fixture)["reference"])
    (tmp_path / "driver.cpp").write_text(DRIVER)
    (tmp_path / "harness.c").write_text(SCAN_HARNESS)
    (tmp_path / "statics.cu").write_text(STATIC_VARIABLES)
    scan = tmp_path / "scan"
    scan.mkdir()
    names = {f"{i}.cu": case for i, case in enumerate(SCAN_CASES)}
    for name, case in names.items():
        (scan / name).write_bytes(SCAN_CASES[case].replace("@static", "static").encode())
    out = tmp_path / "out"
    out.mkdir()
    script = f"""{_drivers(gfx)}
gcc -std=c99 -pedantic -Wall -Wextra -Werror -I"$CUDA_PATH/include" -o /tmp/scan-c /p/harness.c
g++ -x c++ -Wall -Wextra -Werror -I"$CUDA_PATH/include" -o /tmp/scan-cxx /p/harness.c
mkdir /out/c /out/cxx && cp /p/scan/*.cu /out/c && cp /p/scan/*.cu /out/cxx
/tmp/scan-c /out/c/*.cu && /tmp/scan-cxx /out/cxx/*.cu
cd /p
echo "== NVIDIA: $(NVRTC_CODE=/tmp/real.ptx LD_LIBRARY_PATH=/real/lib /tmp/real statics.cu -arch=sm_86)"
cat /tmp/real.ptx
echo "== ours: $(NVRTC_CODE=/tmp/ours.co /tmp/ours statics.cu -arch=sm_86)"
readelf -sW /tmp/ours.co
"""
    result = docker_run(
        image, script, "-v", f"{nvrtc.parent}:/real/lib:ro", "-v", f"{tmp_path}:/p:ro", "-v", f"{out}:/out"
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for language in ("c", "cxx"):
        wrong = [
            case for name, case in names.items()
            if (out / language / f"{name}.out").read_bytes() != SCAN_CASES[case].replace("@static", "      ").encode()
        ]  # fmt: skip
        assert wrong == [], f"rewritten wrongly as {language}: {wrong}"
    real, ours = result.stdout.split("== ours: ")
    assert real.startswith("== NVIDIA: compiled"), real[:3000]
    for declared, read in (
        (r"\.const .*\bc_static\[16\];", r", c_static;"),  # declared, then its address taken
        (r"\.global .*\bd_static = 3;", r"\[d_static\]"),  # declared, then loaded
    ):
        assert re.search(declared, real) and re.search(read, real), f"NVIDIA's PTX:\n{real[:3000]}"
    assert ours.startswith("compiled"), ours[:3000] + result.stderr[-3000:]
    symbols = {m.group(4): (int(m.group(1)), m.group(2), m.group(3)) for m in _SYMBOL.finditer(ours)}
    assert symbols.get("c_static") == (16, "OBJECT", "GLOBAL"), ours[-3000:]
    assert symbols.get("d_static") == (4, "OBJECT", "GLOBAL"), ours[-3000:]


# device_api.tsv's probe kernels as NVRTC compiles them: no includes (the device functions are
# built in) and no <type_traits>, so the probes' pointer types are spelled out.
_RTC_TRAITS = (
    "template <class T> struct probe_plain { typedef T type; };\n"
    "template <class T> struct probe_plain<const T> { typedef T type; };\n"
    "template <class T> struct probe_plain<volatile T> { typedef T type; };\n"
    "template <class T> struct probe_plain<const volatile T> { typedef T type; };\n"
)
# NVRTC leaves out the shuffles without a mask for sm_70 and later, which the probe targets.
NVIDIA_ONLY_BEFORE_SM70 = {"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor"}
_NVRTC_ERROR = re.compile(r"^probe\.cu\((\d+)\): error: (.*)$", re.MULTILINE)


def _runtime_probe() -> tuple[str, dict[int, str]]:
    """The probe source for runtime compilation, and line number -> function name."""
    source, lines, _ = device_functions.probe_source(device_functions.load())
    includes = "#include <cuda_runtime.h>\n#include <type_traits>\n"
    assert source.startswith(includes)
    source = _RTC_TRAITS + source[len(includes) :]
    source = source.replace("std::add_pointer_t<std::remove_cv_t<", "typename probe_plain<").replace(
        ">> r", ">::type* r"
    )
    source = re.sub(r"std::add_pointer_t<(.+?)> a(\d+)", r"\1* a\2", source)
    assert "std::" not in source
    shift = _RTC_TRAITS.count("\n") - includes.count("\n")
    return source, {line + shift: name for line, name in lines.items()}


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_every_device_function_compiles_at_run_time_or_is_a_listed_gap(
    request: pytest.FixtureRequest, gfx: str, fixture: str, tmp_path: Path
) -> None:
    """NVRTC has CUDA's device functions without an include: a program compiled at run time
    calls them as a .cu file does. Every signature of device_api.tsv (NVIDIA CUDA 12.4's
    device headers) is probed through NVIDIA's NVRTC and ours: NVIDIA's compiles them all
    (but the pre-sm_70 shuffles at sm_90), and ours fails exactly on the listed device gaps,
    as nvcc does."""
    nvrtc = nvidia_toolkit.required(nvidia_toolkit.real_nvrtc_library)
    image = str(request.getfixturevalue(fixture)["reference"])
    source, lines = _runtime_probe()
    (tmp_path / "probe.cu").write_text(source)
    (tmp_path / "driver.cpp").write_text(DRIVER)
    script = f"""{_drivers(gfx)}
cd /p
echo "== NVIDIA: $(LD_LIBRARY_PATH=/real/lib /tmp/real probe.cu -arch=sm_90 2>/tmp/real.log)"
cat /tmp/real.log
echo "== ours: $(/tmp/ours probe.cu -arch=sm_90 -ferror-limit=0 2>/tmp/ours.log)"
cat /tmp/ours.log
"""
    result = docker_run(
        image, script, "-v", f"{nvrtc.parent}:/real/lib:ro", "-v", f"{tmp_path}:/p:ro"
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    real, ours = result.stdout.split("== ours: ")
    real_failed = {lines[int(m.group(1))] for m in _NVRTC_ERROR.finditer(real)}
    assert real_failed <= NVIDIA_ONLY_BEFORE_SM70, sorted(real_failed)
    ours = re.sub(r"^\S*/probe\.cu:", "probe.cu:", ours, flags=re.MULTILINE)
    failed = signatures.failures(ours, lines)
    gaps = {gap.name for gap in signatures.load_gaps(device_functions.GAPS)}
    print(f"\nCUDA device functions at run time: {len(set(lines.values())) - len(failed)} compile")
    assert set(failed) - gaps == set(), "\n".join(
        f"{n}: {e}" for n, e in sorted(failed.items()) if n not in gaps
    )
    assert gaps - set(failed) == set(), (
        f"listed as gaps but compile at run time: {sorted(gaps - set(failed))}"
    )
    unexplained = [
        line for line in ours.splitlines() if " error: " in line and not line.startswith("probe.cu:")
    ]
    assert not unexplained, "\n".join(unexplained[:20])
