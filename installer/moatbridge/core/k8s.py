"""A Kubernetes Job running a command in a toolchain image, as a manifest dict. Pure.

GPUs come from the vendor's device plugin (core.gpu_request): AMD's (`amd.com/gpu`) mounts
/dev/kfd and the render nodes; NVIDIA's (`nvidia.com/gpu`, SCALE's NVIDIA mode) its own
devices. No privileged mode, no host paths. The toolchain's
activation is spelled out as env (Kubernetes runs `command` without a login shell).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from moatbridge.core.gpu_request import AMD, gpu_request
from moatbridge.core.licences import LicenceNote
from moatbridge.core.toolkit_env import ToolkitEnv, toolkit_env

GPU_RESOURCE = AMD.k8s_resource  # gfx targets; sm_NN ones ask for nvidia.com/gpu
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", re.ASCII)


@dataclass(frozen=True)
class JobSpec:
    name: str
    namespace: str | None
    toolchain: str
    flavour: str
    target: str
    image: str
    command: tuple[str, ...]
    gpus: int
    licence: LicenceNote | None
    uid: int = 1000
    gid: int = 1000
    environment: ToolkitEnv | None = None  # measured (SCALE's scaleenv); None: the documented one


def job_name(candidate: str) -> str:
    """Kubernetes names are DNS labels: lower-case alphanumerics and '-', at most 63."""
    name = re.sub(r"[^a-z0-9-]+", "-", candidate.lower()).strip("-")[:63].strip("-")
    return name or "moatbridge-job"


def valid_name(name: str) -> bool:
    return len(name) <= 63 and bool(_DNS_LABEL.fullmatch(name))


def job_manifest(spec: JobSpec) -> dict[str, Any]:
    env = spec.environment or toolkit_env(spec.flavour, spec.target)
    variables = [{"name": k, "value": v} for k, v in env.variables]
    variables += [
        {"name": "PATH", "value": env.path_before(BASE_PATH)},
        *({"name": k, "value": v} for k, v in env.library_paths()),
        {"name": "HOME", "value": "/work"},
        {"name": "MOATBRIDGE_TOOLCHAIN", "value": spec.toolchain},
    ]
    if spec.licence is not None:
        for item in spec.licence.env:
            key, _, value = item.partition("=")
            variables.append({"name": key, "value": value})
    labels = {"app.kubernetes.io/name": "moatbridge", "app.kubernetes.io/component": "toolchain-job",
              "moatbridge.io/toolchain": job_name(spec.toolchain)}  # fmt: skip
    container: dict[str, Any] = {
        "name": "toolchain",
        "image": spec.image,
        "command": list(spec.command),
        "workingDir": "/work",
        "env": variables,
        "volumeMounts": [{"name": "work", "mountPath": "/work"}],
        "securityContext": {
            "privileged": False,
            "allowPrivilegeEscalation": False,
            "runAsNonRoot": True,
            "runAsUser": spec.uid,
            "runAsGroup": spec.gid,
            "capabilities": {"drop": ["ALL"]},
        },
    }
    if spec.gpus > 0:
        container["resources"] = {"limits": {gpu_request(spec.target).k8s_resource: spec.gpus}}
    metadata: dict[str, Any] = {"name": spec.name, "labels": labels}
    if spec.namespace:
        metadata["namespace"] = spec.namespace
    annotations = {"moatbridge.io/target": spec.target, "moatbridge.io/flavour": spec.flavour}
    if spec.licence is not None:
        annotations["moatbridge.io/licence"] = f"{spec.licence.id} ({spec.licence.url})"
    metadata["annotations"] = annotations
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": {
            "backoffLimit": 0,
            "ttlSecondsAfterFinished": 86400,
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "restartPolicy": "Never",
                    # The device plugin's nodes are group-owned (video/render); fsGroup-style
                    # supplemental groups are not needed because the plugin sets their mode.
                    "containers": [container],
                    "volumes": [{"name": "work", "emptyDir": {}}],
                },
            },
        },
    }
