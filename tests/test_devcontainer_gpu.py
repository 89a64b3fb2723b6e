"""`moatbridge devcontainer --gpu` as a new user (a non-root account in the docker group, in
its login shell): written on a host without a GPU, the file asks for /dev/kfd and /dev/dri
regardless, and the real `devcontainer up` accepts it where the nodes exist: this host's
real ones, or stand-ins made for the test's duration where it has none
(tests/support/gpu_nodes.py). Inside, the user is in the nodes' owning groups and opens them."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.statestore import StateStore
from moatbridge.core.devcontainer import strip_jsonc
from moatbridge.core.toolchains import State

from support.devcontainers import GPU_ARGS, devcontainer_cli, devcontainer_images, remove_devcontainers
from support.docker_user import DockerUser
from support.gpu_nodes import DRI, KFD, gpu_device_nodes, without_gpu_nodes
from support.toolchains import make_toolchain

OPEN = make_toolchain(
    name="open-gfx1030", flavour="open", variant="devel", targets=("gfx1030",), cuda_version="12.4",
    image="moatbridge/open:12.4-devel-trixie-gfx1030", image_id="sha256:" + "ab" * 32, licence="open-components",
)  # fmt: skip


@pytest.fixture
def docker_user(account: DockerUser) -> DockerUser:
    """A non-root account in the docker group with the open gfx1030 toolchain on record."""
    StateStore(account.home / ".local/share/moatbridge/state.json").write(State().with_toolchain(OPEN, True))
    subprocess.run(["chown", "-R", f"{account.uid}:{account.gid}", str(account.home / ".local")], check=True)
    return account


def _on_a_gpu_less_host(user: DockerUser, command: str, scratch: Path) -> subprocess.CompletedProcess[str]:
    """``command`` in the account's login shell, seeing no GPU nodes: on a host that has
    them, in a private mount namespace whose /dev lacks kfd and dri (the host's stays)."""
    argv = user.argv(command)
    if KFD.exists() or DRI.exists():
        argv = without_gpu_nodes(argv, scratch)
    return subprocess.run(argv, capture_output=True, text=True, cwd=user.home, env=user.env(), timeout=300)


def test_gpu_flag_on_a_gpu_less_host_in_a_login_shell(docker_user: DockerUser, shared_tmp: Path) -> None:
    project = docker_user.home / "team project"
    project.mkdir()
    shutil.chown(project, docker_user.uid, docker_user.gid)
    plain = _on_a_gpu_less_host(docker_user, f"moatbridge devcontainer --dir '{project}'", shared_tmp)
    assert plain.returncode == 0, plain.stderr
    assert "GPU: none here, so a compile-only container (--gpu asks" in plain.stdout
    config = json.loads(strip_jsonc((project / ".devcontainer/devcontainer.json").read_text()))
    assert config["runArgs"] == [] and not (project / ".devcontainer/gpu-groups.sh").exists()
    refused = _on_a_gpu_less_host(docker_user, f"moatbridge devcontainer --gpu --dir '{project}'", shared_tmp)
    assert refused.returncode == 2 and "already exists and differs" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not (project / ".devcontainer/gpu-groups.sh").exists()  # nothing written when one is refused
    made = _on_a_gpu_less_host(
        docker_user, f"moatbridge devcontainer --gpu --force --dir '{project}'", shared_tmp
    )
    assert made.returncode == 0, made.stderr
    assert "GPU: /dev/kfd and /dev/dri asked for; the container starts only where they exist" in made.stdout
    folder = project / ".devcontainer"
    config = json.loads(strip_jsonc((folder / "devcontainer.json").read_text()))
    assert config["runArgs"] == GPU_ARGS
    assert (config["containerUser"], config["remoteUser"]) == ("root", "dev")
    assert f"USER_UID={docker_user.uid}" in (folder / "Dockerfile").read_text()
    assert (folder / "gpu-groups.sh").read_text().startswith("#!/bin/sh")
    assert all(p.stat().st_uid == docker_user.uid for p in folder.iterdir())


@pytest.mark.engine
def test_devcontainer_up_accepts_the_gpu_arguments_where_the_devices_exist(
    docker_user: DockerUser, open_devel_gfx1030: dict[str, Any]
) -> None:
    """`devcontainer --gpu`, written by a non-root docker-group user (the same file whether
    this host has a GPU or not), is accepted by the real `devcontainer up` where /dev/kfd and
    /dev/dri exist, and the user in the container can open the nodes through the groups
    joined at start."""
    cli = devcontainer_cli()
    toolchain = replace(
        OPEN, image=str(open_devel_gfx1030["reference"]), image_id=str(open_devel_gfx1030["id"])
    )
    StateStore(docker_user.home / ".local/share/moatbridge/state.json").write(
        State().with_toolchain(toolchain, True)
    )
    project = docker_user.home / "gpu project"
    project.mkdir()
    subprocess.run(["chown", "-R", f"{docker_user.uid}:{docker_user.gid}", str(docker_user.home)], check=True)
    made = docker_user.run(f"moatbridge devcontainer --gpu --dir '{project}'")
    assert made.returncode == 0, made.stderr
    assert "GPU: /dev/kfd and /dev/dri asked for" in made.stdout, made.stdout
    workspace = f"--workspace-folder '{project}'"
    images_before = devcontainer_images()
    try:
        build = docker_user.run(f"{cli} build {workspace}", timeout=900)
        assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
        with gpu_device_nodes() as nodes:
            up = docker_user.run(f"{cli} up {workspace}", timeout=900)
            assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
            assert json.loads(up.stdout.strip().splitlines()[-1])["outcome"] == "success"
            paths = [str(node.path) for node in nodes]
            probe = "id -un; id -G; " + "; ".join(f"test -r {p} && test -w {p} && echo rw {p}" for p in paths)
            inside = docker_user.run(f"{cli} exec {workspace} sh -c '{probe}'", timeout=300)
            assert inside.returncode == 0, inside.stdout + inside.stderr
            lines = inside.stdout.strip().splitlines()
            owners = {str(node.gid) for node in nodes if node.gid != 0}  # root's group is never joined
            assert lines[0] == "dev" and owners <= set(lines[1].split()), (lines, nodes)
            assert [f"rw {p}" for p in paths] == lines[2:], (lines, nodes)
            # Without those groups the same uid is refused: the access is the groups' doing
            # (a real node open to all, as some hosts make /dev/kfd, proves nothing here).
            guarded = [str(node.path) for node in nodes if not node.open_to_all]
            container = json.loads(up.stdout.strip().splitlines()[-1])["containerId"]
            check = "; ".join(f"test -w {p} || echo refused {p}" for p in guarded) or "true"
            bare = subprocess.run(["docker", "exec", "-u", f"{docker_user.uid}:{docker_user.gid}", container,
                                   "sh", "-c", check], capture_output=True, text=True)  # fmt: skip
            assert bare.stdout.splitlines() == [f"refused {p}" for p in guarded], bare.stdout + bare.stderr
            compiled = docker_user.run(f"{cli} exec {workspace} nvcc --version", timeout=300)
            assert compiled.returncode == 0 and "Cuda compilation tools" in compiled.stdout, compiled.stderr
    finally:
        remove_devcontainers(project, images_before)
