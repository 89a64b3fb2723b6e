"""Probing the container engine (Docker, or Podman's Docker-compatible socket).

Clients come from ``docker_api``, which imports the Docker SDK lazily, so
``moatbridge --version`` and ``detect`` never pay for it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from typing import Any

from moatbridge.adapters.engine_endpoint import (
    DEFAULT_CONTEXT,
    DEFAULT_SOCKET,
    Endpoint,
    Tls,
    resolve_endpoint,
    socket_path,
    start_advice,
)
from moatbridge.core.engine_checks import START_SYSTEM_DAEMON
from moatbridge.core.model import EngineFacts
from moatbridge.errors import InputError
from moatbridge.paths import xdg_dir

PROBE_TIMEOUT_S = 5


def candidate_endpoints(environ: Mapping[str, str]) -> tuple[list[str], Endpoint | None]:
    """The address the docker CLI would use when the user chose one (DOCKER_HOST or a docker
    context: engine_endpoint), with that choice; else the usual sockets in order."""
    chosen = resolve_endpoint(environ)
    if chosen.chosen:
        return [chosen.host], chosen
    endpoints = [DEFAULT_SOCKET]
    runtime = xdg_dir(environ, "XDG_RUNTIME_DIR")  # a relative one is ignored, as XDG says
    if runtime:
        endpoints += [f"unix://{runtime}/docker.sock", f"unix://{runtime}/podman/podman.sock"]
    endpoints.append("unix:///run/podman/podman.sock")
    return endpoints, None


def classify_failure(exc: BaseException) -> str:
    """Why an engine did not answer: "permission", "not-running", "timeout" or "error".
    The SDK wraps the socket's errors in its own types, so the words decide."""
    text = repr(exc)
    if isinstance(exc, PermissionError) or "Permission denied" in text:
        return "permission"
    if any(s in text for s in ("FileNotFoundError", "No such file", "Connection refused")):
        return "not-running"
    if "timed out" in text.lower() or "Timeout" in text:
        return "timeout"
    return "error"


def _query(endpoint: str, tls: Tls | None) -> dict[str, Any]:
    from moatbridge.adapters.engine_client import client_for

    client = client_for(endpoint, PROBE_TIMEOUT_S, tls)
    try:
        return {"version": client.version(), "info": client.info()}
    finally:
        client.close()


def _free_bytes(path: str | None) -> int | None:
    if not path:
        return None
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None


def probe_engine(environ: Mapping[str, str]) -> EngineFacts:
    path = environ.get("PATH", os.defpath)
    docker_cli = shutil.which("docker", path=path)
    podman_cli = shutil.which("podman", path=path)
    try:
        endpoints, chosen = candidate_endpoints(environ)
    except InputError as error:  # a docker context that does not exist or is broken: a failing check
        return EngineFacts(docker_cli, podman_cli, None, False, "config", error.message, fix=error.hint)
    source, tls = (chosen.source, chosen.tls) if chosen else (None, None)
    first_failure: tuple[str, str, str] | None = None
    for endpoint in endpoints:
        socket = socket_path(endpoint)
        if socket is not None and not os.path.exists(socket) and len(endpoints) > 1:
            continue
        try:
            answer = _query(endpoint, tls)
        except Exception as exc:  # noqa: BLE001 - the SDK raises many unrelated types
            if first_failure is None:
                first_failure = (endpoint, classify_failure(exc), str(exc).splitlines()[0][:300])
            continue
        version, info = answer["version"], answer["info"]
        components = " ".join(c.get("Name", "") for c in version.get("Components") or [])
        security = " ".join(info.get("SecurityOptions") or [])
        root_dir = info.get("DockerRootDir")
        return EngineFacts(
            docker_cli=docker_cli,
            podman_cli=podman_cli,
            endpoint=endpoint,
            reachable=True,
            product="podman" if "Podman" in components else "docker",
            server_version=version.get("Version"),
            api_version=version.get("ApiVersion"),
            storage_driver=info.get("Driver"),
            root_dir=root_dir,
            rootless="rootless" in security,
            free_bytes=_free_bytes(root_dir),
            endpoint_source=source,
        )
    if first_failure is None:
        return EngineFacts(docker_cli, podman_cli, None, False, "not-running", "no engine socket was found")
    endpoint, failure, detail = first_failure
    fix = _fix(chosen or Endpoint(endpoint, DEFAULT_CONTEXT))
    return EngineFacts(
        docker_cli, podman_cli, endpoint, False, failure, detail, endpoint_source=source, fix=fix
    )


def _fix(endpoint: Endpoint) -> str | None:
    """How to start or repair the engine, when it is not the system daemon (checks has that)."""
    advice = start_advice(endpoint)
    return None if advice == START_SYSTEM_DAEMON else f"{advice[0]} ({advice[1]})"
