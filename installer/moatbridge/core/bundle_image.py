"""What a bundle's ``image.tar`` says about itself, checked before the engine loads it. Pure.

``docker load`` extracts the archive and acts on what it finds: ``manifest.json``'s
RepoTags, a ``repositories`` file and an OCI ``index.json``'s name annotations all move
tags of images already here, and the config named is what gets loaded. The engine's
extraction normalises names (``./manifest.json`` lands on ``manifest.json``, the later
copy winning), so names are normalised here first, a name twice is refused, and so is
any member outside the layout ``docker save`` writes: nothing the loader would honour
goes unchecked. Then the archive must hold exactly one image whose config hashes to
the manifest's image ID and names no tag, and the image's own labels must not
contradict the flavour and licence the manifest claims (a relabelled SCALE image
would otherwise pass as one that needs no consent).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from moatbridge.core.bundle import BundleError, Manifest

FLAVOUR_LABEL = "io.moatbridge.flavour"
LICENCE_LABEL = "io.moatbridge.licence"
_CONFIG_NAME = re.compile(r"(?:blobs/sha256/)?[0-9a-f]{64}(?:\.json)?", re.ASCII)
_HEX = "[0-9a-f]{64}"
# What `docker save` writes (the legacy layout and the OCI one), and nothing else: every
# small file here is read and checked; only layers may be large.
_METADATA = re.compile(rf"manifest\.json|repositories|index\.json|oci-layout|{_HEX}\.json"
                       rf"|{_HEX}/(?:VERSION|json)|blobs/sha256/{_HEX}", re.ASCII)  # fmt: skip
_LAYER = re.compile(rf"{_HEX}/layer\.tar|blobs/sha256/{_HEX}", re.ASCII)
_DIRECTORY = re.compile(rf"{_HEX}|blobs|blobs/sha256", re.ASCII)
_LAYER_LINK = re.compile(rf"\.\./{_HEX}/layer\.tar", re.ASCII)  # a layer shared by two images
_NAME_ANNOTATIONS = ("io.containerd.image.name", "org.opencontainers.image.ref.name")
MAX_METADATA = 1 << 20  # a config or manifest is kilobytes


@dataclass(frozen=True)
class ArchiveEntry:
    """One member of image.tar, as its tar header describes it."""

    name: str  # as written in the archive
    kind: str  # "file", "dir", "symlink" or "other" (hard links, devices, FIFOs)
    size: int
    sparse: bool
    linkname: str = ""
    beyond_end: bool = False  # its data would run past the end of image.tar


def normal_name(name: str) -> str | None:
    """The path the engine's extraction writes a member to, or None when it would leave
    the archive (absolute, '..') or is not a plain name."""
    if not name or "\0" in name or name.startswith("/"):
        return None
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


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


def layout_problem(entries: Sequence[ArchiveEntry]) -> str | None:
    """Why image.tar is not laid out as `docker save` writes it, or None."""
    seen: set[str] = set()
    for entry in entries:
        shown = repr(entry.name[:80])
        name = normal_name(entry.name)
        if name is None:
            return f"image.tar's member {shown} has an absolute or escaping path"
        if name in seen:
            return f"image.tar holds {name} twice (the engine would load the second copy unchecked)"
        seen.add(name)
        if entry.sparse:
            return f"image.tar's member {shown} is a sparse file"
        if entry.beyond_end:
            return f"image.tar's member {shown} claims more bytes than image.tar holds"
        if entry.kind == "dir" and _DIRECTORY.fullmatch(name):
            continue
        if entry.kind == "symlink" and _LAYER.fullmatch(name) and _LAYER_LINK.fullmatch(entry.linkname):
            continue
        if entry.kind == "file" and (_METADATA.fullmatch(name) or _LAYER.fullmatch(name)):
            if entry.size > MAX_METADATA and not _LAYER.fullmatch(name):
                return f"image.tar's {name} is implausibly large ({entry.size} bytes)"
            continue
        return f"image.tar's member {shown} is not part of a docker image archive"
    return None


def wanted(entry: ArchiveEntry) -> bool:
    """Whether the member is metadata, which image_claims reads (layers are not read)."""
    name = normal_name(entry.name)
    small = entry.size <= MAX_METADATA and not (entry.sparse or entry.beyond_end)
    return name is not None and entry.kind == "file" and small and bool(_METADATA.fullmatch(name))


def _names_no_tag(members: Mapping[str, bytes]) -> None:
    """The other two ways a loader learns tags: the legacy `repositories` file and an OCI
    index's name annotations. Neither is in an archive saved by image ID."""
    if "repositories" in members and _json(members["repositories"], "repositories file") != {}:
        raise _refused("image.tar's repositories file names tags, which loading would move onto it")
    if "index.json" in members:
        index = _json(members["index.json"], "index.json")
        manifests = index.get("manifests") if isinstance(index, dict) else None
        if not isinstance(manifests, list) or not all(isinstance(m, dict) for m in manifests):
            raise _refused("image.tar's index.json is not an OCI index")
        for item in manifests:
            annotations = item.get("annotations") or {}
            if not isinstance(annotations, dict) or any(a in annotations for a in _NAME_ANNOTATIONS):
                raise _refused("image.tar's index.json names images, which loading would tag")


def image_claims(members: Mapping[str, bytes], expected_id: str) -> ImageClaims:
    """Check docker's manifest.json and the config it names against `expected_id`
    (`members`: image.tar's metadata by normalised name, once layout_problem is None)."""
    _names_no_tag(members)
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
