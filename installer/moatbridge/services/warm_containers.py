"""A toolchain's warm container: it sleeps with the user's home mounted at the same path,
and the shims `docker exec` into it, which is far cheaper than a `docker run` per call.

Its liveness record, run/<name>.pid, holds the host PID of the container's init and that
process's start time: the shims compare both with /proc (no engine call), so a PID reused
after a reboot or an engine restart is not taken for the container.
"""

from __future__ import annotations

from pathlib import Path

from moatbridge.adapters import containers, docker_api, faults
from moatbridge.adapters.filesystem import atomic_write_text
from moatbridge.adapters.toolchain_files import write_owned
from moatbridge.core.shims import render_toolchain_env
from moatbridge.paths import Paths
from moatbridge.services.consent import require_for
from moatbridge.services.installation import toolchain_dir
from moatbridge.services.runtime import runtime_for
from moatbridge.services.toolchains import state_store


def ensure_warm(paths: Paths, name: str) -> None:
    """Start the toolchain's warm container (made afresh when its configuration changed, or
    once more when the engine cannot start the one it has) and record its PID where the
    shims look for it."""
    import docker

    state = state_store(paths).read_required()
    toolchain = state.toolchain(name)
    licence = require_for(paths, toolchain, f"Toolchain {toolchain.name}")
    runtime = runtime_for(toolchain, paths, licence.acceptance_required)
    client = docker_api.connect()
    current = containers.inspect_container(client, runtime.container)
    labels = ((current or {}).get("Config") or {}).get("Labels") or {}
    if current is not None and labels.get("io.moatbridge.config") != runtime.config_digest:
        # Another image (an upgrade), other mounts or devices: start afresh.
        containers.remove_container(client, runtime.container)
        current = None
    if current is None:
        containers.create_warm_container(client, runtime)
        faults.point("warm.created", runtime.container)
    try:
        pid = containers.start_container(client, runtime.container)
    except docker.errors.NotFound:  # removed meanwhile (an engine restart, docker rm, another home's prune)
        containers.create_warm_container(client, runtime)
        pid = containers.start_container(client, runtime.container)
    except docker.errors.APIError:  # a container the engine can no longer start (its state lost in a restart)
        containers.remove_container(client, runtime.container)
        containers.create_warm_container(client, runtime)
        pid = containers.start_container(client, runtime.container)
    faults.point("warm.started", runtime.container)
    # The runner reads the container's name from toolchain.env: one written before the name
    # carried the home (or before a device appeared) is brought up to date once the container
    # runs (a refusal, such as the image being gone, writes nothing).
    configuration = toolchain_dir(paths, name) / "toolchain.env"
    write_owned(configuration, render_toolchain_env(runtime), "toolchain", 0o644)
    started = containers.process_start(pid) or "0"  # an engine elsewhere: never matches, warm each call
    atomic_write_text(Path(paths.home) / "run" / f"{name}.pid", f"{pid} {started}\n")
