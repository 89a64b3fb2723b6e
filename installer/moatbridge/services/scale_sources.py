"""Where a SCALE build installs from, beyond the recipe: the repository the build reaches
through the loopback proxy (which alone sees the credentials), the credentials file, and
what commercial use needs before anything is built."""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path

from moatbridge.adapters.credentials import load_credentials
from moatbridge.adapters.repo_proxy import Credentials, serve_repo_proxy
from moatbridge.core.image_spec import ImageSpec
from moatbridge.core.licences import LicenceError
from moatbridge.core.redact import redact_url
from moatbridge.core.scale_recipes import is_commercial
from moatbridge.core.scale_tarball import tarball_source
from moatbridge.errors import InputError
from moatbridge.paths import Paths


def enter_repo_proxy(stack: ExitStack, upstream: str, credentials: Credentials | None) -> str:
    """Serve ``upstream`` through the loopback proxy for as long as ``stack``; its URL."""
    try:
        return str(stack.enter_context(serve_repo_proxy(upstream, credentials)))
    except ValueError as exc:
        raise InputError(
            f"The repository {redact_url(upstream)} cannot be used: {exc}.", "fix the URL"
        ) from None


def credentials_path(spec: ImageSpec, paths: Paths) -> Path | None:
    """The credentials file a build reads: the one named, else for a commercial repository
    build the default place. A tarball URL gets only credentials given for it; a local
    tarball, served on loopback, none."""
    named = spec.source.credentials_file
    if spec.source.channel == "tarball":
        tarball = spec.source.tarball
        return Path(named) if named and tarball and tarball_source(tarball).is_url else None
    if named:
        return Path(named)
    return paths.credentials / "scale.json" if spec.source.commercial else None


def credentials(spec: ImageSpec) -> Credentials | None:
    path = credentials_path(spec, Paths.from_environ(os.environ))
    return load_credentials(path) if path is not None else None


def check_commercial(spec: ImageSpec) -> None:
    """A commercial SCALE build needs the customer repository (its name, or --repo-url for a
    mirror of it) and readable credentials for it: one clear error (exit 2) before any build.
    A pull from the customer's own registry needs neither (the engine's login serves it), nor
    does a local tarball (air-gapped sites carry the customer's tarball in); a tarball URL
    needs credentials only when its server asks for them (checked when given)."""
    source = spec.source
    if spec.flavour != "scale" or not is_commercial(spec) or source.channel == "registry":
        return
    if source.tarball is not None:
        if tarball_source(source.tarball).is_url and source.credentials_file:
            _check_credentials(Path(source.credentials_file), "your tarball's server")
        return
    if not source.customer and not source.repo_url:
        raise LicenceError(
            "Commercial use of SCALE needs your customer repository, whose URL has your customer name.",
            "pass --customer NAME and --credentials-file FILE, or choose the open flavour "
            "(free for commercial use)",
        )
    path = credentials_path(spec, Paths.from_environ(os.environ))
    assert path is not None  # a commercial repository build always has its place
    _check_credentials(path, "your customer repository")


def _check_credentials(path: Path, what: str) -> None:
    try:
        load_credentials(path)  # checked now; the build reads it again
    except InputError as exc:
        raise InputError(
            f"{exc.message.rstrip('.')}; commercial use of SCALE needs it to reach {what}.",
            f"{exc.hint}; or pass --credentials-file FILE" if exc.hint else "pass --credentials-file FILE",
        ) from None
