"""Containers in the engine: the warm container a toolchain's shims exec into, and lookups.

Through the SDK's low-level API, imported lazily (light commands never load it).
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from moatbridge.errors import EngineUnavailable, ImageGone


def inspect_container(client: Any, name: str) -> dict[str, Any] | None:
    import docker

    try:
        return dict(client.inspect_container(name))
    except docker.errors.NotFound:
        return None


def remove_container(client: Any, name: str) -> None:
    import docker

    with contextlib.suppress(docker.errors.NotFound):
        client.remove_container(name, force=True)


def create_warm_container(client: Any, runtime: Any) -> None:
    """A sleeping container per toolchain, with the work roots mounted at identical paths."""
    import docker

    host_config = client.create_host_config(
        network_mode="host",
        # Mounts, not binds: a bind is "src:dst:mode", which a ':' in the path would break.
        mounts=[docker.types.Mount(target=root, source=root, type="bind") for root in runtime.roots],
        devices=[f"{d}:{d}:rwm" for d in runtime.devices],
        group_add=[str(g) for g in runtime.group_adds],
        init=True,
        security_opt=["label=disable"] if runtime.devices else None,
        # SCALE's NVIDIA mode: every NVIDIA GPU, as `docker run --gpus all` asks for them.
        device_requests=[docker.types.DeviceRequest(count=-1, capabilities=[["gpu"]])]
        if getattr(runtime, "gpus", False)
        else None,
    )
    for _ in range(100):
        try:
            _create_warm(client, runtime, host_config)
            return
        except docker.errors.ImageNotFound:
            raise ImageGone(runtime.name, runtime.image) from None
        except docker.errors.APIError as exc:
            if exc.status_code != 409:
                raise
        # 409: another shim is creating it right now (the name is taken before the container
        # shows); it is the same container, ready once the engine shows it.
        if inspect_container(client, runtime.container) is not None:
            return
        time.sleep(0.1)
    raise EngineUnavailable(f"The container {runtime.container} could not be created.", "try again")


def _create_warm(client: Any, runtime: Any, host_config: Any) -> None:
    client.create_container(
        image=runtime.image,
        name=runtime.container,
        entrypoint=["sleep"],  # not the image's entrypoint (a licence gate): consent is checked by us
        command=["infinity"],
        user=f"{runtime.uid}:{runtime.gid}",
        host_config=host_config,
        labels={
            "io.moatbridge.managed": "1",
            "io.moatbridge.toolchain": runtime.name,
            "io.moatbridge.config": runtime.config_digest,
        },
        detach=True,
    )


def start_container(client: Any, name: str) -> int:
    """Start (if needed) and return the container's host PID."""
    state = client.inspect_container(name)["State"]
    if not state.get("Running"):
        client.start(name)
        state = client.inspect_container(name)["State"]
    return int(state["Pid"])


def containers_with_label(client: Any, label: str) -> list[dict[str, Any]]:
    return [dict(c) for c in client.containers(all=True, filters={"label": label})]
