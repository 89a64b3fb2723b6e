"""``docker save`` and ``docker load`` as streams, for air-gapped bundles.

Neither holds an image in memory: saving yields the engine's tar chunk by chunk, loading
feeds chunks to the engine and reads its event stream, raising on in-band errors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from moatbridge.adapters.docker_api import Listener, StreamEvent, error_text, ignore_event
from moatbridge.adapters.engine_failures import engine_errors
from moatbridge.errors import MoatbridgeError

# Saving exports every layer before the first byte comes, and loading unpacks them all
# before the engine answers: both can take minutes for a multi-GB image.
SAVE_LOAD_TIMEOUT_S = 3600


class ImageLoadFailed(MoatbridgeError):
    exit_code = 4


def save_image_stream(client: Any, image: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
    """The ``docker save`` tar stream of one image, chunk by chunk (never held whole).

    Saved by ID the archive carries no tag, and ``docker load`` reports exactly that ID.
    """
    hint = "check 'docker image inspect' for it and the engine's free space"
    with engine_errors(
        MoatbridgeError, f"The engine could not save the image {image}", hint, f"while saving {image}"
    ):
        yield from client.get_image(image, chunk_size=chunk_size)


_LOADED = re.compile(r"^Loaded image(?: ID)?: (\S+)$")


def _load_events(stream: Iterable[Mapping[str, Any]], on_event: Listener) -> tuple[str, ...]:
    loaded: list[str] = []
    for entry in stream:
        error = error_text(entry)
        if error is None and set(entry) == {"message"}:  # an HTTP error body, not a stream
            error = str(entry["message"]).strip()
        if error is not None:
            raise ImageLoadFailed(
                f"The engine could not load the image: {error}",
                "the bundle's image is unreadable for this engine; save it again on the source machine",
            )
        if "stream" in entry:
            for line in str(entry["stream"]).splitlines():
                match = _LOADED.match(line.strip())
                if match:
                    loaded.append(match.group(1))
                if line.strip():
                    on_event(StreamEvent("log", text=line.strip()))
        elif "status" in entry:
            detail = entry.get("progressDetail") or {}
            on_event(
                StreamEvent(
                    "status",
                    text=str(entry["status"]),
                    layer=entry.get("id"),
                    current=detail.get("current"),
                    total=detail.get("total"),
                )
            )
    if not loaded:
        raise ImageLoadFailed("The engine finished loading but reported no image.", "check the engine's log")
    return tuple(loaded)


def load_image_stream(
    client: Any, chunks: Iterable[bytes], on_event: Listener = ignore_event
) -> tuple[str, ...]:
    """``docker load`` from a stream of tar chunks (sent as they come, constant memory).

    Returns what the engine reported loading: references, or ``sha256:`` IDs for
    untagged images. In-band errors raise; an exception raised by ``chunks`` aborts
    the upload (the engine then loads nothing) and propagates unchanged.
    """
    with engine_errors(ImageLoadFailed, "The engine refused the image", "check the engine's log",
                       "while loading the image"):  # fmt: skip
        return _load_events(client.load_image(chunks, quiet=False), on_event)
