"""Planning a SCALE image build from the vendor's package repositories (pure).

The recipes follow the vendor's documented procedure (images/scale/Dockerfile.apt and
Dockerfile.dnf). The plan pins the catalog's SCALE version, tells the recipe which
repository lines are the vendor's own (only those are pointed at a mirror or at
moatbridge's loopback proxy), and never carries a credential: a commercial build is
pointed at the loopback proxy later, which must not change the digest.
"""

from __future__ import annotations

from pathlib import Path

from moatbridge.core.catalog import CatalogError, Distro, Flavour
from moatbridge.core.gfx import is_gfx_name
from moatbridge.core.recipes import (
    ALL_TARGETS,
    BuildPlan,
    BuildRequest,
    _moatbridge_labels,
    compute_digest,
    image_tag,
)


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


def latest_aliases(
    flavour: Flavour, cuda: str, variant: str, distro: Distro, version: str
) -> tuple[str, ...]:
    """The vendor's moving tags: ``latest`` is the default CUDA/devel/distro of the newest
    SCALE, ``latest-<version>`` the same for one version."""
    if (cuda, variant, distro.name) != (flavour.distros[0].default_cuda, flavour.default_variant,
                                         flavour.distros[0].name):  # fmt: skip
        return ()
    return ("latest", f"latest-{version}") if version == flavour.version else (f"latest-{version}",)


def plan_scale_build(
    flavour: Flavour,
    request: BuildRequest,
    images_dir: Path,
    local_repository: str,
    base_image: str,
    base_image_id: str,
    context_digest: str,
    repo_url: str,
    commercial: bool,
    extra_args: tuple[tuple[str, str], ...] = (),
) -> BuildPlan:
    """Plan a build of SCALE from the vendor's apt or dnf repository.

    ``repo_url`` is the repository as the user knows it; a commercial build is later
    pointed at a loopback proxy instead, which must not change the digest.
    """
    variant = flavour.variant(request.variant or flavour.default_variant)
    if variant.name != "devel":
        raise CatalogError(
            f"Building SCALE's {variant.name} variant from packages is not supported.",
            f"pull the vendor's image instead: {flavour.registries[0]}:<cuda>-{variant.name}-<distro>",
        )
    distro = flavour.distro(request.distro)
    if distro.package_format is None:
        raise CatalogError(
            f"The {distro.name} recipe ({distro.recipe}) installs from no known package format.",
            "use --distro " + " or ".join(d.name for d in flavour.distros if d.package_format),
        )
    cuda = flavour.cuda(request.cuda_version, distro)
    if request.targets not in ((), (ALL_TARGETS,)):
        raise CatalogError(
            "SCALE images carry every target's toolkit (/opt/scale/targets/<gfx>); --target does not apply.",
            "drop --target; pick the target when activating: scaleenv gfx1100",
        )
    buildargs = {
        # Pinned: the tag names this version, so the recipe installs exactly it.
        "SCALE_VERSION": flavour.version or "",
        "SCALE_VENDOR_HOSTS": " ".join(flavour.vendor_hosts),
        "SCALE_DEFAULT_REPO_URL": flavour.repository(distro.package_format, "free"),
    }
    buildargs.update(dict(extra_args))
    buildargs.update(
        BASE_IMAGE=base_image,
        CUDA_VERSION=cuda,
        SCALE_REPO_SOURCE="remove" if commercial else "restore",
    )
    if distro.package_format == "deb" and distro.codename:
        buildargs["DISTRO_CODENAME"] = distro.codename
    version = buildargs["SCALE_VERSION"] or "newest"
    licence = (flavour.commercial_licence or flavour.licence) if commercial else flavour.licence
    digest = compute_digest(
        {"buildargs": buildargs, "repo": repo_url, "base_id": base_image_id, "recipe": distro.recipe},
        context_digest,
    )
    tag = image_tag(flavour, cuda, variant.name, distro.name, (ALL_TARGETS,), version)
    amd = ",".join(t for t in distro.compiler_targets if is_gfx_name(t))
    labels = _moatbridge_labels(flavour, variant, distro, amd, cuda, licence, base_image, digest)
    labels.update({
        "org.opencontainers.image.title": f"SCALE {version} {variant.name} ({distro.name})",
        "org.opencontainers.image.vendor": "moatbridge (SCALE by Spectral Compute)",
        "org.opencontainers.image.version": tag,
        "org.opencontainers.image.licenses": f"LicenseRef-{licence}",
        "io.moatbridge.scale-version": version,
    })  # fmt: skip
    repository = f"{local_repository}/{flavour.name}"
    return BuildPlan(
        reference=f"{repository}:{tag}",
        flavour=flavour.name,
        variant=variant.name,
        distro=distro,
        targets=(ALL_TARGETS,),
        cuda_version=cuda,
        recipe_dir=images_dir / Path(distro.recipe).parent,
        dockerfile=Path(distro.recipe).name,
        stage=None,
        buildargs=tuple(sorted({**buildargs, "SCALE_REPO_URL": repo_url}.items())),
        labels=tuple(sorted(labels.items())),
        recipe_digest=digest,
        warnings=(),
        aliases=tuple(
            f"{repository}:{alias}" for alias in latest_aliases(flavour, cuda, variant.name, distro, version)
        ),
    )
