"""A toolchain's warm container: it sleeps with the user's home mounted at the same path,
and the shims `docker exec` into it, which is far cheaper than a `docker run` per call."""

from __future__ import annotations

from pathlib import Path

from moatbridge.adapters import containers, docker_api
from moatbridge.adapters.filesystem import atomic_write_text
from moatbridge.paths import Paths
from moatbridge.services.consent import require_for
from moatbridge.services.runtime import runtime_for
from moatbridge.services.toolchains import state_store


def ensure_warm(paths: Paths, name: str) -> None:
    """Start the toolchain's warm container (made afresh when its configuration changed)
    and record its PID where the shims look for it."""
    state = state_store(paths).read()
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
    pid = containers.start_container(client, runtime.container)
    atomic_write_text(Path(paths.home) / "run" / f"{name}.pid", f"{pid}\n")
