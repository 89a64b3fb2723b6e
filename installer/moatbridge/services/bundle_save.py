"""Saving an installed toolchain as one bundle file: the recorded image, a manifest naming
its flavour and licences, and checksums (written by adapters/bundle_archive.py)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moatbridge import __version__
from moatbridge.adapters import bundle_archive, docker_api, image_archive
from moatbridge.adapters.clock import now_stamp
from moatbridge.adapters.records import load_licences
from moatbridge.core.bundle import IMAGE, Manifest, build_manifest
from moatbridge.core.toolchains import Toolchain
from moatbridge.errors import ImageGone, InputError
from moatbridge.paths import Paths
from moatbridge.services.bundle_progress import OpenProgress
from moatbridge.services.toolchains import resolve_toolchain, state_store


@dataclass(frozen=True)
class SavePlan:
    """What a save writes, and from where: checked before a byte of the image is read."""

    toolchain: Toolchain
    output: Path
    force: bool  # replace an existing output file
    manifest: Manifest
    image_size: int | None  # the engine's size of the image, for the progress display
    client: Any  # the engine connection the image is saved through


@dataclass(frozen=True)
class SavedBundle:
    size: int  # of the bundle file
    image: bundle_archive.Member  # image.tar inside it


def plan_save(paths: Paths, toolchain_name: str | None, output_name: str, force: bool) -> SavePlan:
    """The toolchain to save (-t NAME, pin, env, default), a usable output path (-o, as
    typed), the manifest, and the engine's word that it still has the recorded image."""
    from moatbridge.adapters.records import load_catalog

    toolchain = resolve_toolchain(state_store(paths).read(), toolchain_name, os.environ)
    output = Path(output_name).expanduser().absolute()
    if output.is_dir():
        raise InputError(f"{output} is a directory.", "pass a file name: -o DIR/NAME.tar")
    if output.exists() and not force:
        raise InputError(f"{output} already exists.", "pass --force to replace it, or choose another -o FILE")
    if not output.parent.is_dir():
        raise InputError(f"The directory {output.parent} does not exist.", "create it, or choose another -o")
    manifest = build_manifest(
        toolchain, load_catalog().flavour(toolchain.flavour), load_licences(), __version__, now_stamp()
    )
    client = docker_api.connect(timeout=image_archive.SAVE_LOAD_TIMEOUT_S)
    image = docker_api.inspect_image(client, toolchain.image_id)
    if image is None:
        raise ImageGone(toolchain.name, toolchain.image_id)
    return SavePlan(toolchain, output, force, manifest, int(image.get("Size") or 0) or None, client)


def save_bundle(plan: SavePlan, show: OpenProgress) -> SavedBundle:
    """Stream the image from the engine into the bundle file, counting bytes into the display."""
    # By ID: the bundle holds exactly the recorded image, whatever the tag points at now.
    with show(plan.image_size) as progress:
        stream = image_archive.save_image_stream(plan.client, plan.toolchain.image_id)
        members = bundle_archive.write_bundle(
            plan.output, plan.manifest.to_bytes(), stream, force=plan.force, on_bytes=progress
        )
    size = plan.output.stat().st_size
    return SavedBundle(size, next(m for m in members if m.name == IMAGE))
