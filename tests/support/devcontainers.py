"""Shared by the devcontainer tests (tests/test_devcontainer*.py): a spec to vary, the
generated file parsed, and the real devcontainer CLI with the cleanup of what it makes."""

from __future__ import annotations

import json
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
    """The images the CLI built: it tags each build vsc-<folder>-<hash>[-features|-uid]."""
    listed = subprocess.run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"], capture_output=True,
                            text=True, check=False).stdout.split()  # fmt: skip
    return {name for name in listed if name.startswith("vsc-")}


def remove_devcontainers(project: Path, images_before: set[str]) -> None:
    """The containers `devcontainer up` started for ``project`` and the images built since
    ``images_before`` (~5 GB a run otherwise kept)."""
    containers = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=devcontainer.local_folder={project}"],
        capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip
    if containers:
        subprocess.run(["docker", "rm", "-f", *containers], capture_output=True, check=False)
    made = sorted(devcontainer_images() - images_before)
    if made:
        subprocess.run(["docker", "rmi", *made], capture_output=True, check=False)
