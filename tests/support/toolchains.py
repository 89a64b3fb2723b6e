"""Installed-toolchain records for tests, spelled flat (flavour, targets, ... beside the name
and image) as the state file records them."""

from __future__ import annotations

import os
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from moatbridge.core.image_spec import ImageSource, ImageSpec
from moatbridge.core.shims import warm_container_name
from moatbridge.core.toolchains import Toolchain
from moatbridge.paths import Paths

_SPEC = {item.name for item in fields(ImageSpec)}

# A toolchain as the state file records it (its image_id is one no engine holds).
RECORDED_TOOLCHAIN = {
    "name": "open-gfx1030", "flavour": "open", "variant": "devel", "targets": ["gfx1030"],
    "cuda_version": "12.4", "image": "ghcr.io/moatbridge/open:12.4-devel",
    "image_id": "sha256:" + "0" * 64, "licence": "open-components", "digest": None,
    "created": "2026-01-01T00:00:00+00:00",
}  # fmt: skip


def make_toolchain(
    name: str,
    flavour: str,
    variant: str,
    targets: tuple[str, ...],
    cuda_version: str,
    image: str,
    image_id: str,
    licence: str,
    digest: str | None = None,
    created: str = "",
    **rest: Any,
) -> Toolchain:
    """``rest``: the spec's distro, check_valid_until or source, or the toolchain's tools."""
    spec_fields = {key: rest.pop(key) for key in list(rest) if key in _SPEC}
    spec_fields.setdefault("source", ImageSource())
    spec = ImageSpec(flavour, variant, targets=targets, cuda_version=cuda_version, **spec_fields)
    return Toolchain(name, spec, image, image_id, licence, digest, created, **rest)


def respec(toolchain: Toolchain, **changes: Any) -> Toolchain:
    """``toolchain`` with some fields changed, whether the spec's (flavour, targets) or its own."""
    spec_changes = {key: changes.pop(key) for key in list(changes) if key in _SPEC}
    return replace(toolchain, spec=replace(toolchain.spec, **spec_changes), **changes)


def warm_container(
    name: str, home: Path | str, mbhome: Path | str | None = None, uid: int | None = None
) -> str:
    """The warm container of toolchain ``name`` kept by the MOATBRIDGE_HOME ``mbhome`` (by
    default the one under ``home``, the user's HOME), for this account (or ``uid``)."""
    data = Path(mbhome) if mbhome is not None else Path(home) / ".local" / "share" / "moatbridge"
    key = Paths(str(data), str(data / "state")).engine_key
    return warm_container_name(name, os.getuid() if uid is None else uid, key)
