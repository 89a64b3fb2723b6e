"""A Debian base image made locally with debootstrap, for sites without Docker Hub.

debootstrap fetches from a Debian mirror (which air-gapped sites usually mirror
anyway); the root filesystem is then imported as an image. Needs root.

A mirror URL with credentials (``https://user:pass@host/debian``, or a token in its
query) never reaches debootstrap's command line, which any local user can read, nor
the image: debootstrap is pointed at moatbridge's loopback proxy, which adds them,
and the image's ``/etc/apt/sources.list`` names the mirror without them.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from moatbridge.adapters import docker_api
from moatbridge.adapters.proc import run_streaming
from moatbridge.adapters.repo_proxy import Credentials, serve_repo_proxy
from moatbridge.core.catalog import Bootstrap
from moatbridge.core.redact import has_secret, redact_url, split_userinfo, strip_secrets
from moatbridge.errors import InputError, MoatbridgeError


def _mirror_proxy(stack: ExitStack, mirror: str) -> str:
    """The URL debootstrap uses for ``mirror``: itself, or a loopback proxy adding its secrets."""
    if not has_secret(mirror):
        return mirror
    try:
        bare, username, password = split_userinfo(mirror)
        credentials = Credentials(username, password or "") if username is not None else None
        return str(stack.enter_context(serve_repo_proxy(bare, credentials)))
    except ValueError as exc:
        raise InputError(
            f"The mirror {redact_url(mirror)} cannot be used: {exc}.",
            "use an https:// mirror URL (credentials as https://user:password@host/debian)",
        ) from None


def _unproxy_sources(rootfs: str, used: str, stored: str) -> None:
    """debootstrap wrote the URL it used into the rootfs's apt sources: name the mirror instead."""
    for relative in ("etc/apt/sources.list", "etc/apt/sources.list.d/debian.sources"):
        path = os.path.join(rootfs, relative)
        if os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, "rb") as handle:
            content = handle.read()
        if used.encode() in content:
            with open(path, "wb") as handle:
                handle.write(content.replace(used.encode(), stored.encode()))


def bootstrap_base(
    client: Any,
    boot: Bootstrap,
    mirror: str | None,
    on_line: Callable[[str], None],
    workdir: str | None = None,
) -> str:
    """debootstrap ``boot.suite`` and import it as ``boot.tag``; returns the image ID."""
    if os.geteuid() != 0:
        raise MoatbridgeError(
            "Bootstrapping a base image with debootstrap needs root.",
            "run the build with sudo once, or use --base pull where a registry is reachable",
        )
    if shutil.which("debootstrap") is None:
        raise MoatbridgeError("debootstrap is not installed.", "sudo apt-get install debootstrap")
    repository, _, tag = boot.tag.rpartition(":")
    scratch = tempfile.mkdtemp(prefix="moatbridge-rootfs-", dir=workdir)
    try:
        rootfs = os.path.join(scratch, "rootfs")
        source = mirror or boot.mirror
        with ExitStack() as stack:
            used = _mirror_proxy(stack, source)
            run_streaming(
                ["debootstrap", f"--variant={boot.variant}", boot.suite, rootfs, used],
                on_line, what="debootstrap",
            )  # fmt: skip
        if used != source:
            _unproxy_sources(rootfs, used, strip_secrets(source))
        # Keep the image lean and reproducible-ish: no apt caches or package lists.
        for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
            shutil.rmtree(os.path.join(rootfs, leftover), ignore_errors=True)
        tarball = os.path.join(scratch, "rootfs.tar")
        run_streaming(["tar", "-C", rootfs, "--numeric-owner", "-cf", tarball, "."], on_line, what="tar")
        changes = [
            'CMD ["/bin/bash"]',
            "LABEL io.moatbridge.managed=1",
            f"LABEL io.moatbridge.base={boot.suite}-{boot.variant}",
        ]
        return docker_api.import_rootfs(client, tarball, repository, tag, changes)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
