"""How a toolchain runs on this host: its devices, groups, mounts and licence environment."""

from __future__ import annotations

import os
import shutil

from moatbridge.adapters.hostfs import HostFS
from moatbridge.adapters.records import default_licences_dir
from moatbridge.core.detection import detect_devices
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.shims import ToolchainRuntime
from moatbridge.core.toolchains import Toolchain
from moatbridge.core.toolkit_env import ACTIVATORS, LICENCE_ENV
from moatbridge.paths import Paths


def work_roots() -> tuple[str, ...]:
    """Directories the warm container mounts at the same path: the user's home."""
    return (os.path.realpath(os.path.expanduser("~")),)


def host_gpu_access() -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The GPU device paths a container needs (/dev/kfd, /dev/dri, those present) and the
    numeric groups owning /dev/kfd and the render nodes, for --device/--group-add."""
    kfd, render_nodes = detect_devices(HostFS("/"), [])
    nodes = [n for n in (kfd, *render_nodes) if n.exists]
    groups = tuple(sorted({n.gid for n in nodes if n.gid is not None}))
    devices = tuple(p for p in ("/dev/kfd", "/dev/dri") if os.path.exists(p))
    return devices, groups


def nvidia_container_toolkit() -> str | None:
    """What gives containers NVIDIA GPUs here: the toolkit's CLI on PATH, or the engine's
    'nvidia' runtime (`docker info`); None when neither is found."""
    for tool in ("nvidia-container-runtime", "nvidia-ctk", "nvidia-container-cli"):
        found = shutil.which(tool)
        if found:
            return found
    try:
        from moatbridge.adapters import docker_api

        client = docker_api.connect()
        try:
            runtimes = client.info().get("Runtimes") or {}
        finally:
            client.close()
    except Exception:  # noqa: BLE001 - no engine: nothing found (doctor says why elsewhere)
        return None
    return "the engine's nvidia runtime" if "nvidia" in runtimes else None


def nvidia_gpu_access() -> bool:
    """Runs get --gpus all: an NVIDIA device node is here and the container toolkit serves it."""
    return os.path.exists("/dev/nvidiactl") and nvidia_container_toolkit() is not None


def runtime_for(toolchain: Toolchain, paths: Paths, licence_required: bool) -> ToolchainRuntime:
    nvidia = is_nvidia_target(toolchain.target)  # SCALE's NVIDIA mode: docker's NVIDIA path, not KFD
    devices, groups = ((), ()) if nvidia else host_gpu_access()
    return ToolchainRuntime(
        name=toolchain.name,
        image=toolchain.image_id or toolchain.image,
        target=toolchain.target,
        activate=ACTIVATORS.get(toolchain.flavour, ACTIVATORS["open"]),
        uid=os.getuid(),
        gid=os.getgid(),
        group_adds=groups,
        devices=devices,
        roots=work_roots(),
        licence=toolchain.licence if licence_required else None,
        licence_records=str(default_licences_dir()),
        licence_env=LICENCE_ENV.get(toolchain.flavour, ()),
        home_key=paths.engine_key,
        home=os.path.realpath(paths.home),
        gpus=nvidia and nvidia_gpu_access(),
    )
