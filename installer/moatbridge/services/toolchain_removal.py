"""Removing toolchains: reverse exactly what setup did.

Each toolchain's warm container, shims, configuration and emulator setting go and, when
asked, its image (with the moving tags a build gave the same image). When the last
toolchain goes, so do the consents, the shared shims, env files and rc-file blocks, and
the state itself, which leaves rc files byte-identical to before setup when nothing else
touched them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from moatbridge.adapters import containers, faults, home_registry
from moatbridge.adapters.containers import HOME_LABEL
from moatbridge.adapters.toolchain_files import remove_empty_dirs
from moatbridge.core.build_plan import MANAGED_LABEL
from moatbridge.core.shims import warm_container_name
from moatbridge.core.toolchains import Toolchain
from moatbridge.errors import UsageError
from moatbridge.paths import Paths
from moatbridge.services.consent import consents
from moatbridge.services.emulator_config import drop_settings
from moatbridge.services.image_users import other_user
from moatbridge.services.installation import (
    remove_shared_files,
    remove_toolchain_files,
    write_default,
    write_env_files,
)
from moatbridge.services.toolchains import state_store


@dataclass(frozen=True)
class RemovalRequest:
    name: str | None  # the toolchain to remove, unless every one goes
    every_toolchain: bool  # --all: also the directories a killed setup left unrecorded
    dry_run: bool
    remove_images: bool  # the images go, no question asked
    keep_images: bool  # the images stay, no question asked
    yes: bool  # the answer to the question whether the images go too


@dataclass(frozen=True)
class Removal:
    names: tuple[str, ...]  # the toolchains removed
    removed: tuple[str, ...]  # each file, container and image removed (or that would be)
    problems: tuple[str, ...]  # what was left as it is, for the user to look at


def uninstall(
    paths: Paths,
    request: RemovalRequest,
    ask_remove_images: Callable[[], bool],
    on_image_kept: Callable[[str, str], None],
) -> Removal:
    """Remove the toolchains under the state lock. `ask_remove_images` is the question whether
    the images go too, asked only when no option answers it; `on_image_kept` hears each tag
    the engine refused to remove, and why."""
    store = state_store(paths)
    if not request.every_toolchain:  # a missing or unknown name: refused before the lock file is made
        if not request.name:
            raise UsageError("Name the toolchain to uninstall.", "moatbridge uninstall NAME, or --all")
        store.read().toolchain(request.name)
    with store.locked():
        state = store.read()
        if request.every_toolchain:
            names = [t.name for t in state.toolchains]
            # Toolchain directories a killed setup left unrecorded go too.
            on_disk = Path(paths.home) / "toolchains"
            names += [p.name for p in sorted(on_disk.glob("*")) if p.is_dir() and p.name not in names]
        elif request.name:
            names = [state.toolchain(request.name).name]
        else:
            raise UsageError("Name the toolchain to uninstall.", "moatbridge uninstall NAME, or --all")
        # --yes answers the one question (the images go too); a dry run with it says so.
        remove_images = request.remove_images or (
            not request.keep_images
            and bool(names)
            and (request.yes or (not request.dry_run and ask_remove_images()))
        )
        removed: list[str] = []
        problems: list[str] = []
        for name in names:
            known = next((t for t in state.toolchains if t.name == name), None)
            _stop_container(paths, name, request.dry_run, removed)
            faults.point("uninstall.container-removed", name)
            removed += remove_toolchain_files(paths, name, request.dry_run)
            faults.point("uninstall.toolchain-files-removed", name)
            if remove_images and known is not None:
                _remove_image(paths, known, request.dry_run, removed, on_image_kept)
            state = state.without_toolchain(name)
        drop_settings(paths, [t.name for t in state.toolchains], request.dry_run, removed, problems)
        if not state.toolchains:
            # Consents go with the last toolchain (accept again on a new setup), readable or not.
            files = consents(paths)
            for entry in sorted(files.directory.glob("*")) if files.directory.is_dir() else []:
                if files.remove(entry.name, request.dry_run):
                    removed.append(str(entry))
            removed += remove_shared_files(paths, state, request.dry_run, problems)
            faults.point("uninstall.shared-files-removed")
            state = replace(state, files=(), default=None)
        elif state.default is not None:
            write_default(paths, state.default, request.dry_run)
            write_env_files(paths, state.default, request.dry_run)  # MOATBRIDGE_TOOLCHAIN follows
        if not request.dry_run:
            if state.toolchains:
                store.write(state)
            else:
                # Nothing left: no state either (consents go with it; accept again on a new setup),
                # but an unusable state file stays, set aside as the backup every command promised.
                gone = store.discard()
                removed += [str(gone)] if gone is not None else []
                answers = paths.state_file.with_name("answers.yaml")
                if answers.exists():
                    faults.point("uninstall.before-unlink", str(answers))
                    answers.unlink()
                    removed.append(str(answers))
                # Where older versions kept the lock; the lock in use (paths.lock_file) stays.
                paths.state_file.with_name("state.json.lock").unlink(missing_ok=True)
                home_registry.unregister(paths.homes_registry, paths.engine_key)
    if not request.dry_run and not state.toolchains:
        remove_empty_dirs(Path(paths.home), Path(paths.home).parent)
    return Removal(tuple(names), tuple(removed), tuple(problems))


def _stop_container(paths: Paths, name: str, dry_run: bool, removed: list[str]) -> None:
    from moatbridge.adapters import docker_api

    try:
        client = docker_api.connect()
    except Exception:  # noqa: BLE001 - no engine: nothing running to stop
        return
    own = warm_container_name(name, os.getuid(), paths.engine_key)
    unowned = f"moatbridge-{name}-{os.getuid()}"  # as named before homes had their own: no home label
    for container in containers.containers_with_label(client, f"io.moatbridge.toolchain={name}"):
        label = container["Names"][0].lstrip("/")
        home = (container.get("Labels") or {}).get(HOME_LABEL)
        # Another account's warm container of a toolchain named alike, or another home's.
        if label != own and not (label == unowned and home is None):
            continue
        if not dry_run:
            containers.remove_container(client, container["Id"])
        removed.append(f"container {label}")


def _remove_image(
    paths: Paths,
    toolchain: Toolchain,
    dry_run: bool,
    removed: list[str],
    on_image_kept: Callable[[str, str], None],
) -> None:
    from moatbridge.adapters import docker_api
    from moatbridge.errors import MoatbridgeError

    reference = toolchain.image
    client = docker_api.connect()
    image = docker_api.inspect_image(client, reference)
    if image is None:
        return
    user = other_user(paths, client, str(image.get("Id") or ""), reference)
    if user is not None:
        on_image_kept(reference, user)
        return
    for tag in (reference, *_moving_aliases(image, reference)):
        try:
            if not dry_run:
                docker_api.remove_image(client, tag)
            removed.append(f"image {tag}")
        except MoatbridgeError as exc:
            on_image_kept(tag, exc.message)
            return


def _moving_aliases(image: dict[str, Any], reference: str) -> list[str]:
    """The `latest`/`latest-<version>` tags a build gave the same image (SCALE's vendor
    scheme) in its repository: they would keep the image alive after the toolchain."""
    labels = (image.get("Config") or {}).get("Labels") or {}
    if labels.get(MANAGED_LABEL) != "1":
        return []
    repository = reference.rpartition(":")[0]
    return [
        tag
        for tag in image.get("RepoTags") or []
        if tag != reference
        and tag.rpartition(":")[0] == repository
        and _MOVING.fullmatch(tag.rpartition(":")[2])
    ]


_MOVING = re.compile(r"latest(-[0-9][0-9A-Za-z.+~-]{0,63})?", re.ASCII)
