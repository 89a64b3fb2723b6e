"""What detection finds, as frozen values, and their JSON form.

The JSON shape is a documented contract (docs/detect-json.md); change it only by
adding fields, and bump ``SCHEMA_VERSION`` when a field changes meaning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Gpu:
    vendor: str  # "amd" | "nvidia"
    name: str | None
    gfx_target: str | None
    family: str | None
    apu: bool
    pci_slot: str | None
    pci_device_id: str | None  # "0x744c"
    render_node: str | None
    kfd_node: int | None
    compute_capability: str | None
    hsa_override_gfx_version: str | None
    # Where the entry came from: "kfd", "pci" (no readable KFD node) or "nvidia-procfs".
    source: str = "kfd"
    # True when this process could hand the GPU to a runtime: KFD node readable
    # (AMD) or the NVIDIA driver lists it.
    usable: bool = True
    vram_bytes: int | None = None
    pci_driver: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "vendor": self.vendor,
            "name": self.name,
            "gfx_target": self.gfx_target,
            "family": self.family,
            "apu": self.apu,
            "pci_slot": self.pci_slot,
            "pci_device_id": self.pci_device_id,
            "render_node": self.render_node,
            "kfd_node": self.kfd_node,
            "compute_capability": self.compute_capability,
            "hsa_override_gfx_version": self.hsa_override_gfx_version,
            "source": self.source,
            "usable": self.usable,
            "vram_bytes": self.vram_bytes,
            "pci_driver": self.pci_driver,
        }


@dataclass(frozen=True)
class AmdgpuDriver:
    loaded: bool
    version: str | None  # DKMS module version, or the kernel release for in-tree
    kind: str | None  # "dkms" | "in-tree" | None when not loaded
    # ROCm release the DKMS package was built for (from the package database), if known.
    rocm_release: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "loaded": self.loaded,
            "version": self.version,
            "kind": self.kind,
            "rocm_release": self.rocm_release,
        }


@dataclass(frozen=True)
class Rocm:
    version: str | None
    path: str | None
    source: str | None = None  # the file the version was read from

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "path": self.path, "source": self.source}


@dataclass(frozen=True)
class DeviceNode:
    path: str
    exists: bool
    accessible: bool
    group: str | None
    gid: int | None
    # "active": this process has the group; "needs-relogin": the group database
    # lists the user but this login session predates it; "none"; None if no node.
    membership: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "exists": self.exists,
            "accessible": self.accessible,
            "group": self.group,
            "gid": self.gid,
            "membership": self.membership,
        }


@dataclass(frozen=True)
class NvidiaDriver:
    version: str | None
    open_module: bool | None

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "open_module": self.open_module}


@dataclass(frozen=True)
class Security:
    selinux: str | None  # "enforcing" | "permissive" | None (absent)
    apparmor: bool

    def to_json(self) -> dict[str, Any]:
        return {"selinux": self.selinux, "apparmor": self.apparmor}


@dataclass(frozen=True)
class HostReport:
    root: str
    gpus: tuple[Gpu, ...]
    amdgpu_driver: AmdgpuDriver
    rocm: Rocm
    kfd: DeviceNode
    render_nodes: tuple[DeviceNode, ...]
    nvidia_driver: NvidiaDriver
    kernel_release: str | None
    security: Security
    # KFD GPU nodes that exist but could not be read (EPERM: device cgroup).
    hidden_kfd_nodes: tuple[int, ...] = ()
    # Environment variables that change what ROCm sees, as set for this process.
    environment: tuple[tuple[str, str], ...] = ()
    # Things that could not be read or parsed; detection carried on without them.
    problems: tuple[str, ...] = field(default=())

    @property
    def amd_gpus(self) -> tuple[Gpu, ...]:
        return tuple(g for g in self.gpus if g.vendor == "amd")

    @property
    def amd_targets(self) -> tuple[str, ...]:
        """Each AMD GPU's gfx target once, in detection order (the stack advice's subjects)."""
        return tuple(dict.fromkeys(g.gfx_target for g in self.amd_gpus if g.gfx_target))

    @property
    def physical_amd_gpus(self) -> int:
        slots = {g.pci_slot or f"kfd:{g.kfd_node}" for g in self.amd_gpus}
        return len(slots)

    def to_json(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "root": self.root,
            "gpus": [g.to_json() for g in self.gpus],
            "amdgpu_driver": self.amdgpu_driver.to_json(),
            "rocm": self.rocm.to_json(),
            "devices": {
                "kfd": self.kfd.to_json(),
                "render_nodes": [n.to_json() for n in self.render_nodes],
            },
            "nvidia_driver": self.nvidia_driver.to_json(),
            "kernel_release": self.kernel_release,
            "security": self.security.to_json(),
            "physical_amd_gpus": self.physical_amd_gpus,
            "hidden_kfd_nodes": list(self.hidden_kfd_nodes),
            "environment": dict(self.environment),
            "problems": list(self.problems),
        }


@dataclass(frozen=True)
class EngineFacts:
    docker_cli: str | None
    podman_cli: str | None
    endpoint: str | None
    reachable: bool
    # Why it is not reachable: "permission" | "not-running" | "timeout" | "error", or "config"
    # (the docker context named is missing or broken: no address); None when reachable.
    failure: str | None = None
    failure_detail: str | None = None
    product: str | None = None  # "docker" | "podman"
    server_version: str | None = None
    api_version: str | None = None
    storage_driver: str | None = None
    root_dir: str | None = None
    rootless: bool = False
    free_bytes: int | None = None
    # What chose the endpoint ("DOCKER_HOST", "docker context 'x'"); None: the usual sockets.
    endpoint_source: str | None = None
    # How to repair or start it, for what chose the endpoint; None: the system daemon's advice.
    fix: str | None = None
