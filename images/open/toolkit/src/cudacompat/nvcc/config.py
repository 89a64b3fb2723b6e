"""What one toolkit directory (/opt/moatbridge/targets/<gfx>) is: its target and mimicked CUDA."""

from __future__ import annotations

import os
from typing import NamedTuple

# key=value lines (not JSON: the json module costs the driver start-up time on every compile)
CONFIG_RELATIVE = "share/moatbridge/target.conf"

# nvcc reports a build number after major.minor; these are the real releases' numbers.
CUDA_BUILDS = {"13.0": 88, "12.4": 131, "11.8": 89, "12.1": 105, "12.0": 76, "11.7": 64}


class ToolkitConfig(NamedTuple):
    root: str  # the toolkit directory, e.g. /opt/moatbridge/targets/gfx1030
    gfx: str
    cuda_version: str  # major.minor.build, e.g. 11.8.89
    mimic_cc: int  # the compute capability CUDA code sees, e.g. 86
    clangxx: str = "/usr/bin/clang++-17"
    clang: str = "/usr/bin/clang-17"
    llvm_bin: str = "/usr/lib/llvm-17/bin"
    # the stack's versions, for --version and the reports (the generator reads them from the image)
    clang_version: str = "17"
    hip_version: str = "5.7"

    @property
    def cuda_major(self) -> int:
        return int(self.cuda_version.split(".")[0])

    @property
    def cuda_minor(self) -> int:
        return int(self.cuda_version.split(".")[1])

    @property
    def cuda_build(self) -> int:
        return int(self.cuda_version.split(".")[2])

    @property
    def bin_dir(self) -> str:
        return f"{self.root}/bin"

    @property
    def top(self) -> str:
        """How nvcc spells the toolkit root in -v output: relative to its bin directory."""
        return f"{self.root}/bin/.."

    def tool(self, name: str) -> str:
        return f"{self.llvm_bin}/{name}"

    def to_text(self) -> str:
        keys = (
            "gfx", "cuda_version", "mimic_cc", "clangxx", "clang", "llvm_bin", "clang_version", "hip_version"
        )  # fmt: skip
        return "".join(f"{key}={getattr(self, key)}\n" for key in keys)


def full_cuda_version(major_minor: str) -> str:
    if major_minor.count(".") >= 2:
        return major_minor
    return f"{major_minor}.{CUDA_BUILDS.get(major_minor, 0)}"


def load(root: str) -> ToolkitConfig:
    with open(os.path.join(root, CONFIG_RELATIVE), encoding="utf-8") as handle:
        data = dict(line.rstrip("\n").split("=", 1) for line in handle if "=" in line)
    return ToolkitConfig(
        root=str(root),
        gfx=str(data["gfx"]),
        cuda_version=str(data["cuda_version"]),
        mimic_cc=int(data["mimic_cc"]),
        clangxx=str(data.get("clangxx", ToolkitConfig.clangxx)),
        clang=str(data.get("clang", ToolkitConfig.clang)),
        llvm_bin=str(data.get("llvm_bin", ToolkitConfig.llvm_bin)),
        clang_version=str(data.get("clang_version", ToolkitConfig.clang_version)),
        hip_version=str(data.get("hip_version", ToolkitConfig.hip_version)),
    )
