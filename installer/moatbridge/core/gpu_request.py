"""How a generated file asks for the toolchain's GPUs: a function of the target's vendor. Pure.

AMD targets (gfxNNNN) get AMD's way everywhere: the device plugin's `amd.com/gpu`,
Apptainer's `--rocm`, and the device nodes /dev/kfd and /dev/dri with their groups
(looked up where the container starts). NVIDIA targets (sm_NN, SCALE's NVIDIA mode) get
NVIDIA's standard way: the NVIDIA device plugin's `nvidia.com/gpu`, Apptainer's `--nv`,
`--gpus all` for docker (NVIDIA Container Toolkit) and the toolkit's CDI device
`nvidia.com/gpu=all` for podman; never /dev/kfd. Every generator asks this module.
"""

from __future__ import annotations

from dataclasses import dataclass

from moatbridge.core.gfx import is_nvidia_target


@dataclass(frozen=True)
class GpuRequest:
    vendor: str  # "amd" or "nvidia"
    k8s_resource: str  # the device plugin's resource name
    apptainer_flag: str  # binds the vendor's devices and driver interface
    docker_args: tuple[str, ...]  # NVIDIA: the whole request; AMD: () (device nodes are per host)
    podman_args: tuple[str, ...]
    binds_kfd: bool  # AMD: /dev/kfd, /dev/dri and their groups (and the seccomp relaxation)
    needs: str  # what the host must have, for comments in generated files

    @property
    def is_nvidia(self) -> bool:
        return self.vendor == "nvidia"


AMD = GpuRequest(
    vendor="amd", k8s_resource="amd.com/gpu", apptainer_flag="--rocm", docker_args=(), podman_args=(),
    binds_kfd=True, needs="AMD's device plugin (Kubernetes) or /dev/kfd and /dev/dri (containers)",
)  # fmt: skip
NVIDIA = GpuRequest(
    vendor="nvidia", k8s_resource="nvidia.com/gpu", apptainer_flag="--nv", docker_args=("--gpus", "all"),
    podman_args=("--device", "nvidia.com/gpu=all"), binds_kfd=False,
    needs="NVIDIA's driver with the NVIDIA Container Toolkit (containers) or device plugin (Kubernetes)",
)  # fmt: skip


def gpu_request(target: str) -> GpuRequest:
    """NVIDIA's request for an sm_NN target (SCALE's NVIDIA mode), AMD's for everything else."""
    return NVIDIA if is_nvidia_target(target) else AMD
