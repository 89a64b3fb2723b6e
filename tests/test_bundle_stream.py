"""`bundle save -o -`: the bundle streamed to stdout, and nothing else there.

Paths that are not regular files (/dev/stdout, /dev/full, links) are refused by the
hostile-input table; streaming is the way to send a bundle down a pipe. A terminal is
never sent a bundle.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from moatbridge.adapters import bundle_archive
from moatbridge.core.bundle import IMAGE, MANIFEST, SUMS

from support.environ import environ_without
from support.pty_session import PtySession

TEST_LABEL = "io.moatbridge.test-bundle-stream=1"


def docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300)


def world(tmp_path: Path, image_id: str, reference: str) -> dict[str, str]:
    """A MOATBRIDGE_HOME whose one open toolchain records `image_id`."""
    home = tmp_path / "mbh"
    home.mkdir()
    toolchain = {
        "name": "streamed", "flavour": "open", "variant": "base", "targets": ["gfx1030"], "cuda_version": "12.4",
        "image": reference, "image_id": image_id, "licence": "open-components", "digest": None,
        "created": "2026-01-01T00:00:00+00:00",
    }  # fmt: skip
    state = {"version": 1, "default": "streamed", "toolchains": [toolchain], "consents": [], "files": []}
    (home / "state.json").write_text(json.dumps(state))
    env = environ_without("MOATBRIDGE_", "XDG_")
    return {**env, "HOME": str(tmp_path), "MOATBRIDGE_HOME": str(home)}


@pytest.fixture
def tiny_image(engine_version: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    rootfs = tmp_path / "rootfs.tar"
    with tarfile.open(rootfs, "w") as archive:
        data = uuid.uuid4().bytes * 1000
        info = tarfile.TarInfo("marker")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    reference = f"moatbridge/open:stream-{uuid.uuid4().hex[:8]}"
    labels = (TEST_LABEL, "io.moatbridge.flavour=open", "io.moatbridge.managed=1")
    changes = [arg for label in labels for arg in ("--change", f"LABEL {label}")]
    result = docker("import", *changes, str(rootfs), reference)
    assert result.returncode == 0, result.stderr
    yield result.stdout.strip(), reference
    for image in docker("images", "-q", "--filter", f"label={TEST_LABEL}").stdout.split():
        docker("rmi", "-f", image)


@pytest.mark.engine
def test_dash_streams_the_bundle_to_stdout(tmp_path: Path, tiny_image: tuple[str, str]) -> None:
    image_id, reference = tiny_image
    env = world(tmp_path, image_id, reference)
    out = tmp_path / "piped.bundle"
    work = tmp_path / "work"
    work.mkdir()
    with out.open("wb") as stdout:
        result = subprocess.run([sys.executable, "-m", "moatbridge", "bundle", "save", "-o", "-"], stdout=stdout,
                                stderr=subprocess.PIPE, text=True, env=env, cwd=work, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Saved toolchain streamed to stdout" in result.stderr
    verified = bundle_archive.verify(out)  # stdout held the bundle and nothing else
    assert [m.name for m in verified.members] == [MANIFEST, IMAGE, SUMS]
    assert verified.manifest.toolchain.image_id == image_id
    assert list(work.iterdir()) == []  # no file called '-'


@pytest.mark.engine
def test_dash_to_a_full_stdout_is_one_clean_line(tmp_path: Path, tiny_image: tuple[str, str]) -> None:
    image_id, reference = tiny_image
    env = world(tmp_path, image_id, reference)
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "moatbridge", "bundle", "save", "-o", "-"], stdout=full,
                                stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path, timeout=300)  # fmt: skip
    assert result.returncode == 74, result.stderr
    assert "no space left to write the output" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "-").exists()


def test_dash_refuses_a_terminal(tmp_path: Path) -> None:
    env = world(tmp_path, "sha256:" + "0" * 64, "moatbridge/open:x")
    env.update(DOCKER_HOST="unix:///nonexistent/docker.sock", TERM="xterm")
    session = PtySession.run([sys.executable, "-m", "moatbridge", "bundle", "save", "-o", "-"], env, tmp_path,
                             timeout=60, until_eof=True)  # fmt: skip
    assert session.code == 2, session.screen
    assert "A bundle is not written to a terminal." in session.screen
    assert not (tmp_path / "-").exists()
