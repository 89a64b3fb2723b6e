"""The SCALE side of `image build` (and so of setup and upgrade): which repository or
tarball, which base image, the credentials that only the loopback proxy sees, and the one
consent rule before anything of SCALE's is installed."""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from moatbridge.adapters import docker_api
from moatbridge.adapters.build_context import context_digest
from moatbridge.adapters.credentials import load_credentials
from moatbridge.adapters.repo_proxy import Credentials, serve_repo_proxy
from moatbridge.commands import _scale_tarball as tarball
from moatbridge.core.answers import validate_customer
from moatbridge.core.catalog import Catalog, Distro, Flavour
from moatbridge.core.recipes import BuildPlan, BuildRequest
from moatbridge.core.redact import is_secret_name, redact_url
from moatbridge.core.scale_recipes import plan_scale_build, repository_url
from moatbridge.errors import InputError
from moatbridge.paths import Paths

if TYPE_CHECKING:
    from moatbridge.commands.image_build import BuildOptions


def is_commercial(options: BuildOptions) -> bool:
    """Commercial use: asked for, or implied by customer credentials (never sent to the
    free repository, never labelled otherwise)."""
    return options.commercial or options.credentials_file is not None


def extra_build_args(values: tuple[str, ...] | None) -> tuple[tuple[str, str], ...]:
    pairs = []
    for value in values or ():
        name, sep, content = value.partition("=")
        if not sep or not name.isidentifier():
            raise InputError(
                f"--build-arg {value!r} is not NAME=VALUE.", "e.g. --build-arg SCALE_VERSION=1.7.2"
            )
        if is_secret_name(name):
            raise InputError(
                f"--build-arg {name} looks like a secret; build args are stored in the image history.",
                "put repository credentials in a file and pass --credentials-file",
            )
        pairs.append((name, content))
    return tuple(pairs)


def plan(
    options: BuildOptions, catalog: Catalog, flavour: Flavour, request: BuildRequest, client: Any, say: Any
) -> BuildPlan:
    distro = flavour.distro(options.distro)  # the first is the vendor's default (ubuntu24.04)
    request = BuildRequest(
        request.flavour, request.variant, request.targets, request.cuda_version, distro.name
    )
    commercial = is_commercial(options)
    if options.tarball is not None:
        base = base_image(options, distro, client, say)
        extra = extra_build_args(options.build_arg)
        return tarball.plan(options.tarball, catalog, flavour, request, base, commercial, extra)
    if options.customer is not None:
        validate_customer(options.customer)  # it becomes a path segment of the repository URL
    # The same answer for the repository, the licence label and the consent: a credentials
    # file is never sent to the free repository.
    upstream = options.repo_url or repository_url(flavour, distro, commercial, options.customer)
    parts = urlsplit(upstream)
    if parts.username or parts.password:
        raise InputError(
            "The repository URL must not contain credentials: build args are stored in the image history.",
            "put them in a file (mode 600) and pass --credentials-file",
        )
    base_ref, base_id = base_image(options, distro, client, say)
    context = catalog.images_dir / Path(distro.recipe).parent
    return plan_scale_build(
        flavour, request, catalog.images_dir, catalog.local_repository, base_ref, base_id,
        context_digest(context, Path(distro.recipe).name), upstream, commercial=commercial,
        extra_args=extra_build_args(options.build_arg),
    )  # fmt: skip


def base_image(options: BuildOptions, distro: Distro, client: Any, say: Any) -> tuple[str, str]:
    """The base image of a SCALE build (--base-image, else the catalog's), pulled when missing."""
    base_ref = options.base_image or distro.base_image
    local = docker_api.inspect_image(client, base_ref)
    if local is not None:
        return base_ref, str(local["Id"])
    if options.dry_run:
        return base_ref, "not-yet-pulled"
    repository, _, tag = base_ref.rpartition(":")
    say(f"Pulling base image {base_ref}")
    docker_api.pull(client, repository, tag)
    return base_ref, str((docker_api.inspect_image(client, base_ref) or {}).get("Id"))


def enter_repo_proxy(stack: ExitStack, upstream: str, credentials: Credentials | None) -> str:
    """Serve ``upstream`` through the loopback proxy for as long as ``stack``; its URL."""
    try:
        return str(stack.enter_context(serve_repo_proxy(upstream, credentials)))
    except ValueError as exc:
        raise InputError(
            f"The repository {redact_url(upstream)} cannot be used: {exc}.", "fix the URL"
        ) from None


def credentials(options: BuildOptions) -> Credentials | None:
    if options.credentials_file:
        return load_credentials(Path(options.credentials_file))
    if options.commercial and options.tarball is None:  # a tarball: only credentials given for it
        return load_credentials(Paths.from_environ(os.environ).credentials / "scale.json")
    return None


def require_consent(flavour: Flavour, options: BuildOptions) -> None:
    """The one consent rule: installing SCALE accepts its licence (the recipe sets
    SCALE_LICENSE_ACCEPT=1 for the vendor's package), so the user's acceptance must be on
    record first, as for every other path to a licence-gated toolchain."""
    from moatbridge.adapters.records import load_licences
    from moatbridge.commands._consent import consents
    from moatbridge.core import licences

    licence_id = (
        (flavour.commercial_licence or flavour.licence) if is_commercial(options) else flavour.licence
    )
    licence = load_licences()[licence_id]
    if licence.acceptance_required:
        paths = Paths.from_environ(os.environ)
        licences.require_consent(
            licence, consents(paths).read(licence.id), f"Building a {flavour.name} image"
        )
