"""The image catalog: the shipped one loads, and broken ones fail naming the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from moatbridge.adapters.records import load_catalog
from moatbridge.core.catalog import CatalogError, parse_catalog
from moatbridge.core.recipes import BuildRequest, normalise_targets, plan_open_build

SHIPPED = Path(__file__).resolve().parent.parent / "images" / "catalog.yaml"


def shipped_data() -> Any:
    return yaml.safe_load(SHIPPED.read_text())


def test_shipped_catalog_loads() -> None:
    catalog = load_catalog(SHIPPED)
    open_ = catalog.flavour("open")
    assert open_.rocm == "5.7" and open_.default_cuda == "12.4"
    assert {v.name for v in open_.variants} == {"devel", "runtime", "base"}
    assert open_.library_targets == frozenset(
        {
            "gfx803",
            "gfx900",
            "gfx906",
            "gfx908",
            "gfx90a",
            "gfx1010",
            "gfx1030",
            "gfx1100",
            "gfx1101",
            "gfx1102",
        }
    )
    assert "gfx942" in open_.compiler_targets and "gfx1201" not in open_.compiler_targets
    scale = catalog.flavour("scale")
    assert "gfx1201" in scale.compiler_targets and scale.source == "pull"
    assert scale.registries[0] == "quay.io/spectral-compute/scale"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("schema_version"), "schema_version: missing"),
        (lambda d: d.update(schema_version=7), "schema_version: this moatbridge reads version 1"),
        (lambda d: d["flavours"]["open"]["variants"]["devel"].update(packages="hipcc"),
         "flavours.open.variants.devel.packages: expected list"),
        (lambda d: d["flavours"]["open"]["variants"]["devel"]["packages"].insert(3, 42),
         "flavours.open.variants.devel.packages[3]: expected a non-empty string"),
        (lambda d: d["flavours"]["open"].update(default_cuda="10.0"),
         "flavours.open.default_cuda: '10.0' is not listed in cuda_versions"),
        (lambda d: d["flavours"]["open"].update(rocm=5.7), "flavours.open.rocm: expected a string, got the number 5.7"),
        (lambda d: d["flavours"]["open"]["targets"]["components"].update(rocblas=["gfx9999x"]),
         "flavours.open.targets.components.rocblas[0]: 'gfx9999x' is not a gfx target name"),
        (lambda d: d["flavours"]["open"]["targets"]["components"].update(rocblas=["gfx1201"]),
         "flavours.open.targets.components.rocblas: gfx1201 not in the compiler's targets"),
        (lambda d: d["flavours"]["scale"].update(source="ftp"), "flavours.scale.source: expected 'build' or 'pull'"),
        (lambda d: d["flavours"]["open"]["distros"]["trixie"]["base"].pop("image"),
         "flavours.open.distros.trixie.base.image: missing"),
        (lambda d: d["flavours"]["open"]["variants"]["devel"].update(size_gb=-1),
         "flavours.open.variants.devel.size_gb: expected a positive number"),
    ],
)  # fmt: skip
def test_errors_name_the_field(mutate: Any, message: str) -> None:
    data = shipped_data()
    mutate(data)
    with pytest.raises(CatalogError) as caught:
        parse_catalog(data, SHIPPED)
    assert message in caught.value.message
    assert caught.value.message.startswith("Invalid image catalog: ")


def test_unreadable_and_unparsable_catalogs(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="Cannot read the image catalog"):
        load_catalog(tmp_path / "missing.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("flavours: [unclosed\n")
    with pytest.raises(CatalogError, match="is not valid YAML at line"):
        load_catalog(broken)


def _plan(**request: Any) -> Any:
    catalog = load_catalog(SHIPPED)
    flavour = catalog.flavour("open")
    return plan_open_build(
        flavour, BuildRequest(flavour="open", **request), catalog.images_dir, "moatbridge",
        "moatbridge/debian-base:trixie", "sha256:base", "ctx-digest",
    )  # fmt: skip


def test_per_target_plan() -> None:
    plan = _plan(targets=("gfx1100", "gfx1030"))
    assert plan.reference == "moatbridge/open:12.4-devel-trixie-gfx1030_gfx1100"
    assert plan.stage == "slim"
    args = dict(plan.buildargs)
    assert args["KEEP_TARGETS"] == "gfx1030,gfx1100"
    assert "hipcc" in args["PACKAGES"].split()
    labels = dict(plan.labels)
    assert labels["io.moatbridge.targets"] == "gfx1030,gfx1100"
    assert labels["io.moatbridge.recipe-digest"] == plan.recipe_digest
    assert labels["io.moatbridge.managed"] == "1"
    assert plan.dockerfile == "Dockerfile" and plan.recipe_dir.name == "open"


def test_full_plan_and_digest_sensitivity() -> None:
    full = _plan()
    assert (full.stage, full.targets, full.reference) == (
        "full",
        ("all",),
        "moatbridge/open:12.4-devel-trixie-all",
    )
    assert "KEEP_TARGETS" not in dict(full.buildargs)
    assert _plan().recipe_digest == full.recipe_digest  # deterministic
    assert _plan(cuda_version="11.8").recipe_digest != full.recipe_digest
    assert _plan(variant="runtime").recipe_digest != full.recipe_digest


def test_targets_the_libraries_lack_warn_and_keep_nothing() -> None:
    plan = _plan(targets=("gfx942",))
    assert dict(plan.buildargs)["KEEP_TARGETS"] == "none"
    assert plan.warnings and "rocblas" in plan.warnings[0]


@pytest.mark.parametrize(
    ("targets", "message"),
    [(("gfx1201",), "cannot compile for gfx1201"), (("sm_86",), "not a gfx target"),
     (("all", "gfx1030"), "cannot be combined")],
)  # fmt: skip
def test_bad_targets(targets: tuple[str, ...], message: str) -> None:
    flavour = load_catalog(SHIPPED).flavour("open")
    with pytest.raises(CatalogError, match=message):
        normalise_targets(flavour, targets)


def test_unknown_names() -> None:
    catalog = load_catalog(SHIPPED)
    with pytest.raises(CatalogError, match="no flavour 'cuda'"):
        catalog.flavour("cuda")
    with pytest.raises(CatalogError, match="no variant 'fat'"):
        catalog.flavour("open").variant("fat")
    with pytest.raises(CatalogError, match=r"does not mimic CUDA 9\.2"):
        _plan(cuda_version="9.2")


def test_base_variant_is_not_pruned_but_tagged_with_the_targets() -> None:
    plan = _plan(variant="base", targets=("gfx1030",))
    assert plan.stage == "full"
    assert "KEEP_TARGETS" not in dict(plan.buildargs)
    assert plan.reference == "moatbridge/open:12.4-base-trixie-gfx1030"


def test_pinned_drift() -> None:
    from moatbridge.core.recipes import pinned_drift

    pinned = (("hipcc", "5.7.1-6+deb13u1"), ("cmake", "3.31.6-2"), ("librocblas0", "5.5.1+dfsg-7"))
    listing = "hipcc\t5.7.1-6+deb13u2\ncmake\t3.31.6-2\nbash\t5.2\n"
    assert pinned_drift(pinned, listing) == (2, ["hipcc 5.7.1-6+deb13u2 (catalog pins 5.7.1-6+deb13u1)"])
    assert pinned_drift(pinned, "") == (0, [])
