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
from .device_link import device_link_steps
from .flags import (
    cuda_compile_flags,
    gfx_targets,
    host_compile_flags,
    host_compiler,
    is_dir_name,
    library_search_flags,
    runtime_libraries,
    uses_openmp,
)
from .options import CommandLine, NvccUsageError
from .steps import BindStaticNames as BindStaticNames
from .steps import FatbinWrapper as FatbinWrapper
from .steps import NvccDepfile as NvccDepfile
from .steps import Run as Run  # re-exported: the driver and the tests name plan.Run
from .steps import Step as Step
from .steps import WriteText as WriteText

CUDA_SUFFIXES = (".cu",)
CXX_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".C", ".cp", ".CPP")
C_SUFFIXES = (".c",)
OBJECT_SUFFIXES = (".o", ".obj", ".a", ".so", ".lo", ".lib", ".res")
DEVICE_SUFFIXES = (".ptx", ".cubin", ".fatbin", ".fatbinary", ".optixir")


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


_DEPS_AND_COMPILE = ("generate-dependencies-with-compile", "generate-nonsystem-dependencies-with-compile")


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


def _bind_static_names(config: ToolkitConfig, obj: str) -> BindStaticNames:
    return BindStaticNames(obj, config.tool("llvm-objcopy"), config.tool("llvm-dis"), config.tool("llvm-as"))


def build(
    cmdline: CommandLine, config: ToolkitConfig, work_dir: str, rdc_objects: frozenset[str] = frozenset(),
    is_directory: Callable[[str], bool] = is_dir_name, device_code: frozenset[str] = frozenset(),
) -> Plan:  # fmt: skip
    """The steps for this command line. `work_dir` holds intermediates (--keep-dir or a temp dir);
    `rdc_objects` are object inputs that still need a device link (found by the caller);
    `device_code` are inputs holding relocatable device code that others may call (a library of
    `__device__` functions references no kernel image itself, but the device link needs it);
    `is_directory` tells whether a -ccbin value names a directory."""
    request = archs.requested(cmdline, config.mimic_cc, config.cuda_major)
    virtual_arch = max(request.capabilities)
    targets = gfx_targets(config, request)
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
            if rdc and kind == "cu" and action == ["-c"]:
                steps.append(_bind_static_names(config, output))
            depfile = output if mode == "dependencies" else cmdline.last("dependency-output")
            writes_depfile = mode == "dependencies" or any(cmdline.has(flag) for flag in _DEPS_AND_COMPILE)
            if writes_depfile and depfile not in (None, "-") and kind == "cu":
                steps.append(NvccDepfile(depfile))
        stdout_output = mode != "compile" and explicit_output is None and not cmdline.has("cuda")
        return Plan(tuple(steps), virtual_arch, stdout_output)

    # Every other mode compiles sources to intermediate objects first.
    compiled: list[str] = []
    for index, (source, kind) in enumerate(sources):
        obj = os.path.join(work_dir, f"{_stem(source)}{'' if index == 0 else f'-{index}'}.o")
        steps.append(
            _compile_step(cmdline, config, request, source, kind, obj, ["-c"], rdc, keep, is_directory)
        )
        if rdc and kind == "cu":
            steps.append(_bind_static_names(config, obj))
        compiled.append(obj)
    all_objects = [*objects, *compiled]

    if mode == "device-link":
        output = explicit_output or "a_dlink.o"
        steps += device_link_steps(
            config, targets, all_objects, output, work_dir, cmdline.has("device-debug")
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
        steps += device_link_steps(config, targets, device_inputs, dlink_object, work_dir)
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
    if uses_openmp(cmdline):  # lib64's libgomp.so is LLVM's libomp, which lives here
        argv.append(f"-Wl,-rpath,{os.path.dirname(config.llvm_bin)}/lib")
    argv += ["-o", explicit_output or "a.out"]
    steps.append(Run(tuple(argv)))
    if cmdline.has("run"):
        output = explicit_output or "a.out"
        program = output if os.sep in output else f"./{output}"
        steps.append(Run((program, *cmdline.values("run-args"))))
    return Plan(tuple(steps), virtual_arch)
