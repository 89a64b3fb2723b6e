"""Which warm containers the engine has, asked once with a short timeout (`moatbridge status`).

The engine is the one the docker CLI would use (engine_endpoint: DOCKER_HOST, the docker
context, the default socket). An engine that is down answers at once (no socket, or
refused); one that hangs costs at most TIMEOUT_S. Failures, a broken docker context
included, become a few words for the overview, never an exception.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from moatbridge.adapters.engine import classify_failure
from moatbridge.adapters.engine_endpoint import resolve_endpoint, socket_path, start_advice
from moatbridge.core.status import EngineView
from moatbridge.errors import InputError

TIMEOUT_S = 3
# The overview's words for engine_endpoint's kinds of failure ("error" keeps the SDK's words).
_WORDS = {
    "permission": "permission denied",
    "not-running": "not running",
    "timeout": f"not answering (no reply within {TIMEOUT_S} s)",
}


def _problem(exc: BaseException) -> str:
    words = _WORDS.get(classify_failure(exc))
    if words is not None:
        return words
    first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return f"error: {first}"


def engine_view(environ: Mapping[str, str], notes: list[str] | None = None) -> EngineView:
    """The engine's state; a config.json the docker CLI would ignore (with a warning) goes to
    `notes`, for the overview to show, instead of stderr."""
    try:
        chosen = resolve_endpoint(environ, warn=notes is None)
    except InputError as error:  # a broken docker context: the engine's state here
        return EngineView(None, None, error.message, hint=error.hint)
    if chosen.warning is not None and notes is not None:
        notes.append(chosen.warning[:1].upper() + chosen.warning[1:])
    endpoint, source = chosen.host, (chosen.source if chosen.chosen else None)
    advice = start_advice(chosen)
    socket = socket_path(endpoint)
    if socket is not None and not os.path.exists(socket):  # no socket: no need to load the SDK
        return EngineView(endpoint, None, "not running", source, advice=advice)
    try:
        from moatbridge.adapters.engine_client import client_for

        client = client_for(endpoint, TIMEOUT_S, chosen.tls)
        try:
            listed = client.containers(all=True, filters={"label": "io.moatbridge.managed=1"})
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - the SDK raises many unrelated types; all mean "not now"
        return EngineView(endpoint, None, _problem(exc), source, advice=advice)
    found = []
    for container in listed:
        running = container.get("State") == "running"
        for name in container.get("Names") or []:
            found.append((str(name).lstrip("/"), running))
    return EngineView(endpoint, tuple(sorted(found)), None, source)
