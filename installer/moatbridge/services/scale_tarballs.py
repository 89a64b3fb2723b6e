"""A SCALE tarball build's I/O around the pure planner (core/scale_tarball.py): checking a
local file, hashing it, serving it on loopback (or a URL with a token through the repo
proxy) for the length of the build."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from moatbridge.adapters.file_server import check_tarball, file_sha256, serve_file
from moatbridge.adapters.repo_proxy import Credentials, serve_repo_proxy
from moatbridge.core.image_spec import ImageSpec
from moatbridge.core.redact import has_secret, redact_url
from moatbridge.core.scale_tarball import tarball_source
from moatbridge.errors import InputError


def check_tarball_option(spec: ImageSpec) -> None:
    """--tarball: SCALE only, no repository flags; a local file must be an xz tarball
    (read from its first bytes). Cheap: bad input is exit 2 before the engine is asked."""
    if spec.source.tarball is None:
        return
    if spec.flavour != "scale" or spec.source.repo_url is not None:
        raise InputError(
            "--tarball builds SCALE from the vendor's tarball, without a package repository.",
            "use --flavour scale --tarball FILE_OR_URL, without --repo-url",
        )
    source = tarball_source(spec.source.tarball)
    if not source.is_url:
        check_tarball(Path(source.location))


def with_tarball_facts(spec: ImageSpec) -> tuple[ImageSpec, str | None]:
    """The spec with a local tarball's SHA-256 (which the digest and the record cover), and
    the top directory seen in it; a URL's are not known before the build."""
    if spec.source.tarball is None:
        return spec, None
    source = tarball_source(spec.source.tarball)
    if source.is_url:
        return spec, None
    tree = check_tarball(Path(source.location))
    sha256 = file_sha256(Path(source.location))  # once per process (setup plans twice)
    return replace(spec, source=replace(spec.source, tarball_sha256=sha256)), tree


def enter_tarball(stack: ExitStack, tarball: str, credentials: Credentials | None) -> str:
    """The URL the build fetches the tarball from, valid for as long as ``stack``: a local
    file is served on loopback; a URL with a token or credentials goes through the proxy."""
    source = tarball_source(tarball)
    if not source.is_url:
        return str(stack.enter_context(serve_file(Path(source.location))))
    if credentials is None and not has_secret(source.location):
        return source.location
    parts = urlsplit(source.location)
    folder, _, name = parts.path.rpartition("/")
    upstream = urlunsplit((parts.scheme, parts.netloc, folder, parts.query, ""))
    try:
        return f"{stack.enter_context(serve_repo_proxy(upstream, credentials))}/{name}"
    except ValueError as exc:
        raise InputError(f"The tarball URL {redact_url(source.location)} cannot be used: {exc}.",
                         "fix the URL") from None  # fmt: skip
