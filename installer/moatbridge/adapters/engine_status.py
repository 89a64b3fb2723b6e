"""Which warm containers the engine has, asked once with a short timeout (`moatbridge status`).

An engine that is down answers at once (no socket, or refused); one that hangs costs at
most TIMEOUT_S. Failures become a few words for the overview, never an exception.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from moatbridge.core.status import EngineView

TIMEOUT_S = 3
DEFAULT_ENDPOINT = "unix:///var/run/docker.sock"  # as docker_api.connect, which shims' warm-up uses


def _problem(exc: BaseException) -> str:
    text = repr(exc)
    if isinstance(exc, PermissionError) or "Permission denied" in text:
        return "permission denied"
    if any(s in text for s in ("FileNotFoundError", "No such file", "Connection refused")):
        return "not running"
    if "timed out" in text.lower() or "Timeout" in text:
        return f"not answering (no reply within {TIMEOUT_S} s)"
    first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return f"error: {first}"


def engine_view(environ: Mapping[str, str]) -> EngineView:
    endpoint = environ.get("DOCKER_HOST") or DEFAULT_ENDPOINT
    if endpoint.startswith("unix://") and not os.path.exists(endpoint[len("unix://") :]):
        return EngineView(endpoint, None, "not running")  # no socket: no need to load the SDK
    try:
        from moatbridge.adapters.docker_api import client_for

        client = client_for(endpoint, TIMEOUT_S)
        try:
            listed = client.containers(all=True, filters={"label": "io.moatbridge.managed=1"})
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - the SDK raises many unrelated types; all mean "not now"
        return EngineView(endpoint, None, _problem(exc))
    found = []
    for container in listed:
        running = container.get("State") == "running"
        for name in container.get("Names") or []:
            found.append((str(name).lstrip("/"), running))
    return EngineView(endpoint, tuple(sorted(found)))
