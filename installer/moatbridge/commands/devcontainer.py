"""`moatbridge devcontainer [-t NAME] [--dir PATH] [--gpu] [--force] [--dry-run]`."""

from __future__ import annotations

import os
from argparse import Namespace

from moatbridge.adapters.console import safe
from moatbridge.adapters.scaleenv_probe import environment_of
from moatbridge.core.devcontainer import (
    GPU_GROUPS_FILE,
    DevcontainerSpec,
    devcontainer_json,
    dockerfile,
    gpu_groups_script,
)
from moatbridge.core.gpu_request import gpu_request
from moatbridge.core.toolchains import pinned_image
from moatbridge.services.consent import licence_note
from moatbridge.services.project_files import existing_text, project_directory, write_project_file
from moatbridge.services.runtime import host_gpu_access
from moatbridge.services.toolchains import current_toolchain


def run(args: Namespace) -> int:
    project = project_directory(args.dir)
    _, toolchain = current_toolchain(args.toolchain)
    devices, groups = host_gpu_access()
    spec = DevcontainerSpec(
        toolchain=toolchain.name,
        flavour=toolchain.flavour,
        target=toolchain.target,
        image=pinned_image(toolchain),
        image_tag=toolchain.image,
        uid=os.getuid(),
        gid=os.getgid(),
        devices=devices,
        group_adds=groups,
        licence=licence_note(toolchain, "A devcontainer for this toolchain"),
        environment=environment_of(toolchain),
        gpu=bool(args.gpu),
    )
    folder = project / ".devcontainer"
    texts = (
        (GPU_GROUPS_FILE, gpu_groups_script(spec)),
        ("Dockerfile", dockerfile(spec)),
        ("devcontainer.json", devcontainer_json(spec)),
    )
    files = [(folder / name, text, name) for name, text in texts if text is not None]
    # Every path is checked before any is written: a link or device among them is refused
    # (even with --force), and without --force so is one file of theirs that differs.
    current = [(path, text, what, existing_text(path, what)) for path, text, what in files]
    if not args.force:
        for path, text, what, old in current:
            if old is not None and old != text:
                write_project_file(path, text, False, args.dry_run, what)  # shows the diff, refuses
    outcomes = [
        (path, write_project_file(path, text, args.force, args.dry_run, what)) for path, text, what in files
    ]
    for path, outcome in outcomes:
        print(safe(f"{outcome}: {path}"))
    if not gpu_request(spec.target).is_nvidia:
        if spec.gpu:
            print("GPU: /dev/kfd and /dev/dri asked for; the container starts only where they exist")
        elif not devices:
            print(
                "GPU: none here, so a compile-only container"
                " (--gpu asks for /dev/kfd and /dev/dri regardless)"
            )
    if not args.dry_run:
        vscode = "  (or 'Reopen in Container' in VS Code)"
        print(safe(f"next: devcontainer up --workspace-folder {project}") + vscode)
    return 0
