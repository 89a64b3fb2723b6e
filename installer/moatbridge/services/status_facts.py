"""The facts `moatbridge status` shows, read through the adapters: the state, the toolchain
active here, the engine (asked once, with a short timeout), the GPUs and `nvcc` on PATH."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

from moatbridge.adapters.engine_status import engine_view
from moatbridge.core.host import Host
from moatbridge.core.status import Facts, GpuView
from moatbridge.paths import Paths
from moatbridge.services.toolchains import active_here, state_store


def _gpus(host: Host) -> tuple[GpuView, ...]:
    from moatbridge.core.detection import detect
    from moatbridge.core.nvidia import gpu_target

    views = []
    for gpu in detect(host, os.environ).gpus:
        name = gpu.name or gpu.pci_device_id or gpu.vendor
        views.append(GpuView(gpu.vendor, name, gpu_target(gpu), gpu.usable))
    return tuple(views)


def gather(open_host: Callable[[], Host]) -> Facts:
    """Every fact, in this order: state, active toolchain, engine, GPUs. The host (--root) is
    opened only when the GPUs are looked for, so a bad --root is refused after the others."""
    paths = Paths.from_environ(os.environ)
    state = state_store(paths).read()
    notes: list[str] = []
    active = active_here(state, notes)
    from moatbridge.services.emulator_config import look_here

    look = look_here(paths, state, active[0] if active else None, os.environ)
    if look.problem is not None:
        notes.append(look.problem.message)
    return Facts(
        home=paths.home,
        state=state,
        active=active,
        engine=engine_view(os.environ, notes),
        gpus=_gpus(open_host()),
        uid=os.getuid(),
        home_key=paths.engine_key,
        nvcc=shutil.which("nvcc"),
        notes=tuple(notes),
        emulator=look.emulator,
        emulator_setting=look.setting,
    )
