"""NVIDIA's CUDA 13 compiler as PyPI ships it (nvcc, its CRT headers, cicc, the runtime's
headers): an oracle that compiles, where the Debian CUDA 12.4 package gives nvcc's driver only.

The wheels are downloaded into the test cache and unpacked there, once; only tests run what
they hold, and none of their text goes into the repository."""

from __future__ import annotations

import fcntl
import os
import stat
import zipfile
from pathlib import Path

from support import pypi

# The newest CUDA 13 release: 13.0's math_functions.h declares rsqrt with an exception
# specification glibc 2.42's C23 rsqrt contradicts, so 13.0 compiles nothing that includes
# <cmath> on Debian sid; 13.5 does.
CUDA_13 = "13.5.37"
# nvcc's driver and cudafe++/ptxas; its CRT headers (math_functions.h, host_defines.h); cicc;
# cuda_runtime.h and the rest of the runtime's headers.
WHEELS = ("nvidia-cuda-nvcc", "nvidia-cuda-crt", "nvidia-nvvm", "nvidia-cuda-runtime")


def _unpacked(root: Path, requirements: tuple[str, ...]) -> None:
    """The wheels of `requirements` unpacked into `root`, once (under a lock: tests may ask
    at the same time), executables kept executable."""
    done = root / ".unpacked"
    root.mkdir(parents=True, exist_ok=True)
    with open(root.with_name(root.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return
        for requirement in requirements:
            with zipfile.ZipFile(pypi.download_wheel(requirement)) as archive:
                for member in archive.infolist():
                    target = archive.extract(member, root)
                    mode = member.external_attr >> 16  # zip keeps Unix modes there
                    if mode & stat.S_IXUSR:
                        os.chmod(target, 0o755)
        done.touch()


def cuda_13() -> Path:
    """The unpacked toolkit root (bin/nvcc, include/, nvvm/): nvcc.profile finds the rest
    relative to bin/, so the directory can be mounted anywhere."""
    root = pypi.CACHE / f"nvidia-cuda-{CUDA_13}"
    _unpacked(root, tuple(f"{name}=={CUDA_13}" for name in WHEELS))
    toolkit = root / "nvidia" / "cu13"
    if not (toolkit / "bin" / "nvcc").is_file():
        raise AssertionError(f"the CUDA {CUDA_13} wheels hold no bin/nvcc under {toolkit}")
    return toolkit


# CUDA 13.0's CCCL (Thrust, CUB, libcu++): the version the open flavour's 13.0 mimics.
CCCL_13_0 = "13.0.85"


def cccl_13_0_include() -> Path:
    """The include directory of CUDA 13.0's CCCL wheel (thrust/, cub/, cuda/), unpacked once."""
    root = pypi.CACHE / f"nvidia-cuda-cccl-{CCCL_13_0}"
    _unpacked(root, (f"nvidia-cuda-cccl=={CCCL_13_0}",))
    include = root / "nvidia" / "cu13" / "include" / "cccl"
    if not (include / "thrust" / "version.h").is_file():
        raise AssertionError(f"the CCCL {CCCL_13_0} wheel holds no thrust/version.h under {include}")
    return include


# CUDA 13.0 Update 2, the release the open flavour's 13.0 mimics (SCALE's default is 13.0.2):
# the runtime's headers and the CRT headers they include, and the CUDA-X libraries' headers.
CUDA_13_0_WHEELS = (
    "nvidia-cuda-runtime==13.0.96",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-cublas==13.1.0.3",
    "nvidia-cufft==12.0.0.61",
    "nvidia-curand==10.4.0.35",
    "nvidia-cusolver==12.0.4.66",
    "nvidia-cusparse==12.6.3.3",
    "nvidia-nvtx==13.0.85",
)


def cuda_13_0_include() -> Path:
    """One include directory with CUDA 13.0's runtime, driver and CUDA-X headers, unpacked once."""
    root = pypi.CACHE / "nvidia-cuda-13.0-headers"
    _unpacked(root, CUDA_13_0_WHEELS)
    include = root / "nvidia" / "cu13" / "include"
    for header in ("cuda_runtime_api.h", "cufft.h", "cusolver_common.h", "crt/host_defines.h"):
        if not (include / header).is_file():
            raise AssertionError(f"the CUDA 13.0 wheels hold no {header} under {include}")
    return include


# NVML's header of CUDA 13.0 (the library comes with the driver, never in a wheel)
NVML_13_0 = "13.0.87"


def nvml_13_0_include() -> Path:
    """The include directory holding CUDA 13.0's nvml.h, unpacked once."""
    root = pypi.CACHE / f"nvidia-nvml-dev-{NVML_13_0}"
    _unpacked(root, (f"nvidia-nvml-dev=={NVML_13_0}",))
    include = root / "nvidia" / "cu13" / "include"
    if not (include / "nvml.h").is_file():
        raise AssertionError(f"the nvidia-nvml-dev {NVML_13_0} wheel holds no nvml.h under {include}")
    return include


# CUDA 13.0 U2's nvcc driver, for `--dryrun` and option behaviour of the release the open
# flavour mimics (nvcc --version: V13.0.88).
NVCC_13_0 = "13.0.88"


def nvcc_13_0() -> Path:
    """bin/nvcc of CUDA 13.0 (the driver and nvcc.profile; enough for --dryrun and --version)."""
    root = pypi.CACHE / f"nvidia-cuda-nvcc-{NVCC_13_0}"
    _unpacked(root, (f"nvidia-cuda-nvcc=={NVCC_13_0}",))
    nvcc = root / "nvidia" / "cu13" / "bin" / "nvcc"
    if not nvcc.is_file():
        raise AssertionError(f"the nvidia-cuda-nvcc {NVCC_13_0} wheel holds no bin/nvcc under {root}")
    return nvcc
