"""The Docker engine, through the SDK's low-level API.

Streams are read here, event by event (``decode=True``), and in-band ``error``
entries become exceptions: docker-py's high-level ``images.pull`` silently ignores
them. Callers get typed events for progress and never see a raw SDK object.
The SDK is imported lazily so that light commands never load it; clients come from
engine_client (the engine the docker CLI would use).
"""

from __future__ import annotations

import queue
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from moatbridge.adapters import faults
from moatbridge.adapters.engine_client import connect as connect  # callers say docker_api.connect()
from moatbridge.adapters.engine_failures import credential_errors, engine_errors
from moatbridge.errors import MoatbridgeError


class ImageBuildFailed(MoatbridgeError):
    exit_code = 4
    # The build's output (its last few hundred lines), for callers that recognise causes.
    log: tuple[str, ...] = ()


class TransferFailed(MoatbridgeError):
    """A pull or push failed; ``transient`` says whether retrying may help."""

    exit_code = 5

    def __init__(self, message: str, hint: str | None = None, transient: bool = False) -> None:
        super().__init__(message, hint)
        self.transient = transient


@dataclass(frozen=True)
class StreamEvent:
    """One decoded entry of a build/pull/push stream."""

    kind: str  # "log" | "step" | "layer" | "status" | "aux"
    text: str = ""
    layer: str | None = None
    current: int | None = None
    total: int | None = None
    aux: Mapping[str, Any] | None = None


Listener = Callable[[StreamEvent], None]


def ignore_event(event: StreamEvent) -> None:
    return None


def error_text(entry: Mapping[str, Any]) -> str | None:
    if "error" in entry:
        return str(entry["error"]).strip()
    detail = entry.get("errorDetail")
    if isinstance(detail, Mapping) and detail.get("message"):
        return str(detail["message"]).strip()
    return None


def _build_events(stream: Iterable[Mapping[str, Any]], on_event: Listener) -> str:
    image_id: str | None = None
    last_lines: list[str] = []
    step = "the first step"
    for entry in stream:
        faults.point("engine.build-event")
        error = error_text(entry)
        if error is not None:
            context = "\n".join(last_lines[-15:])
            failed = ImageBuildFailed(
                f"The image build failed at {step[:100]}: {error}",
                "the last build output was:\n" + context if context else "run again with --verbose",
            )
            failed.log = tuple(last_lines[-400:])
            raise failed
        if "stream" in entry:
            for line in str(entry["stream"]).splitlines():
                if not line.strip():
                    continue
                last_lines.append(line)
                kind = "step" if line.startswith("Step ") else "log"
                if kind == "step":
                    step = line
                on_event(StreamEvent(kind, text=line))
        elif "aux" in entry and isinstance(entry["aux"], Mapping):
            image_id = entry["aux"].get("ID", image_id)
            on_event(StreamEvent("aux", aux=entry["aux"]))
        elif "status" in entry:
            on_event(StreamEvent("status", text=str(entry["status"])))
    if image_id is None:
        raise ImageBuildFailed(
            "The image build ended without producing an image.", "see the build output above"
        )
    return str(image_id)


def build(
    client: Any,
    *,
    context: str,
    dockerfile: str,
    tag: str,
    target: str | None,
    buildargs: Mapping[str, str],
    labels: Mapping[str, str],
    on_event: Listener = ignore_event,
    nocache: bool = False,
) -> str:
    """Build with the classic builder on the host network; returns the image ID."""
    # Refused before the first step: a full disk, a bad context, a credential helper that cannot run.
    refused = "The engine refused the build"
    with credential_errors(), engine_errors(ImageBuildFailed, refused, "check the engine's disk and log",
                                            "during the build"):  # fmt: skip
        stream = _start_build(client, context, dockerfile, tag, target, buildargs, labels, nocache)
        return _build_events(stream, on_event)


def _start_build(
    client: Any, context: str, dockerfile: str, tag: str, target: str | None, buildargs: Mapping[str, str],
    labels: Mapping[str, str], nocache: bool,
) -> Iterable[Mapping[str, Any]]:  # fmt: skip
    return client.build(  # type: ignore[no-any-return]
        path=context,
        dockerfile=dockerfile,
        tag=tag,
        target=target,
        buildargs=dict(buildargs),
        labels=dict(labels),
        network_mode="host",
        rm=True,
        forcerm=True,
        nocache=nocache,
        decode=True,
    )


_LAYER_ID = re.compile(r"^[0-9a-f]{12,64}$", re.ASCII)
# "verification failed": what the registry served does not match its digest; asking again
# gets the same bytes.
_PERMANENT = ("manifest unknown", "not found", "unauthorized", "denied", "invalid reference", "no such host",
              "verification failed")  # fmt: skip


def _transfer_events(
    stream: Iterable[Mapping[str, Any]], on_event: Listener, verb: str, ref: str
) -> list[Mapping[str, Any]]:
    auxes: list[Mapping[str, Any]] = []
    for entry in stream:
        faults.point(f"engine.{verb}-event")
        error = error_text(entry)
        if error is not None:
            transient = not any(p in error.lower() for p in _PERMANENT)
            raise TransferFailed(
                f"The {verb} of {ref} failed: {error}",
                "retry later, or check the registry and the reference"
                if transient
                else "check the reference and your access",
                transient=transient,
            )
        if "aux" in entry and isinstance(entry["aux"], Mapping):
            auxes.append(entry["aux"])
            on_event(StreamEvent("aux", aux=entry["aux"]))
            continue
        status = str(entry.get("status", ""))
        layer = entry.get("id")
        detail = entry.get("progressDetail") or {}
        if layer and status and _LAYER_ID.fullmatch(str(layer)):
            on_event(
                StreamEvent(
                    "layer",
                    text=status,
                    layer=str(layer),
                    current=detail.get("current"),
                    total=detail.get("total"),
                )
            )
        elif status:
            on_event(StreamEvent("status", text=status))
    return auxes


def _stream_guard(
    stream: Iterator[Mapping[str, Any]], verb: str, ref: str, stall_s: int, close: Callable[[], None]
) -> Iterator[Mapping[str, Any]]:
    """Yield the stream's entries, but fail (transiently) after ``stall_s`` seconds of silence.

    docker-py reads pull/push streams with no timeout at all, so a stalled registry
    would hang forever: a pump thread reads, and this side waits with a deadline.
    """
    entries: queue.Queue[object] = queue.Queue(maxsize=4096)
    finished = object()

    def pump() -> None:
        try:
            for entry in stream:
                entries.put(entry)
            entries.put(finished)
        except Exception as exc:  # noqa: BLE001 - handed over to the reading side
            entries.put(exc)

    threading.Thread(target=pump, name=f"moatbridge-{verb}", daemon=True).start()
    while True:
        try:
            item = entries.get(timeout=stall_s)
        except queue.Empty:
            close()  # drop the connection so the pump thread ends too
            raise TransferFailed(
                f"The {verb} of {ref} stalled: no progress for {stall_s} s.",
                "the registry or network is slow; retry, or raise --stall-timeout",
                transient=True,
            ) from None
        if item is finished:
            return
        if isinstance(item, Exception):
            raise TransferFailed(
                f"The {verb} of {ref} lost its connection to the engine: {item}", "retry", transient=True
            )
        yield item  # type: ignore[misc]


def _api_failure(exc: Exception, verb: str, ref: str) -> TransferFailed:
    text = str(getattr(exc, "explanation", None) or exc)
    transient = not any(p in text.lower() for p in _PERMANENT)
    return TransferFailed(
        f"The {verb} of {ref} failed: {text}", "check the reference, registry and network", transient
    )


def pull(
    client: Any, repository: str, tag: str, on_event: Listener = ignore_event, stall_s: int = 60
) -> None:
    import docker

    ref = f"{repository}{'@' if tag.startswith('sha256:') else ':'}{tag}"
    try:
        with credential_errors():
            stream = client.pull(repository, tag=tag, stream=True, decode=True)
        _transfer_events(_stream_guard(stream, "pull", ref, stall_s, client.close), on_event, "pull", ref)
    except docker.errors.APIError as exc:
        raise _api_failure(exc, "pull", ref) from None


def push(client: Any, repository: str, tag: str, on_event: Listener = ignore_event, stall_s: int = 60) -> str:
    """Push; returns the manifest digest the registry reported."""
    import docker

    ref = f"{repository}:{tag}"
    try:
        with credential_errors():
            stream = client.push(repository, tag=tag, stream=True, decode=True)
        guarded = _stream_guard(stream, "push", ref, stall_s, client.close)
        auxes = _transfer_events(guarded, on_event, "push", ref)
    except docker.errors.APIError as exc:
        raise _api_failure(exc, "push", ref) from None
    for aux in auxes:
        if aux.get("Digest"):
            return str(aux["Digest"])
    raise TransferFailed(f"The push of {ref} reported no digest.", "check the registry logs")


def inspect_image(client: Any, ref: str) -> dict[str, Any] | None:
    import docker

    try:
        return dict(client.inspect_image(ref))
    except docker.errors.ImageNotFound:
        return None
    except docker.errors.NotFound:
        return None


def list_images(client: Any, label: str) -> list[dict[str, Any]]:
    return [dict(i) for i in client.images(filters={"label": label})]


def remove_image(client: Any, ref: str, force: bool = False) -> None:
    import docker

    try:
        client.remove_image(ref, force=force)
    except docker.errors.ImageNotFound:
        raise MoatbridgeError(f"There is no image {ref}.", "see 'moatbridge image list'") from None
    except docker.errors.APIError as exc:
        raise MoatbridgeError(
            f"The engine refused to remove {ref}: {exc.explanation}.",
            "stop containers using it, or pass --force",
        ) from None


def remove_unused_image(client: Any, image_id: str) -> bool:
    """Remove an untagged image unless something still uses it; True when removed."""
    import docker

    try:
        if client.inspect_image(image_id).get("RepoTags"):
            return False
        client.remove_image(image_id)
    except docker.errors.APIError:
        return False  # in use (a container, a child image): leave it
    return True


def tag_image(client: Any, image: str, repository: str, tag: str) -> None:
    client.tag(image, repository, tag=tag)


def import_rootfs(client: Any, tar_path: str, repository: str, tag: str, changes: list[str]) -> str:
    """``docker import`` a root filesystem tarball; returns the image ID."""
    result = client.import_image_from_file(tar_path, repository=repository, tag=tag, changes=changes)
    text = result if isinstance(result, str) else str(result)
    for line in text.splitlines():
        if '"error"' in line or "errorDetail" in line:
            raise ImageBuildFailed(f"Importing the base image failed: {line.strip()}", "check the tarball")
    image = inspect_image(client, f"{repository}:{tag}")
    if image is None:
        raise ImageBuildFailed(f"Importing {repository}:{tag} produced no image.", "check the engine's log")
    return str(image["Id"])


def read_file_from_image(client: Any, image: str, path: str) -> str | None:
    """A text file's content from an image, without starting a container."""
    import io
    import tarfile

    import docker

    from moatbridge.adapters.containers import transient_labels

    container = client.create_container(image=image, entrypoint=["true"], labels=transient_labels())
    try:
        faults.point("engine.container-created", str(container["Id"]))
        stream, _ = client.get_archive(container["Id"], path)
        with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as archive:
            member = archive.extractfile(archive.getmembers()[0])
            return member.read().decode("utf-8", "replace") if member else None
    except docker.errors.NotFound:
        return None
    finally:
        client.remove_container(container["Id"], force=True)
