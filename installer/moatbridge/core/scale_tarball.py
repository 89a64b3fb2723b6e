"""Planning a SCALE image build from the vendor's tarball (pure).

The vendor's tarball channel (``https://pkgs.scale-lang.com/tar/scale-<version>-amd64.tar.xz``)
serves hosts its apt/dnf repositories do not, rootless installs and air-gapped sites. A
tarball build (images/scale/Dockerfile.tarball) runs on any base image and needs neither a
registry nor a Spectral repository: a carried-in file is served from 127.0.0.1 for the
length of the build, a URL is fetched as it is (or through the loopback proxy when it
carries a token).

The tag names the version the tarball holds (from its file name, else
``--build-arg SCALE_VERSION``); the recipe checks that the directory inside says the same.
The recipe digest covers the tarball's SHA-256 when it is known (always for a local file),
so a different tarball is a different image; never the loopback URL, which changes per build.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

from moatbridge.core.build_plan import LABEL_PREFIX, BaseImage, BuildPlan, compute_digest
from moatbridge.core.catalog import Catalog, Flavour
from moatbridge.core.image_spec import ImageSpec
from moatbridge.core.redact import strip_secrets
from moatbridge.core.scale_recipes import VERSION, check_request, extra_build_args, finish_plan, is_commercial
from moatbridge.errors import InputError

RECIPE = "scale/Dockerfile.tarball"
# The files of the build context the recipe uses: only they go into the digest (the apt
# and dnf recipes share the directory and change on their own).
RECIPE_FILES = ("Dockerfile.tarball", "entrypoint.sh")
# The vendor's names: scale-1.7.2-amd64.tar.xz, scale-1.7.3-Linux.tar.xz (from 1.7.3),
# scale-free-1.5.0-amd64.tar.xz (old free builds), scale-unstable-<date>-Linux.tar.xz.
_VERSION = r"[0-9]+(?:\.[0-9]+){1,3}"
TARBALL_NAME = re.compile(
    rf"scale(?:-free|-unstable)?-(?P<version>{_VERSION})-(?:amd64|Linux)\.tar\.xz", re.ASCII
)
# The directory the tarball extracts to.
TREE_NAME = re.compile(rf"scale(?:-free|-unstable)?-(?P<version>{_VERSION})-Linux", re.ASCII)
SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)
_URL = re.compile(r"[a-z][a-z0-9+.-]*://", re.ASCII | re.IGNORECASE)
# What the plan says until the build starts and moatbridge serves the local file.
SERVED_LATER = "served-from-127.0.0.1-at-build-time"


@dataclass(frozen=True)
class TarballSource:
    """Where the tarball comes from: a local file (served at build time) or a URL."""

    location: str  # the path or URL as given
    is_url: bool
    name: str  # the file name (the URL's last path segment)
    version: str | None  # from the file name, when it is one of the vendor's


def tarball_version(name: str) -> str | None:
    match = TARBALL_NAME.fullmatch(name)
    return match["version"] if match else None


def tree_version(name: str) -> str | None:
    """The version in the name of the directory a tarball extracts to (scale-1.7.2-Linux)."""
    match = TREE_NAME.fullmatch(name)
    return match["version"] if match else None


def tarball_source(value: str) -> TarballSource:
    """Classify and check ``--tarball PATH_OR_URL`` (no filesystem access here)."""
    if not value or any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise InputError("--tarball needs a file name or URL without control characters.",
                         "e.g. --tarball ./scale-1.7.2-amd64.tar.xz")  # fmt: skip
    if not _URL.match(value):
        name = Path(value).name
        return TarballSource(value, False, name, tarball_version(name))
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise InputError(
            f"--tarball {strip_secrets(value)!r} is neither a local file nor an http(s) URL.",
            "e.g. --tarball https://pkgs.scale-lang.com/tar/scale-1.7.2-amd64.tar.xz",
        )
    if parts.username is not None or parts.password is not None:
        raise InputError(
            "The tarball URL must not contain credentials: build args are stored in the image history.",
            "put them in a file (mode 600) and pass --credentials-file",
        )
    if parts.fragment:
        raise InputError("The tarball URL must not have a #fragment.", "drop the part after '#'")
    name = PurePosixPath(parts.path).name
    return TarballSource(value, True, name, tarball_version(name))


def _chosen_version(source: TarballSource, tree: str | None, extra: dict[str, str]) -> str:
    given = extra.get("SCALE_VERSION")
    if given:
        if not VERSION.fullmatch(given):
            raise InputError(f"--build-arg SCALE_VERSION={given!r} is not a SCALE version.", "e.g. 1.7.2")
        return given
    version = source.version or (tree_version(tree) if tree else None)
    if version is None:
        raise InputError(
            f"The tarball's name {source.name!r} does not say which SCALE version it holds.",
            "name it as the vendor does (scale-1.7.2-amd64.tar.xz) or pass --build-arg SCALE_VERSION=1.7.2",
        )
    return version


def _chosen_sha256(sha256: str | None, extra: dict[str, str]) -> str | None:
    given = extra.get("SCALE_TARBALL_SHA256")
    if given is not None and given != "" and not SHA256.fullmatch(given.lower()):
        raise InputError(
            "--build-arg SCALE_TARBALL_SHA256 is not a SHA-256 (64 hexadecimal digits).",
            "e.g. the first field of `sha256sum scale-1.7.2-amd64.tar.xz`",
        )
    given = given.lower() if given else None
    if sha256 is not None and given is not None and given != sha256:
        raise InputError(
            f"The tarball's SHA-256 is {sha256}, not the {given} given.",
            "check that it is the file you meant, or drop --build-arg SCALE_TARBALL_SHA256",
        )
    return sha256 or given


def plan_scale_tarball_build(
    flavour: Flavour,
    spec: ImageSpec,
    catalog: Catalog,
    base: BaseImage,
    context_digest: str,
    tree: str | None = None,
) -> BuildPlan:
    """Plan a build of SCALE from its tarball (``spec.source.tarball``).

    ``spec.source.tarball_sha256`` is the local file's (None for a URL unless
    SCALE_TARBALL_SHA256 is passed); ``tree`` the top directory seen in a local tarball (its
    version is the fallback when the file name has none). A local file's SCALE_TARBALL_URL
    is ``SERVED_LATER`` until the build serves it.
    """
    if spec.source.tarball is None:
        raise InputError("A tarball build needs the tarball.", "pass --tarball FILE_OR_URL")
    source = tarball_source(spec.source.tarball)
    variant, distro, cuda = check_request(flavour, spec, "a tarball")
    extra = dict(extra_build_args(spec.source.build_args))
    version = _chosen_version(source, tree, extra)
    checksum = _chosen_sha256(spec.source.tarball_sha256, extra)
    buildargs = {**extra, "BASE_IMAGE": base.reference, "CUDA_VERSION": cuda, "SCALE_VERSION": version,
                 "SCALE_TARBALL_SHA256": checksum or ""}  # fmt: skip
    # The loopback URL changes per build: a local file is known by its name and checksum.
    origin = {"url": source.location} if source.is_url else {"file": source.name}
    digest = compute_digest(
        {"buildargs": buildargs, "tarball": {**origin, "sha256": checksum}, "base_id": base.image_id,
         "recipe": RECIPE},
        context_digest,
    )  # fmt: skip
    url = source.location if source.is_url else SERVED_LATER
    return finish_plan(
        flavour, variant, distro, cuda, version, "tarball", is_commercial(spec), catalog.local_repository,
        base.reference, digest, str(catalog.images_dir / RECIPE), {**buildargs, "SCALE_TARBALL_URL": url},
        # The name only: a URL's query may hold a token, a path the user's directories.
        {f"{LABEL_PREFIX}scale-tarball": source.name, f"{LABEL_PREFIX}scale-tarball-sha256": checksum or ""},
    )  # fmt: skip


# What the recipe's `moatbridge-tarball: <code> <details>` lines mean: (sentence, hint).
_REFUSALS = {
    "url-scheme": ("The tarball URL the build got is not http(s).", "report this as a bug"),
    "url-credentials": (
        "The tarball URL must not contain credentials: build args are stored in the image history.",
        "put them in a file (mode 600) and pass --credentials-file",
    ),
    "no-package-manager": (
        "The base image has no curl or wget, xz and tar, and no apt-get, dnf or microdnf to install them.",
        "use a base image that has them (or a package manager), e.g. --distro ubuntu24.04",
    ),
    "already-installed": (
        "The base image already has /opt/scale.",
        "use a base image without SCALE (--base-image REF)",
    ),
    "download": (
        "The tarball could not be downloaded (the downloader's exit status was {0}).",
        "check the URL and that this machine reaches it (the build uses the host's network)",
    ),
    "sha256": (
        "The downloaded tarball's SHA-256 is {0}, not the one expected.",
        "check SCALE_TARBALL_SHA256, or that the file did not change during the build",
    ),
    "not-tarball": (
        "The file is not an xz-compressed tar archive (or it is damaged).",
        "pass the vendor's scale-<version>-amd64.tar.xz as it was downloaded",
    ),
    "top-directory": (
        "The tarball holds {0} top-level entries, not the one directory scale-<version>-Linux/ SCALE's has.",
        "pass the vendor's scale-<version>-amd64.tar.xz as it was downloaded",
    ),
    "top-name": (
        "The tarball's top directory is not SCALE's scale-<version>-Linux/.",
        "pass the vendor's scale-<version>-amd64.tar.xz as it was downloaded",
    ),
    "layout": (
        "The tarball does not have SCALE's layout: its bin/scaleenv is missing.",
        "pass the vendor's scale-<version>-amd64.tar.xz as it was downloaded",
    ),
    "version": (
        "The tarball holds SCALE {0}, not the version its name or SCALE_VERSION gives.",
        "rename the file to scale-{0}-amd64.tar.xz, or pass --build-arg SCALE_VERSION={0}",
    ),
}
_COLOUR = re.compile(r"\x1b\[[0-9;]*m", re.ASCII)
_REFUSAL_LINE = re.compile(r"moatbridge-tarball: ([a-z0-9-]+)((?: [A-Za-z0-9._-]{1,80})*)\s*", re.ASCII)


def tarball_refusal(log: tuple[str, ...] | list[str]) -> tuple[str, str] | None:
    """The (sentence, hint) for a build Dockerfile.tarball refused, from its log; else None."""
    for line in reversed(log):
        match = _REFUSAL_LINE.fullmatch(_COLOUR.sub("", line).strip())  # the builder colours stderr
        if match and match[1] in _REFUSALS:
            details = match[2].split()
            first = details[0] if details else "?"
            sentence, hint = _REFUSALS[match[1]]
            return sentence.format(first), hint.format(first)
    return None
