"""`image build --flavour scale --tarball FILE|URL` (and setup's): the I/O around the pure
planner in core/scale_tarball.py: checking a local file, hashing it, serving it on
loopback (or a URL with a token through the repo proxy) for the length of the build."""

from __future__ import annotations

import hashlib
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from moatbridge.adapters.file_server import check_tarball, file_sha256, serve_file
from moatbridge.adapters.repo_proxy import Credentials, serve_repo_proxy
from moatbridge.core.catalog import Catalog, Flavour
from moatbridge.core.recipes import BuildPlan, BuildRequest
from moatbridge.core.redact import has_secret, redact_url
from moatbridge.core.scale_tarball import RECIPE, RECIPE_FILES, plan_scale_tarball_build, tarball_source
from moatbridge.errors import InputError


def check_options(tarball: str, flavour: Flavour, repo_url: str | None) -> None:
    """--tarball: SCALE only, no repository flags; a local file must be an xz tarball
    (read from its first bytes). Cheap: bad input is exit 2 before the engine is asked."""
    if flavour.name != "scale" or repo_url is not None:
        raise InputError(
            "--tarball builds SCALE from the vendor's tarball, without a package repository.",
            "use --flavour scale --tarball FILE_OR_URL, without --repo-url",
        )
    source = tarball_source(tarball)
    if not source.is_url:
        check_tarball(Path(source.location))


def plan(
    tarball: str,
    catalog: Catalog,
    flavour: Flavour,
    request: BuildRequest,
    base: tuple[str, str],
    commercial: bool,
    extra_args: tuple[tuple[str, str], ...],
) -> BuildPlan:
    source = tarball_source(tarball)
    sha256 = tree = None
    if not source.is_url:
        tree = check_tarball(Path(source.location))
        sha256 = file_sha256(Path(source.location))  # once per process (setup plans twice)
    return plan_scale_tarball_build(
        flavour, request, catalog.images_dir, catalog.local_repository, base[0], base[1],
        _files_digest(catalog.images_dir / Path(RECIPE).parent, RECIPE_FILES), source, sha256, tree,
        commercial=commercial, extra_args=extra_args,
    )  # fmt: skip


def _files_digest(directory: Path, names: tuple[str, ...]) -> str:
    """Over the recipe's own files only: the apt and dnf recipes share the directory."""
    digest = hashlib.sha256()
    for name in names:
        digest.update(f"{name}\0".encode() + hashlib.sha256((directory / name).read_bytes()).digest())
    return digest.hexdigest()


def enter(stack: ExitStack, tarball: str, credentials: Credentials | None) -> str:
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
