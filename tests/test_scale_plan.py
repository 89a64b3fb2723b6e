"""Planning SCALE builds (pure): the repository per package format and channel, the pinned
version, the vendor's hosts, the default distro and CUDA version, the `latest` tags and
NVIDIA targets, all from the shipped catalog."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from moatbridge.adapters.records import load_catalog
from moatbridge.core.build_plan import BaseImage
from moatbridge.core.catalog import CatalogError
from moatbridge.core.catalog_parse import parse_catalog
from moatbridge.core.image_spec import ImageSource, ImageSpec
from moatbridge.core.recipes import normalise_targets, plan_build
from moatbridge.core.scale_recipes import is_commercial, repository_url

SHIPPED = Path(__file__).resolve().parent.parent / "images" / "catalog.yaml"


def _scale() -> Any:
    return load_catalog(SHIPPED).flavour("scale")


def _plan(distro: str | None = None, commercial: bool = False, **kwargs: Any) -> Any:
    build_args = tuple(f"{name}={value}" for name, value in kwargs.pop("extra", ()))
    source = ImageSource(commercial=commercial, customer=kwargs.pop("customer", None), build_args=build_args)
    spec = ImageSpec("scale", distro=distro, cuda_version=kwargs.pop("cuda", None), source=source)
    return plan_build(spec, load_catalog(SHIPPED), BaseImage("base:1", "sha256:base"), "ctx")


def test_the_vendor_default_is_ubuntu24_04_with_cuda_13_0_2_and_the_latest_tags() -> None:
    plan = _plan()
    assert plan.distro.name == "ubuntu24.04"
    assert plan.reference == "moatbridge/scale:13.0.2-devel-ubuntu24.04-1.7.2"
    assert plan.aliases == ("moatbridge/scale:latest", "moatbridge/scale:latest-1.7.2")
    # Any other CUDA version or distro is not `latest`.
    assert _plan(cuda="12.1.0").aliases == ()
    assert _plan(distro="rocky9").aliases == ()


def test_each_channel_tags_its_own_image() -> None:
    """The free and the customer's repository are two images: never one tag moving between them."""
    commercial = _plan(commercial=True, customer="acme")
    assert commercial.reference == "moatbridge/scale:13.0.2-devel-ubuntu24.04-1.7.2-commercial"
    assert commercial.aliases == ()  # the vendor's `latest` is its free image
    assert dict(commercial.labels)["io.moatbridge.scale-channel"] == "repository"


def test_credentials_alone_mean_the_customer_repository(tmp_path: Path) -> None:
    """A credentials file is never sent to the free repository, labelled commercial."""
    assert is_commercial(ImageSpec("scale", source=ImageSource(credentials_file=str(tmp_path / "c.json"))))
    assert not is_commercial(ImageSpec("scale"))
    with pytest.raises(CatalogError, match="customer name"):
        repository_url(_scale(), _scale().distro(None), True, None)


@pytest.mark.parametrize(
    ("distro", "commercial", "url"),
    [
        ("ubuntu24.04", False, "https://pkgs.scale-lang.com/deb"),
        ("ubuntu22.04", True, "https://nonfree-pkgs.scale-lang.com/acme/deb"),
        ("rocky9", False, "https://pkgs.scale-lang.com/rpm/el9/main"),
        ("rocky9", True, "https://nonfree-pkgs.scale-lang.com/acme/rpm/el9/main"),
    ],
)
def test_each_package_format_and_channel_has_its_repository(distro: str, commercial: bool, url: str) -> None:
    plan = _plan(distro, commercial, customer="acme")
    args = dict(plan.buildargs)
    assert args["SCALE_REPO_URL"] == url
    assert args["SCALE_REPO_SOURCE"] == ("remove" if commercial else "restore")
    assert args["SCALE_DEFAULT_REPO_URL"] == ("https://pkgs.scale-lang.com/" + ("rpm/el9/main" if
                                              distro == "rocky9" else "deb"))  # fmt: skip
    assert ("DISTRO_CODENAME" in args) == (distro != "rocky9")
    assert plan.dockerfile == ("Dockerfile.dnf" if distro == "rocky9" else "Dockerfile.apt")
    assert dict(plan.labels)["io.moatbridge.licence"] == ("scale-commercial" if commercial else "scale-free")


def test_commercial_needs_a_customer() -> None:
    with pytest.raises(CatalogError, match="customer name"):
        _plan("rocky9", True)


def test_the_version_is_pinned_and_only_the_vendors_hosts_are_rewritten() -> None:
    args = dict(_plan().buildargs)
    assert args["SCALE_VERSION"] == "1.7.2"
    assert args["SCALE_VENDOR_HOSTS"].split() == list(_scale().vendor_hosts)
    assert "pkgs.scale-lang.com" in args["SCALE_VENDOR_HOSTS"].split()
    # An explicit (empty) SCALE_VERSION means the newest, and the tag says so.
    newest = _plan(extra=[("SCALE_VERSION", "")])
    assert dict(newest.buildargs)["SCALE_VERSION"] == ""
    assert newest.reference.endswith("-newest")
    assert newest.recipe_digest != _plan().recipe_digest
    assert _scale().distro("rocky9").pinned == (("scale", "1.7.2"),)


def test_gfx902_is_not_a_scale_target_any_more() -> None:
    distro = _scale().distro(None)
    assert "gfx902" not in distro.compiler_targets
    assert {"gfx1101", "gfx1102", "gfx1151"} <= set(distro.compiler_targets)


@pytest.mark.parametrize("target", ["sm_89", "sm_90a", "sm_120"])
def test_nvidia_targets_are_scales_nvidia_mode(target: str) -> None:
    flavour = _scale()
    targets, warnings = normalise_targets(flavour, flavour.distro(None), (target,))
    assert targets == (target,)
    assert any("NVIDIA mode" in w for w in warnings)


def test_old_nvidia_targets_need_an_older_toolkit() -> None:
    flavour = _scale()
    _, warnings = normalise_targets(flavour, flavour.distro(None), ("sm_70",))
    assert any("older than 13.0" in w for w in warnings)
    _, warnings = normalise_targets(flavour, flavour.distro(None), ("sm_90a",))
    assert not any("older than 13.0" in w for w in warnings)


@pytest.mark.parametrize(
    ("targets", "message"),
    [(("sm_103f",), "no NVIDIA mode for sm_103f"), (("sm_89", "gfx1100"), "not both"), (("sm_8",), "not a")],
)
def test_bad_nvidia_targets(targets: tuple[str, ...], message: str) -> None:
    flavour = _scale()
    with pytest.raises(CatalogError, match=message):
        normalise_targets(flavour, flavour.distro(None), targets)
    # The open flavour has no NVIDIA mode at all.
    open_ = load_catalog(SHIPPED).flavour("open")
    with pytest.raises(CatalogError):
        normalise_targets(open_, open_.distro(None), ("sm_89",))


@pytest.mark.parametrize(
    ("repositories", "message"),
    [
        ({"deb": {"free": "ftp://x"}}, "http"),
        ({"deb": {"free": "https://x/{customer}"}}, "only the commercial"),
        ({"deb": {"commercial": "https://x/deb"}}, "only the commercial"),
        ({"zip": {"free": "https://x"}}, "deb: or rpm:"),
    ],
)
def test_bad_repositories_are_refused(repositories: dict[str, Any], message: str) -> None:
    data = yaml.safe_load(SHIPPED.read_text())
    data["flavours"]["scale"]["repositories"] = repositories
    with pytest.raises(CatalogError, match=message):
        parse_catalog(data, SHIPPED)


@pytest.mark.engine
@pytest.mark.parametrize(("extra", "licence"), [((), "scale-free"), (("--commercial", "--customer", "acme"),
                                                                    "scale-commercial")])  # fmt: skip
def test_building_scale_needs_the_recorded_acceptance(
    debian_base: str, tmp_path: Path, extra: tuple[str, ...], licence: str
) -> None:
    """Installing SCALE accepts its licence (the recipe sets SCALE_LICENSE_ACCEPT=1), so a
    build is the same consent question as setup or run: refused before anything is fetched."""
    env = dict(os.environ, MOATBRIDGE_HOME=str(tmp_path / "home"))
    argv = [sys.executable, "-m", "moatbridge", "image", "build", "--flavour", "scale", "--base-image",
            debian_base, "--repo-url", "http://127.0.0.1:9/deb", "--no-space-check", *extra]  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "needs your acceptance of the" in result.stderr
    assert f"moatbridge license accept {licence}" in result.stderr
    assert "Traceback" not in result.stderr
    # The dry run still shows the plan.
    dry = subprocess.run([*argv, "--dry-run"], capture_output=True, text=True, env=env, timeout=120)
    assert dry.returncode == 0, dry.stderr
