"""Bundles whose tar members say one thing to moatbridge's checks and another to the engine.

The engine's loader extracts ``image.tar`` and acts on what lands on disk: a second
``./manifest.json`` overwrites the first, a ``repositories`` file or an OCI index names
tags. Each hostile archive here must be refused before the engine sees a byte (the
engine is unreachable, so reaching it would exit 3, not 2). Sparse members and members
larger than the file are refused before anything is hashed. Against a live engine, a
bundle naming a tag that is not moatbridge's never moves it unless asked.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from moatbridge.adapters import bundle_archive
from moatbridge.adapters.records import load_catalog, load_licences
from moatbridge.core import bundle
from moatbridge.core.bundle import IMAGE, MANIFEST, SUMS, BundleError

from support.environ import environ_without
from support.toolchains import make_toolchain

NO_ENGINE = "unix:///nonexistent/engine.sock"
LABELS = {"Labels": {"io.moatbridge.flavour": "open", "io.moatbridge.licence": "open-components"}}
LAYER = "9c96fb63352cc431d65622faa526220a60280a431fca35df8051e0768c516d71"
OTHER_LAYER = "1" * 64


def raw_member(name: str, data: bytes, kind: bytes = tarfile.REGTYPE, *, declared: int | None = None,
               linkname: str = "", sparse_size: int | None = None) -> bytes:  # fmt: skip
    """One tar member, header and data, as a hostile writer could spell it: any size
    declared, or a GNU sparse file that expands to `sparse_size` bytes of mostly holes."""
    info = tarfile.TarInfo(name)
    info.size = len(data) if declared is None else declared
    info.type = kind
    info.linkname = linkname
    if sparse_size is not None:
        info.type = tarfile.GNUTYPE_SPARSE
    header = bytearray(info.tobuf(format=tarfile.GNU_FORMAT))
    if sparse_size is not None:  # one extent, the data, at the very end; the rest is a hole
        header[386:398] = tarfile.itn(sparse_size - len(data), 12, tarfile.GNU_FORMAT)
        header[398:410] = tarfile.itn(len(data), 12, tarfile.GNU_FORMAT)
        header[483:495] = tarfile.itn(sparse_size, 12, tarfile.GNU_FORMAT)
        header[148:156] = b" " * 8
        header[148:156] = b"%06o\0 " % sum(header[:512])
    return bytes(header) + data + b"\0" * (-len(data) % 512)


def end_of_archive(body: bytes) -> bytes:
    body += b"\0" * 1024
    return body + b"\0" * (-len(body) % tarfile.RECORDSIZE)


def config_bytes() -> bytes:
    return json.dumps({"architecture": "amd64", "os": "linux", "config": LABELS,
                       "rootfs": {"type": "layers", "diff_ids": []}}).encode()  # fmt: skip


def docker_manifest(config: str, tags: list[str] | None = None) -> bytes:
    return json.dumps([{"Config": config, "RepoTags": tags, "Layers": [f"{LAYER}/layer.tar"]}]).encode()


def image_tar(*extra: bytes) -> tuple[bytes, str]:
    """docker save's legacy layout of one image (by ID: no tags), then `extra` members."""
    config = config_bytes()
    image_hex = hashlib.sha256(config).hexdigest()
    layer = end_of_archive(b"")
    body = b"".join((
        raw_member(f"{image_hex}.json", config),
        raw_member(f"{LAYER}/", b"", tarfile.DIRTYPE),
        raw_member(f"{LAYER}/VERSION", b"1.0"),
        raw_member(f"{LAYER}/json", b'{"id": "x"}'),
        raw_member(f"{LAYER}/layer.tar", layer),
        raw_member(f"{OTHER_LAYER}/", b"", tarfile.DIRTYPE),
        raw_member(f"{OTHER_LAYER}/layer.tar", b"", tarfile.SYMTYPE, linkname=f"../{LAYER}/layer.tar"),
        raw_member("manifest.json", docker_manifest(f"{image_hex}.json")),
        *extra,
    ))  # fmt: skip
    return end_of_archive(body), f"sha256:{image_hex}"


def write_bundle(path: Path, image: bytes, image_id: str, reference: str = "moatbridge/open:x") -> None:
    toolchain = make_toolchain("loaded", "open", "devel", ("gfx1030",), "12.4", reference, image_id,
                               "open-components")  # fmt: skip
    manifest = bundle.build_manifest(toolchain, load_catalog().flavour("open"), load_licences(), "9.9.9",
                                     "2026-01-01T00:00:00+00:00")  # fmt: skip
    bundle_archive.write_bundle(path, manifest.to_bytes(), iter([image]), force=False)


def mb(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True,
                          env=env or {**os.environ, "DOCKER_HOST": NO_ENGINE}, timeout=120)  # fmt: skip


def assert_refused(result: subprocess.CompletedProcess[str], message: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if not line.startswith("Verifying ")]  # progress
    assert len(lines) == 2 and lines[0].startswith("moatbridge: ") and lines[1].startswith("hint: "), lines
    assert message in lines[0] and "Traceback" not in result.stderr
    assert not (Path(os.environ["MOATBRIDGE_HOME"]) / "state.json").exists()


# --- image.tar: what the engine's loader would honour -------------------------------------------

SPARSE_DATA = b"x" * 10
Member = Callable[[str], bytes]  # image.tar's member, given the config's name
HOSTILE_IMAGES: dict[str, tuple[Member, str]] = {
    "a second manifest spelled ./manifest.json": (
        lambda config: raw_member("./manifest.json", docker_manifest(config, ["ubuntu:22.04"])), "twice"),
    "a second manifest spelled .//manifest.json": (
        lambda config: raw_member(".//manifest.json", docker_manifest(config, ["ubuntu:22.04"])), "twice"),
    "a repositories file naming a tag": (
        lambda _: raw_member("repositories", json.dumps({"ubuntu": {"22.04": LAYER}}).encode()),
        "repositories file names tags"),
    "an OCI index naming an image": (
        lambda _: raw_member("index.json", json.dumps({"schemaVersion": 2, "manifests": [
            {"annotations": {"io.containerd.image.name": "docker.io/library/ubuntu:22.04"}}]}).encode()),
        "index.json names images"),
    "a member docker save never writes": (
        lambda _: raw_member("notes.txt", b"hello"), "not part of a docker image archive"),
    "a hard link named like metadata": (
        lambda _: raw_member("index.json", b"", tarfile.LNKTYPE, linkname="manifest.json"), "not part of"),
    "a symlink that is not a shared layer": (
        lambda _: raw_member(f"{'2' * 64}/layer.tar", b"", tarfile.SYMTYPE, linkname="/etc/shadow"), "not part of"),
    "a manifest too large to be read": (lambda _: raw_member("index.json", b" " * (2 << 20)), "implausibly large"),
    "an escaping member": (lambda _: raw_member("x/../../manifest.json", b"[]"), "escaping path"),
    "a sparse layer": (
        lambda _: raw_member(f"{'3' * 64}/layer.tar", SPARSE_DATA, sparse_size=1 << 30), "sparse"),
    "a layer larger than image.tar": (
        lambda _: raw_member(f"{'4' * 64}/layer.tar", b"", declared=1 << 34), "claims more"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(HOSTILE_IMAGES))
def test_image_members_the_loader_would_honour_are_checked(tmp_path: Path, case: str) -> None:
    member, message = HOSTILE_IMAGES[case]
    image, image_id = image_tar(member(hashlib.sha256(config_bytes()).hexdigest() + ".json"))
    path = tmp_path / "b.tar"
    write_bundle(path, image, image_id)
    assert_refused(mb("bundle", "load", str(path)), message)


def test_a_docker_save_layout_gets_past_the_checks(tmp_path: Path) -> None:
    """The control: the legacy layout, with a layer shared through a symlink, reaches the engine."""
    path = tmp_path / "b.tar"
    write_bundle(path, *image_tar())
    result = mb("bundle", "load", str(path))
    assert result.returncode == 3, result.stderr  # the engine is unreachable: it got that far


# --- the bundle's own members: refused before hashing -------------------------------------------


def outer_bundle(path: Path, image_member: bytes) -> None:
    manifest = bundle.build_manifest(
        make_toolchain("loaded", "open", "devel", ("gfx1030",), "12.4", "moatbridge/open:x", "sha256:" + "a" * 64,
                       "open-components"),
        load_catalog().flavour("open"), load_licences(), "9.9.9", "2026-01-01T00:00:00+00:00",
    ).to_bytes()  # fmt: skip
    expanded = b"\0" * ((64 << 20) - len(SPARSE_DATA)) + SPARSE_DATA  # what a reader of the sparse file sees
    sums = bundle.render_sums({MANIFEST: hashlib.sha256(manifest).hexdigest(),
                               IMAGE: hashlib.sha256(expanded).hexdigest()}).encode()  # fmt: skip
    body = raw_member(MANIFEST, manifest) + image_member + raw_member(SUMS, sums)
    path.write_bytes(end_of_archive(body))


def test_a_sparse_member_is_refused_before_it_is_hashed(tmp_path: Path) -> None:
    path = tmp_path / "sparse.tar"
    outer_bundle(path, raw_member(IMAGE, SPARSE_DATA, sparse_size=64 << 20))
    assert path.stat().st_size < 64 << 10
    counted: list[int] = []
    with pytest.raises(BundleError, match="sparse file"):
        bundle_archive.verify(path, counted.append)
    assert sum(counted) < path.stat().st_size  # its holes were never read as data
    for verb in ("inspect", "load"):
        assert_refused(mb("bundle", verb, str(path)), "sparse file")


def test_a_member_larger_than_the_file_is_refused_before_it_is_hashed(tmp_path: Path) -> None:
    path = tmp_path / "huge.tar"
    outer_bundle(path, raw_member(IMAGE, b"\0" * 4096, declared=20 << 30))
    counted: list[int] = []
    with pytest.raises(BundleError, match="claims 21474836480 bytes, more than the file holds"):
        bundle_archive.verify(path, counted.append)
    assert sum(counted) < 4096  # the manifest only
    for verb in ("inspect", "load"):
        assert_refused(mb("bundle", verb, str(path)), "more than the file holds")


# --- which tags a load may move (pure) ------------------------------------------------------------

OWN = frozenset({"moatbridge/open", "quay.io/spectral-compute/scale"})
BUNDLED = "sha256:" + "b" * 64


def image(image_id: str, labels: dict[str, str] | None = None) -> dict[str, object]:
    return {"Id": image_id, "Config": {"Labels": labels}}


@pytest.mark.parametrize(
    ("reference", "current", "recorded", "problem"),
    [
        ("moatbridge/open:x", None, False, None),  # a new tag of moatbridge's
        ("quay.io/spectral-compute/scale:1", None, False, None),  # the flavour's registry
        ("moatbridge/open:x", image(BUNDLED), False, None),  # nothing moves
        ("moatbridge/open:x", image("sha256:" + "c" * 64, {"io.moatbridge.managed": "1"}), False, None),
        ("moatbridge/open:x", image("sha256:" + "c" * 64), True, None),  # a toolchain here records it
        ("moatbridge/open:x", image("sha256:" + "c" * 64), False, "an image moatbridge did not make"),
        ("ubuntu:22.04", None, False, "not one of moatbridge's references"),
        ("ubuntu:22.04", image("sha256:" + "c" * 64), True, "not one of moatbridge's references"),
        ("docker.io/moatbridge/open:x", None, False, "not one of moatbridge's references"),
    ],
)  # fmt: skip
def test_which_tags_a_load_may_move(
    reference: str, current: dict[str, object] | None, recorded: bool, problem: str | None
) -> None:
    found = bundle.tag_problem(reference, OWN, current, BUNDLED, recorded)
    assert (found is None) if problem is None else (problem in (found or "")), found


# --- against the engine: tags that are not moatbridge's -------------------------------------------

TEST_LABEL = "io.moatbridge.test-bundle-members=1"


def docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=300)


def import_tiny(tmp_path: Path, reference: str, *labels: str) -> str:
    rootfs = tmp_path / f"rootfs-{uuid.uuid4().hex[:6]}.tar"
    with tarfile.open(rootfs, "w") as archive:
        data = uuid.uuid4().bytes  # a distinct image each time
        info = tarfile.TarInfo("marker")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    changes = [arg for label in (TEST_LABEL, *labels) for arg in ("--change", f"LABEL {label}")]
    result = docker("import", *changes, str(rootfs), reference)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def image_id_of(reference: str) -> str:
    return docker("image", "inspect", "--format", "{{.Id}}", reference).stdout.strip()


@pytest.fixture
def engine_images(engine_version: str) -> Iterator[None]:
    yield
    for image in docker("images", "-q", "--filter", f"label={TEST_LABEL}").stdout.split():
        docker("rmi", "-f", image)


def saved_bundle(tmp_path: Path, reference: str) -> tuple[Path, str]:
    """A bundle of a fresh tiny open image (still in the engine) naming `reference`."""
    image_id = import_tiny(tmp_path, f"moatbridge-test-members/source:{tmp_path.name[-20:]}",
                           "io.moatbridge.flavour=open", "io.moatbridge.managed=1")  # fmt: skip
    saved = subprocess.run(["docker", "save", image_id], capture_output=True, timeout=300)
    assert saved.returncode == 0, saved.stderr
    raw = saved.stdout
    path = tmp_path / "b.tar"
    write_bundle(path, raw, image_id, reference)
    return path, image_id


def engine_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = environ_without("MOATBRIDGE_", "XDG_")
    return {**env, "HOME": str(home), "MOATBRIDGE_BASE_SOURCE": "bootstrap"}


@pytest.mark.engine
@pytest.mark.parametrize("repository", ["moatbridge-test-victim/ubuntu", "moatbridge/open"])
def test_a_tag_that_is_not_moatbridges_moves_only_when_asked(
    tmp_path: Path, engine_images: None, repository: str
) -> None:
    reference = f"{repository}:members-{uuid.uuid4().hex[:8]}"
    victim = import_tiny(tmp_path, reference)  # the user's own image, no moatbridge label
    path, image_id = saved_bundle(tmp_path, reference)
    env = engine_env(tmp_path)
    for args in (("--dry-run",), ()):
        refused = mb("bundle", "load", str(path), *args, env=env)
        assert refused.returncode == 2, refused.stderr
        assert "not moatbridge's" in refused.stderr and "--move-tag" in refused.stderr
        assert image_id_of(reference) == victim
    assert not (Path(env["HOME"]) / ".local" / "share" / "moatbridge" / "state.json").exists()
    moved = mb("bundle", "load", str(path), "--move-tag", env=env)
    assert moved.returncode == 0, moved.stderr
    assert image_id_of(reference) == image_id and "Moved the tag" in moved.stdout


@pytest.mark.engine
def test_a_real_docker_save_loads_under_a_new_moatbridge_tag(tmp_path: Path, engine_images: None) -> None:
    """The control: the engine's own save layout passes, and a tag of moatbridge's that
    does not exist yet is created without asking."""
    reference = f"moatbridge/open:members-{uuid.uuid4().hex[:8]}"
    path, image_id = saved_bundle(tmp_path, reference)
    loaded = mb("bundle", "load", str(path), env=engine_env(tmp_path))
    assert loaded.returncode == 0, loaded.stderr
    assert image_id_of(reference) == image_id
