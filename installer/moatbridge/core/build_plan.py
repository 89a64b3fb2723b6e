"""What every image build plan is, whatever its recipe: the plan, its labels, its digest (pure)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from moatbridge import __version__
from moatbridge.core.catalog import Distro, Flavour, Variant

LABEL_PREFIX = "io.moatbridge."
MANAGED_LABEL = f"{LABEL_PREFIX}managed"
DIGEST_LABEL = f"{LABEL_PREFIX}recipe-digest"
# A container that lives only as long as the process that made it (a look into an image, a
# check run, a shim's one-shot container): OWNER_LABEL names that process, HOST/BOOT_ID/PID/
# START, and one whose owner is gone is swept by the next command that reaches the engine
# (adapters/containers.sweep_transient), so a kill -9 leaves nothing for long.
TRANSIENT_LABEL = f"{LABEL_PREFIX}transient"
OWNER_LABEL = f"{LABEL_PREFIX}owner"


@dataclass(frozen=True)
class BaseImage:
    """The image a build starts from: its reference and the engine's ID for it (which the
    recipe digest covers, so a new base is a new image)."""

    reference: str
    image_id: str


@dataclass(frozen=True)
class BuildPlan:
    reference: str
    flavour: str
    variant: str
    distro: Distro
    targets: tuple[str, ...]  # ("all",) or sorted gfx names
    cuda_version: str
    recipe_dir: Path  # the build context
    dockerfile: str  # relative to recipe_dir
    stage: str | None
    buildargs: tuple[tuple[str, str], ...]
    labels: tuple[tuple[str, str], ...]
    recipe_digest: str
    warnings: tuple[str, ...]
    aliases: tuple[str, ...] = ()  # more references for the same image (the vendor's `latest`)


def image_tag(
    flavour: Flavour,
    cuda: str,
    variant: str,
    distro: str,
    targets: tuple[str, ...],
    version: str | None = None,
) -> str:
    return flavour.tag.format(
        cuda=cuda, variant=variant, distro=distro, targets="_".join(targets),
        version=version or flavour.version or "",
    )  # fmt: skip


def moatbridge_labels(
    flavour: Flavour,
    variant: Variant,
    distro: Distro,
    targets: str,
    cuda: str,
    licence: str,
    base_image: str,
    digest: str,
) -> dict[str, str]:
    """The labels every image moatbridge builds carries, whatever its flavour."""
    return {
        "org.opencontainers.image.description": variant.description,
        "org.opencontainers.image.base.name": base_image,
        MANAGED_LABEL: "1",
        f"{LABEL_PREFIX}flavour": flavour.name,
        f"{LABEL_PREFIX}variant": variant.name,
        f"{LABEL_PREFIX}distro": distro.name,
        f"{LABEL_PREFIX}targets": targets,
        f"{LABEL_PREFIX}cuda-version": cuda,
        f"{LABEL_PREFIX}rocm-version": distro.rocm,
        f"{LABEL_PREFIX}licence": licence,
        f"{LABEL_PREFIX}moatbridge-version": __version__,
        DIGEST_LABEL: digest,
    }  # fmt: skip


def compute_digest(parts: dict[str, object], context_digest: str) -> str:
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{canonical}\n{context_digest}".encode()).hexdigest()


def pinned_drift(pinned: tuple[tuple[str, str], ...], installed_tsv: str) -> tuple[int, list[str]]:
    """Compare the catalog's pinned versions with dpkg's list from the image.

    Returns (how many pinned packages were found installed, one line per drift).
    """
    installed = dict(line.split("\t", 1) for line in installed_tsv.splitlines() if "\t" in line)
    checked = 0
    drift = []
    for package, expected in pinned:
        actual = installed.get(package)
        if actual is None:
            continue  # not part of this variant
        checked += 1
        if actual != expected:
            drift.append(f"{package} {actual} (catalog pins {expected})")
    return checked, drift
