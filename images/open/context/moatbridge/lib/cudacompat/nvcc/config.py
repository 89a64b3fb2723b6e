"""What one toolkit directory (/opt/moatbridge/targets/<gfx>) is: its target and mimicked CUDA."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

CONFIG_RELATIVE = "share/moatbridge/target.json"

# nvcc reports a build number after major.minor; these are the real releases' numbers.
CUDA_BUILDS = {"11.8": 89, "12.1": 105, "12.0": 76, "11.7": 64}


@dataclass(frozen=True)
class ToolkitConfig:
    root: str  # the toolkit directory, e.g. /opt/moatbridge/targets/gfx1030
    gfx: str
    cuda_version: str  # major.minor.build, e.g. 11.8.89
    mimic_cc: int  # the compute capability CUDA code sees, e.g. 86
    clangxx: str = "/usr/bin/clang++-17"
    clang: str = "/usr/bin/clang-17"
    llvm_bin: str = "/usr/lib/llvm-17/bin"

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

    def to_json(self) -> str:
        fields = {"gfx": self.gfx, "cuda_version": self.cuda_version, "mimic_cc": self.mimic_cc,
                  "clangxx": self.clangxx, "clang": self.clang, "llvm_bin": self.llvm_bin}  # fmt: skip
        return json.dumps(fields, indent=2, sort_keys=True) + "\n"


def full_cuda_version(major_minor: str) -> str:
    if major_minor.count(".") >= 2:
        return major_minor
    return f"{major_minor}.{CUDA_BUILDS.get(major_minor, 0)}"


def load(root: Path) -> ToolkitConfig:
    data = json.loads((root / CONFIG_RELATIVE).read_text(encoding="utf-8"))
    return ToolkitConfig(
        root=str(root),
        gfx=str(data["gfx"]),
        cuda_version=str(data["cuda_version"]),
        mimic_cc=int(data["mimic_cc"]),
        clangxx=str(data.get("clangxx", ToolkitConfig.clangxx)),
        clang=str(data.get("clang", ToolkitConfig.clang)),
        llvm_bin=str(data.get("llvm_bin", ToolkitConfig.llvm_bin)),
    )
