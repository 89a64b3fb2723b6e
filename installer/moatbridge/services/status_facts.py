"""The facts `moatbridge status` shows, read through the adapters: the state, the toolchain
active here, the engine (asked once, with a short timeout), the GPUs and `nvcc` on PATH."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

from moatbridge.adapters.engine_status import engine_view
from moatbridge.core.host import Host
from moatbridge.core.status import Facts, GpuView
from moatbridge.core.toolchains import State, choose_toolchain
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.toolchains import pin_here, state_store


def _active(state: State, notes: list[str]) -> tuple[str, str] | None:
    """The toolchain shims would use here, by the rule of resolve_toolchain, and why."""
    try:
        pin = pin_here()
    except MoatbridgeError as error:  # a pin file that names nothing, or cannot be read
        notes.append(error.message)
        pin = None
    except OSError:  # the working directory was deleted under the shell: no pin to find
        notes.append("The working directory no longer exists, so no pin file was looked for.")
        pin = None
    return choose_toolchain(None, pin, os.environ, state.default)


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
    from moatbridge.adapters.emulator_files import look_for_emulator

    emulator, problem = look_for_emulator(os.environ)
    if problem is not None:
        notes.append(problem)
    return Facts(
        home=paths.home,
        state=state,
        active=_active(state, notes),
        engine=engine_view(os.environ, notes),
        gpus=_gpus(open_host()),
        uid=os.getuid(),
        home_key=paths.engine_key,
        nvcc=shutil.which("nvcc"),
        notes=tuple(notes),
        emulator=emulator,
    )
