"""Kubernetes Jobs validated against the Kubernetes OpenAPI schema (kubernetes-validate, the
schemas of several releases, strict), and the Apptainer definition file."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from moatbridge.core.apptainer import ApptainerSpec, conversion_commands, definition
from moatbridge.core.k8s import JobSpec, job_manifest, job_name
from moatbridge.core.licences import LicenceNote
from moatbridge.core.toolkit_env import ToolkitEnv

from conftest import mb

SCHEMA_VERSIONS = ("1.27.0", "1.30.0", kubernetes_validate.latest_version())
# What a measured scaleenv sm_89 might give (SCALE's NVIDIA mode is only served measured).
NVIDIA_ENV = ToolkitEnv((("SCALE_ENV", "sm_89"), ("CUDA_PATH", "/usr/local/cuda-12.9")),
                        ("/opt/scale/llvm/bin", "/opt/scale/bin"), (), (), "measured in test")  # fmt: skip
ACCEPTED = LicenceNote("scale-free", "SCALE Free License", "https://example.invalid", ("SCALE_LICENSE_ACCEPT=1",),
                       "non-commercial", "alice at 2026-11-30T00:00:00+00:00")  # fmt: skip


def _spec(**changes: Any) -> JobSpec:
    values: dict[str, Any] = dict(
        name="moatbridge-open-gfx1030", namespace="ml", toolchain="open-gfx1030", flavour="open",
        target="gfx1030", image="registry.example.com/team/open:12.4-devel-trixie-gfx1030",
        command=("bash", "-c", "nvcc -o app app.cu && ./app"), gpus=1, licence=None,
    )  # fmt: skip
    values.update(changes)
    return JobSpec(**values)


@pytest.mark.parametrize("version", SCHEMA_VERSIONS)
@pytest.mark.parametrize("variant", ["gpu", "no-gpu", "scale-accepted", "scale-nvidia"])
def test_job_manifest_validates_against_the_openapi_schema(version: str, variant: str) -> None:
    spec = {
        "gpu": _spec(),
        "no-gpu": _spec(gpus=0, namespace=None),
        "scale-accepted": _spec(flavour="scale", licence=ACCEPTED),
        "scale-nvidia": _spec(flavour="scale", target="sm_89", licence=ACCEPTED, environment=NVIDIA_ENV),
    }[variant]
    manifest = job_manifest(spec)
    # A YAML round trip, as kubectl would read the printed file.
    kubernetes_validate.validate(yaml.safe_load(yaml.safe_dump(manifest)), version, strict=True)


def test_the_validator_rejects_a_broken_manifest() -> None:
    manifest = job_manifest(_spec())
    manifest["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] = "amd.com/gpu"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(manifest, SCHEMA_VERSIONS[-1], strict=True)


def test_gpu_request_security_context_and_licence_env() -> None:
    container = job_manifest(_spec())["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"] == {"amd.com/gpu": 1}
    assert container["securityContext"]["privileged"] is False
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["runAsNonRoot"] is True
    env = {item["name"]: item["value"] for item in container["env"]}
    assert env["CUDA_HOME"] == "/opt/moatbridge/targets/gfx1030"
    assert env["PATH"].startswith("/opt/moatbridge/targets/gfx1030/bin:")
    assert "SCALE_LICENSE_ACCEPT" not in env
    assert "resources" not in job_manifest(_spec(gpus=0))["spec"]["template"]["spec"]["containers"][0]
    scale = job_manifest(_spec(flavour="scale", licence=ACCEPTED))["spec"]["template"]["spec"]["containers"][
        0
    ]
    assert {"name": "SCALE_LICENSE_ACCEPT", "value": "1"} in scale["env"]


def test_nvidia_targets_ask_nvidias_device_plugin() -> None:
    """SCALE's NVIDIA mode (sm_89): the NVIDIA device plugin's resource, never AMD's."""
    spec = _spec(flavour="scale", target="sm_89", gpus=2, licence=ACCEPTED, environment=NVIDIA_ENV)
    manifest = job_manifest(spec)
    container = manifest["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"]["limits"] == {"nvidia.com/gpu": 2}
    assert "amd.com" not in yaml.safe_dump(manifest) and container["securityContext"]["privileged"] is False
    assert manifest["metadata"]["annotations"]["moatbridge.io/target"] == "sm_89"
    assert "resources" not in job_manifest(replace(spec, gpus=0))["spec"]["template"]["spec"]["containers"][0]


def test_job_names_become_dns_labels() -> None:
    assert job_name("moatbridge-open-gfx1030_gfx1100") == "moatbridge-open-gfx1030-gfx1100"
    assert job_name("Weird..Name!!") == "weird-name"
    assert len(job_name("x" * 100)) == 63


def test_apptainer_definition() -> None:
    spec = ApptainerSpec(
        "open-gfx1030", "open", "gfx1030", "moatbridge/open:12.4-devel-trixie-gfx1030", "sha256:ab", None
    )
    text = definition(spec)
    assert "Bootstrap: docker-daemon\nFrom: moatbridge/open:12.4-devel-trixie-gfx1030\n" in text
    sections = [line for line in text.splitlines() if line.startswith("%")]
    assert sections == ["%labels", "%environment", "%runscript", "%help"]
    assert "    export CUDA_HOME=/opt/moatbridge/targets/gfx1030" in text
    assert "apptainer exec --rocm" in text
    commands = conversion_commands(spec, "open.def")
    assert "apptainer build open-gfx1030.sif docker-archive://open-gfx1030.tar" in commands
    environment = text.split("%environment\n")[1].split("\n\n")[0]
    check = subprocess.run(["sh", "-n", "-c", environment], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert "--nv" not in text


def test_apptainer_definition_for_an_nvidia_target() -> None:
    """SCALE's NVIDIA mode (sm_89): `apptainer exec --nv`, never --rocm."""
    spec = ApptainerSpec(
        "scale-sm_89", "scale", "sm_89", "quay.io/x/scale:1", "sha256:ab", ACCEPTED, NVIDIA_ENV
    )
    text = definition(spec)
    commands = conversion_commands(spec, "scale.def")
    assert "# Run:   apptainer exec --nv scale-sm_89.sif nvcc --version" in text
    assert "Use `apptainer exec --nv IMAGE.sif CMD`: --nv binds NVIDIA's devices" in text
    assert "apptainer exec --nv scale-sm_89.sif nvcc --version" in commands
    assert "--rocm" not in text + "\n".join(commands) and "/dev/kfd" not in text
    assert "    export CUDA_PATH=/usr/local/cuda-12.9" in text


# --- the CLI, with a real toolchain -------------------------------------------------------


@pytest.mark.engine
def test_k8s_command_prints_a_valid_job_and_never_clobbers(toolchain_home: Path, tmp_path: Path) -> None:
    printed = mb("k8s", "--namespace", "ci", "--image", "registry.example.com/t/open:1", "--", "make", "-j8")
    assert printed.returncode == 0, printed.stderr
    manifest = yaml.safe_load(printed.stdout)
    kubernetes_validate.validate(manifest, SCHEMA_VERSIONS[-1], strict=True)
    assert manifest["spec"]["template"]["spec"]["containers"][0]["command"] == ["make", "-j8"]
    assert printed.stdout.startswith("# Generated by moatbridge")
    mine = tmp_path / "job.yaml"
    mine.write_text("kind: Mine\n")
    refused = mb("k8s", "-o", str(mine), "--", "true")
    assert refused.returncode == 2 and "not written by moatbridge" in refused.stderr
    assert mine.read_text() == "kind: Mine\n"
    ours = tmp_path / "ours.yaml"
    assert mb("k8s", "-o", str(ours), "--gpus", "2", "--", "true").returncode == 0
    assert yaml.safe_load(ours.read_text())["spec"]["template"]["spec"]["containers"][0]["resources"][
        "limits"
    ] == {"amd.com/gpu": 2}
    assert mb("k8s", "-o", str(ours), "--", "true").returncode == 0  # ours: replaced
    bad = mb("k8s", "--name", "Not_A_Name", "--", "true")
    assert bad.returncode == 2 and "not a valid Kubernetes name" in bad.stderr


@pytest.mark.engine
def test_export_apptainer_writes_the_definition(toolchain_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "open.def"
    result = mb("export", "apptainer", "-o", str(target))
    assert result.returncode == 0, result.stderr
    state = json.loads((toolchain_home / ".local/share/moatbridge/state.json").read_text())
    image_id = state["toolchains"][0]["image_id"]
    assert f"moatbridge.image-id {image_id}" in target.read_text()
    assert "apptainer exec --rocm" in result.stdout
    again = mb("export", "apptainer", "-o", str(target))
    assert again.returncode == 0 and "unchanged" in again.stdout
    assert os.stat(target).st_size > 0
