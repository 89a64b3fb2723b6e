"""NVIDIA's headers of each CUDA release the open flavour mimics: CUDA 12.4 as Debian's
non-free packages carry it, CUDA 13.0 as its PyPI wheels do (unpacked in the test cache)."""

from __future__ import annotations

from pathlib import Path

from support import nvidia_pypi, nvidia_toolkit


def include_of(release: str) -> Path:
    """The include directory of NVIDIA's headers of `release` (12.4 or 13.0)."""
    if release == "12.4":
        return nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    if release == "13.0":
        return nvidia_pypi.cuda_13_0_include()
    raise ValueError(f"no NVIDIA headers of CUDA {release} here")


def nvml_include_of(release: str) -> Path:
    """The include directory of NVIDIA's nvml.h of `release` (12.4 or 13.0)."""
    if release == "12.4":
        return nvidia_toolkit.required(nvidia_toolkit.real_nvml_include_dir)
    if release == "13.0":
        return nvidia_pypi.nvml_13_0_include()
    raise ValueError(f"no NVIDIA nvml.h of CUDA {release} here")


def header_mounts(release: str) -> tuple[list[str], str]:
    """`docker run` options mounting NVIDIA's headers of `release` at /real (and, for CUDA 13,
    whose headers include CCCL's <nv/target>, CCCL's at /cccl), and the compiler's include
    options for them."""
    mounts = ["-v", f"{include_of(release)}:/real:ro"]
    options = "-isystem /real"
    if release == "13.0":
        mounts += ["-v", f"{nvidia_pypi.cccl_13_0_include()}:/cccl:ro"]
        options += " -isystem /cccl"
    return mounts, options
