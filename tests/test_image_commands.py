"""`image list`, `image remove`, space checks and bad input, against the real engine."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from moatbridge.services.image_builds import InsufficientSpace, check_space

from conftest import cli

pytestmark = pytest.mark.engine


def _import(reference: str, labels: list[str]) -> None:
    import docker

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("hello.txt")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"hello"))
    repository, _, tag = reference.rpartition(":")
    client = docker.APIClient()
    client.import_image_from_data(buffer.getvalue(), repository=repository, tag=tag,
                                  changes=[f"LABEL {label}" for label in labels])  # fmt: skip


@pytest.fixture
def foreign_image(engine_version: str) -> Iterator[str]:
    reference = "moatbridge-test/foreign:1"
    _import(reference, ["io.moatbridge.test=1"])
    yield reference
    subprocess.run(["docker", "rmi", "-f", reference], capture_output=True, check=False)


@pytest.fixture
def managed_image(engine_version: str) -> Iterator[str]:
    reference = "moatbridge-test/managed:1"
    _import(reference, ["io.moatbridge.test=1", "io.moatbridge.managed=1", "io.moatbridge.flavour=open",
                        "io.moatbridge.variant=base", "io.moatbridge.targets=gfx1030"])  # fmt: skip
    yield reference
    subprocess.run(["docker", "rmi", "-f", reference], capture_output=True, check=False)


def _exists(reference: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", reference], capture_output=True).returncode == 0


def test_list_shows_managed_images_only(managed_image: str, foreign_image: str) -> None:
    result = cli("image", "list", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)["images"]
    mine = [r for r in rows if managed_image in r["references"]]
    assert len(mine) == 1
    assert (mine[0]["flavour"], mine[0]["variant"], mine[0]["targets"]) == ("open", "base", ["gfx1030"])
    assert not any(foreign_image in r["references"] for r in rows)
    human = cli("image", "list")
    assert "moatbridge images" in human.stdout and managed_image in human.stdout


def test_remove_refuses_foreign_images(foreign_image: str) -> None:
    result = cli("image", "remove", foreign_image)
    assert result.returncode == 1
    assert "was not made by moatbridge" in result.stderr
    assert _exists(foreign_image)


def test_remove_dry_run_then_real(managed_image: str) -> None:
    dry = cli("image", "remove", managed_image, "--dry-run")
    assert dry.returncode == 0 and f"Would remove {managed_image}" in dry.stdout
    assert _exists(managed_image)
    real = cli("image", "remove", managed_image, "--json")
    assert json.loads(real.stdout) == {"removed": [managed_image], "dry_run": False}
    assert not _exists(managed_image)


def test_remove_unknown_image() -> None:
    result = cli("image", "remove", "moatbridge-test/never:1")
    assert result.returncode == 1 and "There is no image moatbridge-test/never:1." in result.stderr


class _Engine:
    def __init__(self, root: Path) -> None:
        self.root = root

    def info(self) -> dict[str, Any]:
        return {"DockerRootDir": str(self.root)}


def test_space_check_names_need_and_place(tmp_path: Path) -> None:
    with pytest.raises(InsufficientSpace) as caught:
        check_space(_Engine(tmp_path), 10**15, "Building x")
    assert caught.value.message.startswith("Building x needs about 1000000.0 GB free at " + str(tmp_path))
    check_space(_Engine(tmp_path), 1, "Building x")  # enough: no error


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["image", "build", "--flavour", "open", "--target", "gfx1201", "--dry-run"], "cannot compile for gfx1201"),
        (["image", "build", "--flavour", "cuda", "--dry-run"], "There is no flavour 'cuda'."),
        (["image", "build", "--flavour", "scale", "--build-arg", "REPO_PASSWORD=x", "--dry-run"], "looks like a secret"),
        (["image", "build", "--flavour", "scale", "--repo-url", "http://u:p@127.0.0.1:9/deb", "--dry-run"],
         "must not contain credentials"),
        (["image", "build", "--flavour", "scale", "--commercial", "--dry-run"], "needs your customer name"),
        (["image", "pull", "NOT A REF"], "is not an image reference."),
    ],
)  # fmt: skip
def test_bad_input_is_one_sentence(engine_version: str, args: list[str], message: str) -> None:
    result = cli(*args)
    assert result.returncode != 0
    assert message in result.stderr
    assert result.stderr.splitlines()[-1].startswith("hint: ")
    assert "Traceback" not in result.stderr


def test_a_build_whose_stages_the_layer_cache_holds_needs_room_for_one_copy(
    open_devel_gfx1030: dict[str, Any],
) -> None:
    """The space check allows one copy, not a whole per-target build, where an image of the
    same flavour, variant, stack and targets is in the engine (another recipe of it, or the
    same image under another repository): its package and pruning stages are cached."""
    from dataclasses import replace

    from moatbridge.adapters import docker_api
    from moatbridge.adapters.records import load_catalog
    from moatbridge.core.build_plan import BaseImage
    from moatbridge.core.image_spec import ImageSpec
    from moatbridge.core.recipes import plan_build
    from moatbridge.services.image_builds import GB, required_bytes, stages_cached

    catalog = load_catalog()
    flavour = catalog.flavour("open")
    base = BaseImage("moatbridge/debian-base:trixie", "sha256:" + "0" * 64)
    elsewhere = replace(catalog, local_repository="mb-elsewhere")
    built = plan_build(ImageSpec("open", targets=("gfx1030",)), elsewhere, base, "another-recipe")
    unbuilt = plan_build(ImageSpec("open", targets=("gfx1030", "gfx1100")), elsewhere, base, "ctx")
    client = docker_api.connect()
    try:
        assert stages_cached(client, built) and not stages_cached(client, unbuilt)
    finally:
        client.close()
    assert required_bytes(built, flavour, rebuild=True) < required_bytes(built, flavour) / 2
    assert required_bytes(built, flavour, rebuild=True) >= GB
