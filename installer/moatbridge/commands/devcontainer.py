"""`moatbridge devcontainer [-t NAME] [--dir PATH] [--force] [--dry-run]`."""

from __future__ import annotations

import os
from argparse import Namespace

from moatbridge.adapters.console import safe
from moatbridge.adapters.scaleenv_probe import environment_of
from moatbridge.commands import _toolchain as tc
from moatbridge.commands._project_files import project_directory, write_project_file
from moatbridge.core.devcontainer import DevcontainerSpec, devcontainer_json, dockerfile
from moatbridge.core.toolchains import pinned_image


def run(args: Namespace) -> int:
    project = project_directory(args.dir)
    _, toolchain = tc.current_toolchain(args.toolchain)
    devices, groups = tc.host_gpu_access()
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
        licence=tc.licence_note(toolchain, "A devcontainer for this toolchain"),
        environment=environment_of(toolchain),
    )
    outcomes = []
    docker_text = dockerfile(spec)
    if docker_text is not None:
        target = project / ".devcontainer" / "Dockerfile"
        outcomes.append(
            (target, write_project_file(target, docker_text, args.force, args.dry_run, "Dockerfile"))
        )
    target = project / ".devcontainer" / "devcontainer.json"
    json_text = devcontainer_json(spec)
    outcomes.append(
        (target, write_project_file(target, json_text, args.force, args.dry_run, "devcontainer.json"))
    )
    for path, outcome in outcomes:
        print(safe(f"{outcome}: {path}"))
    if not args.dry_run:
        vscode = "  (or 'Reopen in Container' in VS Code)"
        print(safe(f"next: devcontainer up --workspace-folder {project}") + vscode)
    return 0
