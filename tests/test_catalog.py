"""The image catalog: the shipped one loads, and broken ones fail naming the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from moatbridge.adapters.records import load_catalog
from moatbridge.core.build_plan import BaseImage
from moatbridge.core.catalog import CatalogError
from moatbridge.core.catalog_parse import parse_catalog
from moatbridge.core.gfx import generic_of, served_by
from moatbridge.core.image_spec import ImageSource, ImageSpec
from moatbridge.core.recipes import normalise_targets, plan_build
from moatbridge.errors import InputError

SHIPPED = Path(__file__).resolve().parent.parent / "images" / "catalog.yaml"


def shipped_data() -> Any:
    return yaml.safe_load(SHIPPED.read_text())


def test_shipped_catalog_loads() -> None:
    catalog = load_catalog(SHIPPED)
    open_ = catalog.flavour("open")
    trixie = open_.distro(None)
    assert (trixie.name, trixie.rocm, trixie.default_cuda, trixie.status) == (
        "trixie",
        "5.7",
        "12.4",
        "stable",
    )
    assert {v.name for v in open_.variants} == {"devel", "runtime", "base"}
    assert trixie.library_targets == frozenset(
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
    assert "gfx942" in trixie.compiler_targets and "gfx1201" not in trixie.compiler_targets
    assert [d.name for d in open_.distros] == ["trixie", "sid", "experimental"]
    assert "gfx1201" in open_.compiler_targets  # some stack compiles for it
    assert all(t.startswith("gfx") and "generic" not in t for t in open_.compiler_targets)
    scale = catalog.flavour("scale")
    assert "gfx1201" in scale.compiler_targets and scale.source == "pull"
    assert scale.registries[0] == "quay.io/spectral-compute/scale"


def test_the_open_flavour_mimics_cuda_12_4_by_default_and_13_0_on_request() -> None:
    open_ = load_catalog(SHIPPED).flavour("open")
    assert {"12.4", "13.0"} <= set(open_.cuda_versions)
    assert {d.default_cuda for d in open_.distros} == {"12.4"}
    assert open_.cuda("13.0") == "13.0"
    assert "CUDA 13" in open_.cuda_note("13.0") and "CUDA 12" in open_.cuda_note("12.4")
    assert open_.cuda_note("11.8") == ""


def test_each_stack_states_its_own_packages_and_pins() -> None:
    """No stack silently inherits another's package names (their sonames differ)."""
    open_ = load_catalog(SHIPPED).flavour("open")
    runtime = {d.name: d.packages_for(open_.variant("runtime")) for d in open_.distros}
    assert "libamdhip64-5" in runtime["trixie"] and "libamdhip64-6" in runtime["sid"]
    assert "libamdhip64-7" in runtime["experimental"]
    for distro in open_.distros:
        assert distro.pinned and distro.clang and distro.apt is not None
        devel = distro.packages_for(open_.variant("devel"))
        assert f"libomp-{distro.clang}-dev" in devel
        assert f"clang-{distro.clang}" in dict(distro.pinned)
    sid, experimental = open_.distro("sid"), open_.distro("experimental")
    assert (sid.status, experimental.status) == ("preview", "preview")
    assert experimental.apt is not None and experimental.apt.pin_release == "experimental"
    assert sid.apt is not None and not sid.apt.check_valid_until


def test_generic_code_objects_serve_their_members() -> None:
    sid = load_catalog(SHIPPED).flavour("open").distro("sid")
    rocsolver = next(c for c in sid.components if c.name == "rocsolver")
    assert "gfx12-generic" in rocsolver.targets
    assert rocsolver.serves("gfx1201") and rocsolver.serves("gfx1151") and not rocsolver.serves("gfx1250")
    rocblas = next(c for c in sid.components if c.name == "rocblas")
    assert not rocblas.serves("gfx1201")
    assert (
        generic_of("gfx1201") == "gfx12-generic"
        and served_by(rocsolver.targets, "gfx1201") == "gfx12-generic"
    )


@pytest.mark.parametrize(
    ("targets", "stack", "why"),
    [
        (("gfx1030",), "trixie", "oldest stable stack"),
        (("gfx1100",), "trixie", "oldest stable stack"),
        (("gfx1201",), "experimental", "not trixie: its clang cannot compile for gfx1201"),
        (("gfx942",), "experimental", "not sid: its rocblas"),
        (("gfx1151",), "experimental", "oldest stack whose libraries serve"),
        (("gfx1030", "gfx1201"), "experimental", "gfx1030, gfx1201"),
        (("gfx950",), "sid", "no stack's libraries serve all of gfx950"),
    ],
)  # fmt: skip
def test_the_default_stack_is_the_oldest_that_serves(targets: tuple[str, ...], stack: str, why: str) -> None:
    from moatbridge.core.stacks import choose_stack

    choice = choose_stack(load_catalog(SHIPPED).flavour("open"), targets)
    assert choice.distro.name == stack
    assert why in choice.reason


def test_an_asked_stack_wins_and_unknown_ones_are_refused() -> None:
    from moatbridge.core.stacks import choose_stack

    open_ = load_catalog(SHIPPED).flavour("open")
    assert choose_stack(open_, ("gfx1030",), "sid").distro.name == "sid"
    with pytest.raises(CatalogError, match="no distro 'forky'"):
        choose_stack(open_, ("gfx1030",), "forky")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("schema_version"), "schema_version: missing"),
        (lambda d: d.update(schema_version=7), "schema_version: this moatbridge reads version 1"),
        (lambda d: d["flavours"]["open"]["distros"]["trixie"]["packages"].update(devel="hipcc"),
         "flavours.open.distros.trixie.packages.devel: expected list"),
        (lambda d: d["flavours"]["open"]["distros"]["trixie"]["packages"]["devel"].insert(3, 42),
         "flavours.open.distros.trixie.packages.devel[3]: expected a non-empty string"),
        (lambda d: d["flavours"]["open"]["distros"]["sid"].update(default_cuda="10.0"),
         "flavours.open.distros.sid.default_cuda: '10.0' is not listed in cuda_versions"),
        (lambda d: d["flavours"]["open"]["cuda_notes"].update({"10.0": "old"}),
         "flavours.open.cuda_notes: '10.0' is not listed in cuda_versions"),
        (lambda d: d["flavours"]["open"]["cuda_notes"].update({"13.0": "two\nlines"}),
         "flavours.open.cuda_notes.13.0: expected one line of text"),
        (lambda d: d["flavours"]["open"]["distros"]["trixie"].update(rocm=5.7),
         "flavours.open.distros.trixie.rocm: expected a string, got the number 5.7"),
        (lambda d: d["flavours"]["open"]["distros"]["trixie"]["targets"]["components"].update(rocblas=["gfx9999x"]),
         "flavours.open.distros.trixie.targets.components.rocblas[0]: 'gfx9999x' is not a gfx target name"),
        (lambda d: d["flavours"]["open"]["distros"]["trixie"]["targets"]["components"].update(rocblas=["gfx1201"]),
         "flavours.open.distros.trixie.targets.components.rocblas: gfx1201 not in the compiler's targets"),
        (lambda d: d["flavours"]["open"]["distros"]["sid"].update(status="beta"),
         "flavours.open.distros.sid.status: expected 'stable' or 'preview'"),
        (lambda d: d["flavours"]["open"]["distros"]["sid"]["apt"].update(pin={"release": "experimental", "packages": "x"}),
         "flavours.open.distros.sid.apt.pin.release: 'experimental' is not one of the suites"),
        (lambda d: d["flavours"]["open"]["distros"]["experimental"]["apt"]["pin"].update(packages="x; rm -rf /"),
         "flavours.open.distros.experimental.apt.pin.packages: expected package names or one /regex/"),
        (lambda d: d["flavours"]["open"]["distros"]["sid"]["apt"].update(suites=["sid main"]),
         "flavours.open.distros.sid.apt.suites[0]: 'sid main' is not a suite name"),
        (lambda d: d["flavours"]["open"]["distros"]["sid"]["packages"].update(fat=["x"]),
         "flavours.open.distros.sid.packages.fat: not a variant"),
        (lambda d: d["flavours"]["open"]["distros"]["sid"]["packages"].pop("base"),
         "flavours.open.distros.sid: no packages for the base variant"),
        (lambda d: d["flavours"]["open"]["distros"]["sid"]["targets"]["components"].update(rocblas=["gfx13-generic"]),
         "'gfx13-generic' is not a gfx target name"),
        (lambda d: d["flavours"]["scale"].update(source="ftp"), "flavours.scale.source: expected 'build' or 'pull'"),
        (lambda d: d["flavours"]["open"]["distros"]["trixie"]["base"].pop("image"),
         "flavours.open.distros.trixie.base.image: missing"),
        (lambda d: d["flavours"]["open"]["distros"]["sid"]["size_gb"].update(devel=-1),
         "flavours.open.distros.sid.size_gb.devel: expected a positive number"),
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
    base = BaseImage("moatbridge/debian-base:trixie", "sha256:base")
    return plan_build(ImageSpec(flavour="open", **request), load_catalog(SHIPPED), base, "ctx-digest")


@pytest.mark.parametrize(("stack", "suite"), [("trixie", "trixie"), ("sid", "sid"), ("experimental", "sid")])
def test_an_apt_mirror_is_where_the_stacks_packages_come_from(stack: str, suite: str) -> None:
    """The recipe writes `deb MIRROR SUITE main` for the stack's first suite (its extra suites
    follow that line's mirror); without one, the plan and its digest are what they were."""
    target = "gfx1201" if stack != "trixie" else "gfx1030"
    plain = _plan(targets=(target,), distro=stack)
    mirrored = _plan(
        targets=(target,), distro=stack, source=ImageSource(apt_mirror="http://deb.example/debian")
    )
    added = set(mirrored.buildargs) - set(plain.buildargs)
    assert added == {("DEBIAN_MIRROR", "http://deb.example/debian"), ("DEBIAN_SUITE", suite)}
    assert not any(name.startswith("DEBIAN_") for name, _ in plain.buildargs)
    assert mirrored.recipe_digest != plain.recipe_digest


@pytest.mark.parametrize(
    ("mirror", "said"),
    [("deb.example/debian", "not a mirror URL"), ("http://deb.example/a b", "not a mirror URL"),
     ("http://user:pw@deb.example/debian", "credentials or a token"),
     ("https://deb.example/debian?token=s3cr3t", "credentials or a token")],
)  # fmt: skip
def test_an_apt_mirror_is_a_plain_url(mirror: str, said: str) -> None:
    with pytest.raises(InputError) as refused:
        _plan(targets=("gfx1030",), source=ImageSource(apt_mirror=mirror))
    assert said in refused.value.message and "s3cr3t" not in refused.value.message


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
    [(("gfx1201",), "cannot compile for gfx1201"), (("sm_86",), "no NVIDIA mode"), (("sm_8x",), "not a gfx target"),
     (("all", "gfx1030"), "cannot be combined")],
)  # fmt: skip
def test_bad_targets(targets: tuple[str, ...], message: str) -> None:
    flavour = load_catalog(SHIPPED).flavour("open")
    with pytest.raises(CatalogError, match=message):
        normalise_targets(flavour, flavour.distro("trixie"), targets)


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
    from moatbridge.core.build_plan import pinned_drift

    pinned = (("hipcc", "5.7.1-6+deb13u1"), ("cmake", "3.31.6-2"), ("librocblas0", "5.5.1+dfsg-7"))
    listing = "hipcc\t5.7.1-6+deb13u2\ncmake\t3.31.6-2\nbash\t5.2\n"
    assert pinned_drift(pinned, listing) == (2, ["hipcc 5.7.1-6+deb13u2 (catalog pins 5.7.1-6+deb13u1)"])
    assert pinned_drift(pinned, "") == (0, [])


def test_a_sid_plan_keeps_generic_served_targets_and_says_it_skips_valid_until() -> None:
    plan = _plan(targets=("gfx1201",), distro="sid")
    args = dict(plan.buildargs)
    assert plan.reference == "moatbridge/open:12.4-devel-sid-gfx1201"
    assert args["KEEP_TARGETS"] == "gfx1201"  # rocsolver's gfx12-generic code loads there
    assert args["APT_CHECK_VALID_UNTIL"] == "false" and args["CLANG_VERSION"] == "21"
    assert "libamdhip64-dev" in args["PACKAGES"].split() and "libomp-21-dev" in args["PACKAGES"].split()
    assert dict(plan.labels)["io.moatbridge.rocm-version"] == "6.4"
    assert dict(plan.labels)["io.moatbridge.library-targets"] == ""  # rocblas & co lack it
    assert any("Valid-Until" in w and "catalog's sid stack" in w for w in plan.warnings)
    assert any("--distro experimental" in w for w in plan.warnings)
    checked = _plan(targets=("gfx1201",), distro="sid", check_valid_until=True)
    assert "APT_CHECK_VALID_UNTIL" not in dict(checked.buildargs)
    assert not any("Valid-Until" in w for w in checked.warnings)
    assert checked.recipe_digest != plan.recipe_digest


def test_trixie_needs_no_apt_arguments_and_can_be_told_to_skip_valid_until() -> None:
    plan = _plan(targets=("gfx1030",))
    assert not [k for k, _ in plan.buildargs if k.startswith("APT_")]
    relaxed = _plan(targets=("gfx1030",), check_valid_until=False)
    assert dict(relaxed.buildargs)["APT_CHECK_VALID_UNTIL"] == "false"
    # The plan cannot tell a flag from a toolchain's record (upgrade): it names neither as asked.
    assert any("(this image's spec turns it off)" in w for w in relaxed.warnings)


def test_experimental_adds_its_suite_and_pins_only_rocm_to_it() -> None:
    args = dict(_plan(targets=("gfx942",), distro="experimental").buildargs)
    assert (args["APT_EXTRA_SUITES"], args["APT_PIN_RELEASE"]) == ("experimental", "experimental")
    assert args["APT_PIN_PACKAGES"].startswith("/^(lib)?(amd|hip")
    assert args["KEEP_TARGETS"] == "gfx942" and args["CLANG_VERSION"] == "22"


def test_an_expired_release_is_recognised_in_apt_output() -> None:
    from moatbridge.core.apt_log import expired_release

    lines = [
        "Get:1 http://deb.debian.org/debian sid InRelease [193 kB]",
        "E: Release file for http://deb.debian.org/debian/dists/sid/InRelease is expired "
        "(invalid since 24d 18h 30min 55s). Updates for this repository will not be applied.",
    ]
    found = expired_release(lines)
    assert found is not None
    assert (found.mirror, found.suite, found.since) == (
        "http://deb.debian.org/debian",
        "sid",
        "24d 18h 30min 55s",
    )
    assert expired_release(["E: Unable to locate package hipcc"]) is None
    # as the engine's build stream delivers it: apt's stderr in coloured pieces
    streamed = ["\x1b[91mE:\x1b[0m", "\x1b[91m \x1b[0m", "\x1b[91m" + lines[1][3:] + "\x1b[0m"]
    found = expired_release(streamed)
    assert found is not None and found.suite == "sid"


def test_space_needed_for_a_first_build_and_for_a_rebuild_over_an_existing_image() -> None:
    from moatbridge.services.image_builds import GB, required_bytes

    flavour = load_catalog(SHIPPED).flavour("open")
    plan = _plan(targets=("gfx1201",), distro="sid")
    sid_devel = flavour.distro("sid").size_gb(flavour.variant("devel"))
    assert sid_devel is not None
    assert required_bytes(plan, flavour) == int(sid_devel * 2.4 * GB)  # package stage, prune, slim
    assert required_bytes(plan, flavour, rebuild=True) == int(sid_devel * GB)  # layers cached
    assert required_bytes(_plan(distro="sid"), flavour) == int(sid_devel * 1.2 * GB)
