"""libnvidia-ml for the open toolkit: NVML's C API over ROCm SMI, compiled at image build with
the stack's clang against the stack's rocm_smi.h (its structures differ between ROCm
releases), so code that links `-lnvidia-ml` or loads libnvidia-ml.so.1 (pynvml) finds NVML."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from .stack import Stack

SOURCE = Path(__file__).with_name("libraries") / "nvidia_ml.c"
SONAME = "libnvidia-ml.so.1"
ROCM_SMI_HEADER = Path("rocm_smi") / "rocm_smi.h"


def compile_command(stack: Stack, include: Path, output: Path) -> list[str]:
    """The compiler's argv: only the nvml* functions are exported (-fvisibility=hidden)."""
    return [
        stack.clang, "-shared", "-fPIC", "-O2", "-std=gnu11", "-fvisibility=hidden",
        "-Wall", "-Wextra", "-Werror", "-DNVML_NO_UNVERSIONED_FUNC_DEFS",
        "-I", str(include), "-o", str(output), str(SOURCE),
        f"-Wl,-soname,{SONAME}", "-Wl,--no-undefined", "-lrocm_smi64", "-pthread",
    ]  # fmt: skip


def build(
    lib64: Path, include: Path, stack: Stack, system_include: Path,
    run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
) -> str:  # fmt: skip
    """lib64/libnvidia-ml.so.1 with its link-time names (lib64/libnvidia-ml.so and, where
    CMake's FindCUDAToolkit also looks, lib64/stubs/libnvidia-ml.so); returns what was done."""
    if not (system_include / ROCM_SMI_HEADER).is_file():
        return f"NVML: not built, {system_include / ROCM_SMI_HEADER} is missing (librocm-smi-dev)"
    lib64.mkdir(parents=True, exist_ok=True)
    output = lib64 / SONAME
    partial = lib64 / f".{SONAME}.partial"
    result = run(compile_command(stack, include, partial), capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"compiling {SOURCE.name} failed:\n{result.stderr}")
    partial.replace(output)
    for link, target in (
        (lib64 / "libnvidia-ml.so", SONAME),
        (lib64 / "stubs" / "libnvidia-ml.so", f"../{SONAME}"),
    ):
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target)
    return f"NVML: {output} over ROCm SMI"
