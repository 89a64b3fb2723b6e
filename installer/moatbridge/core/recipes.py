"""Turning a build request into a concrete, reproducible build plan (pure).

The plan names the image, the Dockerfile and stage, the build arguments and the
labels. Its ``recipe_digest`` covers everything that determines the result (recipe
files, arguments, base image ID), so an image already carrying that digest is
reused without talking to the builder at all.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from moatbridge import __version__
from moatbridge.core.catalog import CatalogError, Distro, Flavour, Variant
from moatbridge.core.gfx import is_gfx_name, is_nvidia_target, is_target_name

LABEL_PREFIX = "io.moatbridge."
MANAGED_LABEL = f"{LABEL_PREFIX}managed"
DIGEST_LABEL = f"{LABEL_PREFIX}recipe-digest"
ALL_TARGETS = "all"


@dataclass(frozen=True)
class BuildRequest:
    flavour: str
    variant: str | None = None
    targets: tuple[str, ...] = (ALL_TARGETS,)
    cuda_version: str | None = None
    distro: str | None = None
    # None: as the stack's catalog entry says; False: accept Release files past Valid-Until.
    check_valid_until: bool | None = None


@dataclass(frozen=True)
class BuildPlan:
    reference: str
    flavour: str
    variant: str
    distro: Distro
    targets: tuple[str, ...]  # ("all",) or sorted gfx names
    cuda_version: str
    recipe_dir: Path  # the build context
    dockerfile: str  # relative to recipe_dir
    stage: str | None
    buildargs: tuple[tuple[str, str], ...]
    labels: tuple[tuple[str, str], ...]
    recipe_digest: str
    warnings: tuple[str, ...]
    aliases: tuple[str, ...] = ()  # more references for the same image (the vendor's `latest`)


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


def image_tag(
    flavour: Flavour,
    cuda: str,
    variant: str,
    distro: str,
    targets: tuple[str, ...],
    version: str | None = None,
) -> str:
    return flavour.tag.format(
        cuda=cuda, variant=variant, distro=distro, targets="_".join(targets),
        version=version or flavour.version or "",
    )  # fmt: skip


def _library_targets(distro: Distro, variant: Variant, per_target: bool, keep: tuple[str, ...]) -> list[str]:
    if "math-libraries" not in variant.provides:
        return []
    if per_target:
        return [t for t in keep if t in distro.library_targets]
    return sorted(distro.library_targets, key=_target_key)


def moatbridge_labels(
    flavour: Flavour,
    variant: Variant,
    distro: Distro,
    targets: str,
    cuda: str,
    licence: str,
    base_image: str,
    digest: str,
) -> dict[str, str]:
    """The labels every image moatbridge builds carries, whatever its flavour."""
    return {
        "org.opencontainers.image.description": variant.description,
        "org.opencontainers.image.base.name": base_image,
        MANAGED_LABEL: "1",
        f"{LABEL_PREFIX}flavour": flavour.name,
        f"{LABEL_PREFIX}variant": variant.name,
        f"{LABEL_PREFIX}distro": distro.name,
        f"{LABEL_PREFIX}targets": targets,
        f"{LABEL_PREFIX}cuda-version": cuda,
        f"{LABEL_PREFIX}rocm-version": distro.rocm,
        f"{LABEL_PREFIX}licence": licence,
        f"{LABEL_PREFIX}moatbridge-version": __version__,
        DIGEST_LABEL: digest,
    }  # fmt: skip


def checks_valid_until(distro: Distro, override: bool | None) -> bool:
    """Whether apt refuses Release files past their Valid-Until for this build."""
    if override is not None:
        return override
    return distro.apt is None or distro.apt.check_valid_until


def valid_until_note(distro: Distro, override: bool | None) -> str:
    why = "--no-check-valid-until" if override is False else f"the catalog's {distro.name} stack says so"
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


def compute_digest(parts: dict[str, object], context_digest: str) -> str:
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{canonical}\n{context_digest}".encode()).hexdigest()


def plan_open_build(
    flavour: Flavour,
    request: BuildRequest,
    images_dir: Path,
    local_repository: str,
    base_image: str,
    base_image_id: str,
    context_digest: str,
) -> BuildPlan:
    """Plan a build of the open flavour (Debian packages + optional per-target pruning)."""
    variant = flavour.variant(request.variant or flavour.default_variant)
    distro = flavour.distro(request.distro)
    cuda = flavour.cuda(request.cuda_version, distro)
    targets, warnings = normalise_targets(flavour, distro, request.targets)
    # Only images carrying the math libraries hold per-target code worth pruning;
    # a base image is the same for every target (it is still tagged with them).
    per_target = targets != (ALL_TARGETS,) and "math-libraries" in variant.provides
    # A target some library has code for (its own, or its generic processor's) keeps it.
    served = [t for t in targets if any(c.serves(t) for c in distro.components if not c.header_only)]
    keep = tuple(served) if per_target else ()
    recipe_path = Path(distro.recipe)
    buildargs = {
        "BASE_IMAGE": base_image,
        "PACKAGES": " ".join(distro.packages_for(variant)),
        "CUDA_VERSION": cuda,
    }
    buildargs.update(_apt_args(distro, request.check_valid_until))
    if per_target:
        # An empty keep list still prunes: it drops every library code object.
        buildargs["KEEP_TARGETS"] = ",".join(keep) if keep else "none"
    if "compiler" in variant.provides:
        # One CUDA-toolkit-shaped directory (nvcc, headers, lib64) per target the image serves.
        concrete = tuple(t for t in distro.compiler_targets if is_gfx_name(t))
        toolkit = concrete if targets == (ALL_TARGETS,) else targets
        buildargs["TOOLKIT_TARGETS"] = ",".join(toolkit)
        buildargs["CLANG_VERSION"] = distro.clang or ""
        buildargs["ROCM_VERSION"] = distro.rocm
    if not checks_valid_until(distro, request.check_valid_until):
        # Never silent: every plan (and so every build and setup) says so.
        warnings = (*warnings, valid_until_note(distro, request.check_valid_until))
    stage = "slim" if per_target else "full"
    digest = compute_digest(
        {"buildargs": buildargs, "stage": stage, "base_id": base_image_id, "recipe": distro.recipe},
        context_digest,
    )
    reference = f"{local_repository}/{flavour.name}:" + image_tag(
        flavour, cuda, variant.name, distro.name, targets
    )
    labels = moatbridge_labels(
        flavour, variant, distro, ",".join(targets), cuda, flavour.licence, base_image, digest
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
        recipe_dir=images_dir / recipe_path.parent,
        dockerfile=recipe_path.name,
        stage=stage,
        buildargs=tuple(sorted(buildargs.items())),
        labels=tuple(sorted(labels.items())),
        recipe_digest=digest,
        warnings=warnings,
    )


def pinned_drift(pinned: tuple[tuple[str, str], ...], installed_tsv: str) -> tuple[int, list[str]]:
    """Compare the catalog's pinned versions with dpkg's list from the image.

    Returns (how many pinned packages were found installed, one line per drift).
    """
    installed = dict(line.split("\t", 1) for line in installed_tsv.splitlines() if "\t" in line)
    checked = 0
    drift = []
    for package, expected in pinned:
        actual = installed.get(package)
        if actual is None:
            continue  # not part of this variant
        checked += 1
        if actual != expected:
            drift.append(f"{package} {actual} (catalog pins {expected})")
    return checked, drift
