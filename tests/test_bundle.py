"""Air-gapped bundles: the manifest (pure), the archive on disk, and save/load against the engine.

The engine tests set up the small open ``base`` toolchain once per session, save it
once, and reuse that bundle: round trip (the image really removed from the engine
first), damaged and truncated copies, dry run and inspect.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters import bundle_archive
from moatbridge.adapters.records import load_catalog, load_licences
from moatbridge.core import bundle
from moatbridge.core.bundle import IMAGE, MANIFEST, SUMS, BundleError
from moatbridge.core.toolchains import Toolchain
from moatbridge.errors import InputError

from support.environ import environ_without
from support.toolchains import make_toolchain

IMAGE_ID = "sha256:" + "ab" * 32
NAME = "mbbundle-test"


def toolchain(flavour: str = "open", licence: str = "open-components") -> Toolchain:
    variant = "base" if flavour == "open" else "devel"
    return make_toolchain(
        NAME, flavour, variant, ("gfx1030",), "11.8", f"moatbridge/{flavour}:x", IMAGE_ID, licence
    )


def manifest_for(flavour: str = "open", licence: str = "open-components") -> bundle.Manifest:
    catalog = load_catalog()
    return bundle.build_manifest(
        toolchain(flavour, licence),
        catalog.flavour(flavour),
        load_licences(),
        "9.9.9",
        "2026-01-01T00:00:00+00:00",
    )


# --- the manifest (pure) ---------------------------------------------------------------------


def test_manifest_round_trips_through_json() -> None:
    manifest = manifest_for()
    assert bundle.parse_manifest(manifest.to_bytes()) == manifest
    data = json.loads(manifest.to_bytes())
    assert data["format"] == "moatbridge-bundle" and data["format_version"] == 1
    assert data["toolchain"]["image_id"] == IMAGE_ID and data["toolchain"]["targets"] == ["gfx1030"]
    assert data["flavour"]["variant"] == "base" and data["flavour"]["rocm"]
    assert [n["id"] for n in data["licences"]] == ["open-components"]
    assert "copyright" in data["licences"][0]["summary"]  # the plain-language notice, from licenses/*.yaml
    assert data["notices"] == []


def test_scale_bundles_carry_the_redistribution_notice() -> None:
    manifest = manifest_for("scale", "scale-free")
    assert manifest.notices == (bundle.SCALE_REDISTRIBUTION,)
    assert "non-commercial" in bundle.SCALE_REDISTRIBUTION and "free of charge" in bundle.SCALE_REDISTRIBUTION
    assert manifest.licences[0].acceptance_required
    data = json.loads(manifest.to_bytes())
    data["notices"] = []
    with pytest.raises(BundleError, match="redistribution notice"):
        bundle.parse_manifest(json.dumps(data).encode())


def _mutated(change: Any) -> bytes:
    data = json.loads(manifest_for().to_bytes())
    change(data)
    return json.dumps(data).encode()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[]", "not a moatbridge bundle"),
        (_mutated(lambda d: d.update(format="other")), "not a moatbridge bundle"),
        (_mutated(lambda d: d.update(format_version=2)), "format 2 .* reads format 1"),
        (_mutated(lambda d: d.update(format_version=True)), "format_version: expected an integer"),
        (_mutated(lambda d: d["toolchain"].update(image_id="sha256:short")), "toolchain.image_id"),
        (_mutated(lambda d: d["toolchain"].update(targets=[])), "toolchain.targets"),
        (_mutated(lambda d: d["toolchain"].update(name="../x")), "toolchain.name"),
        (_mutated(lambda d: d["toolchain"].pop("cuda_version")), "toolchain.cuda_version: expected str"),
        (_mutated(lambda d: d["licences"][0].update(acceptance_required="no")), "acceptance_required"),
        (_mutated(lambda d: d.update(licences=[])), "no notice for the toolchain's licence"),
        # Untrusted text headed for toolchain.env, Dockerfiles and YAML: held to its shape.
        (_mutated(lambda d: d["toolchain"].update(digest="sha256:" + "a" * 64 + "\nRUN id")), "toolchain.digest"),
        (_mutated(lambda d: d["toolchain"].update(image="moatbridge/open:x\nRUN id")), "toolchain.image"),
        (_mutated(lambda d: d["toolchain"].update(distro="sid\nRUN id")), "toolchain.distro"),
        (_mutated(lambda d: d["toolchain"].update(targets=["gfx1030\n"])), "toolchain.targets"),
        (_mutated(lambda d: d["toolchain"].update(targets=["gfx1030; rm -rf ~"])), "toolchain.targets"),
        (_mutated(lambda d: d["toolchain"].update(flavour="open\x1b[2J")), "toolchain.flavour"),
        (_mutated(lambda d: d["toolchain"].update(variant="devel base")), "toolchain.variant"),
        (_mutated(lambda d: d["toolchain"].update(cuda_version="12.4'")), "toolchain.cuda_version"),
        (_mutated(lambda d: d["toolchain"].update(licence="open-components\n")), "toolchain.licence"),
    ],
)  # fmt: skip
def test_invalid_manifests_are_one_clear_error(raw: bytes, message: str) -> None:
    with pytest.raises(BundleError, match=message) as caught:
        bundle.parse_manifest(raw)
    assert caught.value.hint


def test_build_refuses_a_toolchain_without_image_id_or_licence_record() -> None:
    flavour = load_catalog().flavour("open")
    with pytest.raises(BundleError, match="records no image ID"):
        bundle.build_manifest(replace(toolchain(), image_id=""), flavour, load_licences(), "1", "now")
    with pytest.raises(BundleError, match="has no record"):
        bundle.build_manifest(replace(toolchain(), licence="nope"), flavour, load_licences(), "1", "now")


@pytest.mark.parametrize(
    ("name", "problem"),
    [("../evil", "outside"), ("a/../../b", "outside"), ("/etc/passwd", "absolute"), ("a\\b", "malformed"),
     ("", "malformed"), ("extra.txt", "does not belong"), ("./manifest.json", "does not belong")],
)  # fmt: skip
def test_member_names(name: str, problem: str) -> None:
    assert problem in (bundle.member_problem(name) or "")


def test_member_names_of_the_format_are_accepted() -> None:
    assert [bundle.member_problem(n) for n in bundle.MEMBERS] == [None, None, None]


def test_sums_round_trip_and_problems() -> None:
    digests = {MANIFEST: "1" * 64, IMAGE: "2" * 64}
    text = bundle.render_sums(digests)
    assert text == f"{'1' * 64}  manifest.json\n{'2' * 64}  image.tar\n"  # sha256sum -c format
    assert bundle.parse_sums(text) == digests
    assert bundle.checksum_problems(digests, digests) == []
    assert bundle.checksum_problems(digests, {**digests, IMAGE: "3" * 64}) == [
        "image.tar does not match its checksum"
    ]
    assert bundle.checksum_problems({MANIFEST: "1" * 64}, digests) == [
        "image.tar is not covered by SHA256SUMS"
    ]
    assert bundle.checksum_problems(digests, {MANIFEST: "1" * 64}) == ["image.tar is missing"]
    assert "not a bundle member" in bundle.checksum_problems({**digests, "x": "4" * 64}, digests)[0]
    for bad in ("zz  image.tar\n", f"{'1' * 64}  a\n{'1' * 64}  a\n", f"{'1' * 64}\n"):
        with pytest.raises(BundleError, match="malformed at line"):
            bundle.parse_sums(bad)


def test_toolchain_from_manifest_takes_the_new_name() -> None:
    made = bundle.toolchain_from(manifest_for(), "other-name", "2027-01-01")
    assert made == replace(toolchain(), name="other-name", created="2027-01-01")
    with pytest.raises(InputError, match="not a usable toolchain name"):
        bundle.toolchain_from(manifest_for(), "x;y", "now")


# --- the archive on disk (no engine) ----------------------------------------------------------


def fake_image(size: int = 3 * 1024 * 1024 + 17) -> bytes:
    return hashlib.sha256(b"seed").digest() * (size // 32) + b"tail"


def chunks(data: bytes, step: int = 100_000) -> Iterator[bytes]:
    for start in range(0, len(data), step):
        yield data[start : start + step]


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, bytes]:
    path, image = tmp_path / "b.tar", fake_image()
    bundle_archive.write_bundle(path, manifest_for().to_bytes(), chunks(image), force=False)
    return path, image


def test_written_bundle_is_a_plain_tar_that_verifies(written: tuple[Path, bytes]) -> None:
    path, image = written
    with tarfile.open(path, "r|") as archive:  # streamable: readable front to back
        names = [(m.name, m.size) for m in archive]
    assert names == [(MANIFEST, len(manifest_for().to_bytes())), (IMAGE, len(image)), (SUMS, 156)]
    counted: list[int] = []
    verified = bundle_archive.verify(path, counted.append)
    assert verified.manifest == manifest_for()
    assert verified.member(IMAGE).sha256 == hashlib.sha256(image).hexdigest()
    assert sum(counted) == sum(m.size for m in verified.members)
    assert b"".join(bundle_archive.image_chunks(verified)) == image
    assert [p.name for p in path.parent.iterdir()] == ["b.tar"]  # no temp file left behind


def test_large_image_headers_keep_their_size() -> None:
    header = bundle_archive._header(IMAGE, 9 * 1024**3 + 5, 0)  # above ustar's 8 GiB limit
    assert len(header) == 512
    assert tarfile.TarInfo.frombuf(header, "utf-8", "strict").size == 9 * 1024**3 + 5


def test_existing_file_needs_force_and_failed_writes_leave_nothing(written: tuple[Path, bytes]) -> None:
    path, _ = written
    before = path.read_bytes()
    with pytest.raises(InputError, match="already exists"):
        bundle_archive.write_bundle(path, b"{}", chunks(b"x"), force=False)

    def broken() -> Iterator[bytes]:
        yield b"x" * 1000
        raise RuntimeError("engine went away")

    with pytest.raises(RuntimeError):
        bundle_archive.write_bundle(path, b"{}", broken(), force=True)
    assert path.read_bytes() == before and [p.name for p in path.parent.iterdir()] == ["b.tar"]
    bundle_archive.write_bundle(path, manifest_for().to_bytes(), chunks(b"small"), force=True)
    assert bundle_archive.verify(path).member(IMAGE).size == 5


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EIO], ids=errno.errorcode.get)
def test_a_disk_that_refuses_the_bundle_leaves_the_old_one(
    written: tuple[Path, bytes], monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    from moatbridge.adapters.filesystem import DiskFull

    path, _ = written
    before = path.read_bytes()

    def fsync(fd: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(DiskFull) as raised:
        bundle_archive.write_bundle(path, manifest_for().to_bytes(), chunks(b"small"), force=True)
    assert raised.value.exit_code == 74 and "left as it was" in raised.value.message
    assert path.read_bytes() == before and [p.name for p in path.parent.iterdir()] == ["b.tar"]


def flip_byte(path: Path, offset: int) -> None:
    with open(path, "r+b") as handle:
        handle.seek(offset)
        value = handle.read(1)[0]
        handle.seek(offset)
        handle.write(bytes([value ^ 0xFF]))


def image_data_offset(path: Path) -> tuple[int, int]:
    with tarfile.open(path) as archive:
        member = archive.getmember(IMAGE)
        return member.offset_data, member.size


def test_damaged_and_truncated_bundles_are_refused(written: tuple[Path, bytes], tmp_path: Path) -> None:
    path, _ = written
    offset, size = image_data_offset(path)
    damaged = tmp_path / "damaged.tar"
    shutil.copy(path, damaged)
    flip_byte(damaged, offset + size // 2)
    with pytest.raises(BundleError, match=r"image\.tar does not match its checksum"):
        bundle_archive.verify(damaged)
    data = path.read_bytes()
    for cut in (offset + size // 2, offset - 10, len(data) - 11 * 1024, 100, 0):
        short = tmp_path / f"short-{cut}.tar"
        short.write_bytes(data[:cut])
        with pytest.raises(BundleError, match=r"truncated|incomplete|empty") as caught:
            bundle_archive.verify(short)
        assert "copy it again" in (caught.value.hint or "")


def evil_tar(path: Path, name: str, kind: bytes = tarfile.REGTYPE) -> None:
    with tarfile.open(path, "w") as archive:
        info = tarfile.TarInfo(name)
        info.type = kind
        if kind == tarfile.SYMTYPE:
            archive.addfile(info)
            return
        info.size = 4
        archive.addfile(info, io.BytesIO(b"evil"))


@pytest.mark.parametrize(
    ("name", "kind", "message"),
    [("../evil", tarfile.REGTYPE, "outside the archive"), ("/abs", tarfile.REGTYPE, "absolute"),
     (IMAGE, tarfile.SYMTYPE, "not a file"), ("notes.txt", tarfile.REGTYPE, "does not belong")],
)  # fmt: skip
def test_unsafe_members_are_refused(tmp_path: Path, name: str, kind: bytes, message: str) -> None:
    evil_tar(tmp_path / "evil.tar", name, kind)
    with pytest.raises(BundleError, match=message):
        bundle_archive.verify(tmp_path / "evil.tar")


def test_a_bundle_changed_after_verification_is_caught(written: tuple[Path, bytes]) -> None:
    path, _ = written
    verified = bundle_archive.verify(path)
    offset, _ = image_data_offset(path)
    flip_byte(path, offset + 1)
    with pytest.raises(BundleError, match="changed while it was being loaded"):
        b"".join(bundle_archive.image_chunks(verified))


def test_cli_refuses_an_evil_bundle_before_touching_anything(tmp_path: Path) -> None:
    evil_tar(tmp_path / "evil.tar", "../evil")
    env = {**os.environ, "DOCKER_HOST": "unix:///nonexistent.sock"}  # the engine is never needed
    result = mb("bundle", "load", str(tmp_path / "evil.tar"), env=env)
    assert result.returncode == 2, result.stderr
    assert "outside the archive" in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("hint: ")
    assert not Path(os.environ["MOATBRIDGE_HOME"]).exists()


# --- against the engine -----------------------------------------------------------------------


def mb(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=900
    )  # fmt: skip


def home_env(home: Path) -> dict[str, str]:
    """A throwaway HOME: moatbridge keeps its files under HOME/.local/share/moatbridge."""
    home.mkdir(parents=True, exist_ok=True)
    env = environ_without("MOATBRIDGE_", "XDG_")
    return {**env, "HOME": str(home), "MOATBRIDGE_BASE_SOURCE": "bootstrap", "SHELL": "/bin/bash"}


def docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=600)


def image_tags(image_id: str) -> list[str] | None:
    result = docker("image", "inspect", "--format", "{{json .RepoTags}}", image_id)
    return json.loads(result.stdout) if result.returncode == 0 else None


def load_events(since: float) -> list[str]:
    result = docker("events", "--since", f"{since:.3f}", "--until", f"{time.time():.3f}",
                    "--filter", "type=image", "--filter", "event=load", "--format", "{{.ID}}")  # fmt: skip
    return result.stdout.split()


def remove_containers(name: str) -> None:
    listed = docker("ps", "-aq", "--filter", f"label=io.moatbridge.toolchain={name}").stdout.split()
    if listed:
        docker("rm", "-f", *listed)


@pytest.fixture(scope="session")
def saved(engine_version: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The open base toolchain set up in a throwaway HOME and saved once per session."""
    root = tmp_path_factory.mktemp("bundle")
    env = home_env(root / "source-home")
    setup = mb("setup", "--yes", "--flavour", "open", "--variant", "base", "--target", "gfx1030",
               "--no-modify-rc", "--name", NAME, env=env)  # fmt: skip
    assert setup.returncode == 0, setup.stderr[-3000:]
    record = json.loads(mb("list", "--json", env=env).stdout)["toolchains"][0]
    path = root / "toolchain bundle.tar"
    started = time.monotonic()
    result = mb("bundle", "save", "-t", NAME, "-o", str(path), env=env)
    seconds = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    again = mb("bundle", "save", "-t", NAME, "-o", str(path), env=env)
    assert again.returncode == 2 and "already exists" in again.stderr and "--force" in again.stderr
    tags = image_tags(record["image_id"]) or []
    info = {
        "path": path,
        "record": record,
        "env": env,
        "tags": tags,
        "save_seconds": seconds,
        "stdout": result.stdout,
    }
    yield info
    mb("uninstall", "--all", "--keep-images", env=env)
    remove_containers(NAME)
    restore_image(path, record["image_id"], tags)


def restore_image(path: Path, image_id: str, tags: list[str]) -> None:
    """Put the engine back as the session found it, even when a test failed half-way."""
    if image_tags(image_id) is None:
        with tarfile.open(path) as archive:
            member = archive.extractfile(IMAGE)
            assert member is not None
            # A member of a tar file has no descriptor of its own: its bytes are piped in.
            load = subprocess.Popen(["docker", "load", "-q"], stdin=subprocess.PIPE,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
            assert load.stdin is not None
            shutil.copyfileobj(member, load.stdin, 1 << 20)
            load.stdin.close()
            load.wait(timeout=900)
    for tag in tags:
        if tag not in (image_tags(image_id) or []):
            docker("tag", image_id, tag)


@pytest.mark.engine
def test_round_trip_into_an_engine_without_the_image(saved: dict[str, Any], tmp_path: Path) -> None:
    image_id, path = saved["record"]["image_id"], saved["path"]
    assert f"Saved toolchain {NAME}" in saved["stdout"]
    gone = mb("uninstall", NAME, "--keep-images", env=saved["env"])
    assert gone.returncode == 0, gone.stderr
    remove_containers(NAME)
    removed = docker("rmi", "-f", image_id)
    assert removed.returncode == 0, removed.stderr
    assert image_tags(image_id) is None, "the image is still in the engine (used by a container?)"

    env = home_env(tmp_path / "fresh home")
    damaged = tmp_path / "damaged.tar"
    shutil.copy(path, damaged)
    offset, size = image_data_offset(damaged)
    flip_byte(damaged, offset + size // 3)
    refused = mb("bundle", "load", str(damaged), env=env)
    assert refused.returncode != 0 and "checksum" in refused.stderr, refused.stderr
    assert image_tags(image_id) is None  # nothing reached the engine

    started = time.monotonic()
    loaded = mb("bundle", "load", str(path), env=env)
    load_seconds = time.monotonic() - started
    assert loaded.returncode == 0, loaded.stderr
    assert f"Ready: toolchain {NAME}" in loaded.stdout
    assert image_tags(image_id) == [saved["record"]["image"]]
    listed = json.loads(mb("list", "--json", env=env).stdout)["toolchains"]
    assert [(t["name"], t["image_id"], t["variant"], t["default"]) for t in listed] == [
        (NAME, image_id, "base", True)
    ]
    try:
        ran = mb(
            "run", "-t", NAME, "--", "cat", "/opt/moatbridge/packages.tsv", env=env, cwd=Path(env["HOME"])
        )
        assert ran.returncode == 0, ran.stderr
        assert "libamdhip64-5\t" in ran.stdout
        again = mb("bundle", "load", str(path), env=env)  # already there: registers, loads nothing
        assert again.returncode == 0 and "already in the engine" in again.stdout, again.stderr
    finally:
        mb("uninstall", "--all", "--keep-images", env=env)
        remove_containers(NAME)
        restore_image(path, image_id, saved["tags"])
    print(
        f"\nbundle {path.stat().st_size / 1e6:.0f} MB: save {saved['save_seconds']:.1f} s, load {load_seconds:.1f} s"
    )


def _assert_nothing_happened(
    env: dict[str, str], image_id: str, tags: list[str] | None, since: float
) -> None:
    assert not (Path(env["HOME"]) / ".local" / "share" / "moatbridge").exists()
    assert image_tags(image_id) == tags
    assert load_events(since) == []


@pytest.mark.engine
def test_damaged_copy_fails_with_a_checksum_message(saved: dict[str, Any], tmp_path: Path) -> None:
    image_id = saved["record"]["image_id"]
    damaged = tmp_path / "damaged.tar"
    shutil.copy(saved["path"], damaged)
    offset, size = image_data_offset(damaged)
    flip_byte(damaged, offset + size // 2)
    env, tags, since = home_env(tmp_path / "home"), image_tags(image_id), time.time()
    result = mb("bundle", "load", str(damaged), env=env)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert "image.tar does not match its checksum" in lines[-2] and lines[-1].startswith("hint: ")
    _assert_nothing_happened(env, image_id, tags, since)
    assert mb("bundle", "inspect", str(damaged), env=env).returncode == 2


@pytest.mark.engine
def test_truncated_copy_fails_clearly(saved: dict[str, Any], tmp_path: Path) -> None:
    image_id = saved["record"]["image_id"]
    short = tmp_path / "short.tar"
    with open(saved["path"], "rb") as source, open(short, "wb") as target:
        target.write(source.read(saved["path"].stat().st_size * 2 // 3))
    env, tags, since = home_env(tmp_path / "home"), image_tags(image_id), time.time()
    result = mb("bundle", "load", str(short), env=env)
    assert result.returncode == 2 and "is truncated" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    _assert_nothing_happened(env, image_id, tags, since)


@pytest.mark.engine
def test_dry_run_and_inspect(saved: dict[str, Any], tmp_path: Path) -> None:
    env = home_env(tmp_path / "home")
    record = saved["record"]
    dry = mb("bundle", "load", str(saved["path"]), "--name", "renamed", "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    assert "Toolchain renamed: open base, target(s) gfx1030" in dry.stdout
    assert "Dry run: nothing changed." in dry.stdout and "toolchains/renamed/" in dry.stdout
    assert not (Path(env["HOME"]) / ".local").exists()
    bad_name = mb("bundle", "load", str(saved["path"]), "--name", "a/b", "--dry-run", env=env)
    assert bad_name.returncode == 2 and "not a usable toolchain name" in bad_name.stderr

    shown = json.loads(mb("bundle", "inspect", str(saved["path"]), "--json", env=env).stdout)
    assert shown["verified"] is True and shown["size"] == saved["path"].stat().st_size
    assert shown["manifest"]["toolchain"]["image_id"] == record["image_id"]
    assert shown["manifest"]["toolchain"]["image"] == record["image"]
    assert [m["name"] for m in shown["members"]] == [MANIFEST, IMAGE, SUMS]
    table = mb("bundle", "inspect", str(saved["path"]), env=env)
    assert (
        table.returncode == 0 and "checksums verified" in table.stdout and "open-components" in table.stdout
    )
