"""Doctor's verdicts for composed machines and engine states (no engine needed)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from moatbridge.adapters.hostfs import HostFS
from moatbridge.core.checks import run_checks
from moatbridge.core.detection import detect
from moatbridge.core.engine_checks import GB
from moatbridge.core.model import EngineFacts, HostReport

HEALTHY = EngineFacts(
    docker_cli="/usr/bin/docker", podman_cli=None, endpoint="unix:///var/run/docker.sock",
    reachable=True, product="docker", server_version="20.10.24+dfsg1", api_version="1.41",
    storage_driver="overlay2", root_dir="/var/lib/docker", free_bytes=80 * GB,
)  # fmt: skip


def verdicts(report: HostReport, engine: EngineFacts = HEALTHY) -> dict[str, str]:
    return {c.id: c.status for c in run_checks(report, engine)}


def report_for(machine: Any, name: str, environ: dict[str, str] | None = None) -> HostReport:
    return detect(HostFS(str(machine(name))), environ or {})


def test_ready_workstation(machine: Any) -> None:
    found = verdicts(report_for(machine, "rdna3-desktop"))
    assert "fail" not in found.values(), found
    assert found["gpu"] == found["dev-kfd"] == found["dev-renderD128"] == "pass"


def test_no_gpu_is_a_warning_not_a_blocker(machine: Any) -> None:
    found = verdicts(report_for(machine, "no-gpu"))
    assert found["gpu"] == "warn"
    assert found["dev-kfd"] == "skip"
    assert "fail" not in found.values()


def test_engine_states(tmp_path: Path) -> None:
    report_none = detect(HostFS(str(tmp_path)), {})  # an empty system tree
    down = EngineFacts(
        "/usr/bin/docker", None, "unix:///var/run/docker.sock", False, "not-running", "refused"
    )
    assert verdicts(report_none, down)["engine-daemon"] == "fail"
    assert verdicts(report_none, down)["disk-space"] == "skip"
    denied = replace(down, failure="permission")
    assert (
        verdicts(report_none, denied)["engine-access"],
        verdicts(report_none, denied)["engine-daemon"],
    ) == (
        "fail",
        "pass",
    )
    no_cli = replace(down, docker_cli=None)
    assert verdicts(report_none, no_cli)["engine-cli"] == "fail"
    assert verdicts(report_none, replace(HEALTHY, free_bytes=1 * GB))["disk-space"] == "fail"
    assert verdicts(report_none, replace(HEALTHY, free_bytes=5 * GB))["disk-space"] == "warn"
    assert verdicts(report_none, replace(HEALTHY, storage_driver="vfs"))["storage-driver"] == "warn"
    assert verdicts(report_none, replace(HEALTHY, server_version="19.03.1"))["engine-version"] == "warn"


def test_inaccessible_devices_block(machine: Any) -> None:
    report = report_for(machine, "rdna3-desktop")
    locked = replace(report.kfd, accessible=False, group="render", gid=4242, membership="none")
    checks = {c.id: c for c in run_checks(replace(report, kfd=locked), HEALTHY)}
    assert checks["dev-kfd"].status == "fail"
    assert checks["dev-kfd"].fix == "sudo usermod -aG render $USER, then log in again"
    stale = replace(locked, membership="needs-relogin")
    checks = {c.id: c for c in run_checks(replace(report, kfd=stale), HEALTHY)}
    assert checks["dev-kfd"].status == "fail"
    assert "log out and back in" in (checks["dev-kfd"].fix or "")


def test_missing_kfd_node_with_a_gpu(machine: Any) -> None:
    root = machine("rdna3-desktop")
    (root / "dev/kfd").unlink()
    assert verdicts(detect(HostFS(str(root)), {}))["dev-kfd"] == "fail"


def test_apu_next_to_dgpu_suggests_masking(machine: Any) -> None:
    checks = {c.id: c for c in run_checks(report_for(machine, "apu-plus-dgpu"), HEALTHY)}
    assert checks["igpu"].status == "warn"
    assert checks["igpu"].fix is not None and checks["igpu"].fix.startswith("export ROCR_VISIBLE_DEVICES=0 ")


def test_invalid_override_fails(machine: Any) -> None:
    assert (
        verdicts(report_for(machine, "rdna3-desktop", {"HSA_OVERRIDE_GFX_VERSION": "11.0"}))["hsa-override"]
        == "fail"
    )
    assert (
        verdicts(report_for(machine, "rdna3-desktop", {"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}))["hsa-override"]
        == "warn"
    )


def test_driver_window_against_the_open_image(machine: Any) -> None:
    # ROCm 6.4.1's DKMS driver supports user space 6.1-7.0, not the open image's 5.7.
    checks = {c.id: c for c in run_checks(report_for(machine, "rdna2-override"), HEALTHY)}
    assert checks["amdgpu-driver"].status == "warn"
    assert "6.1-7.0" in checks["amdgpu-driver"].detail


def test_hidden_gpu_and_unusable_pci_gpu(machine: Any) -> None:
    root = machine("rdna3-desktop")
    import shutil

    shutil.rmtree(root / "sys/devices/virtual/kfd")
    shutil.rmtree(root / "sys/module/amdgpu")
    found = verdicts(detect(HostFS(str(root)), {}))
    assert found["gpu"] == "fail"
    assert found["amdgpu-driver"] == "fail"


# --- per-flavour advice: HSA_OVERRIDE_GFX_VERSION is the open flavour's need ------------------


def _scale_targets() -> frozenset[str]:
    from moatbridge.adapters.records import load_catalog

    return frozenset(load_catalog().flavour("scale").compiler_targets)


def _with_target(report: HostReport, gfx: str, override: str | None) -> HostReport:
    gpus = tuple(replace(g, gfx_target=gfx, hsa_override_gfx_version=override) for g in report.gpus)
    return replace(report, gpus=gpus)


def test_override_advice_per_flavour() -> None:
    from moatbridge.core.checks import override_advice

    scale = _scale_targets()
    assert {"gfx1101", "gfx1102", "gfx1151"} <= scale  # the vendor's table (anchors 1.8)
    for gfx in ("gfx1101", "gfx1102", "gfx1151"):
        assert "natively" in override_advice(gfx, "11.0.0", "scale", scale)
        assert "HSA_OVERRIDE_GFX_VERSION=11.0.0" in override_advice(gfx, "11.0.0", "open", scale)
    assert "not among SCALE's targets" in override_advice("gfx1031", "10.3.0", "scale", scale)
    assert "needs no" in override_advice("gfx1100", None, "open", scale)


def test_doctor_of_a_scale_toolchain_does_not_ask_for_the_override(machine: Any) -> None:
    scale = _scale_targets()
    toolchains = (("scale-gfx1101", "scale", "gfx1101"), ("open-gfx1101", "open", "gfx1101"))
    base = report_for(machine, "rdna3-desktop")
    native = {
        c.id: c for c in run_checks(_with_target(base, "gfx1101", "11.0.0"), HEALTHY, None, toolchains, scale)
    }
    check = native["scale-override-scale-gfx1101-gfx1101"]
    assert check.status == "pass" and "natively" in check.detail and "open-gfx1101" not in " ".join(native)
    env = replace(base, environment=(("HSA_OVERRIDE_GFX_VERSION", "11.0.0"),))
    needless = {
        c.id: c for c in run_checks(_with_target(env, "gfx1101", "11.0.0"), HEALTHY, None, toolchains, scale)
    }
    assert needless["scale-override-scale-gfx1101-gfx1101"].status == "warn"
    assert "not needed" in needless["scale-override-scale-gfx1101-gfx1101"].detail
    # A chip SCALE does not list: said so, and the open flavour (with its override) suggested.
    odd = run_checks(
        report_for(machine, "rdna2-override"), HEALTHY, None, (("s", "scale", "gfx1030"),), scale
    )
    (gfx1031,) = [c for c in odd if c.id == "scale-override-s-gfx1031"]
    assert gfx1031.status == "warn" and "not among SCALE's targets" in gfx1031.detail
    assert gfx1031.fix is not None and "HSA_OVERRIDE_GFX_VERSION=10.3.0" in gfx1031.fix


def test_detect_says_which_flavour_the_override_is_for(machine: Any) -> None:
    from conftest import cli

    result = cli("detect", "--root", str(machine("rdna2-override")))
    text = " ".join(result.stdout.split())
    assert (
        "open flavour: gfx1031 has no code in trixie's libraries: run with HSA_OVERRIDE_GFX_VERSION=10.3.0"
        in text
    )
    assert "scale flavour: gfx1031 is not among SCALE's targets" in text


def test_nvidia_mode_asks_for_the_container_toolkit(machine: Any) -> None:
    from moatbridge.core.checks import nvidia_toolkit_check

    nvidia = report_for(machine, "nvidia-only")
    (missing,) = nvidia_toolkit_check(nvidia, 0, None)
    assert missing.status == "warn" and "nvidia-ctk" in missing.detail
    assert missing.fix is not None and "nvidia-container-toolkit" in missing.fix
    (found,) = nvidia_toolkit_check(nvidia, 1, "/usr/bin/nvidia-ctk")
    assert found.status == "pass" and "--gpus all" in found.detail
    assert list(nvidia_toolkit_check(report_for(machine, "rdna3-desktop"), 0, None)) == []
    assert [c.status for c in nvidia_toolkit_check(report_for(machine, "no-gpu"), 1, None)] == ["warn"]


def test_doctor_on_an_nvidia_machine_checks_the_toolkit(machine: Any) -> None:
    import json

    from moatbridge.services.runtime import nvidia_container_toolkit

    from conftest import cli

    result = cli("doctor", "--json", "--root", str(machine("nvidia-only")))
    checks = {c["id"]: c for c in json.loads(result.stdout)["checks"]}
    expected = "pass" if nvidia_container_toolkit() else "warn"  # what this host really has
    assert checks["nvidia-toolkit"]["status"] == expected, checks["nvidia-toolkit"]
