"""`image pull REPO@DIGEST` against a real registry when what it serves is not what was pinned.

- A registry (a proxy in front of the real one) answers the pinned digest with another
  image's manifest: the pull fails at once with one clear error, and nothing is recorded
  or tagged.
- One image under two manifests (Docker's and OCI's form: two digests, one image ID): a
  pull by the second digest is recorded under that digest, not under the first one the
  engine already knew.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import subprocess
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import test_registry
from test_registry import _drop_local, _json

from conftest import cli
from support.registry import free_port

pytestmark = pytest.mark.engine
# test_registry's fixtures: the registry on loopback, a fresh one-layer image.
registry = test_registry.registry
tiny_image = test_registry.tiny_image

SCHEMA2 = "application/vnd.docker.distribution.manifest.v2+json"
OCI = "application/vnd.oci.image.manifest.v1+json"


def _manifest(registry: str, repository: str, reference: str) -> tuple[bytes, str]:
    request = urllib.request.Request(
        f"http://{registry}/v2/{repository}/manifests/{reference}", headers={"Accept": f"{SCHEMA2}, {OCI}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read(), str(response.headers["Docker-Content-Digest"])


@contextmanager
def substituting_proxy(upstream: str, substitutes: dict[str, tuple[bytes, str]]) -> Iterator[str]:
    """A proxy that answers a manifest request for a digest in ``substitutes`` with other
    bytes (and their media type), still claiming the digest asked for; all else passes."""
    host, port = upstream.split(":")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            return None

        def _reply(self, status: int, headers: dict[str, str], body: bytes) -> None:
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _forward(self) -> None:
            asked = self.path.rsplit("/manifests/", 1)[-1] if "/manifests/" in self.path else None
            if asked in substitutes:
                body, media_type = substitutes[asked]
                self._reply(200, {"Content-Type": media_type, "Docker-Content-Digest": asked}, body)
                return
            connection = http.client.HTTPConnection(host, int(port), timeout=60)
            length = int(self.headers.get("Content-Length") or 0)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
            connection.request(self.command, self.path, self.rfile.read(length) if length else None, headers)
            response = connection.getresponse()
            payload = response.read()
            passed = {k: v for k, v in response.getheaders() if k.lower() not in ("connection", "transfer-encoding", "content-length")}  # fmt: skip
            self._reply(response.status, passed, payload)
            connection.close()

        do_GET = do_HEAD = _forward

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _images_state(tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "moatbridge-home" / "state" / "images.json"
    return dict(json.loads(path.read_text())["images"]) if path.exists() else {}


def _local_ids(repository: str) -> list[str]:
    result = subprocess.run(
        ["docker", "images", "--no-trunc", "-q", repository], capture_output=True, text=True, timeout=30
    )
    return result.stdout.split()


def test_a_registry_serving_other_content_for_the_pinned_digest_is_refused(
    registry: str, tiny_image: str, tmp_path: Path
) -> None:
    pinned = _json(cli("image", "push", f"{registry}/team/pinned:good", "--from", tiny_image, "--json"))[
        "digest"
    ]
    other_source = f"{tiny_image}-other"
    # Another image: the same layer under a different config (a label), so another digest.
    subprocess.run(
        ["docker", "build", "-q", "--label", "io.moatbridge.test=1", "--label", "other=1", "-t", other_source, "-"],
        input=f"FROM {tiny_image}\n", text=True, capture_output=True, check=True, timeout=120,
    )  # fmt: skip
    _json(cli("image", "push", f"{registry}/team/pinned:evil", "--from", other_source, "--json"))
    evil_body, evil_digest = _manifest(registry, "team/pinned", "evil")
    assert evil_digest != pinned
    _drop_local(f"{registry}/team/pinned:good", f"{registry}/team/pinned:evil", tiny_image, other_source)

    with substituting_proxy(registry, {pinned: (evil_body, SCHEMA2)}) as proxy:
        reference = f"{proxy}/team/pinned@{pinned}"
        result = cli("image", "pull", reference, "--retries", "3")
    assert result.returncode == 5, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("moatbridge: ")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith(f"moatbridge: The pull of {reference} failed: ")
    assert f"manifest verification failed for digest {pinned}" in errors[0]
    assert "retrying" not in result.stderr  # the same bytes would come back: no retry
    assert "Traceback" not in result.stderr
    # Nothing recorded for the refused pull: only the two pushes are in the record.
    assert set(_images_state(tmp_path)) == {f"{registry}/team/pinned:good", f"{registry}/team/pinned:evil"}
    assert _local_ids(f"{proxy}/team/pinned") == []  # nothing tagged


def test_pulling_one_image_by_its_second_digest_records_that_digest(
    registry: str, tiny_image: str, tmp_path: Path
) -> None:
    first = _json(cli("image", "push", f"{registry}/team/twice:v1", "--from", tiny_image, "--json"))["digest"]
    body, _ = _manifest(registry, "team/twice", "v1")
    manifest = json.loads(body)
    assert manifest["mediaType"] == SCHEMA2
    # The same config and layer blobs, described in OCI's media types: a second manifest digest.
    # The engine lists an image's digests sorted; the second is made to sort after the first,
    # so that "the first digest listed for the repository" is the wrong answer.
    for attempt in range(1000):
        oci = {
            "schemaVersion": 2,
            "mediaType": OCI,
            "config": {**manifest["config"], "mediaType": "application/vnd.oci.image.config.v1+json"},
            "layers": [{**layer, "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip"} for layer in manifest["layers"]],
            "annotations": {"io.moatbridge.test.attempt": str(attempt)},
        }  # fmt: skip
        oci_body = json.dumps(oci).encode()
        second = "sha256:" + hashlib.sha256(oci_body).hexdigest()
        if second > first:
            break
    put = urllib.request.Request(
        f"http://{registry}/v2/team/twice/manifests/v2",
        data=oci_body,
        method="PUT",
        headers={"Content-Type": OCI},
    )
    with urllib.request.urlopen(put, timeout=30) as response:
        assert response.headers["Docker-Content-Digest"] == second
    _drop_local(f"{registry}/team/twice:v1", tiny_image)

    by_first = _json(cli("image", "pull", f"{registry}/team/twice@{first}", "--json"))
    assert by_first["digest"] == first
    by_second = cli("image", "pull", f"{registry}/team/twice@{second}", "--json")
    assert by_second.returncode == 0, by_second.stderr
    assert json.loads(by_second.stdout) == {
        "reference": f"{registry}/team/twice@{second}", "digest": second, "id": by_first["id"],
    }  # fmt: skip
    recorded = _images_state(tmp_path)
    assert recorded[f"{registry}/team/twice@{first}"]["digest"] == first
    assert recorded[f"{registry}/team/twice@{second}"]["digest"] == second
    # By tag: the digest the registry resolved the tag to, whatever else the engine knows.
    by_tag = _json(cli("image", "pull", f"{registry}/team/twice:v2", "--json"))
    assert (by_tag["digest"], by_tag["id"]) == (second, by_first["id"])
    assert _images_state(tmp_path)[f"{registry}/team/twice:v2"]["digest"] == second
