"""`moatbridge devcontainer`: the generated files (devcontainer.json, the Dockerfile giving
the user its host uid, --gpu's start script), composed by core/devcontainer.py. The real
devcontainer CLI and engine: tests/test_devcontainer_cli.py; --gpu as a new user, with
`devcontainer up`: tests/test_devcontainer_gpu.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from moatbridge.core.devcontainer import (
    GPU_GROUPS_PATH,
    devcontainer_json,
    dockerfile,
    gpu_groups_script,
    strip_jsonc,
)
from moatbridge.core.licences import LicenceNote
from moatbridge.core.toolkit_env import ToolkitEnv, toolkit_env

from support.devcontainers import GPU_ARGS, make_spec, parsed

SCALE_NOTE = LicenceNote("scale-free", "SCALE Free License", "https://example.invalid/terms",
                         ("SCALE_LICENSE_ACCEPT=1",), "non-commercial", "alice at 2026-11-30")  # fmt: skip


def test_gpu_access_without_privilege() -> None:
    config = parsed(make_spec())
    assert config["runArgs"] == [
        "--device=/dev/kfd", "--device=/dev/dri", "--group-add=992", "--group-add=993",
        "--security-opt=seccomp=unconfined",
    ]  # fmt: skip
    assert "--privileged" not in json.dumps(config)
    no_gpu = parsed(make_spec(devices=(), group_adds=()))
    assert no_gpu["runArgs"] == []
    assert "No /dev/kfd or /dev/dri" in devcontainer_json(make_spec(devices=(), group_adds=()))


def test_nvidia_targets_ask_for_gpus_all_never_kfd() -> None:
    """SCALE's NVIDIA mode (sm_89): docker's NVIDIA path (--gpus=all), even where this host
    has /dev/kfd; no ROCm seccomp relaxation, no device groups."""
    env = ToolkitEnv((("SCALE_ENV", "sm_89"), ("CUDA_PATH", "/usr/local/cuda-12.9")),
                     ("/opt/scale/llvm/bin", "/opt/scale/bin"), (), (), "measured in test")  # fmt: skip
    spec = make_spec(
        toolchain="scale-sm_89", flavour="scale", target="sm_89", environment=env, licence=SCALE_NOTE
    )
    text = devcontainer_json(spec)
    config = json.loads(strip_jsonc(text))
    assert config["runArgs"] == ["--gpus=all"]
    assert "/dev/kfd" not in json.dumps(config) and "seccomp" not in text and "group-add" not in text
    assert "NVIDIA Container Toolkit" in text and "No /dev/kfd" not in text
    assert config["containerEnv"]["CUDA_PATH"] == "/usr/local/cuda-12.9"
    assert parsed(replace(spec, devices=(), group_adds=()))["runArgs"] == ["--gpus=all"]


def test_gpu_flag_asks_for_the_devices_on_a_host_without_them() -> None:
    """--gpu on a GPU-less host: the device arguments, no numbers (this host's mean nothing
    elsewhere); a non-root user joins the device nodes' groups at start, as root."""
    spec = make_spec(devices=(), group_adds=(), gpu=True)
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
    root_config = parsed(as_root)
    assert root_config["runArgs"] == GPU_ARGS and root_config["containerUser"] == "root"
    assert "overrideCommand" not in root_config and gpu_groups_script(as_root) is None  # root needs no group
    env = ToolkitEnv((("SCALE_ENV", "sm_89"),), ("/opt/scale/llvm/bin",), (), (), "measured in test")
    nvidia = replace(spec, target="sm_89", flavour="scale", environment=env)
    assert parsed(nvidia)["runArgs"] == ["--gpus=all"] and gpu_groups_script(nvidia) is None
    without = devcontainer_json(make_spec(devices=(), group_adds=()))
    assert "compile-only container (moatbridge devcontainer --gpu asks for them regardless)" in without


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root and unshare")
def test_gpu_groups_script_joins_the_groups_of_the_nodes_it_finds(tmp_path: Path) -> None:
    """The start script in a real shell, in a private mount namespace whose /dev has stand-in
    device nodes (char 1:3) owned by video (44), by a group the image lacks (4711), by root
    (skipped) and a regular file (skipped). groupadd and usermod are stand-ins that log."""
    script = gpu_groups_script(make_spec(gpu=True))
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


def test_activation_is_spelled_out_because_the_entrypoint_is_overridden() -> None:
    config = parsed(make_spec())
    env = toolkit_env("open", "gfx1030")
    for key, value in env.variables:
        assert config["containerEnv"][key] == value
    assert config["remoteEnv"]["PATH"] == "/opt/moatbridge/targets/gfx1030/bin:${containerEnv:PATH}"
    assert config["containerEnv"]["MOATBRIDGE_TOOLCHAIN"] == "open-gfx1030"


def test_user_matches_the_host_user() -> None:
    as_user = make_spec(uid=1000, gid=1000)
    config = parsed(as_user)
    assert config["build"] == {"dockerfile": "Dockerfile"} and "image" not in config
    assert config["remoteUser"] == "dev" and config["updateRemoteUserUID"] is False
    text = dockerfile(as_user)
    assert text is not None and f"FROM {as_user.image}" in text and "USER_UID=1000" in text
    as_root = make_spec(uid=0, gid=0)
    assert dockerfile(as_root) is None
    assert parsed(as_root)["image"] == as_root.image and parsed(as_root)["remoteUser"] == "root"


def test_licence_gate_is_written_in() -> None:
    accepted = devcontainer_json(make_spec(flavour="scale", licence=SCALE_NOTE))
    assert json.loads(strip_jsonc(accepted))["containerEnv"]["SCALE_LICENSE_ACCEPT"] == "1"
    assert (
        "// Licence: SCALE Free License (scale-free, https://example.invalid/terms), accepted for "
        "non-commercial use by alice at 2026-11-30; everyone running this must be covered by it." in accepted
    )


def test_editor_settings_for_cuda() -> None:
    settings = parsed(make_spec())["customizations"]["vscode"]
    assert "ms-vscode.cpptools" in settings["extensions"]
    assert settings["settings"]["files.associations"]["*.cu"] == "cuda-cpp"


def test_cc_and_cxx_name_the_stacks_clang() -> None:
    from moatbridge.adapters.scaleenv_probe import stack_clang, toolchain_environment

    assert (stack_clang("open", None), stack_clang("open", "sid"), stack_clang("open", "experimental")) == (
        "17", "21", "22",
    )  # fmt: skip
    assert stack_clang("open", "no-such-stack") is None
    assert toolkit_env("open", "gfx1030").as_dict()["CC"] == "clang-17"  # unknown stack: trixie's
    sid = toolchain_environment("open", "gfx1201", "unused", "sid").as_dict()
    assert (sid["CC"], sid["CXX"]) == ("clang-21", "clang++-21")
