"""Saving an installed toolchain as one bundle file: the recorded image, a manifest naming
its flavour and licences, and checksums (written by adapters/bundle_archive.py)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from moatbridge import __version__
from moatbridge.adapters import bundle_archive, docker_api, image_archive
from moatbridge.adapters.clock import now_stamp
from moatbridge.adapters.filesystem import output_exists
from moatbridge.adapters.records import load_licences
from moatbridge.core.bundle import IMAGE, Manifest, build_manifest
from moatbridge.core.toolchains import Toolchain
from moatbridge.errors import ImageGone, InputError
from moatbridge.paths import Paths
from moatbridge.services.bundle_progress import OpenProgress
from moatbridge.services.consent import require_for
from moatbridge.services.toolchains import resolve_toolchain, state_store


@dataclass(frozen=True)
class SavePlan:
    """What a save writes, and from where: checked before a byte of the image is read."""

    toolchain: Toolchain
    output: Path | None  # None: stream the bundle to stdout (-o -)
    force: bool  # replace an existing output file
    manifest: Manifest
    image_size: int | None  # the engine's size of the image, for the progress display
    client: Any  # the engine connection the image is saved through


@dataclass(frozen=True)
class SavedBundle:
    size: int  # of the bundle file
    image: bundle_archive.Member  # image.tar inside it


def _output(name: str, force: bool, to_terminal: bool) -> Path | None:
    """-o as typed: '-' is stdout (never a terminal), else a new or regular file."""
    if name == "-":
        if to_terminal:
            raise InputError("A bundle is not written to a terminal.", "redirect it: -o - > FILE, or -o FILE")
        return None
    output = Path(name).expanduser().absolute()
    if output_exists(output, "bundle", bundle_archive.OUTPUT_HINT) and not force:
        raise InputError(f"{output} already exists.", "pass --force to replace it, or choose another -o FILE")
    if not output.parent.is_dir():
        raise InputError(f"The directory {output.parent} does not exist.", "create it, or choose another -o")
    return output


def plan_save(
    paths: Paths, toolchain_name: str | None, output_name: str, force: bool, to_terminal: bool = False
) -> SavePlan:
    """The toolchain to save (-t NAME, pin, env, default), once the consent rule lets it be
    handed on; a usable output (-o, as typed; `to_terminal`: stdout is one), the manifest,
    and the engine's word that it still has the recorded image."""
    from moatbridge.adapters.records import load_catalog

    toolchain = resolve_toolchain(state_store(paths).read_required(), toolchain_name, os.environ)
    # A bundle hands the toolchain on: the one consent rule, as for every other path.
    require_for(paths, toolchain, "Saving this toolchain as a bundle")
    output = _output(output_name, force, to_terminal)
    manifest = build_manifest(
        toolchain, load_catalog().flavour(toolchain.flavour), load_licences(), __version__, now_stamp()
    )
    client = docker_api.connect(timeout=image_archive.SAVE_LOAD_TIMEOUT_S)
    image = docker_api.inspect_image(client, toolchain.image_id)
    if image is None:
        raise ImageGone(toolchain.name, toolchain.image_id)
    return SavePlan(toolchain, output, force, manifest, int(image.get("Size") or 0) or None, client)


def save_bundle(plan: SavePlan, show: OpenProgress, stdout: BinaryIO | None = None) -> SavedBundle:
    """Stream the image from the engine into the bundle file (or `stdout`, for -o -),
    counting bytes into the display."""
    # By ID: the bundle holds exactly the recorded image, whatever the tag points at now.
    with show(plan.image_size) as progress:
        stream = image_archive.save_image_stream(plan.client, plan.toolchain.image_id)
        if plan.output is None:
            assert stdout is not None, "streaming needs the stream"
            members, size = bundle_archive.stream_bundle(stdout, plan.manifest.to_bytes(), stream, progress)
        else:
            members = bundle_archive.write_bundle(
                plan.output, plan.manifest.to_bytes(), stream, force=plan.force, on_bytes=progress
            )
            size = plan.output.stat().st_size
    return SavedBundle(size, next(m for m in members if m.name == IMAGE))
