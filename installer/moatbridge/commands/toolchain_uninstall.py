"""`moatbridge uninstall [NAME | --all]`: reverse exactly what setup did.

Removes the toolchain's shims and configuration, its warm container and, after
asking (or with --remove-images; --yes/-y answers yes), its image. With --all (or when the last
toolchain goes) also the shared shims, env files and the rc-file blocks, which
leaves rc files byte-identical to before setup when nothing else touched them.
"""

from __future__ import annotations

import os
import re
import sys
from argparse import Namespace
from dataclasses import replace
from pathlib import Path
from typing import Any

from moatbridge.adapters import containers, faults
from moatbridge.adapters.console import ask_line, safe
from moatbridge.adapters.toolchain_files import remove_empty_dirs
from moatbridge.core.build_plan import MANAGED_LABEL
from moatbridge.core.shims import warm_container_name
from moatbridge.errors import UsageError
from moatbridge.paths import Paths
from moatbridge.services.consent import consents
from moatbridge.services.installation import (
    remove_shared_files,
    remove_toolchain_files,
    write_default,
    write_env_files,
)
from moatbridge.services.toolchains import state_store


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        return False
    return ask_line(f"{question} [y/N] ").strip().lower() in ("y", "yes")  # Ctrl-D: exit 2


def run(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    store = state_store(paths)
    if not args.all:  # a missing or unknown name: refused before the lock file is made
        if not args.name:
            raise UsageError("Name the toolchain to uninstall.", "moatbridge uninstall NAME, or --all")
        store.read().toolchain(args.name)
    with store.locked():
        state = store.read()
        if args.all:
            names = [t.name for t in state.toolchains]
            # Toolchain directories a killed setup left unrecorded go too.
            on_disk = Path(paths.home) / "toolchains"
            names += [p.name for p in sorted(on_disk.glob("*")) if p.is_dir() and p.name not in names]
        elif args.name:
            names = [state.toolchain(args.name).name]
        else:
            raise UsageError("Name the toolchain to uninstall.", "moatbridge uninstall NAME, or --all")
        # --yes answers the one question (the images go too); a dry run with it says so.
        remove_images = args.remove_images or (
            not args.keep_images
            and bool(names)
            and (args.yes or (not args.dry_run and _confirm("Also remove the images?")))
        )
        removed: list[str] = []
        problems: list[str] = []
        for name in names:
            known = next((t for t in state.toolchains if t.name == name), None)
            _stop_container(paths, name, args.dry_run, removed)
            faults.point("uninstall.container-removed", name)
            removed += remove_toolchain_files(paths, name, args.dry_run)
            faults.point("uninstall.toolchain-files-removed", name)
            if remove_images and known is not None:
                _remove_image(known.image, args.dry_run, removed)
            state = state.without_toolchain(name)
        if not state.toolchains:
            # Consents go with the last toolchain (accept again on a new setup), readable or not.
            files = consents(paths)
            for entry in sorted(files.directory.glob("*")) if files.directory.is_dir() else []:
                if files.remove(entry.name, args.dry_run):
                    removed.append(str(entry))
            removed += remove_shared_files(paths, state, args.dry_run, problems)
            faults.point("uninstall.shared-files-removed")
            state = replace(state, files=(), default=None)
        elif state.default is not None:
            write_default(paths, state.default, args.dry_run)
            write_env_files(paths, state.default, args.dry_run)  # MOATBRIDGE_TOOLCHAIN follows
        if not args.dry_run:
            if state.toolchains:
                store.write(state)
            else:
                # Nothing left: no state either (consents go with it; accept again on a new setup).
                for leftover in (paths.state_file, paths.state_file.with_name("answers.yaml")):
                    if leftover.exists():
                        faults.point("uninstall.before-unlink", str(leftover))
                        leftover.unlink()
                        removed.append(str(leftover))
                # Where older versions kept the lock; the lock in use (paths.lock_file) stays.
                paths.state_file.with_name("state.json.lock").unlink(missing_ok=True)
    if not args.dry_run and not state.toolchains:
        remove_empty_dirs(Path(paths.home), Path(paths.home).parent)
    verb = "Would remove" if args.dry_run else "Removed"
    for item in removed:
        print(safe(f"{verb} {item}"))
    print(
        f"{'Dry run: nothing changed' if args.dry_run else 'Uninstalled'}: {', '.join(names) or 'nothing'}."
    )
    for problem in problems:  # everything else is done; these are the user's to look at
        print(safe(f"moatbridge: left as it is: {problem}"), file=sys.stderr)
    return 1 if problems else 0


def _stop_container(paths: Paths, name: str, dry_run: bool, removed: list[str]) -> None:
    from moatbridge.adapters import docker_api

    try:
        client = docker_api.connect()
    except Exception:  # noqa: BLE001 - no engine: nothing running to stop
        return
    own = warm_container_name(name, os.getuid())
    for container in containers.containers_with_label(client, f"io.moatbridge.toolchain={name}"):
        label = container["Names"][0].lstrip("/")
        if label != own:  # another account's warm container of a toolchain named alike
            continue
        if not dry_run:
            containers.remove_container(client, container["Id"])
        removed.append(f"container {label}")


def _remove_image(reference: str, dry_run: bool, removed: list[str]) -> None:
    from moatbridge.adapters import docker_api
    from moatbridge.errors import MoatbridgeError

    client = docker_api.connect()
    image = docker_api.inspect_image(client, reference)
    if image is None:
        return
    for tag in (reference, *_moving_aliases(image, reference)):
        try:
            if not dry_run:
                docker_api.remove_image(client, tag)
            removed.append(f"image {tag}")
        except MoatbridgeError as exc:
            print(safe(f"moatbridge: kept image {tag}: {exc.message}"), file=sys.stderr)
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
