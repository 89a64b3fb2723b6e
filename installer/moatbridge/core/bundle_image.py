"""What a bundle's ``image.tar`` says about itself, checked before the engine loads it. Pure.

``docker load`` acts on the archive's own ``manifest.json``: it applies its RepoTags
(moving tags of images already here) and loads whatever config it names. So before
loading, the archive must hold exactly one image whose config hashes to the
manifest's image ID and carries no tags, and the image's own labels must not
contradict the flavour and licence the manifest claims (a relabelled SCALE image
would otherwise pass as one that needs no consent).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from moatbridge.core.bundle import BundleError, Manifest

FLAVOUR_LABEL = "io.moatbridge.flavour"
LICENCE_LABEL = "io.moatbridge.licence"
_CONFIG_NAME = re.compile(r"(?:blobs/sha256/)?[0-9a-f]{64}(?:\.json)?", re.ASCII)


@dataclass(frozen=True)
class ImageClaims:
    image_id: str
    flavours: frozenset[str]  # the flavours the image itself shows (labels, SCALE's paths)
    licences: frozenset[str]  # the licence labels it carries


def _refused(problem: str) -> BundleError:
    return BundleError(
        f"The bundle's image is refused: {problem}; nothing was loaded.",
        "the bundle was changed after 'moatbridge bundle save' wrote it; save it again",
    )


def _json(data: bytes, what: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _refused(f"its {what} is not JSON") from None


def image_claims(members: Mapping[str, bytes], expected_id: str) -> ImageClaims:
    """Check docker's manifest.json and the config it names against `expected_id`."""
    if "manifest.json" not in members:
        raise _refused("image.tar has no manifest.json")
    entries = _json(members["manifest.json"], "manifest.json")
    if not isinstance(entries, list) or len(entries) != 1 or not isinstance(entries[0], dict):
        raise _refused("image.tar must hold exactly one image")
    entry = entries[0]
    if entry.get("RepoTags"):
        raise _refused("image.tar names tags, which loading would move onto it")
    config_name = entry.get("Config")
    if not isinstance(config_name, str) or not _CONFIG_NAME.fullmatch(config_name):
        raise _refused("image.tar's manifest names no usable image config")
    config_bytes = members.get(config_name)
    if config_bytes is None:
        raise _refused(f"image.tar lacks its config {config_name}")
    image_id = "sha256:" + hashlib.sha256(config_bytes).hexdigest()
    if image_id != expected_id:
        raise _refused(f"its config is image {image_id[:19]}, not the manifest's {expected_id[:19]}")
    config = _json(config_bytes, "image config")
    container_config = config.get("config") if isinstance(config, dict) else None
    labels = (container_config or {}).get("Labels") if isinstance(container_config, dict) else None
    labels = labels if isinstance(labels, dict) else {}
    flavours = {str(labels[FLAVOUR_LABEL])} if FLAVOUR_LABEL in labels else set()
    if "/opt/scale" in json.dumps(container_config):  # SCALE's own images: PATH, scaleenv
        flavours.add("scale")
    licences = {str(labels[LICENCE_LABEL])} if LICENCE_LABEL in labels else set()
    return ImageClaims(image_id, frozenset(flavours), frozenset(licences))


def contradiction(manifest: Manifest, claims: ImageClaims) -> str | None:
    """Why the image is not what the manifest says it is, or None."""
    flavour = manifest.toolchain.flavour
    others = sorted(claims.flavours - {flavour})
    if others:
        return f"the manifest calls it {flavour}, but the image is {', '.join(others)}"
    return None
