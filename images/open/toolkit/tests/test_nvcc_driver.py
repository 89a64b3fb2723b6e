"""The nvcc driver's pure parts: nvcc's option grammar, arch mapping, the clang commands it
plans and the text build systems parse. The same code runs inside the open image, where
tests/test_open_toolkit.py checks it against clang, CMake and make for real."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cudacompat.generate import mappings
from cudacompat.nvcc import archs, options, plan, ptx, report
from cudacompat.nvcc.config import ToolkitConfig, full_cuda_version

CONFIG = ToolkitConfig(
    root="/opt/moatbridge/targets/gfx1030", gfx="gfx1030", cuda_version="11.8.89", mimic_cc=86
)


def _plan(*argv: str, rdc_objects: frozenset[str] = frozenset()) -> plan.Plan:
    return plan.build(options.parse(list(argv)), CONFIG, "/work", rdc_objects)


def _runs(result: plan.Plan) -> list[tuple[str, ...]]:
    return [step.argv for step in result.steps if isinstance(step, plan.Run)]


# --- the option grammar -------------------------------------------------------------------


def test_values_after_space_or_equals_and_either_dash_count() -> None:
    a = options.parse(
        ["-o", "x", "--std=c++17", "-ccbin=/usr/bin/clang++-17", "--output-directory", "d", "in.cu"]
    )
    assert a.last("output-file") == "x"
    assert a.last("std") == "c++17"
    assert a.last("compiler-bindir") == "/usr/bin/clang++-17"
    assert a.last("output-directory") == "d"
    assert a.inputs == ("in.cu",)


def test_list_options_split_commas_and_repeat() -> None:
    a = options.parse(
        ["-Xcompiler=-fPIC,-Wall", "-Xcompiler", "-O2", "-Iinc1,inc2", "-I", "inc3", "-lcublas,curand"]
    )
    assert a.values("compiler-options") == ["-fPIC", "-Wall", "-O2"]
    assert a.values("include-path") == ["inc1", "inc2", "inc3"]
    assert a.values("library") == ["cublas", "curand"]


def test_gencode_is_not_split_at_its_inner_commas() -> None:
    a = options.parse(
        ["-gencode", "arch=compute_75,code=[sm_75,compute_75]", "--generate-code=arch=compute_86,code=sm_86"]
    )
    assert a.values("generate-code") == [
        "arch=compute_75,code=[sm_75,compute_75]",
        "arch=compute_86,code=sm_86",
    ]


def test_boolean_options_accept_nvcc_spellings() -> None:
    assert options.parse(["-rdc=true"]).boolean("relocatable-device-code")
    assert options.parse(["--relocatable-device-code", "false"]).boolean("relocatable-device-code") is False
    with pytest.raises(options.NvccUsageError, match="Value 'maybe' is not defined for option 'rdc'"):
        options.parse(["-rdc=maybe"])


def test_unknown_option_is_an_error_unless_forwarded() -> None:
    with pytest.raises(options.NvccUsageError, match=r"Unknown option '-fno-such-thing'"):
        options.parse(["-fno-such-thing", "a.cu"])
    forwarded = options.parse(["-forward-unknown-to-host-compiler", "-fvisibility=hidden", "a.cu"])
    assert forwarded.forwarded == ("-fvisibility=hidden",)


def test_options_with_no_amd_meaning_are_accepted_and_recorded() -> None:
    a = options.parse(
        ["-Xptxas", "-v", "-maxrregcount=32", "-Wno-deprecated-gpu-targets", "--threads", "4", "a.cu"]
    )
    assert a.inputs == ("a.cu",)
    assert "-maxrregcount=32" in a.ignored and "--threads 4" in a.ignored


def test_missing_value_is_an_error() -> None:
    with pytest.raises(options.NvccUsageError, match="Option 'o' requires a value"):
        options.parse(["a.cu", "-o"])


def test_options_files_and_environment_flags_expand_in_place() -> None:
    files = {"args.rsp": '-DNAME="a b" -I inc', "more.rsp": "--options-file args.rsp -c"}
    expanded = options.expand_options_files(["-optf", "more.rsp", "x.cu"], files.__getitem__)
    assert expanded == ["-DNAME=a b", "-I", "inc", "-c", "x.cu"]
    env = {"NVCC_PREPEND_FLAGS": "-ccbin clang++-17", "NVCC_APPEND_FLAGS": "-lineinfo"}
    assert options.environment_flags(env, "NVCC_PREPEND_FLAGS") == ["-ccbin", "clang++-17"]
    assert options.environment_flags(env, "NVCC_APPEND_FLAGS") == ["-lineinfo"]


# --- architectures ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], (86,)),
        (["-arch=sm_75"], (75,)),
        (["-arch", "compute_70", "-code", "sm_70,compute_70"], (70,)),
        (
            ["-gencode", "arch=compute_80,code=[sm_80,compute_80]", "-gencode=arch=compute_90a,code=sm_90a"],
            (80, 90),
        ),
        (["-arch=native"], (86,)),
        (["-arch=all-major"], (35, 50, 60, 70, 80, 90)),  # the oldest and each major
    ],
)
def test_requested_capabilities(argv: list[str], expected: tuple[int, ...]) -> None:
    request = archs.requested(options.parse(argv), mimic=86, cuda_major=11)
    assert request.capabilities == expected
    assert request.gfx_targets == ()


def test_all_covers_cuda_11_architectures_and_explicit_gfx_is_honoured() -> None:
    request = archs.requested(options.parse(["-arch=all"]), 86, 11)
    assert request.capabilities[0] == 35 and request.capabilities[-1] == 90
    gfx = archs.requested(options.parse(["-arch", "gfx1100"]), 86, 11)
    assert gfx.gfx_targets == ("gfx1100",)
    with pytest.raises(options.NvccUsageError, match="not defined for option 'gpu-architecture'"):
        archs.requested(options.parse(["-arch=kepler"]), 86, 11)


def test_cuda_13_knows_turing_and_later_and_refuses_older_as_nvcc_13_does() -> None:
    assert archs.list_gpu_arch(13).split() == [
        "compute_75", "compute_80", "compute_86", "compute_87", "compute_88", "compute_89",
        "compute_90", "compute_100", "compute_110", "compute_103", "compute_120", "compute_121",
    ]  # fmt: skip
    assert archs.list_gpu_code(13).split()[0] == "sm_75"
    all_major = archs.requested(options.parse(["-arch=all-major"]), 86, 13)
    assert all_major.capabilities == (75, 80, 90, 100, 110, 120)
    assert archs.requested(options.parse(["-arch=all"]), 86, 13).capabilities[-1] == 121
    for old in (["-arch=sm_70"], ["-gencode", "arch=compute_60,code=sm_60"]):
        with pytest.raises(
            options.NvccUsageError, match=r"Unsupported gpu architecture '(sm_70|compute_60)'"
        ):
            archs.requested(options.parse(old), 86, 13)
    # 12.x still takes Maxwell and refuses Kepler, as nvcc 12 does
    assert archs.requested(options.parse(["-arch=sm_50"]), 86, 12).capabilities == (50,)
    with pytest.raises(options.NvccUsageError, match="Unsupported gpu architecture 'sm_35'"):
        archs.requested(options.parse(["-arch=sm_35"]), 86, 12)


def test_every_sm_value_compiles_for_the_directory_target() -> None:
    (compile_step,) = _runs(_plan("-c", "-gencode", "arch=compute_52,code=sm_52", "-arch=sm_90", "k.cu"))
    assert [a for a in compile_step if a.startswith("--offload-arch")] == ["--offload-arch=gfx1030"]
    assert "-D__MOATBRIDGE_CUDA_ARCH__=900" in compile_step
    assert "-D__CUDA_ARCH_LIST__=520,900" in compile_step


# --- planned commands ---------------------------------------------------------------------


def test_cuda_compile_uses_clang_hip_with_prelude_and_optimised_device_code() -> None:
    result = _plan("-c", "-O0", "-std=c++17", "-DX=1", "-Iinc", "src/k.cu")
    (argv,) = _runs(result)
    assert argv[0] == "/usr/bin/clang++-17"
    assert argv[1:3] == ("-x", "hip")
    joined = " ".join(argv)
    assert "-include moatbridge/nvcc_prelude.h" in joined
    assert "-D__CUDACC_VER_MAJOR__=11 -D__CUDACC_VER_MINOR__=8 -D__CUDACC_VER_BUILD__=89" in joined
    # host -O0 as asked; device -O3 after it, as nvcc always optimises device code
    assert joined.index("-O0") < joined.index("-Xarch_device -O3")
    assert argv[-4:] == ("-c", "src/k.cu", "-o", "k.o")
    assert "-DX=1" in argv and "-Iinc" in argv


def test_device_debug_turns_device_optimisation_off() -> None:
    (argv,) = _runs(_plan("-c", "-G", "k.cu"))
    assert "-Xarch_device -O0" in " ".join(argv) and "-D__CUDACC_DEBUG__=1" in argv
    assert "-Xarch_device -O3" not in " ".join(argv)


def test_flag_mapping() -> None:
    (argv,) = _runs(
        _plan(
            "-c", "--use_fast_math", "--default-stream", "per-thread", "-lineinfo", "--extended-lambda",
            "-Xcompiler", "-march=native,-fPIC", "-MD", "-MT", "k.o", "-MF", "k.d", "-Werror", "all-warnings", "k.cu",
        )
    )  # fmt: skip
    joined = " ".join(argv)
    assert "-Xarch_device -ffast-math -fgpu-flush-denormals-to-zero" in joined
    assert "-fgpu-default-stream=per-thread" in argv
    assert "-Xarch_device -gline-tables-only" in joined
    assert "-D__CUDACC_EXTENDED_LAMBDA__=1" in argv
    assert "-Xarch_host -march=native" in joined and "-fPIC" in argv
    assert "-MD -MF k.d -MT k.o" in joined
    assert "-Werror" in argv


def test_rdc_compile_and_output_defaults() -> None:
    (argv,) = _runs(_plan("-dc", "-odir", "objs", "dir/a.cu"))
    assert "-fgpu-rdc" in argv and "-D__CUDACC_RDC__=1" in argv
    assert argv[-2:] == ("-o", "objs/a.o")


def test_preprocess_and_dependencies_are_host_only_to_stdout() -> None:
    result = _plan("-E", "k.cu")
    (argv,) = _runs(result)
    assert "--cuda-host-only" in argv and "-E" in argv and "-o" not in argv
    assert result.stdout_output
    (deps,) = _runs(_plan("-M", "k.cu"))
    assert "-M" in deps and "--cuda-host-only" in deps


def test_host_sources_go_to_the_host_compiler_with_toolkit_includes() -> None:
    (cxx,) = _runs(_plan("-c", "-ccbin", "/usr/bin/clang++-17", "host.cpp"))
    assert cxx[0] == "/usr/bin/clang++-17" and "-x" not in cxx
    assert cxx[1:5] == (
        "-isystem", "/opt/moatbridge/targets/gfx1030/include/moatbridge/shadow",
        "-isystem", "/opt/moatbridge/targets/gfx1030/include",
    )  # fmt: skip
    (c,) = _runs(_plan("-c", "plain.c"))
    assert c[0] == "/usr/bin/clang-17"
    (forced,) = _runs(_plan("-c", "-x", "cu", "kernel.cpp"))
    assert forced[1:3] == ("-x", "hip")


def test_link_uses_toolkit_libraries_static_runtime_by_default() -> None:
    result = _plan("a.cu", "b.o", "-lcublas", "-Xlinker", "--as-needed", "-o", "app")
    compile_step, link = _runs(result)
    assert compile_step[-2:] == ("-o", "/work/a.o")
    assert link[0] == "/usr/bin/clang++-17"
    assert link[1:3] == ("b.o", "/work/a.o")
    assert "-L/opt/moatbridge/targets/gfx1030/bin/../lib64" in link
    assert "-lcublas" in link
    assert link[link.index("-Xlinker") + 1] == "--as-needed"
    assert list(link[-7:]) == ["-lcudadevrt", "-lcudart_static", "-lrt", "-lpthread", "-ldl", "-o", "app"]
    shared = _runs(_plan("-cudart", "shared", "x.o"))[-1]
    assert list(shared[-4:]) == ["-lcudadevrt", "-lcudart", "-o", "a.out"]


def test_rdc_link_runs_a_device_link_first() -> None:
    steps = _runs(_plan("-rdc=true", "a.cu", "b.cu", "-o", "app"))
    tools = [argv[0].rsplit("/", 1)[-1] for argv in steps]
    assert tools == [
        "clang++-17", "clang++-17",
        "clang-offload-bundler", "clang-offload-bundler", "lld", "clang-offload-bundler", "llvm-mc",
        "clang++-17",
    ]  # fmt: skip
    assert "/work/a_dlink.o" in steps[-1]
    lld = steps[4]
    assert "-plugin-opt=mcpu=gfx1030" in lld and "--whole-archive" in lld
    # objects that were compiled elsewhere with -dc are found by the caller and device-linked too
    prebuilt = _runs(_plan("a.o", "libk.a", "-o", "app", rdc_objects=frozenset({"a.o", "libk.a"})))
    assert any("-type=a" in argv for argv in prebuilt)


def test_dlink_mode_writes_the_fatbin_wrapper_object() -> None:
    result = _plan("-dlink", "a.o", "b.o", "-o", "dl.o")
    writes = [step for step in result.steps if isinstance(step, plan.WriteText)]
    assert len(writes) == 1 and ".incbin" in writes[0].text and "__hip_fatbin:" in writes[0].text
    mc = _runs(result)[-1]
    assert mc[0].endswith("/llvm-mc") and writes[0].path in mc
    assert mc[mc.index("-o") + 1] == "dl.o"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-ptx", "k.cu"], "AMD GPUs run no PTX"),
        (["-c", "-o", "x.o", "a.cu", "b.cu"], "A single input file is required"),
        (["-c"], "No input files specified"),
        (["-c", "kernel.ptx"], "PTX, cubin and fatbin inputs"),
        (["-c", "notes.txt"], "Don't know what to do with 'notes.txt'"),
        (["-c", "--default-stream", "sideways", "k.cu"], "Value 'sideways'"),
        (["-cudart", "dynamic", "k.o"], "Value 'dynamic'"),
    ],
)
def test_bad_command_lines_get_nvcc_style_errors(argv: list[str], message: str) -> None:
    with pytest.raises(options.NvccUsageError, match=re.escape(message)):
        plan.build(options.parse(argv), CONFIG, "/work")


# --- what CMake and FindCUDAToolkit parse -------------------------------------------------


def test_version_text_matches_cmake_and_findcuda_regexes() -> None:
    text = report.version_text(CONFIG)
    assert re.search(r"nvcc: NVIDIA \(R\) Cuda compiler driver", text)
    assert re.search(r" V([0-9]+\.[0-9]+\.[0-9]+)", text).group(1) == "11.8.89"  # type: ignore[union-attr]
    assert re.search(r"release ([0-9]+)\.([0-9]+)", text).groups() == ("11", "8")  # type: ignore[union-attr]
    assert full_cuda_version("12.1") == "12.1.105"


def test_verbose_output_satisfies_cmakes_implicit_info_parser() -> None:
    """Replays the logic of CMake's cmake_nvcc_parse_implicit_info on our -v output."""
    result = _plan("a.cu", "-o", "a.out")
    output = report.prologue(CONFIG, {"PATH": "/usr/bin"}) + report.virtual_arch_line(result.virtual_arch)
    output += "".join(
        report.render_command(step.argv, CONFIG) for step in result.steps if isinstance(step, plan.Run)
    )
    top = re.search(r"#\$ TOP=(.*)", output).group(1)  # type: ignore[union-attr]
    assert top == "/opt/moatbridge/targets/gfx1030/bin/.."
    assert re.search(r"#\$ NVVMIR_LIBRARY_DIR=(.*)nvvm/libdevice\n", output)
    libraries = re.search(r"#\$ +LIBRARIES= *([^\n]*)", output).group(1)  # type: ignore[union-attr]
    includes = re.search(r"#\$ +INCLUDES= *([^\n]*)", output).group(1)  # type: ignore[union-attr]
    assert "-I/opt/moatbridge/targets/gfx1030/bin/../include" in includes
    assert re.findall(r"-arch compute_([0-9]+)", output) == ["86"]
    lines = [line for line in output.splitlines() if not re.match(r"#\$ [A-Za-z0-9_]+=", line)]
    lines = [line.removeprefix("#$ ") for line in lines if not line.startswith("#$ nvlink")]
    link_lines = [line for line in lines if libraries in line]
    assert link_lines, "CMake: Failed to extract nvcc implicit link line"
    launcher = link_lines[-1].split()[0]
    assert launcher == "/usr/bin/clang++-17"
    assert "-lcudart_static" in link_lines[-1]


# --- inline PTX ---------------------------------------------------------------------------


def test_inline_ptx_is_found_with_its_line() -> None:
    source = (
        "__device__ unsigned lane() {\n"
        "  unsigned id;\n"
        '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));\n'
        "  return id;\n"
        "}\n"
        '__device__ void nop() { asm volatile("s_nop 0"); }\n'
    )
    hits = ptx.find_inline_ptx(source)
    assert [hit.line for hit in hits] == [3]
    text = ptx.message("k.cu", hits)
    assert text.startswith("k.cu:3: inline PTX") and "hint:" in text


# --- mapping selection (hipify-perl's table) ----------------------------------------------

HIPIFY_SAMPLE = """
sub rocSubstitutions {
    subst("cublasSgemm", "rocblas_sgemm", "library");
}
sub simpleSubstitutions {
    subst("cuda_runtime.h", "hip\\/hip_runtime.h", "include_cuda_main_header");
    subst("cudaMalloc", "hipMalloc", "memory");
    subst("cublasSgemm_v2", "hipblasSgemm_v2", "library");
    subst("cudnnCreate", "hipdnnCreate", "library");
    subst("__half", "__half", "device_type");
    subst("curand", "hiprand", "library");
    subst("cudaDevAttrMaxSurface2DWidth", "hipDeviceAttributeMaxSurface2D", "numeric_literal");
    subst("cudaDevAttrMaxSurface2DHeight", "hipDeviceAttributeMaxSurface2D", "numeric_literal");
    subst("cudaMallocHost", "hipHostMalloc", "memory");
    subst("cuCtxSynchronize", "hipCtxSynchronize", "context");
}
"""


def test_mapping_selection_rules() -> None:
    rows = mappings.parse_hipify(HIPIFY_SAMPLE)
    assert ("cuda_runtime.h", "hip/hip_runtime.h", "include_cuda_main_header") in rows
    assert all(hip != "rocblas_sgemm" for _, hip, _ in rows)
    kept, dropped = mappings.select(rows)
    by_name = {m.cuda: m for m in kept}
    assert by_name["cudaMalloc"].hip == "hipMalloc" and by_name["cudaMalloc"].family == "runtime"
    assert by_name["cublasSgemm_v2"].hip == "hipblasSgemm" and by_name["cublasSgemm_v2"].family == "cublas"
    assert set(by_name) == {
        "cudaMalloc",
        "cublasSgemm_v2",
        "cuCtxSynchronize",
    }  # identity, override, bare word, cuDNN, ambiguous out
    reasons = {d.cuda: d.reason for d in dropped}
    assert "share this HIP value" in reasons["cudaDevAttrMaxSurface2DWidth"]
    assert "bare word" in reasons["curand"]
    assert "cudnnCreate" in reasons


def test_driver_calls_hip_only_stubs_go_to_the_hip_call_that_does_the_work() -> None:
    # ROCm's hipCtxSynchronize only answers hipErrorNotSupported (clr's hip_context.cpp, HIP
    # 5.7 to 7.2); NVIDIA's cuCtxSynchronize waits for the current (primary) context's work.
    kept, _ = mappings.select([("cuCtxSynchronize", "hipCtxSynchronize", "context")])
    assert [(m.cuda, m.hip, m.family) for m in kept] == [
        ("cuCtxSynchronize", "hipDeviceSynchronize", "runtime")
    ]
    assert all(hip != "hipCtxSynchronize" for hip in mappings.RETARGETED.values())


def test_nvrtc_cubin_is_hiprtcs_code_object_and_compile_is_the_headers() -> None:
    # hipify maps the CUBIN onto hiprtcGetBitcode (LLVM bitcode, only after -fgpu-rdc), but
    # cuModuleLoadData wants the code object; nvrtc.h defines nvrtcCompileProgram itself.
    kept, _ = mappings.select(
        [
            ("nvrtcGetCUBIN", "hiprtcGetBitcode", "library"),
            ("nvrtcGetCUBINSize", "hiprtcGetBitcodeSize", "library"),
            ("nvrtcGetPTX", "hiprtcGetCode", "library"),
            ("nvrtcCompileProgram", "hiprtcCompileProgram", "library"),
        ]
    )
    assert {m.cuda: m.hip for m in kept} == {
        "nvrtcGetCUBIN": "hiprtcGetCode",
        "nvrtcGetCUBINSize": "hiprtcGetCodeSize",
        "nvrtcGetPTX": "hiprtcGetCode",
    }
    header = (Path(__file__).resolve().parent.parent / "include" / "nvrtc.h").read_text()
    assert "#define nvrtcCompileProgram moatbridge_nvrtcCompileProgram" in header


def test_cusolver_hand_rule_maps_hipsolver_compat_names() -> None:
    header = "hipsolverStatus_t hipsolverDnSgetrf(hipsolverDnHandle_t h); #define HIPSOLVER_STATUS_SUCCESS 0"
    rules = {m.cuda: m.hip for m in mappings.cusolver_rules(header)}
    assert rules["cusolverDnSgetrf"] == "hipsolverDnSgetrf"
    assert rules["CUSOLVER_STATUS_SUCCESS"] == "HIPSOLVER_STATUS_SUCCESS"
    assert rules["cusolverStatus_t"] == "hipsolverStatus_t"


def test_prefix_rules_map_what_the_headers_declare_and_the_table_lacks() -> None:
    header = (
        "hipfftResult hipfftXtMakePlanMany(hipfftHandle p); typedef struct hipLibXtDesc_t hipLibXtDesc;"
        " typedef struct x hiprandStateSobol64; #define HIPRAND_ORDERING_QUASI_DEFAULT 1 HIPFFT_XT_FORMAT_INPLACE"
        " #define HIPRAND_VERSION 200 #ifndef HIPRAND_H_"
    )
    rules = {m.cuda: (m.hip, m.family) for m in mappings.prefix_rules(header, ["cudaLibXtDesc_t"])}
    assert rules == {
        "cufftXtMakePlanMany": ("hipfftXtMakePlanMany", "cufft"),
        "cudaLibXtDesc": ("hipLibXtDesc", "cufft"),
        "curandStateSobol64": ("hiprandStateSobol64", "curand"),
        "CURAND_ORDERING_QUASI_DEFAULT": ("HIPRAND_ORDERING_QUASI_DEFAULT", "curand"),
        "CUFFT_XT_FORMAT_INPLACE": ("HIPFFT_XT_FORMAT_INPLACE", "cufft"),
    }


def test_runtime_api_rules_map_real_runtime_names_hip_declares_outside_comments() -> None:
    header = (
        "hipError_t hipGraphAddExternalSemaphoresWaitNode(hipGraphNode_t* n, const hipExternalSemaphoreWaitNodeParams* p);\n"
        "/* see hipMemcpyArrayToArray */ // and hipFuncGetName\nhipError_t hipMallocHost(void**, size_t);\n"
    )
    api = [
        "cudaGraphAddExternalSemaphoresWaitNode cudaError_t cudaGraphNode_t * const cudaExternalSemaphoreWaitNodeParams *",
        "cudaMemcpyArrayToArray cudaError_t", "cudaFuncGetName cudaError_t", "cudaMallocHost cudaError_t void **",
        "cudaGraphAddNode cudaError_t cudaGraphNode_t *",
    ]  # fmt: skip
    rules = {
        m.cuda: m.hip for m in mappings.runtime_api_rules(api, header, ["cudaGraphNode_t", "cudaError_t"])
    }
    assert rules == {
        "cudaGraphAddExternalSemaphoresWaitNode": "hipGraphAddExternalSemaphoresWaitNode",
        "cudaExternalSemaphoreWaitNodeParams": "hipExternalSemaphoreWaitNodeParams",
    }  # comments declare nothing; cudaMallocHost is the overrides'; the table maps the others


# --- nvcc's list syntax and the shell it hands host command lines to ------------------------


@pytest.mark.parametrize("argv", [["-m64"], ["--m64"], ["-m", "64"], ["--machine=64"]])
def test_machine_64_is_accepted_and_ignored(argv: list[str]) -> None:
    parsed = options.parse([*argv, "-c", "k.cu"])
    assert parsed.inputs == ("k.cu",)
    (compile_step,) = _runs(plan.build(parsed, CONFIG, "/work"))
    assert "-m64" not in compile_step and "64" not in compile_step


def test_machine_32_is_refused_as_nvcc_does() -> None:
    with pytest.raises(options.NvccUsageError, match="Value '32' is not defined for option 'm'"):
        options.parse(["-m", "32", "-c", "k.cu"])


@pytest.mark.parametrize(
    ("value", "pieces"),
    [
        ("a,b", ["a", "b"]),
        ("-Wl\\,-soname\\,libk.so", ["-Wl,-soname,libk.so"]),  # Meson's shared libraries
        (',"-fPIC","-O3 -DNDEBUG"', ['"-fPIC"', '"-O3 -DNDEBUG"']),  # FindCUDA
        ('X="a,b"', ['X="a,b"']),
        ("'A=1,2'", ["'A=1", "2'"]),  # single quotes do not protect commas
    ],
)
def test_nvcc_list_syntax(value: str, pieces: list[str]) -> None:
    assert options.split_list(value) == pieces


def test_host_compiler_options_go_through_shell_word_splitting() -> None:
    parsed = options.parse(
        ["-Xcompiler", "-fPIC -fopenmp", "-Xcompiler", ',"-O3 -DNDEBUG"', "-Xcompiler", "'-DZ=1 2'",
         "-Xcompiler=-Wl\\,-rpath\\,'$ORIGIN/'", "-c", "k.cu"]
    )  # fmt: skip
    assert parsed.values("compiler-options") == [
        "-fPIC",
        "-fopenmp",
        "-O3 -DNDEBUG",
        "-DZ=1 2",
        "-Wl,-rpath,$ORIGIN/",
    ]
    linker = options.parse(["-Xlinker", "-rpath,/x y", "-Xlinker=--as-needed", "a.o"])
    assert linker.values("linker-options") == [
        "-Xlinker",
        "-rpath",
        "-Xlinker",
        "/x",
        "y",
        "-Xlinker",
        "--as-needed",
    ]
    with pytest.raises(options.NvccUsageError, match="Unterminated quote"):
        options.parse(["-Xcompiler", '"-DX', "-c", "k.cu"])


def test_ccbin_names_the_host_compiler_as_nvcc_means_it() -> None:
    def link_with(*argv: str, dirs: frozenset[str] = frozenset()) -> str:
        steps = _runs(
            plan.build(options.parse([*argv, "a.o"]), CONFIG, "/work", is_directory=dirs.__contains__)
        )
        return steps[-1][0]

    assert link_with("-ccbin", "gcc") == "g++"
    assert link_with("-ccbin", "/usr/bin/clang") == "/usr/bin/clang++"
    assert link_with("-ccbin", "/usr/bin/gcc-12") == "/usr/bin/gcc-12"  # as nvcc: only the plain names
    assert link_with("-ccbin", "/opt/tools", dirs=frozenset({"/opt/tools"})) == "/opt/tools/g++"
    (c_compile,) = _runs(_plan("-ccbin", "g++", "-c", "plain.c"))
    assert c_compile[0] == "gcc"


def test_runtime_none_links_neither_runtime_nor_cudadevrt() -> None:
    link = _runs(_plan("-cudart", "none", "a.o"))[-1]
    assert not any(arg.startswith(("-lcudart", "-lcudadevrt")) for arg in link)
    static = _runs(_plan("-cudadevrt", "none", "a.o"))[-1]
    assert "-lcudadevrt" not in static and "-lcudart_static" in static


def test_old_language_standards_compile_cuda_as_cxx17_and_host_sources_as_asked() -> None:
    (cuda,) = _runs(_plan("--std=c++11", "-c", "k.cu"))
    assert "-std=c++17" in cuda and "-Wno-register" in cuda and "-std=c++11" not in cuda
    (host,) = _runs(_plan("--std=c++11", "-c", "h.cpp"))
    assert "-std=c++11" in host


def test_hip_complex_operators_are_switched_off_as_cuda_has_none() -> None:
    from cudacompat.generate import shadows

    header = "#if __cplusplus\n#define COMPLEX_NEG_OP_OVERLOAD(t) x\n#endif\n#if __cplusplus\n\nCOMPLEX_NEG_OP_OVERLOAD(hipFloatComplex)\n#endif\n"
    text = shadows.without_complex_operators(header)
    assert text is not None
    assert text.splitlines()[0] == "#if __cplusplus"  # the macro definitions stay
    assert text.splitlines()[3].startswith("#if 0")  # their uses go
    assert shadows.without_complex_operators("#if __cplusplus\n#endif\n") is None


def test_hip_error_type_loses_nodiscard_as_cuda_error_has_none() -> None:
    from cudacompat.generate import shadows

    header = "#if __cplusplus >= 201703L\n#define __HIP_NODISCARD [[nodiscard]]\n#else\n#define __HIP_NODISCARD\n#endif\n"
    text = shadows.without_nodiscard_errors(header)
    assert text is not None and "__HIP_NODISCARD [[nodiscard]]" not in text
    assert text.count("#define __HIP_NODISCARD") == 2  # the macro still exists, now empty
    assert (
        shadows.without_nodiscard_errors("typedef enum hipError_t {} hipError_t;\n") is None
    )  # unexpected shape


def test_hip_vector_operators_become_templates_that_user_operators_beat() -> None:
    from cudacompat.generate import shadows

    friends = "".join(
        f"        friend __HOST_DEVICE__ inline constexpr HIP_vector_type operator{op}(\n"
        "        HIP_vector_type x, const HIP_vector_type& y) noexcept\n"
        for op in "*/"
    )
    members = "".join(
        f"\n        __HOST_DEVICE__\n        HIP_vector_type& operator{op}=(const HIP_vector_type& x) noexcept"
        for op in "+-*/"
    )
    text = shadows.with_template_vector_friends(friends + members)
    assert text is not None
    assert text.count("template <class V = HIP_vector_type") == 6
    assert "operator+=(const V& x)" in text and "V x, const HIP_vector_type& y" in text
    assert shadows.with_template_vector_friends(friends) is None  # not the expected shape: left alone


def test_hip_tiles_of_a_parent_group_get_unambiguous_rank_and_size() -> None:
    from cudacompat.generate import shadows

    header = (
        "template <unsigned int size> class thread_block_tile_base : public tile_base<size> {\n"
        "  using tile_base<size>::numThreads;\n\n public:\n  __CG_STATIC_QUALIFIER__ void sync() {}\n};\n"
        "template <unsigned int tileSize, class ParentCGTy>\n"
        "class thread_block_tile_type : public thread_block_tile_base<tileSize>,\n"
        "                               public tiled_group,\n"
        "                               public parent_group_info<tileSize, ParentCGTy> {\n"
        "  _CG_STATIC_CONST_DECL_ unsigned int numThreads = tileSize;\n  protected:\n};\n"
    )
    text = shadows.with_unambiguous_tiles(header)
    assert text is not None
    assert "using thread_block_tile_base<tileSize>::thread_rank;" in text
    assert "unsigned int num_threads() { return size; }" in text
    assert shadows.with_unambiguous_tiles("class other {};") is None


def test_hip_tile_shuffles_take_any_trivially_copyable_type() -> None:
    from cudacompat.generate import shadows

    assertion = 'static_assert(is_valid_type<T>::value, "Neither an integer or float type.");'
    header = (
        "#include <x>\nnamespace cooperative_groups {\nclass tile {\n"
        f"  template <class T> T shfl(T var, int r) const {{\n    {assertion}\n    return (__shfl(var, r, 32));\n  }}\n"
        f"  template <class T> T shfl_xor(T var, unsigned m) const {{\n    {assertion}\n"
        "    return (__shfl_xor(var, m, 32));\n  }\n};\n}\n"
    )
    text = shadows.with_shuffles_of_any_type(header)
    assert text is not None
    assert "is_valid_type" not in text and text.count("std::is_trivially_copyable<T>::value") == 2
    assert "return (::moatbridge_cg::__shfl(var, r, 32));" in text
    assert "return (::moatbridge_cg::__shfl_xor(var, m, 32));" in text
    # the word-wise helpers come before the groups that call them
    assert text.index("namespace moatbridge_cg") < text.index("namespace cooperative_groups")
    assert shadows.with_shuffles_of_any_type(header.replace(assertion, "")) is None


def test_hip_cooperative_groups_gain_cudas_binary_and_labeled_partitions() -> None:
    from cudacompat.generate import shadows

    header = (
        "namespace cooperative_groups {\nclass coalesced_group : public thread_group {\n private:\n"
        "  friend __CG_QUALIFIER__ coalesced_group coalesced_threads();\n};\n"
        "}  // namespace cooperative_groups\n#endif\n"
    )
    text = shadows.with_partitions("#include <x>\n" + header)
    assert text is not None
    assert "  friend struct ::moatbridge_cg::coalesced_access;\n" in text
    # declared before the class that befriends it; defined after the groups it builds
    assert text.index("struct coalesced_access;") < text.index("class coalesced_group")
    assert text.index("binary_partition(const coalesced_group& parent, bool pred)") > text.index(
        "}  // namespace cooperative_groups"
    )
    assert "labeled_partition(const thread_block_tile<Size, Parent>&, int label)" in text
    assert shadows.with_partitions(header.replace("coalesced_threads", "other")) is None


def test_hip_bfloat16_becomes_a_class_with_cudas_conversions_and_operators() -> None:
    from cudacompat.generate import shadows

    header = (
        '#ifndef GUARD\n#define GUARD\n#include "amd_hip_common.h"\n'
        "struct __hip_bfloat16 {\n  unsigned short data;\n};\n"
        "struct __hip_bfloat162 {\n  __hip_bfloat16 x;\n  __hip_bfloat16 y;\n};\n"
        "__device__ __hip_bfloat16 __short_as_bfloat16(const short int a) {\n"
        "  return __hip_bfloat16{(unsigned short)a};\n}\n"
        "__device__ __hip_bfloat16 __ushort_as_bfloat16(const unsigned short int a) {\n"
        "  return __hip_bfloat16{a};\n}\n#endif\n"
    )
    text = shadows.with_bfloat16_class(header)
    assert text is not None
    assert "#include <hip/amd_detail/amd_hip_common.h>" in text
    assert "operator float() const;" in text and "__hip_bfloat16(float value);" in text
    # bit patterns stay bit patterns: never the converting constructor from unsigned short
    assert "return __hip_bfloat16(moatbridge_bf16_bits(), (unsigned short)a);" in text
    assert "return __hip_bfloat16(moatbridge_bf16_bits(), a);" in text
    assert "__hip_bfloat16{" not in text
    # operators are defined inside the include guard, after everything they use
    assert text.index("MOATBRIDGE_BF16_BINARY(+)") < text.rindex("#endif")
    assert text.index("__ushort_as_bfloat16") < text.index("MOATBRIDGE_BF16_BINARY(+)")
    assert shadows.with_bfloat16_class(header.replace("unsigned short data;", "uint16_t data;")) is None


# --- dependency files in nvcc's shape (FindCUDA's make2cmake.cmake parses `target : deps`) --


def test_dependency_files_are_rewritten_into_nvccs_shape() -> None:
    from cudacompat.nvcc.steps import NvccDepfile, nvcc_depfile_text

    clang = "obj/a.o: /src/a.cu \\\n  /src/b\\ c.h \\\n  /x/d.h\n\n/src/b\\ c.h:\n"
    assert (
        nvcc_depfile_text(clang)
        == "obj/a.o : /src/a.cu \\\n    /src/b\\ c.h \\\n    /x/d.h\n\n/src/b\\ c.h:\n"
    )
    assert (
        nvcc_depfile_text("C\\:dir/a.o: a.cu\n") == "C\\:dir/a.o : a.cu\n"
    )  # an escaped colon is part of the name
    assert nvcc_depfile_text("") == ""
    assert _plan("-M", "a.cu", "-o", "a.d").steps[-1] == NvccDepfile("a.d")
    assert _plan("-MD", "-MF", "a.o.d", "-c", "a.cu", "-o", "a.o").steps[-1] == NvccDepfile("a.o.d")
    assert not any(
        isinstance(s, NvccDepfile) for s in _plan("-M", "a.cu").steps
    )  # stdout: as the compiler wrote it
    assert not any(
        isinstance(s, NvccDepfile) for s in _plan("-MD", "-MF", "a.d", "-c", "a.cpp").steps
    )  # host compiler's


def test_an_archive_without_members_passes_the_device_link_as_it_is(tmp_path: Path) -> None:
    """CMake's device-link line names glibc's libpthread.a, an archive of no members since 2.34,
    and the toolkit's libnccl_static.a, a linker script; the bundler refuses both: the device
    link writes an empty archive as their part instead."""
    from cudacompat.nvcc import main

    result = _plan("-dlink", "a.o", "/lib/x86_64-linux-gnu/libpthread.a", "-o", "dl.o")
    archive = [s for s in result.steps if isinstance(s, plan.Run) and s.unbundles_archive is not None]
    assert [s.unbundles_archive[0] for s in archive if s.unbundles_archive] == [
        "/lib/x86_64-linux-gnu/libpthread.a"
    ]
    empty = tmp_path / "libpthread.a"
    empty.write_bytes(b"!<arch>\n")
    part = tmp_path / "part.a"
    never_run = plan.Run((str(tmp_path / "no-such-bundler"),), unbundles_archive=(str(empty), str(part)))
    assert main._execute((never_run,), CONFIG, verbose=False, dry_run=False) == 0
    assert part.read_bytes() == b"!<arch>\n"
    script = tmp_path / "libnccl_static.a"  # the toolkit's own: a linker script naming RCCL
    script.write_text("/* a linker script */\nINPUT(-lrccl)\n")
    part.unlink()
    never_run = plan.Run((str(tmp_path / "no-such-bundler"),), unbundles_archive=(str(script), str(part)))
    assert main._execute((never_run,), CONFIG, verbose=False, dry_run=False) == 0
    assert part.read_bytes() == b"!<arch>\n"
    # clang 18 and later read each input's fatbin references with nm, which refuses a script
    wrapper = plan.FatbinWrapper(str(tmp_path / "w.s"), "/x.hipfb", (str(script), str(empty)), "/no-such-nm")
    assert main._execute((wrapper,), CONFIG, verbose=False, dry_run=False) == 0
    assert "__hip_fatbin" in (tmp_path / "w.s").read_text()
    member = tmp_path / "libk.a"
    member.write_bytes(b"!<arch>\nk.o/            0           0     0     644     4         `\nxxxx")
    runs = plan.Run((str(tmp_path / "no-such-bundler"),), unbundles_archive=(str(member), str(part)))
    assert main._execute((runs,), CONFIG, verbose=False, dry_run=False) != 0  # the bundler was run
