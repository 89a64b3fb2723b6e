"""From an image spec to a concrete, reproducible build plan (pure): ``plan_build`` is the
one entry point, for the open flavour, SCALE from its repositories and SCALE from a tarball.

The plan names the image, the Dockerfile and stage, the build arguments and the
labels. Its ``recipe_digest`` covers everything that determines the result (recipe
files, arguments, base image ID), so an image already carrying that digest is
reused without talking to the builder at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from moatbridge.core.build_plan import (
    LABEL_PREFIX,
    BaseImage,
    BuildPlan,
    compute_digest,
    image_tag,
    moatbridge_labels,
)
from moatbridge.core.catalog import Catalog, CatalogError, Distro, Flavour, Variant
from moatbridge.core.gfx import is_gfx_name, is_nvidia_target, is_target_name
from moatbridge.core.image_spec import ALL_TARGETS, ImageSource, ImageSpec
from moatbridge.core.redact import has_secret, redact_url
from moatbridge.core.scale_recipes import plan_scale_build
from moatbridge.core.scale_tarball import RECIPE as TARBALL_RECIPE
from moatbridge.core.scale_tarball import RECIPE_FILES as TARBALL_RECIPE_FILES
from moatbridge.core.scale_tarball import plan_scale_tarball_build, tarball_source
from moatbridge.errors import InputError


@dataclass(frozen=True)
class RecipeContext:
    """A build's context folder, its Dockerfile and, when the recipe uses only some of the
    folder's files (the apt, dnf and tarball recipes share one), which files the digest covers."""

    folder: Path
    dockerfile: str
    files: tuple[str, ...] | None = None


def recipe_context(spec: ImageSpec, catalog: Catalog) -> RecipeContext:
    """Which recipe ``spec`` is built from (the service digests that context before planning)."""
    flavour = catalog.flavour(spec.flavour_name)
    if flavour.name == "scale" and spec.source.channel == "tarball":
        recipe = Path(TARBALL_RECIPE)
        return RecipeContext(catalog.images_dir / recipe.parent, recipe.name, TARBALL_RECIPE_FILES)
    recipe = Path(flavour.distro(spec.distro).recipe)
    return RecipeContext(catalog.images_dir / recipe.parent, recipe.name)


def plan_build(
    spec: ImageSpec, catalog: Catalog, base: BaseImage, context_digest: str, tarball_tree: str | None = None
) -> BuildPlan:
    """The plan for ``spec``: the open flavour, or SCALE from its repository or its tarball
    (``tarball_tree``: the top directory seen in a local tarball, whose name carries the
    version when the file's does not)."""
    flavour = catalog.flavour(spec.flavour_name)
    if flavour.name == "scale" and spec.source.channel == "tarball":
        return plan_scale_tarball_build(flavour, spec, catalog, base, context_digest, tarball_tree)
    if flavour.name == "scale":
        return plan_scale_build(flavour, spec, catalog, base, context_digest)
    return _plan_open_build(flavour, spec, catalog, base, context_digest)


def normalise_targets(
    flavour: Flavour, distro: Distro, requested: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Validate requested targets against one distribution's stack; return (targets,
    warnings). ``all`` stands alone."""
    if not requested or requested == (ALL_TARGETS,):
        return (ALL_TARGETS,), ()
    if ALL_TARGETS in requested:
        raise CatalogError(
            "Target 'all' cannot be combined with named targets.", "pass either 'all' or gfx names"
        )
    warnings: list[str] = []
    for target in requested:
        if not is_target_name(target):
            raise CatalogError(
                f"{target!r} is not a gfx target name.",
                "targets look like gfx1030 or gfx90a (or, for scale's NVIDIA mode, sm_89)",
            )
        if is_nvidia_target(target):
            if target not in distro.nvidia_targets:
                raise CatalogError(
                    f"The {flavour.name} flavour has no NVIDIA mode for {target}.",
                    "SCALE's NVIDIA mode takes --flavour scale --target sm_NN (e.g. sm_89)"
                    if not distro.nvidia_targets
                    else f"NVIDIA targets: {', '.join(distro.nvidia_targets)}",
                )
            if int(re.sub(r"[af]$", "", target[3:])) < 75:
                warnings.append(f"{target}: needs an NVIDIA CUDA toolkit older than 13.0 (13.x dropped it)")
            warnings.append(
                f"{target}: SCALE's NVIDIA mode - only the compiler is SCALE's; NVIDIA's CUDA "
                "libraries and driver must be there at run time (--gpus needs the NVIDIA container toolkit)"
            )
            continue
        if not distro.compiles_for(target):
            raise CatalogError(
                f"The {flavour.name} flavour on {distro.name} (clang {distro.clang or '?'}) "
                f"cannot compile for {target}.",
                _other_stacks_hint(flavour, distro, target)
                or f"its compiler supports: {', '.join(filter(is_gfx_name, distro.compiler_targets))}",
            )
        required = distro.components_lacking(target, optional=False)
        optional = [c for c in distro.components_lacking(target) if c not in required]
        if required:
            better = _other_stacks_hint(flavour, distro, target)
            warnings.append(
                f"{target}: kernels you write compile, but {_carry(required)} no code for it "
                "(library calls will fail on that GPU)" + (f"; {better}" if better else "")
            )
        if optional:
            warnings.append(f"{target}: {_carry(optional)} no code for it on {distro.name}")
    if any(is_nvidia_target(t) for t in requested) and any(is_gfx_name(t) for t in requested):
        raise CatalogError(
            "A toolchain is either for AMD GPUs (gfx...) or for NVIDIA ones (sm_...), not both.",
            "set up one toolchain for each",
        )
    return tuple(sorted(set(requested), key=_target_key)), tuple(warnings)


def _target_key(target: str) -> tuple[int, str]:
    return (len(target), target)


def _carry(libraries: list[str] | tuple[str, ...]) -> str:
    return f"{', '.join(libraries)} {'carries' if len(libraries) == 1 else 'carry'}"


def _other_stacks_hint(flavour: Flavour, distro: Distro, target: str) -> str | None:
    others = [d.name for d in flavour.distros if d is not distro and d.serves(target)]
    return f"the {' or '.join(others)} stack serves it: --distro {others[0]}" if others else None


def _library_targets(distro: Distro, variant: Variant, per_target: bool, keep: tuple[str, ...]) -> list[str]:
    if "math-libraries" not in variant.provides:
        return []
    if per_target:
        return [t for t in keep if t in distro.library_targets]
    return sorted(distro.library_targets, key=_target_key)


def checks_valid_until(distro: Distro, override: bool | None) -> bool:
    """Whether apt refuses Release files past their Valid-Until for this build."""
    if override is not None:
        return override
    return distro.apt is None or distro.apt.check_valid_until


def valid_until_note(distro: Distro, override: bool | None, given_by: str = "--no-check-valid-until") -> str:
    """``given_by``: where the override came from (a flag, an answers file, a toolchain's record)."""
    why = given_by if override is False else f"the catalog's {distro.name} stack says so"
    return (
        f"apt accepts {distro.name}'s Release files even past their Valid-Until date ({why}): "
        "a mirror serving old metadata is not detected; --check-valid-until to refuse it"
    )


def _apt_args(distro: Distro, override: bool | None) -> dict[str, str]:
    """How the recipe's apt reaches the stack's suites (nothing for a single-suite stack
    that checks Valid-Until, so trixie's digest is what it was)."""
    args: dict[str, str] = {}
    if distro.apt is None:
        return args
    extra = list(distro.apt.suites[1:])
    if extra:
        args["APT_EXTRA_SUITES"] = " ".join(extra)
    if distro.apt.pin_release and distro.apt.pin_packages:
        args["APT_PIN_RELEASE"] = distro.apt.pin_release
        args["APT_PIN_PACKAGES"] = distro.apt.pin_packages
    if not checks_valid_until(distro, override):
        args["APT_CHECK_VALID_UNTIL"] = "false"
    return args


_MIRROR = re.compile(r"(?:https?|file)://[^\x00-\x20\x7f-\x9f'\"\\\\]+", re.ASCII)


def _mirror_args(distro: Distro, mirror: str | None) -> dict[str, str]:
    """--apt-mirror: the recipe points apt at it for the stack's first suite (its other suites,
    experimental on sid, come from the same mirror)."""
    if mirror is None:
        return {}
    if not _MIRROR.fullmatch(mirror):
        raise InputError(
            f"--apt-mirror {mirror!r} is not a mirror URL.", "e.g. --apt-mirror http://deb.example.org/debian"
        )
    if has_secret(mirror):  # build args are kept in the image history
        raise InputError(
            "--apt-mirror must not carry credentials or a token (build args stay in the image history).",
            "use a mirror that needs no credentials, or one on this host",
        )
    if distro.apt is None:
        raise CatalogError(f"The {distro.name} stack installs no Debian packages.", "drop --apt-mirror")
    return {"DEBIAN_MIRROR": mirror, "DEBIAN_SUITE": distro.apt.suites[0]}


def _plan_open_build(
    flavour: Flavour, spec: ImageSpec, catalog: Catalog, base: BaseImage, context_digest: str
) -> BuildPlan:
    """Plan a build of the open flavour (Debian packages + optional per-target pruning)."""
    variant = flavour.variant(spec.variant or flavour.default_variant)
    distro = flavour.distro(spec.distro)
    cuda = flavour.cuda(spec.cuda_version, distro)
    targets, warnings = normalise_targets(flavour, distro, spec.build_targets)
    # Only images carrying the math libraries hold per-target code worth pruning;
    # a base image is the same for every target (it is still tagged with them).
    per_target = targets != (ALL_TARGETS,) and "math-libraries" in variant.provides
    # A target some library has code for (its own, or its generic processor's) keeps it.
    served = [t for t in targets if any(c.serves(t) for c in distro.components if not c.header_only)]
    keep = tuple(served) if per_target else ()
    recipe_path = Path(distro.recipe)
    buildargs = {
        "BASE_IMAGE": base.reference,
        "PACKAGES": " ".join(distro.packages_for(variant)),
        "CUDA_VERSION": cuda,
    }
    buildargs.update(_apt_args(distro, spec.check_valid_until))
    buildargs.update(_mirror_args(distro, spec.source.apt_mirror))
    if per_target:
        # An empty keep list still prunes: it drops every library code object.
        buildargs["KEEP_TARGETS"] = ",".join(keep) if keep else "none"
    if "compiler" in variant.provides:
        # One CUDA-toolkit-shaped directory (nvcc, headers, lib64) per target the image serves.
        concrete = tuple(t for t in distro.compiler_targets if is_gfx_name(t))
        toolkit = concrete if targets == (ALL_TARGETS,) else targets
        buildargs["TOOLKIT_TARGETS"] = ",".join(toolkit)
        buildargs["CUDA_LAYER"] = "1"
        buildargs["CLANG_VERSION"] = distro.clang or ""
        buildargs["ROCM_VERSION"] = distro.rocm
    if not checks_valid_until(distro, spec.check_valid_until):
        # Never silent: every plan (and so every build and setup) says so. A build's spec is
        # the flag's or, for upgrade, the toolchain's record: the note names neither as asked.
        warnings = (
            *warnings,
            valid_until_note(distro, spec.check_valid_until, "this image's spec turns it off"),
        )
    stage = "slim" if per_target else "full"
    digest = compute_digest(
        {"buildargs": buildargs, "stage": stage, "base_id": base.image_id, "recipe": distro.recipe},
        context_digest,
    )
    reference = f"{catalog.local_repository}/{flavour.name}:" + image_tag(
        flavour, cuda, variant.name, distro.name, targets
    )
    labels = moatbridge_labels(
        flavour, variant, distro, ",".join(targets), cuda, flavour.licence, base.reference, digest
    )
    labels.update({
        "org.opencontainers.image.title": f"moatbridge {flavour.name} {variant.name} ({', '.join(targets)})",
        "org.opencontainers.image.vendor": "moatbridge",
        "org.opencontainers.image.version": f"{cuda}-{variant.name}",
        "org.opencontainers.image.licenses": f"LicenseRef-moatbridge-{flavour.licence}",
        f"{LABEL_PREFIX}library-targets": ",".join(_library_targets(distro, variant, per_target, keep)),
    })  # fmt: skip
    return BuildPlan(
        reference=reference,
        flavour=flavour.name,
        variant=variant.name,
        distro=distro,
        targets=targets,
        cuda_version=cuda,
        recipe_dir=catalog.images_dir / recipe_path.parent,
        dockerfile=recipe_path.name,
        stage=stage,
        buildargs=tuple(sorted(buildargs.items())),
        labels=tuple(sorted(labels.items())),
        recipe_digest=digest,
        warnings=warnings,
    )


def registry_reference(spec: ImageSpec, catalog: Catalog) -> str:
    """The reference a pulled image has: the flavour's tag in ``spec.source.registry`` (a team
    registry's HOST/PATH, then /<flavour>), else in the flavour's own registry."""
    flavour = catalog.flavour(spec.flavour_name)
    distro = flavour.distro(spec.distro)
    tag = flavour.tag.format(cuda=spec.cuda_version, variant=spec.variant, distro=distro.name,
                             targets="_".join(spec.build_targets), version=flavour.version or "")  # fmt: skip
    registry = spec.source.registry
    repository = f"{registry}/{flavour.name}" if registry else flavour.registries[0]
    return f"{repository}:{tag}"


def recorded_source(source: ImageSource) -> ImageSource:
    """What a toolchain records of how its image was made, never a secret: a repository URL
    that carried a token is kept masked (``repo_url_secret``: upgrade asks for it again), a
    tarball by its file name and SHA-256, a pull by its registry (nothing of a build); every
    other input as given."""
    if source.channel == "registry":
        return ImageSource(
            "registry", registry=source.registry, commercial=source.commercial, customer=source.customer,
            credentials_file=source.credentials_file,
        )  # fmt: skip
    if source.channel == "tarball":
        name = tarball_source(source.tarball).name if source.tarball else None
        return replace(source, repo_url=None, repo_url_secret=False, tarball=name)
    built = replace(source, tarball=None, tarball_sha256=None)
    url = source.repo_url
    return built if url is None else replace(built, repo_url=redact_url(url), repo_url_secret=has_secret(url))
