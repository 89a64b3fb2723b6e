"""The image a build starts from: the open flavour's Debian base (found, pulled or
bootstrapped with debootstrap from a mirror) or SCALE's (--base-image, else the catalog's)."""

from __future__ import annotations

from typing import Any

from moatbridge.adapters import docker_api
from moatbridge.adapters.bootstrap import bootstrap_base
from moatbridge.core.build_plan import BaseImage
from moatbridge.core.catalog import Catalog, Distro
from moatbridge.core.image_spec import ImageSpec, RunOptions
from moatbridge.core.redact import redact_url
from moatbridge.errors import InputError


def base_for(spec: ImageSpec, options: RunOptions, catalog: Catalog, client: Any, say: Any) -> BaseImage:
    """The base image of a build of ``spec``, made or fetched as ``options`` say."""
    flavour = catalog.flavour(spec.flavour_name)
    distro = flavour.distro(spec.distro)  # SCALE: the first is the vendor's default (ubuntu24.04)
    if flavour.name == "scale":
        return scale_base(spec.source.base_image or distro.base_image, client, say, options.dry_run)
    reference, image_id = ensure_base(client, distro, options.base, options.mirror, say, options.dry_run)
    return BaseImage(reference, image_id)


def ensure_base(
    client: Any, distro: Distro, mode: str, mirror: str | None, say: Any, dry_run: bool = False
) -> tuple[str, str]:
    """Find or make the base image; returns (reference, image ID).

    auto: a local copy of the catalog's base or of our bootstrapped one, else pull,
    else debootstrap (the path for sites that cannot reach Docker Hub). A dry run
    only looks for local copies.
    """
    boot = distro.bootstrap
    if dry_run:
        for candidate in (boot.tag if boot else None, distro.base_image):
            local = docker_api.inspect_image(client, candidate) if candidate else None
            if local is not None:
                return str(candidate), str(local["Id"])
        return (boot.tag if boot and mode != "pull" else distro.base_image), "not-yet-made"
    if mode in ("auto", "bootstrap") and boot is not None:
        local = docker_api.inspect_image(client, boot.tag)
        if local is not None and not (mode == "bootstrap" and mirror):
            return boot.tag, str(local["Id"])
    if mode in ("auto", "pull"):
        local = docker_api.inspect_image(client, distro.base_image)
        if local is not None:
            return distro.base_image, str(local["Id"])
        repository, _, tag = distro.base_image.rpartition(":")
        try:
            say(f"Pulling base image {distro.base_image}")
            docker_api.pull(client, repository, tag)
            pulled = docker_api.inspect_image(client, distro.base_image)
            if pulled is not None:
                return distro.base_image, str(pulled["Id"])
        except docker_api.TransferFailed as exc:
            if mode == "pull" or boot is None:
                raise
            say(f"Cannot pull {distro.base_image} ({exc.message}); bootstrapping it from a mirror")
    if boot is None:
        raise InputError(f"The {distro.name} recipe has no bootstrap recipe.", "use --base pull")
    say(f"Bootstrapping {boot.tag} with debootstrap from {redact_url(mirror or boot.mirror)}")
    image_id = bootstrap_base(client, boot, mirror, lambda line: None)
    return boot.tag, image_id


def scale_base(reference: str, client: Any, say: Any, dry_run: bool) -> BaseImage:
    """A SCALE build's base image, pulled when missing (a dry run only looks)."""
    local = docker_api.inspect_image(client, reference)
    if local is not None:
        return BaseImage(reference, str(local["Id"]))
    if dry_run:
        return BaseImage(reference, "not-yet-pulled")
    repository, _, tag = reference.rpartition(":")
    say(f"Pulling base image {reference}")
    docker_api.pull(client, repository, tag)
    return BaseImage(reference, str((docker_api.inspect_image(client, reference) or {}).get("Id")))
