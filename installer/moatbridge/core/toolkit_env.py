"""The environment a toolchain's in-image activation sets, as data.

Shells get it by sourcing `/opt/moatbridge/bin/activate <gfx>` (open) or `scaleenv <gfx>`
(SCALE). Devcontainers and Kubernetes override the image's entrypoint and start no
login shell, so their generated files must spell the same variables out; this is the
one place that knows them (tests compare it with what the real activate script exports).
"""

from __future__ import annotations

from dataclasses import dataclass

MIMIC_ARCHITECTURE = "86"


@dataclass(frozen=True)
class ToolkitEnv:
    variables: tuple[tuple[str, str], ...]
    path_prepend: str  # the toolkit's bin directory, first on PATH
    library_path: str

    def as_dict(self) -> dict[str, str]:
        return dict(self.variables)


def toolkit_root(flavour: str, target: str) -> str:
    return f"/opt/scale/targets/{target}" if flavour == "scale" else f"/opt/moatbridge/targets/{target}"


def toolkit_env(flavour: str, target: str) -> ToolkitEnv:
    root = toolkit_root(flavour, target)
    nvcc = f"{root}/bin/nvcc"
    variables: list[tuple[str, str]] = []
    if flavour != "scale":
        variables += [
            ("MOATBRIDGE_TARGET", target),
            ("HIP_PLATFORM", "amd"),
            ("HCC_AMDGPU_TARGET", target),
            ("CMAKE_HIP_ARCHITECTURES", target),
            # clang-17 is the image's only C/C++ compiler and has no cc/c++ alternatives.
            ("CC", "clang-17"),
            ("CXX", "clang++-17"),
        ]
    variables += [
        ("CUDA_HOME", root), ("CUDA_PATH", root), ("CUDA_ROOT", root), ("CUDA_DIR", root),
        ("CUDA_BIN_PATH", f"{root}/bin"), ("CUDA_INC_DIR", f"{root}/include"),
        ("CUDACXX", nvcc), ("CUCC", nvcc), ("CUDAToolkit_ROOT", root),
        ("CUDAARCHS", MIMIC_ARCHITECTURE),
    ]  # fmt: skip
    return ToolkitEnv(tuple(variables), f"{root}/bin", f"{root}/lib64")
