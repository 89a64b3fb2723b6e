"""`moatbridge devcontainer`: the generated files, and the real devcontainer CLI
(@devcontainers/cli from npm, installed by .ci/run) building and entering them."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.statestore import StateStore
from moatbridge.core.devcontainer import (
    GPU_GROUPS_PATH,
    DevcontainerSpec,
    devcontainer_json,
    dockerfile,
    gpu_groups_script,
    strip_jsonc,
)
from moatbridge.core.licences import LicenceNote
from moatbridge.core.toolchains import State, Toolchain
from moatbridge.core.toolkit_env import ToolkitEnv, toolkit_env

from conftest import docker_run, mb
from support.docker_user import DockerUser, docker_group_user

SCALE_NOTE = LicenceNote("scale-free", "SCALE Free License", "https://example.invalid/terms",
                         ("SCALE_LICENSE_ACCEPT=1",), "non-commercial", "alice at 2026-11-30")  # fmt: skip


def _spec(**changes: Any) -> DevcontainerSpec:
    values: dict[str, Any] = dict(
        toolchain="open-gfx1030", flavour="open", target="gfx1030", image="sha256:" + "ab" * 32,
        image_tag="moatbridge/open:12.4-devel-trixie-gfx1030", uid=1000, gid=1000,
        devices=("/dev/kfd", "/dev/dri"), group_adds=(993, 992), licence=None,
    )  # fmt: skip
    values.update(changes)
    return DevcontainerSpec(**values)


def _parsed(spec: DevcontainerSpec) -> dict[str, Any]:
    return dict(json.loads(strip_jsonc(devcontainer_json(spec))))


def test_gpu_access_without_privilege() -> None:
    config = _parsed(_spec())
    assert config["runArgs"] == [
        "--device=/dev/kfd", "--device=/dev/dri", "--group-add=992", "--group-add=993",
        "--security-opt=seccomp=unconfined",
    ]  # fmt: skip
    assert "--privileged" not in json.dumps(config)
    no_gpu = _parsed(_spec(devices=(), group_adds=()))
    assert no_gpu["runArgs"] == []
    assert "No /dev/kfd or /dev/dri" in devcontainer_json(_spec(devices=(), group_adds=()))


def test_nvidia_targets_ask_for_gpus_all_never_kfd() -> None:
    """SCALE's NVIDIA mode (sm_89): docker's NVIDIA path (--gpus=all), even where this host
    has /dev/kfd; no ROCm seccomp relaxation, no device groups."""
    env = ToolkitEnv((("SCALE_ENV", "sm_89"), ("CUDA_PATH", "/usr/local/cuda-12.9")),
                     ("/opt/scale/llvm/bin", "/opt/scale/bin"), (), (), "measured in test")  # fmt: skip
    spec = _spec(
        toolchain="scale-sm_89", flavour="scale", target="sm_89", environment=env, licence=SCALE_NOTE
    )
    text = devcontainer_json(spec)
    config = json.loads(strip_jsonc(text))
    assert config["runArgs"] == ["--gpus=all"]
    assert "/dev/kfd" not in json.dumps(config) and "seccomp" not in text and "group-add" not in text
    assert "NVIDIA Container Toolkit" in text and "No /dev/kfd" not in text
    assert config["containerEnv"]["CUDA_PATH"] == "/usr/local/cuda-12.9"
    assert _parsed(replace(spec, devices=(), group_adds=()))["runArgs"] == ["--gpus=all"]


@pytest.mark.skipif(shutil.which("devcontainer") is None, reason="needs the devcontainer CLI")
def test_devcontainer_cli_reads_the_nvidia_configuration(tmp_path: Path) -> None:
    """The real CLI reads the sm_89 file (no NVIDIA GPU here: it is never started)."""
    env = ToolkitEnv((("SCALE_ENV", "sm_89"),), ("/opt/scale/llvm/bin",), (), (), "measured in test")
    spec = _spec(toolchain="scale-sm_89", flavour="scale", target="sm_89", environment=env, uid=0, gid=0)
    (tmp_path / ".devcontainer").mkdir()
    (tmp_path / ".devcontainer" / "devcontainer.json").write_text(devcontainer_json(spec))
    read = subprocess.run(["devcontainer", "read-configuration", "--workspace-folder", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert read.returncode == 0, read.stderr
    configuration = json.loads(read.stdout)["configuration"]
    assert (
        configuration["runArgs"] == ["--gpus=all"] and configuration["containerEnv"]["SCALE_ENV"] == "sm_89"
    )


GPU_ARGS = ["--device=/dev/kfd", "--device=/dev/dri", "--security-opt=seccomp=unconfined"]


def test_gpu_flag_asks_for_the_devices_on_a_host_without_them() -> None:
    """--gpu on a GPU-less host: the device arguments, no numbers (this host's mean nothing
    elsewhere); a non-root user joins the device nodes' groups at start, as root."""
    spec = _spec(devices=(), group_adds=(), gpu=True)
    text = devcontainer_json(spec)
    config = json.loads(strip_jsonc(text))
    assert config["runArgs"] == GPU_ARGS and "group-add" not in text
    assert (config["containerUser"], config["remoteUser"], config["overrideCommand"]) == (
        "root",
        "dev",
        False,
    )
    assert "does not start where they do not exist" in text and "compile-only container (" not in text
    assert "// Regenerate with: moatbridge devcontainer --gpu --force." in text
    docker = dockerfile(spec)
    assert docker is not None and f'ENTRYPOINT ["{GPU_GROUPS_PATH}"]' in docker
    assert "COPY gpu-groups.sh " in docker
    assert gpu_groups_script(spec) is not None
    # On a host with GPUs --gpu writes the same: nothing of this host's numbers.
    assert devcontainer_json(replace(spec, devices=("/dev/kfd", "/dev/dri"), group_adds=(993,))) == text
    as_root = replace(spec, uid=0, gid=0)
    root_config = _parsed(as_root)
    assert root_config["runArgs"] == GPU_ARGS and root_config["containerUser"] == "root"
    assert "overrideCommand" not in root_config and gpu_groups_script(as_root) is None  # root needs no group
    env = ToolkitEnv((("SCALE_ENV", "sm_89"),), ("/opt/scale/llvm/bin",), (), (), "measured in test")
    nvidia = replace(spec, target="sm_89", flavour="scale", environment=env)
    assert _parsed(nvidia)["runArgs"] == ["--gpus=all"] and gpu_groups_script(nvidia) is None
    without = devcontainer_json(_spec(devices=(), group_adds=()))
    assert "compile-only container (moatbridge devcontainer --gpu asks for them regardless)" in without


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
def test_gpu_groups_script_joins_the_groups_of_the_nodes_it_finds(tmp_path: Path) -> None:
    """The start script in a real shell, in a private mount namespace whose /dev has stand-in
    device nodes (char 1:3) owned by video (44), by a group the image lacks (4711), by root
    (skipped) and a regular file (skipped). groupadd and usermod are stand-ins that log."""
    script = gpu_groups_script(_spec(gpu=True))
    assert script is not None
    (tmp_path / "gpu-groups.sh").write_text(script)
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for tool in ("groupadd", "usermod"):
        (stubs / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> {tmp_path}/calls\n')
        (stubs / tool).chmod(0o755)
    inner = (
        "set -e; mount -t tmpfs none /dev; mkdir /dev/dri; "
        "mknod -m 660 /dev/kfd c 1 3; chgrp 4711 /dev/kfd; "
        "mknod -m 660 /dev/dri/renderD128 c 1 3; chgrp 44 /dev/dri/renderD128; "
        "mknod -m 660 /dev/dri/renderD129 c 1 3; "
        "touch /dev/dri/renderD130; chgrp 4712 /dev/dri/renderD130; "
        f"PATH={stubs}:$PATH sh {tmp_path}/gpu-groups.sh echo the command ran"
    )
    result = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", inner],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "the command ran\n"
    video = subprocess.run(["getent", "group", "44"], capture_output=True, text=True).stdout.split(":")[0]
    assert video, "this host has no group 44 (Debian's video)"
    assert (tmp_path / "calls").read_text().splitlines() == [
        "groupadd --gid 4711 gpu4711", "usermod -a -G gpu4711 dev", f"usermod -a -G {video} dev",
    ]  # fmt: skip
    assert not Path("/dev/kfd").exists()  # the stand-ins lived in the namespace only


OPEN = Toolchain(
    name="open-gfx1030", flavour="open", variant="devel", targets=("gfx1030",), cuda_version="12.4",
    image="moatbridge/open:12.4-devel-trixie-gfx1030", image_id="sha256:" + "ab" * 32, licence="open-components",
)  # fmt: skip


@pytest.fixture
def docker_user(shared_tmp: Path) -> Iterator[DockerUser]:
    """A non-root account in the docker group with the open gfx1030 toolchain on record."""
    if os.geteuid() != 0:
        pytest.skip("making a test account needs root")
    with docker_group_user(shared_tmp) as user:
        StateStore(user.home / ".local/share/moatbridge/state.json").write(State().with_toolchain(OPEN, True))
        subprocess.run(["chown", "-R", f"{user.uid}:{user.gid}", str(user.home / ".local")], check=True)
        yield user


@pytest.mark.skipif(os.path.exists("/dev/kfd"), reason="this host has a GPU: the GPU-less case is elsewhere")
def test_gpu_flag_on_this_gpu_less_host_in_a_login_shell(docker_user: DockerUser) -> None:
    project = docker_user.home / "team project"
    project.mkdir()
    shutil.chown(project, docker_user.uid, docker_user.gid)
    plain = docker_user.run(f"moatbridge devcontainer --dir '{project}'")
    assert plain.returncode == 0, plain.stderr
    assert "GPU: none here, so a compile-only container (--gpu asks" in plain.stdout
    config = json.loads(strip_jsonc((project / ".devcontainer/devcontainer.json").read_text()))
    assert config["runArgs"] == [] and not (project / ".devcontainer/gpu-groups.sh").exists()
    refused = docker_user.run(f"moatbridge devcontainer --gpu --dir '{project}'")
    assert refused.returncode == 2 and "already exists and differs" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not (project / ".devcontainer/gpu-groups.sh").exists()  # nothing written when one is refused
    made = docker_user.run(f"moatbridge devcontainer --gpu --force --dir '{project}'")
    assert made.returncode == 0, made.stderr
    assert "GPU: /dev/kfd and /dev/dri asked for; the container starts only where they exist" in made.stdout
    folder = project / ".devcontainer"
    config = json.loads(strip_jsonc((folder / "devcontainer.json").read_text()))
    assert config["runArgs"] == GPU_ARGS
    assert (config["containerUser"], config["remoteUser"]) == ("root", "dev")
    assert f"USER_UID={docker_user.uid}" in (folder / "Dockerfile").read_text()
    assert (folder / "gpu-groups.sh").read_text().startswith("#!/bin/sh")
    assert all(p.stat().st_uid == docker_user.uid for p in folder.iterdir())


def test_activation_is_spelled_out_because_the_entrypoint_is_overridden() -> None:
    config = _parsed(_spec())
    env = toolkit_env("open", "gfx1030")
    for key, value in env.variables:
        assert config["containerEnv"][key] == value
    assert config["remoteEnv"]["PATH"] == "/opt/moatbridge/targets/gfx1030/bin:${containerEnv:PATH}"
    assert config["containerEnv"]["MOATBRIDGE_TOOLCHAIN"] == "open-gfx1030"


def test_user_matches_the_host_user() -> None:
    as_user = _spec(uid=1000, gid=1000)
    config = _parsed(as_user)
    assert config["build"] == {"dockerfile": "Dockerfile"} and "image" not in config
    assert config["remoteUser"] == "dev" and config["updateRemoteUserUID"] is False
    text = dockerfile(as_user)
    assert text is not None and f"FROM {as_user.image}" in text and "USER_UID=1000" in text
    as_root = _spec(uid=0, gid=0)
    assert dockerfile(as_root) is None
    assert _parsed(as_root)["image"] == as_root.image and _parsed(as_root)["remoteUser"] == "root"


def test_licence_gate_is_written_in() -> None:
    accepted = devcontainer_json(_spec(flavour="scale", licence=SCALE_NOTE))
    assert json.loads(strip_jsonc(accepted))["containerEnv"]["SCALE_LICENSE_ACCEPT"] == "1"
    assert (
        "// Licence: SCALE Free License (scale-free, https://example.invalid/terms), accepted for "
        "non-commercial use by alice at 2026-11-30; everyone running this must be covered by it." in accepted
    )


def test_editor_settings_for_cuda() -> None:
    settings = _parsed(_spec())["customizations"]["vscode"]
    assert "ms-vscode.cpptools" in settings["extensions"]
    assert settings["settings"]["files.associations"]["*.cu"] == "cuda-cpp"


# --- against the real engine and the real devcontainer CLI ------------------------------------


def _devcontainer_cli() -> str:
    found = shutil.which("devcontainer")
    if found is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI=true but the devcontainer CLI is missing; .ci/run installs @devcontainers/cli")
        pytest.skip("the devcontainer CLI is not installed (npm install -g @devcontainers/cli)")
    return found


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
    cli = _devcontainer_cli()
    project = tmp_path / "cuda project"
    project.mkdir()
    (project / "saxpy.cu").write_text(
        "__global__ void saxpy(float a, float* x) { x[threadIdx.x] *= a; }\nint main() { return 0; }\n"
    )
    generated = mb("devcontainer", "--dir", str(project))
    assert generated.returncode == 0, generated.stderr
    workspace = ["--workspace-folder", str(project)]
    images_before = _devcontainer_images()
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
        containers = subprocess.run(
            ["docker", "ps", "-aq", "--filter", f"label=devcontainer.local_folder={project}"],
            capture_output=True, text=True, check=False,
        ).stdout.split()  # fmt: skip
        if containers:
            subprocess.run(["docker", "rm", "-f", *containers], capture_output=True, check=False)
        # The CLI tags each build vsc-<folder>-<hash>[-features|-uid]: ~5 GB a run otherwise kept.
        made = sorted(_devcontainer_images() - images_before)
        if made:
            subprocess.run(["docker", "rmi", *made], capture_output=True, check=False)


@contextmanager
def gpu_device_nodes() -> Iterator[dict[str, int]]:
    """/dev/kfd and a render node, by path -> owning gid, for `devcontainer up` to pass in.

    The real ones where this host has them. Docker's --device takes a host path that must
    be a device node, so on a GPU-less host (as root) stand-ins are made AT THE SAME PATHS
    for the length of the test and removed after: char 1:3 (what /dev/null is), mode 0660,
    /dev/kfd owned by a group no image has (4711), the render node by video (44). They
    give access like a GPU's nodes do (by group) but there is no GPU behind them.
    """
    kfd, dri = Path("/dev/kfd"), Path("/dev/dri")
    if kfd.exists():
        nodes = [kfd, *sorted(dri.glob("renderD*"))]
        yield {str(n): n.stat().st_gid for n in nodes}
        return
    if os.geteuid() != 0:
        pytest.skip("no /dev/kfd here, and stand-in device nodes need root")
    made_dri = not dri.exists()
    render = dri / "renderD128"
    assert not render.exists(), "a render node without /dev/kfd: not a host this test understands"
    try:
        dri.mkdir(exist_ok=True)
        for node, gid in ((kfd, 4711), (render, 44)):
            os.mknod(node, 0o660 | stat.S_IFCHR, os.makedev(1, 3))
            os.chown(node, 0, gid)
            node.chmod(0o660)
        yield {str(kfd): 4711, str(render): 44}
    finally:
        for node in (kfd, render):
            if node.is_char_device():
                node.unlink()
        if made_dri:
            dri.rmdir()


@pytest.mark.engine
def test_devcontainer_up_accepts_the_gpu_arguments_where_the_devices_exist(
    docker_user: DockerUser, open_devel_gfx1030: dict[str, Any]
) -> None:
    """`devcontainer --gpu`, written on this GPU-less host by a non-root docker-group user, is
    accepted by the real `devcontainer up` where /dev/kfd and /dev/dri exist, and the user
    in the container can open the nodes through the groups joined at start."""
    cli = _devcontainer_cli()
    toolchain = replace(
        OPEN, image=str(open_devel_gfx1030["reference"]), image_id=str(open_devel_gfx1030["id"])
    )
    StateStore(docker_user.home / ".local/share/moatbridge/state.json").write(
        State().with_toolchain(toolchain, True)
    )
    project = docker_user.home / "gpu project"
    project.mkdir()
    subprocess.run(["chown", "-R", f"{docker_user.uid}:{docker_user.gid}", str(docker_user.home)], check=True)
    if not os.path.exists("/dev/kfd"):  # written where there is no GPU, as a team would
        made = docker_user.run(f"moatbridge devcontainer --gpu --dir '{project}'")
        assert made.returncode == 0 and "asked for" in made.stdout, made.stderr
    workspace = f"--workspace-folder '{project}'"
    images_before = _devcontainer_images()
    try:
        build = docker_user.run(f"{cli} build {workspace}", timeout=900)
        assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
        with gpu_device_nodes() as nodes:
            up = docker_user.run(f"{cli} up {workspace}", timeout=900)
            assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
            assert json.loads(up.stdout.strip().splitlines()[-1])["outcome"] == "success"
            probe = "id -un; id -G; " + "; ".join(f"test -r {n} && test -w {n} && echo rw {n}" for n in nodes)
            inside = docker_user.run(f"{cli} exec {workspace} sh -c '{probe}'", timeout=300)
            assert inside.returncode == 0, inside.stdout + inside.stderr
            lines = inside.stdout.strip().splitlines()
            assert lines[0] == "dev" and set(map(str, nodes.values())) <= set(lines[1].split())
            assert [f"rw {n}" for n in nodes] == lines[2:]
            container = json.loads(up.stdout.strip().splitlines()[-1])["containerId"]
            # Without those groups the same uid is refused: the access is the groups' doing.
            bare = subprocess.run(["docker", "exec", "-u", f"{docker_user.uid}:{docker_user.gid}", container,
                                   "sh", "-c", "test -w /dev/kfd || echo refused"], capture_output=True, text=True)  # fmt: skip
            assert bare.stdout.strip() == "refused", bare.stdout + bare.stderr
            compiled = docker_user.run(f"{cli} exec {workspace} nvcc --version", timeout=300)
            assert compiled.returncode == 0 and "Cuda compilation tools" in compiled.stdout, compiled.stderr
    finally:
        _remove_devcontainers(project, images_before)


def _remove_devcontainers(project: Path, images_before: set[str]) -> None:
    containers = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label=devcontainer.local_folder={project}"],
        capture_output=True, text=True, check=False,
    ).stdout.split()  # fmt: skip
    if containers:
        subprocess.run(["docker", "rm", "-f", *containers], capture_output=True, check=False)
    made = sorted(_devcontainer_images() - images_before)
    if made:
        subprocess.run(["docker", "rmi", *made], capture_output=True, check=False)


def _devcontainer_images() -> set[str]:
    listed = subprocess.run(["docker", "images", "--format", "{{.Repository}}:{{.Tag}}"], capture_output=True,
                            text=True, check=False).stdout.split()  # fmt: skip
    return {name for name in listed if name.startswith("vsc-")}


@pytest.mark.engine
def test_generated_dockerfile_gives_the_user_its_host_uid(
    open_devel_gfx1030: dict[str, Any], tmp_path: Path
) -> None:
    spec = _spec(image=str(open_devel_gfx1030["id"]), uid=4242, gid=4243, devices=(), group_adds=())
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


def test_cc_and_cxx_name_the_stacks_clang() -> None:
    from moatbridge.adapters.scaleenv_probe import stack_clang, toolchain_environment

    assert (stack_clang("open", None), stack_clang("open", "sid"), stack_clang("open", "experimental")) == (
        "17", "21", "22",
    )  # fmt: skip
    assert stack_clang("open", "no-such-stack") is None
    assert toolkit_env("open", "gfx1030").as_dict()["CC"] == "clang-17"  # unknown stack: trixie's
    sid = toolchain_environment("open", "gfx1201", "unused", "sid").as_dict()
    assert (sid["CC"], sid["CXX"]) == ("clang-21", "clang++-21")


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
