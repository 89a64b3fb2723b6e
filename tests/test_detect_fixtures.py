"""Detection over composed machines: every field a user or later step relies on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.hostfs import HostFS
from moatbridge.core.detection import detect

from conftest import cli_json, run_as_nobody
from fixtures import machines

GPU_KEYS = (
    "vendor", "name", "gfx_target", "family", "apu", "pci_slot", "pci_device_id",
    "render_node", "kfd_node", "compute_capability", "hsa_override_gfx_version", "source", "usable",
)  # fmt: skip


def gpu(**fields: Any) -> dict[str, Any]:
    base = dict.fromkeys(GPU_KEYS)
    base.update(apu=False, source="kfd", usable=True, vendor="amd")
    base.update(fields)
    return base


RX7900 = gpu(
    name="AMD Radeon RX 7900 XTX", gfx_target="gfx1100", family="RDNA3", pci_slot="0000:03:00.0",
    pci_device_id="0x744c", render_node="/dev/dri/renderD128", kfd_node=1,
)  # fmt: skip
RX6800 = gpu(
    name="AMD Radeon RX 6800/6800 XT/6900 XT", gfx_target="gfx1030", family="RDNA2",
    pci_slot="0000:0b:00.0", pci_device_id="0x73bf", render_node="/dev/dri/renderD128", kfd_node=1,
)  # fmt: skip
RAPHAEL = gpu(
    name="AMD Radeon 610M", gfx_target="gfx1036", family="RDNA2", apu=True, pci_slot="0000:12:00.0",
    pci_device_id="0x164e", render_node="/dev/dri/renderD129", kfd_node=2, hsa_override_gfx_version="10.3.0",
)  # fmt: skip
MI300X = [
    gpu(
        name="AMD Instinct MI300X",
        gfx_target="gfx942",
        family="CDNA3",
        pci_slot=f"0000:{bus}:00.0",
        pci_device_id="0x74a1",
        render_node=f"/dev/dri/renderD{128 + i}",
        kfd_node=2 + i,
    )
    for i, bus in enumerate(["05", "26", "46", "65", "85", "a6", "c6", "e5"])
]

EXPECTED: dict[str, dict[str, Any]] = {
    "rdna3-desktop": {
        "gpus": [RX7900],
        "amdgpu_driver": {"loaded": True, "version": "6.8.0-45-generic", "kind": "in-tree"},
        "rocm": {"version": "6.2.0", "path": "/opt/rocm"},
        "render_nodes": ["/dev/dri/renderD128"],
    },
    "rdna4-desktop": {
        "gpus": [
            gpu(
                name="AMD Radeon RX 9070 XT",
                gfx_target="gfx1201",
                family="RDNA4",
                pci_slot="0000:03:00.0",
                pci_device_id="0x7550",
                render_node="/dev/dri/renderD128",
                kfd_node=1,
            )
        ],
        "amdgpu_driver": {"loaded": True, "version": "6.14.0-15-generic", "kind": "in-tree"},
        "rocm": {"version": None, "path": None},
        "render_nodes": ["/dev/dri/renderD128"],
    },
    "rdna2-override": {
        "gpus": [
            gpu(
                name="Navi 22 [Radeon RX 6700/6700 XT/6750 XT / 6800M/6850M XT]",
                gfx_target="gfx1031",
                family="RDNA2",
                pci_slot="0000:0a:00.0",
                pci_device_id="0x73df",
                render_node="/dev/dri/renderD128",
                kfd_node=1,
                hsa_override_gfx_version="10.3.0",
            )
        ],
        "amdgpu_driver": {"loaded": True, "version": "6.12.12", "kind": "dkms", "rocm_release": "6.4.1"},
        "rocm": {"version": "6.4.1", "path": "/opt/rocm-6.4.1"},
        "render_nodes": ["/dev/dri/renderD128"],
    },
    "apu-plus-dgpu": {
        "gpus": [RX6800, RAPHAEL],
        "amdgpu_driver": {"loaded": True, "version": "6.1.0-26-amd64", "kind": "in-tree"},
        "rocm": {"version": None, "path": None},
        "render_nodes": ["/dev/dri/renderD128", "/dev/dri/renderD129"],
    },
    "cdna3-server": {
        "gpus": MI300X,
        "amdgpu_driver": {"loaded": True, "version": "6.12.12", "kind": "dkms", "rocm_release": None},
        "rocm": {"version": "6.4.1", "path": "/opt/rocm"},
        "render_nodes": [f"/dev/dri/renderD{128 + i}" for i in range(8)],
    },
    "nvidia-only": {
        "gpus": [
            gpu(
                vendor="nvidia",
                name="NVIDIA GeForce RTX 4090",
                pci_slot="0000:01:00.0",
                pci_device_id="0x2684",
                compute_capability="8.9",
                source="nvidia-procfs",
            )
        ],
        "amdgpu_driver": {"loaded": False, "version": None, "kind": None},
        "rocm": {"version": None, "path": None},
        "render_nodes": [],
        "nvidia_driver": {"version": "570.133.07", "open_module": False},
    },
    "no-gpu": {
        "gpus": [],
        "amdgpu_driver": {"loaded": False, "version": None, "kind": None},
        "rocm": {"version": None, "path": None},
        "render_nodes": [],
    },
    "malformed": {
        # Node 1 is truncated before drm_render_minor: the slot comes from location_id.
        "gpus": [{**RX7900, "name": "AMD Radeon RX 7900 XT/XTX"}],
        "amdgpu_driver": {"loaded": True, "version": "6.8.0-45-generic", "kind": "in-tree"},
        "rocm": {"version": "5.7", "path": "/opt/rocm"},
        "render_nodes": ["/dev/dri/renderD128"],
        "problems": [
            "KFD node 1: 2 malformed line(s) in properties",
            "KFD node 2: properties has no usable fields",
            "KFD node 3: properties has no usable fields",
            "/proc/driver/nvidia/version: no driver version in it",
        ],
    },
}


def check(report: dict[str, Any], expected: dict[str, Any]) -> None:
    assert [{k: g[k] for k in GPU_KEYS} for g in report["gpus"]] == expected["gpus"]
    for key, value in expected["amdgpu_driver"].items():
        assert report["amdgpu_driver"][key] == value, key
    assert {k: report["rocm"][k] for k in ("version", "path")} == expected["rocm"]
    assert [n["path"] for n in report["devices"]["render_nodes"]] == expected["render_nodes"]
    assert report["problems"] == expected.get("problems", [])
    if "nvidia_driver" in expected:
        assert report["nvidia_driver"] == expected["nvidia_driver"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detect_in_process(machine: Any, name: str) -> None:
    root = machine(name)
    check(detect(HostFS(str(root)), {}).to_json(), EXPECTED[name])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detect_cli_json(machine: Any, name: str) -> None:
    root = machine(name)
    report = cli_json("detect", "--json", "--root", str(root))
    check(report, EXPECTED[name])
    assert report["root"] == str(root)
    assert report["schema_version"] == 1


def test_every_composed_machine_is_covered() -> None:
    assert set(machines.MACHINES) == set(EXPECTED) | {"container-one-of-two"}


def test_container_hidden_gpu_through_the_file_seam(machine: Any) -> None:
    """EPERM on one KFD node, injected at the HostFS seam (the kernel's devcgroup answer)."""
    root = machine("apu-plus-dgpu")
    (root / "dev/dri/renderD129").unlink()

    class ContainerView(HostFS):
        def read_text(self, logical: str) -> str:
            if logical.startswith("/sys/class/kfd/kfd/topology/nodes/2/"):
                raise PermissionError(1, "Operation not permitted")
            return super().read_text(logical)

    report = detect(ContainerView(str(root)), {})
    assert report.hidden_kfd_nodes == (2,)
    assert [(g.gfx_target, g.source, g.usable) for g in report.gpus] == [
        ("gfx1030", "kfd", True),
        ("gfx1036", "pci", False),  # still reported, from the PCI scan and the device table
    ]
    assert report.physical_amd_gpus == 2
    nodes = {n.path: n.exists for n in report.render_nodes}
    assert nodes == {"/dev/dri/renderD128": True, "/dev/dri/renderD129": False}


def test_container_hidden_gpu_for_a_real_unprivileged_reader(shared_tmp: Path) -> None:
    """The same container view with real file permissions, read by uid 65534."""
    root = machines.build("container-one-of-two", shared_tmp / "machine")
    result = run_as_nobody(shared_tmp, ["detect", "--json", "--root", str(root)])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["hidden_kfd_nodes"] == [2]
    assert [(g["gfx_target"], g["kfd_node"], g["usable"]) for g in report["gpus"]] == [
        ("gfx1030", 1, True),
        ("gfx1036", None, False),
    ]
    assert report["physical_amd_gpus"] == 2
    assert report["problems"] == []


def test_pci_fallback_without_kfd(machine: Any) -> None:
    """amdgpu not loaded: no KFD tree, the GPU is still found on PCI with its target."""
    root = machine("rdna3-desktop")
    import shutil

    shutil.rmtree(root / "sys/devices/virtual/kfd")
    (root / "sys/class/kfd/kfd").unlink()
    shutil.rmtree(root / "sys/module/amdgpu")
    report = detect(HostFS(str(root)), {})
    assert [(g.gfx_target, g.name, g.source, g.usable, g.render_node) for g in report.gpus] == [
        ("gfx1100", "AMD Radeon RX 7900 XTX", "pci", False, "/dev/dri/renderD128")
    ]
    assert report.amdgpu_driver.loaded is False


def test_old_kernel_without_gfx_target_version(machine: Any) -> None:
    root = machine("rdna3-desktop")
    props = root / "sys/devices/virtual/kfd/kfd/topology/nodes/1/properties"
    props.write_text(
        "".join(line for line in props.read_text().splitlines(True) if "gfx_target_version" not in line)
    )
    (gpu_,) = detect(HostFS(str(root)), {}).gpus
    assert (gpu_.gfx_target, gpu_.source) == ("gfx1100", "kfd")  # from the device-ID table


def test_environment_is_reported(machine: Any) -> None:
    root = machine("rdna3-desktop")
    env = {"HSA_OVERRIDE_GFX_VERSION": "11.0.0", "ROCR_VISIBLE_DEVICES": "0", "UNRELATED": "x"}
    report = detect(HostFS(str(root)), env).to_json()
    assert report["environment"] == {"HSA_OVERRIDE_GFX_VERSION": "11.0.0", "ROCR_VISIBLE_DEVICES": "0"}


def test_rocm_path_variable_wins(machine: Any) -> None:
    root = machine("rdna3-desktop")
    (root / "opt/rocm-6.4.1/.info").mkdir(parents=True)
    (root / "opt/rocm-6.4.1/.info/version").write_text("6.4.1\n")
    assert detect(HostFS(str(root)), {}).rocm.version == "6.2.0"  # /opt/rocm first
    report = detect(HostFS(str(root)), {"ROCM_PATH": "/opt/rocm-6.4.1"})
    assert (report.rocm.version, report.rocm.path) == ("6.4.1", "/opt/rocm-6.4.1")


@pytest.mark.parametrize(
    ("name", "target", "recommended", "status"),
    [("rdna3-desktop", "gfx1100", "trixie", "pass"), ("rdna4-desktop", "gfx1201", "experimental", "warn"),
     ("cdna3-server", "gfx942", "experimental", "warn")],
)  # fmt: skip
def test_detect_and_doctor_advise_a_stack_from_the_catalog(
    machine: Any, name: str, target: str, recommended: str, status: str
) -> None:
    """detect and doctor read the same table as setup (core/stacks.py over the catalog)."""
    root = machine(name)
    report = cli_json("detect", "--json", "--root", str(root))
    stacks = {s["target"]: s for s in report["open_stacks"]}
    assert stacks[target]["recommended"] == recommended
    assert recommended in stacks[target]["served_by"]
    if recommended != "trixie":
        assert "trixie" not in stacks[target]["served_by"]
    doctor = subprocess.run(
        [sys.executable, "-m", "moatbridge", "doctor", "--json", "--root", str(root)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    check = checks[f"stack-{target}"]
    assert check["status"] == status
    if status == "warn":
        assert f"--distro {recommended}" in check["fix"] and "trixie" in check["detail"]
    human = subprocess.run(
        [sys.executable, "-m", "moatbridge", "detect", "--root", str(root)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    assert f"open flavour on {recommended}" in human.stdout
