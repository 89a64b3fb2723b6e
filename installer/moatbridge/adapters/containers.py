"""Containers in the engine: the warm container a toolchain's shims exec into, and lookups.

Through the SDK's low-level API, imported lazily (light commands never load it).
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
from typing import Any

from moatbridge.core.build_plan import OWNER_LABEL, TRANSIENT_LABEL
from moatbridge.errors import EngineUnavailable, ImageGone

HOME_LABEL = "io.moatbridge.home"  # Paths.engine_key of the MOATBRIDGE_HOME owning the object
HOME_PATH_LABEL = "io.moatbridge.home-path"  # that home itself, resolved (for people and doctor)


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
            # Which state owns it: another home's uninstall leaves it, and its image, alone.
            HOME_LABEL: runtime.home_key,
            HOME_PATH_LABEL: runtime.home,
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


def process_start(pid: int) -> str | None:
    """When host process ``pid`` started (field 22 of /proc/PID/stat, clock ticks since boot),
    or None when there is no such process here: a PID with its start time names one process,
    where a PID alone is reused after a reboot or an engine restart."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            stat = handle.read(4096)
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # after the command's name, which may hold ' ' and ')'
    return fields[19] if len(fields) > 19 and fields[19].isdigit() else None


def containers_with_label(client: Any, label: str) -> list[dict[str, Any]]:
    return [dict(c) for c in client.containers(all=True, filters={"label": label})]


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii", errors="replace") as handle:
            return handle.read(64).strip()
    except OSError:
        return ""


def _this_process() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}/{_boot_id()}/{pid}/{process_start(pid) or ''}"


def transient_labels() -> dict[str, str]:
    """The labels of a container this process removes before it ends (see TRANSIENT_LABEL)."""
    return {"io.moatbridge.managed": "1", TRANSIENT_LABEL: "1", OWNER_LABEL: _this_process()}


def transient_label_args() -> list[str]:
    """The same labels as `docker run` options."""
    return [arg for key, value in transient_labels().items() for arg in ("--label", f"{key}={value}")]


def _owner_gone(owner: str) -> bool:
    """Whether the process an OWNER_LABEL names is gone: on this host, since another boot or
    no longer the process that started then. Another host's, or a label not of our making,
    is not ours to judge."""
    parts = owner.split("/")
    if (
        len(parts) != 4
        or parts[0] != socket.gethostname()
        or not parts[2].isdigit()
        or not parts[3].isdigit()
    ):
        return False
    _host, boot, pid, start = parts
    return boot != _boot_id() or process_start(int(pid)) != start


def sweep_transient(client: Any) -> list[str]:
    """Remove the transient containers whose owner is gone (killed between create and remove);
    returns their names."""
    swept = []
    for container in containers_with_label(client, f"{TRANSIENT_LABEL}=1"):
        labels = container.get("Labels") or {}
        if not _owner_gone(str(labels.get(OWNER_LABEL) or "")):
            continue
        # Containers inherit their image's labels: an image that carries these itself (a
        # bundle's) does not make the user's own containers of it ours to remove.
        image = client.inspect_image(container["ImageID"]) if container.get("ImageID") else {}
        if TRANSIENT_LABEL in ((image.get("Config") or {}).get("Labels") or {}):
            continue
        remove_container(client, container["Id"])
        swept.append(str((container.get("Names") or [container["Id"]])[0]).lstrip("/"))
    return swept
