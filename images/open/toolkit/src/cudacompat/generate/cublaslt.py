"""libcublasLt for stacks without hipBLASLt: cuBLASLt's C API over hipBLAS with the epilogue
kernels of its own (libraries/cublaslt.cu), compiled when the image's targets are known by
the toolkit's own nvcc, for all of them, so its kernels run on every GPU the image serves."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path

from .toolkit import _symlink, write_text

SOURCE = Path(__file__).with_name("libraries") / "cublaslt.cu"
HEADER = "moatbridge/cublaslt_hipblas.h"


def soname(cuda_version: str) -> str:
    """NVIDIA's: the CUDA major version (libcublasLt.so.12, libcublasLt.so.13)."""
    return f"libcublasLt.so.{cuda_version.split('.')[0]}"


def compile_command(nvcc: Path, targets: Sequence[str], output: Path, name: str) -> list[str]:
    """Only the cublasLt* functions are exported (-fvisibility=hidden and the source's
    LT_API); every name resolved at link time (--no-undefined)."""
    arches = [option for gfx in targets for option in ("-arch", gfx)]
    return [
        str(nvcc), "-shared", "-O2", "-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden", *arches,
        "-o", str(output), str(SOURCE), "-lcublas",
        "-Xlinker", f"-soname={name}", "-Xlinker", "--no-undefined",
    ]  # fmt: skip


def build(
    lib64: Path, nvcc: Path, targets: Sequence[str], cuda_version: str,
    run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
) -> str:  # fmt: skip
    """lib64/libcublasLt.so.N with its link-time names (libcublasLt.so and the static name
    CMake's CUDA::cublasLt_static links, as a linker script); returns what was done."""
    name = soname(cuda_version)
    partial = lib64 / f".{name}.partial"
    result = run(compile_command(nvcc, targets, partial, name), capture_output=True, text=True)
    if result.returncode != 0:
        partial.unlink(missing_ok=True)
        raise RuntimeError(f"compiling {SOURCE.name} failed:\n{result.stderr}")
    partial.replace(lib64 / name)
    _symlink(lib64 / "libcublasLt.so", name)
    write_text(
        lib64 / "libcublasLt_static.a",
        "/* moatbridge: cuBLASLt over hipBLAS is a shared library only (GNU ld / lld linker script) */\n"
        "INPUT(-lcublasLt)\n",
    )
    return f"cuBLASLt: {lib64 / name} over hipBLAS, kernels for {', '.join(targets)}"
