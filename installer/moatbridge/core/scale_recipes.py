"""Planning a SCALE image build from the vendor's package repositories (pure).

The recipes follow the vendor's documented procedure (images/scale/Dockerfile.apt and
Dockerfile.dnf). The plan pins the catalog's SCALE version, tells the recipe which
repository lines are the vendor's own (only those are pointed at a mirror or at
moatbridge's loopback proxy), and never carries a credential: a commercial build is
pointed at the loopback proxy later, which must not change the digest.

Every channel (the free repository, the customer's, a tarball: core/scale_tarball.py) tags
its own image: the same version from two channels is two images, never one tag moving
between them.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from moatbridge.core.answers import validate_customer
from moatbridge.core.build_plan import (
    LABEL_PREFIX,
    BaseImage,
    BuildPlan,
    compute_digest,
    image_tag,
    moatbridge_labels,
)
from moatbridge.core.catalog import Catalog, CatalogError, Distro, Flavour, Variant
from moatbridge.core.gfx import is_gfx_name
from moatbridge.core.image_spec import ALL_TARGETS, ImageSpec
from moatbridge.core.redact import is_secret, redact_text
from moatbridge.errors import InputError

# A SCALE release as the vendor numbers it (1.7.2); it reaches a tag and `scale=<version>`.
VERSION = re.compile(r"[0-9]+(?:\.[0-9]+){1,3}", re.ASCII)


def repository_url(flavour: Flavour, distro: Distro, commercial: bool, customer: str | None) -> str:
    """The vendor repository a build of ``distro`` installs from (the customer's for commercial use)."""
    fmt = distro.package_format_or_default
    if not commercial:
        return flavour.repository(fmt, "free")
    if not customer:
        raise CatalogError(
            "The commercial SCALE repository needs your customer name.", "pass --customer NAME"
        )
    return flavour.repository(fmt, "commercial").format(customer=customer)


def check_request(flavour: Flavour, spec: ImageSpec, source: str) -> tuple[Variant, Distro, str]:
    """(variant, distro, CUDA version) of a SCALE build from ``source`` ("packages", "a tarball")."""
    variant = flavour.variant(spec.variant or flavour.default_variant)
    if variant.name != "devel":
        raise CatalogError(
            f"Building SCALE's {variant.name} variant from {source} is not supported.",
            f"pull the vendor's image instead: {flavour.registries[0]}:<cuda>-{variant.name}-<distro>",
        )
    if spec.targets not in (None, (), (ALL_TARGETS,)):
        raise CatalogError(
            "SCALE images carry every target's toolkit (/opt/scale/targets/<gfx>); --target does not apply.",
            "drop --target; pick the target when activating: scaleenv gfx1100",
        )
    distro = flavour.distro(spec.distro)  # the first is the vendor's default (ubuntu24.04)
    return variant, distro, flavour.cuda(spec.cuda_version, distro)


def extra_build_args(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """``--build-arg NAME=VALUE`` as pairs; one that looks like a secret, by its name or by its
    value's shape, is refused (build args are kept in the image history)."""
    pairs = []
    for value in values:
        name, sep, content = value.partition("=")
        if not sep or not name.isidentifier():
            raise InputError(
                f"--build-arg {redact_text(value)!r} is not NAME=VALUE.",
                "e.g. --build-arg SCALE_VERSION=1.7.2",
            )
        if is_secret(name, content):  # by its name, or by its value's shape (GH_PAT=ghp_...)
            raise InputError(
                f"--build-arg {name} looks like a secret; build args are stored in the image history.",
                "put repository credentials in a file and pass --credentials-file",
            )
        pairs.append((name, content))
    return tuple(pairs)


def is_commercial(spec: ImageSpec) -> bool:
    """Commercial use: asked for, or implied by customer credentials (never sent to the
    free repository, never labelled otherwise)."""
    return spec.source.commercial or spec.source.credentials_file is not None


def upstream_repository(flavour: Flavour, spec: ImageSpec) -> str:
    """The repository a build installs from as the user knows it: ``--repo-url`` (a mirror),
    else the vendor's (the customer's for commercial use). Never with credentials in it."""
    distro = flavour.distro(spec.distro)
    commercial = is_commercial(spec)
    if spec.source.customer is not None:
        validate_customer(spec.source.customer)  # it becomes a path segment of the repository URL
    upstream = spec.source.repo_url or repository_url(flavour, distro, commercial, spec.source.customer)
    parts = urlsplit(upstream)
    if parts.username or parts.password:
        raise InputError(
            "The repository URL must not contain credentials: build args are stored in the image history.",
            "put them in a file (mode 600) and pass --credentials-file",
        )
    return upstream


def pinned_version(flavour: Flavour, extra: dict[str, str]) -> str:
    """The catalog's version, or the one ``--build-arg SCALE_VERSION`` names ("" = the newest)."""
    version = extra.get("SCALE_VERSION", flavour.version or "")
    if version and not VERSION.fullmatch(version):
        raise InputError(f"--build-arg SCALE_VERSION={version!r} is not a SCALE version.", "e.g. 1.7.2")
    return version


def finish_plan(
    flavour: Flavour,
    variant: Variant,
    distro: Distro,
    cuda: str,
    version: str,
    channel: str,
    commercial: bool,
    local_repository: str,
    base_image: str,
    digest: str,
    recipe: str,
    buildargs: dict[str, str],
    extra_labels: dict[str, str],
) -> BuildPlan:
    """The plan every SCALE channel ends with: tag, labels, aliases.

    ``channel``: "repository" or "tarball". The tag names the version, then the channel
    when it is not the vendor's free repository; only that one gets the vendor's moving
    ``latest`` / ``latest-<version>`` tags, for the vendor's default CUDA/variant/distro."""
    licence = (flavour.commercial_licence or flavour.licence) if commercial else flavour.licence
    suffix = "".join(("-tarball" if channel == "tarball" else "", "-commercial" if commercial else ""))
    tag = image_tag(flavour, cuda, variant.name, distro.name, (ALL_TARGETS,), version or "newest") + suffix
    amd = ",".join(t for t in distro.compiler_targets if is_gfx_name(t))
    labels = moatbridge_labels(flavour, variant, distro, amd, cuda, licence, base_image, digest)
    how = "" if channel == "repository" else ", from the tarball"
    labels.update({
        "org.opencontainers.image.title": f"SCALE {version or 'newest'} {variant.name} ({distro.name}{how})",
        "org.opencontainers.image.vendor": "moatbridge (SCALE by Spectral Compute)",
        "org.opencontainers.image.version": tag,
        "org.opencontainers.image.licenses": f"LicenseRef-{licence}",
        f"{LABEL_PREFIX}scale-version": version or "newest",
        f"{LABEL_PREFIX}scale-channel": channel,
        **extra_labels,
    })  # fmt: skip
    repository = f"{local_repository}/{flavour.name}"
    default = (cuda, variant.name, distro.name) == (
        flavour.distros[0].default_cuda,
        flavour.default_variant,
        flavour.distros[0].name,
    )
    aliases: tuple[str, ...] = ()
    if default and not suffix and version:
        aliases = (("latest",) if version == flavour.version else ()) + (f"latest-{version}",)
    return BuildPlan(
        reference=f"{repository}:{tag}",
        flavour=flavour.name,
        variant=variant.name,
        distro=distro,
        targets=(ALL_TARGETS,),
        cuda_version=cuda,
        recipe_dir=Path(recipe).parent,
        dockerfile=Path(recipe).name,
        stage=None,
        buildargs=tuple(sorted(buildargs.items())),
        labels=tuple(sorted(labels.items())),
        recipe_digest=digest,
        warnings=(),
        aliases=tuple(f"{repository}:{alias}" for alias in aliases),
    )


def plan_scale_build(
    flavour: Flavour, spec: ImageSpec, catalog: Catalog, base: BaseImage, context_digest: str
) -> BuildPlan:
    """Plan a build of SCALE from the vendor's apt or dnf repository.

    The repository is the one the user knows (``upstream_repository``); a commercial build
    or one whose URL carries a token is later pointed at a loopback proxy instead, which must
    not change the digest.
    """
    variant, distro, cuda = check_request(flavour, spec, "packages")
    if distro.package_format is None:
        raise CatalogError(
            f"The {distro.name} recipe ({distro.recipe}) installs from no known package format.",
            "use --distro " + " or ".join(d.name for d in flavour.distros if d.package_format),
        )
    repo_url = upstream_repository(flavour, spec)
    commercial = is_commercial(spec)
    extra = dict(extra_build_args(spec.source.build_args))
    version = pinned_version(flavour, extra)
    buildargs = {
        "SCALE_VENDOR_HOSTS": " ".join(flavour.vendor_hosts),
        "SCALE_DEFAULT_REPO_URL": flavour.repository(distro.package_format, "free"),
        **extra,
        # Pinned: the tag names this version, so the recipe installs exactly it.
        "SCALE_VERSION": version,
        "BASE_IMAGE": base.reference,
        "CUDA_VERSION": cuda,
        "SCALE_REPO_SOURCE": "remove" if commercial else "restore",
    }
    if distro.package_format == "deb" and distro.codename:
        buildargs["DISTRO_CODENAME"] = distro.codename
    digest = compute_digest(
        {"buildargs": buildargs, "repo": repo_url, "base_id": base.image_id, "recipe": distro.recipe},
        context_digest,
    )
    recipe = str(catalog.images_dir / distro.recipe)
    return finish_plan(
        flavour, variant, distro, cuda, version, "repository", commercial, catalog.local_repository,
        base.reference, digest, recipe, {**buildargs, "SCALE_REPO_URL": repo_url}, {},
    )  # fmt: skip
