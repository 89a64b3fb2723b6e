"""Turn a parsed nvcc command line into the clang-17 / LLVM commands that do the work. Pure.

One CUDA source is one clang HIP compile (host and device in a single process, as nvcc's
user sees it); a link is one host-compiler link against the toolkit's linker-script
libraries; a device link (`-dlink`, or a link of relocatable device code) replays what
`clang --hip-link -fgpu-rdc` does internally but stops at the object holding
`__hip_fatbin`, so any host linker can finish the job, as with nvcc.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import NamedTuple

from . import archs
from .config import ToolkitConfig
from .options import CommandLine, NvccUsageError

CUDA_SUFFIXES = (".cu",)
CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".C", ".cp", ".CPP")
C_SUFFIXES = (".c",)
OBJECT_SUFFIXES = (".o", ".obj", ".a", ".so", ".lo", ".lib", ".res")
DEVICE_SUFFIXES = (".ptx", ".cubin", ".fatbin", ".fatbinary", ".optixir")
_HOST_ONLY_PREFIXES = ("-m", "-fopenmp", "-fsanitize", "-pthread", "-rdynamic")


class Run(NamedTuple):
    argv: tuple[str, ...]
    compiles: str | None = None  # the source file a compile step reads (for diagnostics)


class WriteText(NamedTuple):
    path: str
    text: str


Step = Run | WriteText


class Plan(NamedTuple):
    steps: tuple[Step, ...]
    virtual_arch: int  # printed as `-arch compute_NN` in -v output
    stdout_output: bool = False  # -E/-M without -o write to stdout


def input_kind(path: str, language: str | None) -> str:
    """cu, c++, c, object or device, by nvcc's rules (-x applies to every source input)."""
    base = os.path.basename(path)
    if base.endswith(OBJECT_SUFFIXES) or ".so." in base:
        return "object"
    if base.endswith(DEVICE_SUFFIXES):
        return "device"
    if language is not None:
        return {"cu": "cu", "c++": "c++", "c": "c"}.get(language, "unknown")
    if base.endswith(CUDA_SUFFIXES):
        return "cu"
    if base.endswith(CXX_SUFFIXES):
        return "c++"
    if base.endswith(C_SUFFIXES):
        return "c"
    return "unknown"


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _gfx_targets(config: ToolkitConfig, request: archs.ArchRequest) -> tuple[str, ...]:
    return request.gfx_targets or (config.gfx,)


def _host_flags(values: list[str]) -> list[str]:
    """-Xcompiler / forwarded flags: machine and threading flags only make sense for the host."""
    flags: list[str] = []
    for value in values:
        if value.startswith(_HOST_ONLY_PREFIXES):
            flags.extend(["-Xarch_host", value])
        else:
            flags.append(value)
    return flags


def _user_preprocessor(cmdline: CommandLine) -> list[str]:
    flags: list[str] = []
    for key, value in cmdline.options:
        if key == "include-path":
            flags.append(f"-I{value}")
        elif key == "system-include":
            flags.extend(["-isystem", value])
        elif key == "define-macro":
            flags.append(f"-D{value}")
        elif key == "undefine-macro":
            flags.append(f"-U{value}")
        elif key == "pre-include":
            flags.extend(["-include", value])
    return flags


def _dependency_flags(cmdline: CommandLine) -> list[str]:
    flags: list[str] = []
    if cmdline.has("generate-dependencies-with-compile"):
        flags.append("-MD")
    if cmdline.has("generate-nonsystem-dependencies-with-compile"):
        flags.append("-MMD")
    if cmdline.has("generate-dependency-targets"):
        flags.append("-MP")
    if (output := cmdline.last("dependency-output")) is not None:
        flags.extend(["-MF", output])
    if (target := cmdline.last("dependency-target-name")) is not None:
        flags.extend(["-MT", target])
    return flags


# -Werror kinds with a clang diagnostic of the same meaning; the others (launch bounds,
# default-stream launches, lambda captures of `this`, cross-execution-space calls) are
# checks of nvcc's own front end that clang lacks. nvcc checks initialiser order for device
# code only, so the host side stays as with nvcc.
_WERROR = {
    "all-warnings": ["-Werror"],
    "deprecated-declarations": ["-Werror=deprecated-declarations"],
    "reorder": ["-Xarch_device", "-Werror=reorder"],
}


def _warning_flags(cmdline: CommandLine) -> list[str]:
    flags: list[str] = []
    for kind in dict.fromkeys(cmdline.values("Werror")):
        flags += _WERROR.get(kind, [])
    if cmdline.has("disable-warnings"):
        flags.append("-w")
    if cmdline.has("Wno-deprecated-declarations"):
        flags.append("-Wno-deprecated-declarations")
    if cmdline.has("Wreorder"):
        flags += ["-Xarch_device", "-Wreorder"]
    return flags


# ROCm 5.7's HIP headers need C++14 and its rocThrust/hipCUB C++17; NVIDIA's headers accept
# C++11, so CUDA code (cuda-samples pass --std=c++11) asks for less than ours need.
_OLDER_THAN_17 = ("c++98", "c++03", "c++11", "c++14", "gnu++98", "gnu++03", "gnu++11", "gnu++14")


def cuda_language_standard(requested: str | None) -> list[str]:
    """The -std a CUDA source is compiled with: as asked, but C++17 at least (with
    `register`, which C++17 removed, still accepted)."""
    if requested is None:
        return []
    if requested in _OLDER_THAN_17:
        return [f"-std={'gnu' if requested.startswith('gnu') else 'c'}++17", "-Wno-register"]
    return [f"-std={requested}"]


def _common_host_flags(cmdline: CommandLine, cuda: bool = False) -> list[str]:
    flags: list[str] = []
    if (std := cmdline.last("std")) is not None:
        flags += cuda_language_standard(std) if cuda else [f"-std={std}"]
    if (level := cmdline.last("optimize")) is not None:
        flags.append(f"-O{level}")
    if cmdline.has("debug"):
        flags.append("-g")
    if cmdline.has("profile"):
        flags.append("-pg")
    if cmdline.has("no-exceptions"):
        flags.append("-fno-exceptions")
    if (depth := cmdline.last("ftemplate-depth")) is not None:
        flags.append(f"-ftemplate-depth-{depth}")  # nvcc's spelling for gcc; clang knows it too
    if (limit := cmdline.last("ftemplate-backtrace-limit")) is not None:
        flags.append(f"-ftemplate-backtrace-limit={limit}")
    if (seed := cmdline.last("frandom-seed")) is not None:
        flags.append(f"-frandom-seed={seed}")
    return flags


def cuda_compile_flags(
    cmdline: CommandLine, config: ToolkitConfig, request: archs.ArchRequest, rdc: bool
) -> list[str]:
    """Everything a CUDA source is compiled with, except the input and output."""
    include = f"{config.root}/include"
    arch_value = archs.cuda_arch_macro(request)
    arch_list = ",".join(str(c * 10) for c in request.capabilities)
    flags = ["-x", "hip"]
    flags += [f"--offload-arch={gfx}" for gfx in _gfx_targets(config, request)]
    if rdc:
        flags += ["-fgpu-rdc", "-D__CUDACC_RDC__=1"]
    # The thrust shadow tree must win over /usr/include/thrust (it hides __CUDACC__ from
    # rocThrust, which would otherwise pick its CUDA backend).
    flags += ["-isystem", f"{include}/moatbridge/shadow", "-isystem", include]
    flags += _user_preprocessor(cmdline)
    flags += ["-include", "moatbridge/nvcc_prelude.h"]
    flags += [
        f"-D__CUDACC_VER_MAJOR__={config.cuda_major}",
        f"-D__CUDACC_VER_MINOR__={config.cuda_minor}",
        f"-D__CUDACC_VER_BUILD__={config.cuda_build}",
        f"-D__CUDA_API_VER_MAJOR__={config.cuda_major}",
        f"-D__CUDA_API_VER_MINOR__={config.cuda_minor}",
        f"-D__CUDA_ARCH_LIST__={arch_list}",
        f"-D__MOATBRIDGE_CUDA_ARCH__={arch_value}",
    ]
    if cmdline.has("expt-relaxed-constexpr"):
        flags.append("-D__CUDACC_RELAXED_CONSTEXPR__=1")
    if cmdline.has("extended-lambda") or cmdline.has("expt-extended-lambda"):
        flags.append("-D__CUDACC_EXTENDED_LAMBDA__=1")
    # HIP's API is [[nodiscard]]; CUDA's is not, so unchecked calls must not warn.
    flags += ["-Wno-unused-result", "-Wno-unknown-cuda-version"]
    flags += _warning_flags(cmdline)
    flags += _common_host_flags(cmdline, cuda=True)
    flags += _dependency_flags(cmdline)
    # nvcc optimises device code whatever the host -O; clang only does so when asked.
    if cmdline.has("device-debug"):  # device debug information; the host's is -g's business
        flags += ["-D__CUDACC_DEBUG__=1", "-Xarch_device", "-g", "-Xarch_device", "-O0"]
    else:
        flags += ["-Xarch_device", "-O3"]
    if cmdline.has("generate-line-info") and not cmdline.has("device-debug"):
        flags += ["-Xarch_device", "-gline-tables-only"]
    if cmdline.has("use_fast_math"):
        flags += ["-Xarch_device", "-ffast-math", "-fgpu-flush-denormals-to-zero"]
    if cmdline.boolean("ftz"):
        flags.append("-fgpu-flush-denormals-to-zero")
    if cmdline.last("prec-div") == "false" or cmdline.last("prec-sqrt") == "false":
        flags.append("-fno-hip-fp32-correctly-rounded-divide-sqrt")
    if cmdline.last("fmad") == "false":
        flags.append("-ffp-contract=off")
    stream = cmdline.last("default-stream")
    if stream == "per-thread":
        flags.append("-fgpu-default-stream=per-thread")
    elif stream not in (None, "legacy", "null"):
        raise NvccUsageError(f"Value '{stream}' is not defined for option 'default-stream'")
    if cmdline.has("resource-usage"):
        flags.append("-Rpass-analysis=kernel-resource-usage")
    flags += _host_flags(cmdline.values("compiler-options") + list(cmdline.forwarded))
    return flags


def host_compile_flags(cmdline: CommandLine, config: ToolkitConfig) -> list[str]:
    flags = ["-isystem", f"{config.root}/include"]
    flags += _user_preprocessor(cmdline)
    flags += _warning_flags(cmdline) + _common_host_flags(cmdline) + _dependency_flags(cmdline)
    flags += cmdline.values("compiler-options") + list(cmdline.forwarded)
    return flags


def _is_dir_name(path: str) -> bool:
    """The pure default for "is -ccbin a directory": the driver passes os.path.isdir."""
    return path.endswith("/")


# nvcc links with the C++ driver when -ccbin names a C one (`-ccbin gcc` links with g++).
_CXX_SIBLINGS = {"gcc": "g++", "clang": "clang++", "cc": "c++"}
# ... and a C source handed to a C++ driver is compiled by its C sibling.
_C_SIBLINGS = {"g++": "gcc", "clang++": "clang", "c++": "cc"}


def host_compiler(
    cmdline: CommandLine, config: ToolkitConfig, kind: str, is_directory: Callable[[str], bool] = _is_dir_name
) -> str:
    """-ccbin names the host compiler for host-only sources and links; .cu always uses clang
    (the device compiler). `kind` is "c", "c++" or "link". A directory means the gcc/g++ in
    it, as with nvcc; without -ccbin the toolkit's clang is the host compiler."""
    ccbin = cmdline.last("compiler-bindir")
    if not ccbin:
        return config.clang if kind == "c" else config.clangxx
    if is_directory(ccbin):
        return os.path.join(ccbin, "gcc" if kind == "c" else "g++")
    directory, base = os.path.split(ccbin)
    if kind == "link" and base in _CXX_SIBLINGS:
        return os.path.join(directory, _CXX_SIBLINGS[base])
    if kind == "c" and base in _C_SIBLINGS:
        return os.path.join(directory, _C_SIBLINGS[base])
    return ccbin


def library_search_flags(config: ToolkitConfig) -> list[str]:
    """The toolkit's -L flags, spelled exactly as the -v prologue's LIBRARIES line."""
    return [f"-L{config.top}/lib64/stubs", f"-L{config.top}/lib64"]


def runtime_libraries(cmdline: CommandLine) -> list[str]:
    cudart = (cmdline.last("cudart") or "static").lower()
    if cudart not in ("static", "shared", "none"):
        raise NvccUsageError(f"Value '{cudart}' is not defined for option 'cudart'")
    if cudart == "none":  # nvcc links neither the runtime nor cudadevrt then
        return []
    libs = [] if cmdline.last("cudadevrt") == "none" else ["-lcudadevrt"]
    if cudart == "static":
        libs += ["-lcudart_static", "-lrt", "-lpthread", "-ldl"]
    elif cudart == "shared":
        libs += ["-lcudart"]
    return libs


def _uses_openmp(cmdline: CommandLine) -> bool:
    host = cmdline.values("compiler-options") + list(cmdline.forwarded)
    return any(lib in ("gomp", "omp") for lib in cmdline.values("library")) or any(
        flag.startswith(("-fopenmp", "-qopenmp")) for flag in host
    )


def _output_for(cmdline: CommandLine, source: str, suffix: str) -> str:
    explicit = cmdline.last("output-file")
    if explicit is not None:
        return explicit
    directory = cmdline.last("output-directory")
    name = _stem(source) + suffix
    return os.path.join(directory, name) if directory else name


def mode_of(cmdline: CommandLine) -> str:
    """What the command line asks for: preprocess, dependencies, compile, device-link, lib or link."""
    for flag in ("ptx", "cubin", "fatbin", "optix-ir", "ltoir", "relocatable-ptx"):
        if cmdline.has(flag):
            raise NvccUsageError(
                f"-{flag} is not supported by moatbridge's open toolkit: AMD GPUs run no PTX or cubin; "
                "compile with -c for an object that carries the AMD code object"
            )
    if cmdline.has("qpp-config"):
        raise NvccUsageError("--qpp-config needs a QNX host compiler (qcc/q++)")
    if cmdline.has("compile-as-tools-patch"):
        raise NvccUsageError("--compile-as-tools-patch requires -ptx, -cubin or -fatbin")
    if cmdline.has("dependency-output") and not any(
        cmdline.has(flag) for flag in ("generate-dependencies", "generate-nonsystem-dependencies",
                                       "generate-dependencies-with-compile",
                                       "generate-nonsystem-dependencies-with-compile")
    ):  # fmt: skip
        raise NvccUsageError(
            "Option '--dependency-output' requires one of '-M', '-MM', '-MD' or '-MMD' to be specified"
        )
    if cmdline.has("gpu-code") and not cmdline.has("gpu-architecture"):
        raise NvccUsageError("-arch option not specified")
    if cmdline.has("preprocess") or cmdline.has("cuda"):
        return "preprocess"
    if cmdline.has("generate-dependencies") or cmdline.has("generate-nonsystem-dependencies"):
        return "dependencies"
    if cmdline.has("device-link"):
        return "device-link"
    if cmdline.has("lib"):
        return "lib"
    if any(cmdline.has(flag) for flag in ("compile", "device-c", "device-w", "fdevice-syntax-only")):
        return "compile"
    return "link"


def rdc_requested(cmdline: CommandLine) -> bool:
    if cmdline.has("device-w"):
        return False
    # -lto (and -dlto) compile relocatable device code for a link-time device link
    lto = cmdline.has("lto") and cmdline.last("relocatable-device-code") is None
    return cmdline.has("device-c") or cmdline.boolean("relocatable-device-code") or lto


def _compile_step(
    cmdline: CommandLine, config: ToolkitConfig, request: archs.ArchRequest, source: str, kind: str,
    output: str, action: list[str], rdc: bool, keep: bool, is_directory: Callable[[str], bool],
) -> Run:  # fmt: skip
    if kind == "cu":
        flags = cuda_compile_flags(cmdline, config, request, rdc)
        if action[0] in ("-E", "-M", "-MM"):
            flags.append("--cuda-host-only")
        if keep:
            flags.append("-save-temps=obj")
        argv = [config.clangxx, *flags, *action, source]
    else:
        compiler = host_compiler(cmdline, config, kind, is_directory)
        argv = [compiler, *host_compile_flags(cmdline, config), *action, source]
    if output != "-":
        argv += ["-o", output]
    return Run(tuple(argv), compiles=source)


def device_link_steps(
    config: ToolkitConfig, gfx_targets: tuple[str, ...], objects: list[str], output: str, work_dir: str,
    debug: bool = False,
) -> list[Step]:  # fmt: skip
    """Link the device code of relocatable objects into one object defining __hip_fatbin."""
    bundler = config.tool("clang-offload-bundler")
    steps: list[Step] = []
    images: list[str] = []
    for gfx in gfx_targets:
        device_parts: list[str] = []
        for index, obj in enumerate(objects):
            archive = obj.endswith((".a", ".lib"))
            part = os.path.join(work_dir, f"dlink-{index}-{gfx}.{'a' if archive else 'o'}")
            steps.append(
                Run(
                    (
                        bundler,
                        f"-type={'a' if archive else 'o'}",
                        f"-targets=hip-amdgcn-amd-amdhsa-{gfx}",
                        f"-input={obj}",
                        f"-output={part}",
                        "-unbundle",
                        "-allow-missing-bundles",
                    )
                )
            )
            device_parts.append(part)
        image = os.path.join(work_dir, f"dlink-{gfx}.out")
        steps.append(
            Run(
                (
                    config.tool("lld"),
                    "-flavor",
                    "gnu",
                    "-m",
                    "elf64_amdgpu",
                    "--no-undefined",
                    "-shared",
                    "-plugin-opt=-amdgpu-internalize-symbols",
                    f"-plugin-opt=mcpu={gfx}",
                    f"-plugin-opt=O{0 if debug else 3}",
                    "--whole-archive",
                    "-o",
                    image,
                    *device_parts,
                    "--no-whole-archive",
                )
            )
        )
        images.append(image)
    fatbin = os.path.join(work_dir, "dlink.hipfb")
    targets = ",".join(["host-x86_64-unknown-linux", *(f"hipv4-amdgcn-amd-amdhsa--{g}" for g in gfx_targets)])
    steps.append(
        Run(
            (
                bundler,
                "-type=o",
                "-bundle-align=4096",
                f"-targets={targets}",
                "-input=/dev/null",
                *(f"-input={image}" for image in images),
                f"-output={fatbin}",
            )
        )
    )
    wrapper = os.path.join(work_dir, "dlink.mcin")
    steps.append(WriteText(wrapper, fatbin_wrapper_assembly(os.path.abspath(fatbin))))
    steps.append(
        Run(
            (
                config.tool("llvm-mc"),
                "-triple",
                "x86_64-pc-linux-gnu",
                "-o",
                output,
                wrapper,
                "--filetype=obj",
            )
        )
    )
    return steps


def fatbin_wrapper_assembly(fatbin_path: str) -> str:
    """The object that carries the linked device image, as clang's HIP toolchain writes it."""
    quoted = fatbin_path.replace("\\", "\\\\").replace('"', '\\"')
    return (
        "# moatbridge nvcc device link: the linked AMD code objects for the HIP runtime\n"
        "  .protected __hip_fatbin\n"
        "  .type __hip_fatbin,@object\n"
        '  .section .hip_fatbin,"a",@progbits\n'
        "  .globl __hip_fatbin\n"
        "  .p2align 12\n"
        "__hip_fatbin:\n"
        f'  .incbin "{quoted}"\n'
    )


def build(
    cmdline: CommandLine, config: ToolkitConfig, work_dir: str, rdc_objects: frozenset[str] = frozenset(),
    is_directory: Callable[[str], bool] = _is_dir_name, device_code: frozenset[str] = frozenset(),
) -> Plan:  # fmt: skip
    """The steps for this command line. `work_dir` holds intermediates (--keep-dir or a temp dir);
    `rdc_objects` are object inputs that still need a device link (found by the caller);
    `device_code` are inputs holding relocatable device code that others may call (a library of
    `__device__` functions references no kernel image itself, but the device link needs it);
    `is_directory` tells whether a -ccbin value names a directory."""
    request = archs.requested(cmdline, config.mimic_cc, config.cuda_major)
    virtual_arch = max(request.capabilities)
    gfx_targets = _gfx_targets(config, request)
    language = cmdline.last("x")
    if language is not None and language not in ("cu", "c++", "c"):
        raise NvccUsageError(f"Value '{language}' is not defined for option 'x'")
    mode = mode_of(cmdline)
    keep = cmdline.has("keep") or cmdline.has("save-temps")
    rdc = rdc_requested(cmdline)
    sources: list[tuple[str, str]] = []
    objects: list[str] = []
    for path in cmdline.inputs:
        kind = input_kind(path, language)
        if kind == "device":
            raise NvccUsageError(f"'{path}': PTX, cubin and fatbin inputs cannot be used on AMD GPUs")
        if kind == "unknown":
            raise NvccUsageError(f"Don't know what to do with '{path}'")
        if kind == "object":
            objects.append(path)
        else:
            sources.append((path, kind))
    if not cmdline.inputs:
        raise NvccUsageError("No input files specified; use option --help for more information")
    explicit_output = cmdline.last("output-file")
    steps: list[Step] = []

    if mode in ("preprocess", "dependencies", "compile"):
        if objects:
            raise NvccUsageError(f"Don't know what to do with '{objects[0]}' when only compiling")
        if explicit_output is not None and len(sources) > 1:
            raise NvccUsageError(
                "A single input file is required for a non-link phase when an outputfile is specified"
            )
        syntax_only = cmdline.has("fdevice-syntax-only")
        for source, kind in sources:
            if mode == "preprocess" and cmdline.has("cuda"):  # -cuda: <file>.cpp.ii, host side
                directory = cmdline.last("output-directory") or ""
                default = os.path.join(directory, os.path.basename(source) + ".cpp.ii")
                action, output = ["-E"], explicit_output or default
            elif mode == "preprocess":
                action, output = ["-E"], explicit_output or "-"
            elif mode == "dependencies":
                action = ["-MM"] if cmdline.has("generate-nonsystem-dependencies") else ["-M"]
                output = explicit_output or "-"
            elif syntax_only:  # checks the code, writes nothing
                action, output = ["-fsyntax-only"], "-"
            else:
                action, output = ["-c"], _output_for(cmdline, source, ".o")
            steps.append(
                _compile_step(cmdline, config, request, source, kind, output, action, rdc, keep, is_directory)
            )
        stdout_output = mode != "compile" and explicit_output is None and not cmdline.has("cuda")
        return Plan(tuple(steps), virtual_arch, stdout_output)

    # Every other mode compiles sources to intermediate objects first.
    compiled: list[str] = []
    for index, (source, kind) in enumerate(sources):
        obj = os.path.join(work_dir, f"{_stem(source)}{'' if index == 0 else f'-{index}'}.o")
        steps.append(
            _compile_step(cmdline, config, request, source, kind, obj, ["-c"], rdc, keep, is_directory)
        )
        compiled.append(obj)
    all_objects = [*objects, *compiled]

    if mode == "device-link":
        output = explicit_output or "a_dlink.o"
        steps += device_link_steps(
            config, gfx_targets, all_objects, output, work_dir, cmdline.has("device-debug")
        )
        return Plan(tuple(steps), virtual_arch)

    if mode == "lib":
        output = explicit_output or "a.a"
        archiver = cmdline.last("archiver-binary") or config.tool("llvm-ar")
        steps.append(Run((archiver, "rcs", *cmdline.values("archive-options"), output, *all_objects)))
        return Plan(tuple(steps), virtual_arch)

    # link: a device link first when relocatable device code is involved (nvcc does it too)
    link_inputs = list(all_objects)
    needs_device_link = not cmdline.has("no-device-link") and (
        (rdc and compiled) or any(obj in rdc_objects for obj in objects)
    )
    if needs_device_link:
        dlink_object = os.path.join(work_dir, "a_dlink.o")
        device_inputs = [o for o in all_objects if o in compiled or o in rdc_objects or o in device_code]
        steps += device_link_steps(config, gfx_targets, device_inputs, dlink_object, work_dir)
        link_inputs.append(dlink_object)
    linker = host_compiler(cmdline, config, "link", is_directory)
    argv = [linker]
    if cmdline.has("shared"):
        argv.append("-shared")
    argv += link_inputs
    argv += library_search_flags(config)
    argv += [f"-L{path}" for path in cmdline.values("library-path")]
    argv += [f"-l{lib}" for lib in cmdline.values("library")]
    argv += cmdline.values("linker-options")  # already `-Xlinker piece` words
    for option in cmdline.forwarded_to_linker:
        argv += ["-Xlinker", option]
    argv += cmdline.values("compiler-options") + list(cmdline.forwarded)
    if (level := cmdline.last("optimize")) is not None:
        argv.append(f"-O{level}")  # as nvcc: the host link sees the host optimisation level
    if cmdline.has("debug"):
        argv.append("-g")
    if cmdline.has("profile"):
        argv.append("-pg")
    argv += runtime_libraries(cmdline)
    if _uses_openmp(cmdline):  # lib64's libgomp.so is LLVM's libomp, which lives here
        argv.append(f"-Wl,-rpath,{os.path.dirname(config.llvm_bin)}/lib")
    argv += ["-o", explicit_output or "a.out"]
    steps.append(Run(tuple(argv)))
    if cmdline.has("run"):
        output = explicit_output or "a.out"
        program = output if os.sep in output else f"./{output}"
        steps.append(Run((program, *cmdline.values("run-args"))))
    return Plan(tuple(steps), virtual_arch)
