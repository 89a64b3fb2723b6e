"""`moatbridge devcontainer [-t NAME] [--dir PATH] [--force] [--dry-run]`."""

from __future__ import annotations

import os
from argparse import Namespace
from pathlib import Path

from moatbridge.commands import _toolchain as tc
from moatbridge.commands._project_files import write_project_file
from moatbridge.core.devcontainer import DevcontainerSpec, DeviceNode, devcontainer_json, dockerfile
from moatbridge.core.toolchains import pinned_image
from moatbridge.errors import InputError


def host_device_nodes() -> tuple[DeviceNode, ...]:
    nodes = []
    for path in ("/dev/kfd", "/dev/dri"):
        if os.path.exists(path):
            gid = os.stat(path).st_gid
            if path == "/dev/dri":
                # The render nodes' group (render), not the directory's (root).
                render = sorted(Path(path).glob("renderD*"))
                gid = os.stat(render[0]).st_gid if render else gid
            nodes.append(DeviceNode(path, gid))
    return tuple(nodes)


def run(args: Namespace) -> int:
    project = Path(args.dir).resolve()
    if not project.is_dir():
        raise InputError(f"{args.dir} is not a directory.", "pass the project directory with --dir")
    state, toolchain = tc.current_toolchain(args.toolchain)
    spec = DevcontainerSpec(
        toolchain=toolchain.name,
        flavour=toolchain.flavour,
        target=toolchain.target,
        image=pinned_image(toolchain),
        image_tag=toolchain.image,
        uid=os.getuid(),
        gid=os.getgid(),
        devices=host_device_nodes(),
        licence=tc.licence_note(state, toolchain),
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
        print(f"{outcome}: {path}")
    if not args.dry_run:
        print(f"next: devcontainer up --workspace-folder {project}   (or 'Reopen in Container' in VS Code)")
    return 0
