"""A Debian base image made locally with debootstrap, for sites without Docker Hub.

debootstrap fetches from a Debian mirror (which air-gapped sites usually mirror
anyway); the root filesystem is then imported as an image. Needs root.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

from moatbridge.adapters import docker_api
from moatbridge.adapters.proc import run_streaming
from moatbridge.core.catalog import Bootstrap
from moatbridge.errors import MoatbridgeError


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
        run_streaming(
            ["debootstrap", f"--variant={boot.variant}", boot.suite, rootfs, mirror or boot.mirror],
            on_line, what="debootstrap",
        )  # fmt: skip
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
