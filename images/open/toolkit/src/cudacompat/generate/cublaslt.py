"""libcublasLt for stacks without hipBLASLt: cuBLASLt's C API over hipBLAS with the epilogue
kernels of its own (libraries/cublaslt.cu), compiled when the image's targets are known by
the toolkit's own nvcc, for each of them HIP compiles for, so its kernels run on every GPU
the image serves (HIP's headers refuse some older ones the compiler knows: gfx7)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
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


_PROBE = "__global__ void moatbridge_probe(int* x) { x[0] = 1; }\n"


def compilable(
    nvcc: Path, targets: Sequence[str], run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run
) -> list[str]:
    """The targets a kernel compiles for with this nvcc, in their order (probed in parallel)."""
    with tempfile.TemporaryDirectory(prefix="cublaslt-probe-") as directory:
        source = Path(directory) / "probe.cu"
        source.write_text(_PROBE, encoding="utf-8")

        def accepts(gfx: str) -> bool:
            argv = [str(nvcc), "-c", "-arch", gfx, str(source), "-o", str(Path(directory) / f"{gfx}.o")]
            return run(argv, capture_output=True, text=True).returncode == 0

        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            accepted = list(pool.map(accepts, targets))
    return [gfx for gfx, ok in zip(targets, accepted, strict=True) if ok]


def build(
    lib64: Path, nvcc: Path, targets: Sequence[str], cuda_version: str,
    run: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
) -> str:  # fmt: skip
    """lib64/libcublasLt.so.N with its link-time names (libcublasLt.so and the static name
    CMake's CUDA::cublasLt_static links, as a linker script); returns what was done. Without
    a target HIP compiles for, nothing is built: the placeholder says why."""
    usable = compilable(nvcc, targets, run)
    refused = [gfx for gfx in targets if gfx not in usable]
    if not usable:
        return f"cuBLASLt: not built, HIP compiles for none of {', '.join(targets)}"
    name = soname(cuda_version)
    partial = lib64 / f".{name}.partial"
    result = run(compile_command(nvcc, usable, partial, name), capture_output=True, text=True)
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
    skipped = f" (not {', '.join(refused)}: HIP refuses them)" if refused else ""
    return f"cuBLASLt: {lib64 / name} over hipBLAS, kernels for {', '.join(usable)}{skipped}"
