"""The ROCm stack the CUDA layer is generated for: its clang, its HIP and which optional
libraries it has. Read from the image (hip/hip_version.h, the library headers), never
assumed; written to /opt/moatbridge/stack.env for activate and the reports.

Debian's stacks: trixie (ROCm 5.7, clang 17), sid (HIP 6.4, clang 21, hipBLASLt, no RCCL),
experimental (ROCm 7.2, clang 22, hipBLASLt and RCCL).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_HIP_VERSION = re.compile(r"^#define\s+HIP_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)", re.M)
STACK_ENV = "stack.env"


@dataclass(frozen=True)
class Stack:
    clang_version: int
    rocm_version: str  # the catalog's ROCm release, e.g. "6.4"
    hip_version: str  # major.minor from hip/hip_version.h, e.g. "6.4"
    hipblaslt: bool  # /usr/include/hipblaslt/hipblaslt.h and libhipblaslt.so
    rccl: bool  # /usr/include/rccl/rccl.h and librccl.so

    @property
    def clangxx(self) -> str:
        return f"/usr/bin/clang++-{self.clang_version}"

    @property
    def clang(self) -> str:
        return f"/usr/bin/clang-{self.clang_version}"

    @property
    def llvm_bin(self) -> str:
        return f"/usr/lib/llvm-{self.clang_version}/bin"

    @property
    def llvm_lib(self) -> str:
        return f"/usr/lib/llvm-{self.clang_version}/lib"

    @property
    def hip_major(self) -> int:
        return int(self.hip_version.split(".")[0])

    @property
    def label(self) -> str:
        """How texts name the stack: `clang 21, HIP 6.4`."""
        return f"clang {self.clang_version}, HIP {self.hip_version}"

    def env_text(self) -> str:
        return (
            "# moatbridge: the ROCm stack this image's CUDA layer was generated for (sh syntax)\n"
            f"CLANG_VERSION={self.clang_version}\n"
            f"ROCM_VERSION={self.rocm_version}\n"
            f"HIP_VERSION={self.hip_version}\n"
            f"HIPBLASLT={'yes' if self.hipblaslt else 'no'}\n"
            f"RCCL={'yes' if self.rccl else 'no'}\n"
        )


def hip_version(system_include: Path) -> str:
    """major.minor of the HIP headers (hip/hip_version.h)."""
    path = system_include / "hip" / "hip_version.h"
    found = dict(_HIP_VERSION.findall(path.read_text(encoding="utf-8")))
    if "MAJOR" not in found or "MINOR" not in found:
        raise RuntimeError(f"{path}: no HIP_VERSION_MAJOR/MINOR")
    return f"{int(found['MAJOR'])}.{int(found['MINOR'])}"


def _has_library(name: str, library_dirs: tuple[Path, ...]) -> bool:
    return any((directory / f"lib{name}.so").exists() for directory in library_dirs)


def detect(
    clang_version: int, rocm_version: str, system_include: Path,
    library_dirs: tuple[Path, ...] = (Path("/usr/lib/x86_64-linux-gnu"), Path("/usr/lib")),
) -> Stack:  # fmt: skip
    return Stack(
        clang_version=clang_version,
        rocm_version=rocm_version,
        hip_version=hip_version(system_include),
        hipblaslt=(system_include / "hipblaslt" / "hipblaslt.h").is_file()
        and _has_library("hipblaslt", library_dirs),
        rccl=(system_include / "rccl" / "rccl.h").is_file() and _has_library("rccl", library_dirs),
    )


def read_env(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    return dict(
        line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines()
        if "=" in line and not line.startswith("#")
    )  # fmt: skip
