"""What nvcc's options become on the clang-17 (CUDA sources) and host compiler command lines,
and which host compiler and runtime libraries a command uses. Pure."""

from __future__ import annotations

import os
from collections.abc import Callable

from . import archs, leniency
from .config import ToolkitConfig
from .options import CommandLine, NvccUsageError

_HOST_ONLY_PREFIXES = ("-m", "-fopenmp", "-fsanitize", "-pthread", "-rdynamic")


def gfx_targets(config: ToolkitConfig, request: archs.ArchRequest) -> tuple[str, ...]:
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
    flags += [f"--offload-arch={gfx}" for gfx in gfx_targets(config, request)]
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
    # HIP's API is [[nodiscard]]; CUDA's is not, so unchecked calls must not warn. The device
    # flags this driver adds go unused in -M/-E runs, which real nvcc does not warn about; nor
    # does it warn when a `#pragma unroll` loop cannot be unrolled (clang's -Wpass-failed).
    flags += ["-Wno-unused-result", "-Wno-unknown-cuda-version", "-Wno-unused-command-line-argument"]
    flags += ["-Wno-pass-failed"]
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
    user = _host_flags(cmdline.values("compiler-options") + list(cmdline.forwarded))
    if "-Werror" not in flags and "-Werror" not in user:  # g++ -Werror would refuse them too
        flags += leniency.tolerance_flags(int(config.clang_version))
    return flags + user


def host_compile_flags(cmdline: CommandLine, config: ToolkitConfig) -> list[str]:
    include = f"{config.root}/include"
    flags = ["-isystem", f"{include}/moatbridge/shadow", "-isystem", include]
    flags += _user_preprocessor(cmdline)
    flags += _warning_flags(cmdline) + _common_host_flags(cmdline) + _dependency_flags(cmdline)
    flags += cmdline.values("compiler-options") + list(cmdline.forwarded)
    return flags


def is_dir_name(path: str) -> bool:
    """The pure default for "is -ccbin a directory": the driver passes os.path.isdir."""
    return path.endswith("/")


# nvcc links with the C++ driver when -ccbin names a C one (`-ccbin gcc` links with g++).
_CXX_SIBLINGS = {"gcc": "g++", "clang": "clang++", "cc": "c++"}
# ... and a C source handed to a C++ driver is compiled by its C sibling.
_C_SIBLINGS = {"g++": "gcc", "clang++": "clang", "c++": "cc"}


def host_compiler(
    cmdline: CommandLine, config: ToolkitConfig, kind: str, is_directory: Callable[[str], bool] = is_dir_name
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


def uses_openmp(cmdline: CommandLine) -> bool:
    host = cmdline.values("compiler-options") + list(cmdline.forwarded)
    return any(lib in ("gomp", "omp") for lib in cmdline.values("library")) or any(
        flag.startswith(("-fopenmp", "-qopenmp")) for flag in host
    )
