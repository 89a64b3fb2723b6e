"""Whether an image is still used by a state other than this MOATBRIDGE_HOME's: a toolchain
another home of this account records (adapters/home_registry), or a warm container of
another home or account (the engine's labels). Every removal of an image asks first."""

from __future__ import annotations

from typing import Any

from moatbridge.adapters import containers, home_registry
from moatbridge.adapters.statestore import StateStore
from moatbridge.core.build_plan import TRANSIENT_LABEL
from moatbridge.paths import Paths


def other_user(paths: Paths, client: Any, image_id: str, reference: str | None = None) -> str | None:
    """Why another state still uses the image ``image_id`` (or the tag ``reference``), in a
    few words; None: no other home, and no container of another home or account, uses it."""
    for home in home_registry.other_homes(paths.homes_registry, paths.engine_key):
        state = StateStore(home / "state.json").load_quietly()
        if state is None:
            if (home / "state.json").exists():  # damaged or unreadable: it may record it
                return f"the state of {home} cannot be read, and may record it"
            continue
        for toolchain in state.toolchains:
            if (reference is not None and toolchain.image == reference) or (
                image_id and toolchain.image_id == image_id
            ):
                return f"toolchain {toolchain.name} of {home} uses it"
    # Warm containers only (they carry the toolchain's name): any container of a moatbridge
    # image inherits the image's own labels, and the engine itself refuses to remove an image
    # a container uses, with its own words.
    for container in containers.containers_with_label(client, "io.moatbridge.toolchain"):
        labels = container.get("Labels") or {}
        if not image_id or container.get("ImageID") != image_id:
            continue
        if labels.get(containers.HOME_LABEL) == paths.engine_key or labels.get(TRANSIENT_LABEL) == "1":
            continue  # this home's own, or a command's own (gone when it ends)
        name = str((container.get("Names") or ["?"])[0]).lstrip("/")
        return f"the container {name} of another home or account uses it"
    return None


def any_user(paths: Paths, client: Any, image_id: str, reference: str) -> str | None:
    """As other_user, this home's own toolchains included (`image remove` of one in use)."""
    state = StateStore(paths.state_file).load_quietly()
    for toolchain in state.toolchains if state is not None else ():
        if toolchain.image == reference or (image_id and toolchain.image_id == image_id):
            return f"toolchain {toolchain.name} uses it"
    return other_user(paths, client, image_id, reference)


def recorded_image_ids(paths: Paths) -> set[str]:
    """The image IDs every home of this account records, this one's included."""
    found: set[str] = set()
    for home in (paths.state_file.parent, *home_registry.other_homes(paths.homes_registry, paths.engine_key)):
        state = StateStore(home / "state.json").load_quietly()
        found |= {t.image_id for t in state.toolchains} if state is not None else set()
    return found
