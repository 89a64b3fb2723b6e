"""Text nvcc prints that build systems parse: --version and the -v / --dryrun lines. Pure.

CMake (CMakeDetermineCUDACompiler, FindCUDAToolkit), the old FindCUDA, meson and sccache read
these; the shapes follow real nvcc 11.x/12.x output.
"""

from __future__ import annotations

from collections.abc import Sequence

from .config import ToolkitConfig
from .flags import library_search_flags


def version_text(config: ToolkitConfig) -> str:
    major_minor = f"{config.cuda_major}.{config.cuda_minor}"
    return (
        "nvcc: NVIDIA (R) Cuda compiler driver\n"
        "Copyright (c) 2005-2023 NVIDIA Corporation (interface); moatbridge open toolkit\n"
        f"Built on moatbridge for AMD {config.gfx} with clang {config.clang_version} "
        f"(HIP {config.hip_version})\n"
        f"Cuda compilation tools, release {major_minor}, V{config.cuda_version}\n"
        f"Build cuda_{major_minor}.r{major_minor}/compiler.moatbridge_0\n"
    )


def libraries_value(config: ToolkitConfig) -> str:
    return " ".join(f'"{flag}"' for flag in library_search_flags(config))


def prologue(config: ToolkitConfig, environ: dict[str, str]) -> str:
    bin_dir = config.bin_dir
    top = config.top
    lines = [
        "_NVVM_BRANCH_=nvvm",
        "_SPACE_= ",
        "_CUDART_=cudart",
        f"_HERE_={bin_dir}",
        f"_THERE_={bin_dir}",
        "_TARGET_SIZE_=",
        "_TARGET_DIR_=",
        "_TARGET_DIR_=targets/x86_64-linux",
        f"TOP={top}",
        f"NVVMIR_LIBRARY_DIR={top}/nvvm/libdevice",
        f"LD_LIBRARY_PATH={top}/lib:{environ.get('LD_LIBRARY_PATH', '')}",
        f"PATH={top}/nvvm/bin:{bin_dir}:{environ.get('PATH', '')}",
        f'INCLUDES="-I{top}/include"  ',
        f"LIBRARIES=  {libraries_value(config)}",
        "CUDAFE_FLAGS=",
        "PTXAS_FLAGS=",
    ]
    return "".join(f"#$ {line}\n" for line in lines)


def virtual_arch_line(capability: int) -> str:
    # A variable-style line, so every other #$ line stays a runnable command; CMake only
    # needs the `-arch compute_NN` text somewhere in the output.
    return f"#$ _NVCC_VIRTUAL_ARCH_=-arch compute_{capability}\n"


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_")


def _quote(arg: str) -> str:
    """POSIX shell quoting, as shlex.quote does (shlex would pull `re` into every start)."""
    if arg and all(c in _SAFE for c in arg):
        return arg
    return "'" + arg.replace("'", "'\"'\"'") + "'"


def render_command(argv: Sequence[str], config: ToolkitConfig) -> str:
    verbatim = set(library_search_flags(config))
    parts = [f'"{arg}"' if arg in verbatim else _quote(arg) for arg in argv]
    return "#$ " + " ".join(parts) + "\n"
