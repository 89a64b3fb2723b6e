"""Shared by the devcontainer tests (tests/test_devcontainer*.py): a spec to vary, the
generated file parsed, and the real devcontainer CLI with the cleanup of what it makes."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from moatbridge.core.devcontainer import DevcontainerSpec, devcontainer_json, strip_jsonc

from support import ci_policy

# What `--gpu` asks docker for, on any host: the nodes by path, no numeric group.
GPU_ARGS = ["--device=/dev/kfd", "--device=/dev/dri", "--security-opt=seccomp=unconfined"]


def make_spec(**changes: Any) -> DevcontainerSpec:
    """The open gfx1030 toolchain for uid 1000 on a host with a GPU, with ``changes``."""
    values: dict[str, Any] = dict(
        toolchain="open-gfx1030", flavour="open", target="gfx1030", image="sha256:" + "ab" * 32,
        image_tag="moatbridge/open:12.4-devel-trixie-gfx1030", uid=1000, gid=1000,
        devices=("/dev/kfd", "/dev/dri"), group_adds=(993, 992), licence=None,
    )  # fmt: skip
    values.update(changes)
    return DevcontainerSpec(**values)


def parsed(of: DevcontainerSpec) -> dict[str, Any]:
    """devcontainer.json as the CLI reads it (JSON with comments)."""
    return dict(json.loads(strip_jsonc(devcontainer_json(of))))


def devcontainer_cli() -> str:
    """The real CLI (@devcontainers/cli from npm, installed by .ci/run)."""
    found = shutil.which("devcontainer")
    if found is None:
        if ci_policy.in_ci():
            pytest.fail("CI=true but the devcontainer CLI is missing; .ci/run installs @devcontainers/cli")
        pytest.skip("the devcontainer CLI is not installed (npm install -g @devcontainers/cli)")
    return found


def devcontainer_images() -> set[str]:
    """The images the devcontainer CLI built, for any project: it tags each vsc-<...>."""
    listed = subprocess.run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"], capture_output=True,
                            text=True, check=False).stdout.split()  # fmt: skip
    return {name for name in listed if name.startswith("vsc-")}


def project_image_name(project: Path) -> str:
    """The name the devcontainer CLI gives the images it builds for the workspace folder
    ``project`` (the path as given to --workspace-folder): vsc-<folder name>-<sha256 of the
    path>, lower-cased with characters a name cannot hold dropped; its feature and uid layers
    append -features and -uid to it (@devcontainers/cli 0.89.0, dist/spec-node:
    getFolderImageName). The hash makes the name this project's alone."""
    raw = f"vsc-{project.name}-{hashlib.sha256(str(project).encode()).hexdigest()}".lower()
    kept = re.sub(r"[^a-z0-9._-]+", "", raw)
    # Runs of separators collapse to the first (the CLI's toDockerImageName).
    return re.sub(r"(\.[._-]|_[.-]|__[._-]|-+[._])[._-]*", lambda run: run.group(1)[:-1], kept)


def remove_devcontainers(project: Path, images_before: set[str]) -> None:
    """The containers `devcontainer up` started for ``project`` and the images built for it
    since ``images_before`` (~5 GB a run otherwise kept); another project's, another test
    session's on the same engine included, stay."""
    containers = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=devcontainer.local_folder={project}"],
        capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip
    name = project_image_name(project)
    started_from: list[str] = []
    if containers:
        started_from = subprocess.run(["docker", "inspect", "--format", "{{.Config.Image}}", *containers],
                                      capture_output=True, text=True, check=False).stdout.split()  # fmt: skip
        subprocess.run(["docker", "rm", "-f", *containers], capture_output=True, check=False)
    ours = {image for image in devcontainer_images() if _built_for(image, name)}
    made = sorted(ours - images_before)
    if made:
        subprocess.run(["docker", "rmi", *made], capture_output=True, check=False)
    # The CLI's naming is read from its source, not promised: should it change, this says so
    # rather than leaving the project's images behind unnoticed.
    strays = [image for image in started_from if image.startswith("vsc-") and not _built_for(image, name)]
    assert not strays, f"the devcontainer CLI named {project}'s image {strays}, not {name}[-...]"


def _built_for(image: str, name: str) -> bool:
    """The project's image or one the CLI layered on it (name-features, name[-features]-uid),
    with or without a tag."""
    repository = image.split(":")[0]
    return repository == name or repository.startswith(f"{name}-")
