"""`moatbridge devcontainer` against the real devcontainer CLI (@devcontainers/cli from npm,
installed by .ci/run) and the live engine: the CLI reads, builds and enters what was
generated; the Dockerfile gives the user its host uid; the environment written in matches
what the image's activate script exports."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from moatbridge.core.devcontainer import devcontainer_json, dockerfile
from moatbridge.core.toolkit_env import ToolkitEnv, toolkit_env

from conftest import docker_run, mb
from support.devcontainers import devcontainer_cli, devcontainer_images, make_spec, remove_devcontainers


def test_devcontainer_cli_reads_the_nvidia_configuration(tmp_path: Path) -> None:
    """The real CLI reads the sm_89 file (no NVIDIA GPU here: it is never started)."""
    cli = devcontainer_cli()
    env = ToolkitEnv((("SCALE_ENV", "sm_89"),), ("/opt/scale/llvm/bin",), (), (), "measured in test")
    spec = make_spec(toolchain="scale-sm_89", flavour="scale", target="sm_89", environment=env, uid=0, gid=0)
    (tmp_path / ".devcontainer").mkdir()
    (tmp_path / ".devcontainer" / "devcontainer.json").write_text(devcontainer_json(spec))
    read = subprocess.run([cli, "read-configuration", "--workspace-folder", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert read.returncode == 0, read.stderr
    configuration = json.loads(read.stdout)["configuration"]
    assert (
        configuration["runArgs"] == ["--gpus=all"] and configuration["containerEnv"]["SCALE_ENV"] == "sm_89"
    )


@pytest.mark.engine
def test_never_overwrites_without_force_and_shows_the_diff(toolchain_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".devcontainer").mkdir(parents=True)
    mine = '{ "name": "mine", "image": "debian" }\n'
    (project / ".devcontainer" / "devcontainer.json").write_text(mine)
    refused = mb("devcontainer", "--dir", str(project))
    assert refused.returncode == 2
    assert "already exists and differs" in refused.stderr and "--force" in refused.stderr
    assert '-{ "name": "mine", "image": "debian" }' in refused.stderr  # the diff
    assert (project / ".devcontainer" / "devcontainer.json").read_text() == mine
    dry = mb("devcontainer", "--dir", str(project), "--force", "--dry-run")
    assert dry.returncode == 0 and (project / ".devcontainer" / "devcontainer.json").read_text() == mine
    forced = mb("devcontainer", "--dir", str(project), "--force")
    assert forced.returncode == 0, forced.stderr
    assert "moatbridge open-gfx1030" in (project / ".devcontainer" / "devcontainer.json").read_text()
    again = mb("devcontainer", "--dir", str(project))
    assert again.returncode == 0 and "unchanged" in again.stdout


@pytest.mark.engine
def test_devcontainer_cli_builds_and_enters_it(toolchain_home: Path, tmp_path: Path) -> None:
    cli = devcontainer_cli()
    project = tmp_path / "cuda project"
    project.mkdir()
    (project / "saxpy.cu").write_text(
        "__global__ void saxpy(float a, float* x) { x[threadIdx.x] *= a; }\nint main() { return 0; }\n"
    )
    generated = mb("devcontainer", "--dir", str(project))
    assert generated.returncode == 0, generated.stderr
    workspace = ["--workspace-folder", str(project)]
    images_before = devcontainer_images()
    try:
        build = subprocess.run([cli, "build", *workspace], capture_output=True, text=True, timeout=900)
        assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
        up = subprocess.run([cli, "up", *workspace], capture_output=True, text=True, timeout=900)
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        assert json.loads(up.stdout.strip().splitlines()[-1])["outcome"] == "success"
        version = subprocess.run([cli, "exec", *workspace, "nvcc", "--version"], capture_output=True, text=True,
                                 timeout=300)  # fmt: skip
        assert version.returncode == 0, version.stderr
        assert "Cuda compilation tools, release 12.4" in version.stdout
        compiled = subprocess.run([cli, "exec", *workspace, "nvcc", "-o", "saxpy", "saxpy.cu"],
                                  capture_output=True, text=True, timeout=300)  # fmt: skip
        assert compiled.returncode == 0, compiled.stderr
        built = project / "saxpy"
        assert built.exists() and built.stat().st_uid == os.getuid()
    finally:
        remove_devcontainers(project, images_before)


@pytest.mark.engine
def test_generated_dockerfile_gives_the_user_its_host_uid(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    spec = make_spec(image=str(open_devel_gfx1030["id"]), uid=4242, gid=4243, devices=(), group_adds=())
    text = dockerfile(spec)
    assert text is not None
    (tmp_path / "Dockerfile").write_text(text)
    tag = "moatbridge-test/devcontainer-user:latest"
    build = subprocess.run(["docker", "build", "-q", "--network", "host", "-t", tag, str(tmp_path)],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    assert build.returncode == 0, build.stderr
    try:
        result = docker_run(tag, "id -u dev; id -g dev; getent passwd dev | cut -d: -f6")
        assert result.stdout.split() == ["4242", "4243", "/home/dev"], result.stderr
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, check=False)


@pytest.mark.engine
def test_toolkit_env_matches_what_the_activate_script_exports(open_devel_gfx1030: dict[str, Any]) -> None:
    result = docker_run(
        str(open_devel_gfx1030["reference"]), "set -eu; . /opt/moatbridge/bin/activate gfx1030; env"
    )
    exported = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    env = toolkit_env("open", "gfx1030")
    for key, value in env.variables:
        assert exported.get(key) == value, key
    assert exported["PATH"].split(":")[0] == env.path_prepend
    assert exported["LIBRARY_PATH"].split(":")[0] == env.library_path[0]
    assert "LD_LIBRARY_PATH" not in exported and env.ld_library_path == ()


@pytest.mark.engine
def test_toolkit_env_matches_the_sid_stacks_activate_script(open_devel_sid_gfx1201: dict[str, Any]) -> None:
    from moatbridge.adapters.scaleenv_probe import toolchain_environment

    result = docker_run(
        str(open_devel_sid_gfx1201["reference"]), "set -eu; . /opt/moatbridge/bin/activate gfx1201; env"
    )
    exported = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    env = toolchain_environment("open", "gfx1201", str(open_devel_sid_gfx1201["reference"]), "sid")
    for key, value in env.variables:
        assert exported.get(key) == value, key
    assert exported["CC"] == "clang-21"
