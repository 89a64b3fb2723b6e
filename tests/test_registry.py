"""Push and pull through a real registry (Debian's docker-registry on loopback).

The engine talks to 127.0.0.1 registries over plain HTTP. A misbehaving proxy in
front of the registry answers 503 or stalls, to prove retries and clear errors.
"""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import cli
from support.registry import Misbehaviour, misbehaving_proxy, run_registry

pytestmark = pytest.mark.engine
TEST_LABEL = "io.moatbridge.test=1"


@pytest.fixture(scope="module")
def registry(engine_version: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with run_registry(tmp_path_factory.mktemp("registry")) as address:
        yield address


@pytest.fixture
def tiny_image(engine_version: str, tmp_path: Path) -> Iterator[str]:
    """A fresh one-layer image with 24 MB of random data: a layer no other image shares,
    so pulling it back really downloads (and shows progress)."""
    import docker

    client = docker.APIClient()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        payload = os.urandom(24 * 1024 * 1024)
        info = tarfile.TarInfo("data/blob.bin")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    path = tmp_path / "rootfs.tar"
    path.write_bytes(buffer.getvalue())
    tag = tmp_path.name[-20:].lower().replace("_", "-").strip("-.") or "t"
    client.import_image_from_file(
        str(path), repository="moatbridge-test/tiny", tag=tag,
        changes=["LABEL io.moatbridge.managed=1", f"LABEL {TEST_LABEL}"],
    )  # fmt: skip
    yield f"moatbridge-test/tiny:{tag}"
    for image in client.images(filters={"label": TEST_LABEL}):
        client.remove_image(image["Id"], force=True)


def _json(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _drop_local(*references: str) -> None:
    """Remove every local name of the image, so a pull must fetch its layers again."""
    for reference in references:
        subprocess.run(["docker", "rmi", "-f", reference], capture_output=True, check=False)


def test_push_then_pull_back_with_digest(registry: str, tiny_image: str, tmp_path: Path) -> None:
    target = f"{registry}/team/tiny:v1"
    pushed = _json(cli("image", "push", target, "--from", tiny_image, "--json"))
    assert pushed["digest"].startswith("sha256:")
    _drop_local(target, tiny_image)
    result = cli("image", "pull", target)
    assert result.returncode == 0, result.stderr
    assert f"digest {pushed['digest']}" in result.stdout
    assert "Pull complete" in result.stdout or "Download" in result.stdout  # per-layer lines
    state = json.loads((tmp_path / "moatbridge-home" / "state" / "images.json").read_text())
    assert state["images"][target]["digest"] == pushed["digest"]
    # Pinned by digest: verified against what the registry serves.
    by_digest = _json(cli("image", "pull", f"{registry}/team/tiny@{pushed['digest']}", "--json"))
    assert by_digest["digest"] == pushed["digest"]


def test_pull_shows_live_progress_bars_on_a_terminal(registry: str, tiny_image: str) -> None:
    target = f"{registry}/team/tiny:tty"
    _json(cli("image", "push", target, "--from", tiny_image, "--json"))
    _drop_local(target, tiny_image)
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "moatbridge", "image", "pull", target],
        stdin=follower, stdout=follower, stderr=follower, env=dict(os.environ, COLUMNS="100"),
    )  # fmt: skip
    os.close(follower)
    screen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    assert process.wait(timeout=60) == 0, screen.decode(errors="replace")
    text = screen.decode(errors="replace")
    assert "━" in text  # rich's bar
    assert "MB" in text  # DownloadColumn: bytes of the 24 MB layer
    assert "digest sha256:" in text


def test_transient_5xx_is_retried(registry: str, tiny_image: str) -> None:
    _json(cli("image", "push", f"{registry}/team/tiny:flaky", "--from", tiny_image, "--json"))
    _drop_local(f"{registry}/team/tiny:flaky", tiny_image)
    # The engine may spend more than one manifest request per attempt (HEAD, then GET).
    behaviour = Misbehaviour(fail_manifests=3)
    with misbehaving_proxy(registry, behaviour) as proxy:
        target = f"{proxy}/team/tiny:flaky"
        result = cli("image", "pull", target, "--json", "--retries", "4")
        assert result.returncode == 0, result.stderr
        assert 1 <= result.stderr.count("retrying in") <= 3
        assert "503" in result.stderr or "unavailable" in result.stderr.lower()
        assert behaviour.fail_manifests == 0


def test_persistent_5xx_gives_up_with_a_clear_error(registry: str, tiny_image: str) -> None:
    _json(cli("image", "push", f"{registry}/team/tiny:down", "--from", tiny_image, "--json"))
    with misbehaving_proxy(registry, Misbehaviour(fail_manifests=100)) as proxy:
        result = cli("image", "pull", f"{proxy}/team/tiny:down", "--retries", "2")
    assert result.returncode == 5
    lines = [line for line in result.stderr.splitlines() if line.startswith("moatbridge: The pull")]
    assert len(lines) == 1 and "(after 2 attempts)" in lines[0]
    assert "Traceback" not in result.stderr


def test_stalled_registry_times_out_then_patience_wins(registry: str, tiny_image: str) -> None:
    _json(cli("image", "push", f"{registry}/team/tiny:slow", "--from", tiny_image, "--json"))
    _drop_local(f"{registry}/team/tiny:slow", tiny_image)
    behaviour = Misbehaviour(stall_blobs_s=6)
    with misbehaving_proxy(registry, behaviour) as proxy:
        target = f"{proxy}/team/tiny:slow"
        impatient = cli("image", "pull", target, "--stall-timeout", "2", "--retries", "1")
        assert impatient.returncode == 5
        assert "stalled: no progress for 2 s" in impatient.stderr
        _drop_local(target)
        patient = cli("image", "pull", target, "--stall-timeout", "30", "--json")
        assert patient.returncode == 0, patient.stderr
    assert any("/blobs/" in request for request in behaviour.seen)


def test_unknown_image_is_permanent(registry: str) -> None:
    result = cli("image", "pull", f"{registry}/team/does-not-exist:1", "--retries", "4")
    assert result.returncode == 5
    assert "retrying" not in result.stderr
    assert "not found" in result.stderr.lower() or "unknown" in result.stderr.lower()
