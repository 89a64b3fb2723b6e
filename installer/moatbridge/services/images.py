"""A toolchain's image, from its ImageSpec: pulled from a registry or built here, as its
source says. Setup and upgrade ask this; `image build` asks the build service directly."""

from __future__ import annotations

from dataclasses import dataclass, replace

from moatbridge.adapters import docker_api
from moatbridge.adapters.records import load_catalog
from moatbridge.core.image_spec import ImageSpec, RunOptions
from moatbridge.core.recipes import registry_reference
from moatbridge.services import image_builds
from moatbridge.services.registry import pull_image


@dataclass(frozen=True)
class EnsuredImage:
    reference: str
    image_id: str  # "" when a dry run has not made it
    action: str  # would pull / pulled / would-build / up-to-date / built
    digest: str | None = None  # the registry's, when pulled
    spec: ImageSpec | None = None  # as built, with what was learnt (a local tarball's SHA-256)


def check_inputs(spec: ImageSpec, options: RunOptions) -> None:
    """Bad build input (a build arg, a base image, a mirror, a tarball) refused now, before
    the engine is asked (exit 2)."""
    if spec.source.channel != "registry":
        image_builds.validate(_built(spec), options, load_catalog())


def _built(spec: ImageSpec) -> ImageSpec:
    """What a build of ``spec`` builds: SCALE images hold every target's toolkit (the
    toolchain picks its target at activation)."""
    return replace(spec, targets=None) if spec.flavour == "scale" else spec


def ensure_image(spec: ImageSpec, options: RunOptions, consent_checked: bool = False) -> EnsuredImage:
    """Pull or build the image ``spec`` names. ``consent_checked``: the caller applied the
    consent rule itself (setup, which records the acceptance only once the toolchain works);
    else a build asks for it."""
    if spec.source.channel == "registry":
        reference = registry_reference(spec, load_catalog())
        if options.dry_run:
            return EnsuredImage(reference, "", "would pull", spec=spec)
        client = docker_api.connect()
        image_id, digest = pull_image(client, reference, retries=4, stall_timeout=60, quiet=options.quiet)
        return EnsuredImage(reference, image_id, "pulled", digest, spec)
    result = image_builds.build(_built(spec), options, consent_checked=consent_checked)
    return EnsuredImage(
        result.reference, result.image_id, result.action, spec=replace(result.spec, targets=spec.targets)
    )
