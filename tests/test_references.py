"""Image references, retry timing and the engine's stream handling (no engine needed)."""

from __future__ import annotations

import pytest

from moatbridge.adapters import docker_api
from moatbridge.core.references import backoff_delays, parse_reference
from moatbridge.errors import InputError

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("text", "repository", "tag", "digest"),
    [
        ("moatbridge/open:11.8-devel-trixie-gfx1030", "moatbridge/open", "11.8-devel-trixie-gfx1030", None),
        ("127.0.0.1:5000/team/tiny:v1", "127.0.0.1:5000/team/tiny", "v1", None),
        (f"quay.io/spectral-compute/scale@{DIGEST}", "quay.io/spectral-compute/scale", None, DIGEST),
        (f"registry:5000/a/b:c@{DIGEST}", "registry:5000/a/b", "c", DIGEST),
        ("debian", "debian", None, None),
    ],
)
def test_parse_reference(text: str, repository: str, tag: str | None, digest: str | None) -> None:
    ref = parse_reference(text)
    assert (ref.repository, ref.tag, ref.digest) == (repository, tag, digest)
    assert str(ref) == text


@pytest.mark.parametrize("text", ["", "UPPER/case", "a:b:c", "img@sha256:short", "x/ y"])
def test_bad_references(text: str) -> None:
    with pytest.raises(InputError, match="is not an image reference"):
        parse_reference(text)


def test_pull_tag_prefers_the_digest() -> None:
    assert parse_reference(f"a/b:c@{DIGEST}").pull_tag == DIGEST
    assert parse_reference("a/b").pull_tag == "latest"


def test_backoff() -> None:
    assert backoff_delays(4) == [1.0, 2.0, 4.0]
    assert backoff_delays(1) == []
    assert backoff_delays(10, cap=5)[-1] == 5


def test_build_stream_error_is_raised_with_context() -> None:
    stream = [
        {"stream": "Step 1/2 : FROM x\n"},
        {"stream": " ---> abc\n"},
        {"stream": "Step 2/2 : RUN false\n"},
        {"errorDetail": {"code": 1, "message": "The command '/bin/sh -c false' returned a non-zero code: 1"}},
    ]
    seen: list[str] = []
    with pytest.raises(docker_api.ImageBuildFailed) as caught:
        docker_api._build_events(iter(stream), lambda e: seen.append(e.kind))
    assert "returned a non-zero code: 1" in caught.value.message
    assert "Step 2/2 : RUN false" in (caught.value.hint or "")
    assert seen == ["step", "log", "step"]


def test_build_stream_returns_the_image_id() -> None:
    stream = [
        {"stream": "Step 1/1 : FROM x\n"},
        {"aux": {"ID": "sha256:feed"}},
        {"stream": "Successfully built feed\n"},
    ]
    assert docker_api._build_events(iter(stream), lambda e: None) == "sha256:feed"
    with pytest.raises(docker_api.ImageBuildFailed, match="without producing an image"):
        docker_api._build_events(iter([{"stream": "hello\n"}]), lambda e: None)


def test_transfer_stream_classifies_errors() -> None:
    transient = [
        {"status": "Pulling fs layer", "id": "0123456789ab"},
        {"error": "received unexpected HTTP status: 502"},
    ]
    with pytest.raises(docker_api.TransferFailed) as caught:
        docker_api._transfer_events(iter(transient), lambda e: None, "pull", "x")
    assert caught.value.transient
    permanent = [{"error": "manifest unknown: manifest unknown"}]
    with pytest.raises(docker_api.TransferFailed) as caught:
        docker_api._transfer_events(iter(permanent), lambda e: None, "pull", "x")
    assert not caught.value.transient


def test_transfer_stream_layer_events() -> None:
    events: list[docker_api.StreamEvent] = []
    stream = [
        {"status": "Pulling from team/tiny", "id": "v1"},
        {"status": "Downloading", "id": "0123456789ab", "progressDetail": {"current": 10, "total": 100}},
        {"status": "Pull complete", "id": "0123456789ab"},
        {"status": "Digest: " + DIGEST},
    ]
    docker_api._transfer_events(iter(stream), events.append, "pull", "x")
    assert [(e.kind, e.layer, e.current, e.total) for e in events] == [
        ("status", None, None, None),
        ("layer", "0123456789ab", 10, 100),
        ("layer", "0123456789ab", None, None),
        ("status", None, None, None),
    ]


def test_stall_guard_gives_up_on_silence() -> None:
    import threading

    release = threading.Event()
    closed: list[bool] = []

    def silent() -> object:
        yield {"status": "Waiting", "id": "0123456789ab"}
        release.wait(10)

    guarded = docker_api._stream_guard(silent(), "pull", "x", 1, lambda: closed.append(True))  # type: ignore[arg-type]
    assert next(guarded)["status"] == "Waiting"
    with pytest.raises(docker_api.TransferFailed, match="stalled: no progress for 1 s") as caught:
        next(guarded)
    assert caught.value.transient and closed == [True]
    release.set()
