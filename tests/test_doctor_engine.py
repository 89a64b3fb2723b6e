"""`moatbridge doctor` against the live Docker engine that .ci/run starts."""

from __future__ import annotations

import json
import os
from typing import Any

from conftest import cli
from support.environ import environ_without


def _doctor(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    result = cli("doctor", "--json", *args, env=env)
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)


def test_doctor_reports_the_running_engine(engine_version: str) -> None:
    code, report = _doctor()
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["engine-daemon"]["status"] == "pass"
    assert checks["engine-access"]["status"] == "pass"
    # The version doctor read through the API is the one the docker CLI reports.
    assert engine_version in checks["engine-version"]["detail"]
    assert checks["storage-driver"]["status"] in ("pass", "warn")
    assert " GB free at " in checks["disk-space"]["detail"]
    # This machine has no GPU: a warning with a way forward, not a blocker.
    assert checks["gpu"]["status"] == "warn"
    assert "no AMD GPU detected" in checks["gpu"]["detail"]
    assert code == (1 if any(c["status"] == "fail" for c in report["checks"]) else 0)
    assert report["ready"] is (code == 0)


def test_doctor_human_output(engine_version: str) -> None:
    result = cli("doctor")
    assert "Engine reachable" in result.stdout
    assert "no AMD GPU detected" in result.stdout


def test_doctor_with_unreachable_engine_fails(engine_version: str, tmp_path: Any) -> None:
    env = dict(os.environ, DOCKER_HOST=f"unix://{tmp_path}/nothing-here.sock")
    code, report = _doctor(env=env)
    checks = {c["id"]: c for c in report["checks"]}
    assert code == 1 and report["ready"] is False
    assert checks["engine-daemon"]["status"] == "fail"
    # DOCKER_HOST chose this engine: the advice is about DOCKER_HOST, not the system daemon.
    assert checks["engine-daemon"]["fix"].startswith("unset DOCKER_HOST")
    assert "sudo systemctl" not in checks["engine-daemon"]["fix"]


def test_doctor_with_a_gpu_tree_and_the_live_engine(engine_version: str, machine: Any) -> None:
    _, report = _doctor("--root", str(machine("rdna3-desktop")))
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["gpu"]["status"] == "pass"
    assert "gfx1100 (AMD Radeon RX 7900 XTX)" in checks["gpu"]["detail"]
    assert checks["engine-daemon"]["status"] == "pass"


def test_scale_tools_report_their_verdicts(engine_version: str, debian_base: str, tmp_path: Any) -> None:
    """scaleinfo, scalediag and hsakmtsysinfo run in a (stand-in) SCALE image: each one's
    verdict, a GPU-less failure as a warning with the tool's own words, a missing tool too."""
    import subprocess

    from moatbridge.services.scale_diagnostics import parse_tool_output, run_tools, verdicts

    from support.scale_standin import StandinRepoServer, build_standin_repo

    home = tmp_path / "home"
    home.mkdir()
    env = environ_without("MOATBRIDGE_", "XDG_")
    env["HOME"] = str(home)
    # Building a SCALE image asks for the recorded consent, as its install does.
    accepted = cli("license", "accept", "scale-free", "--use", "non-commercial", "--yes", env=env)
    assert accepted.returncode == 0, accepted.stderr
    repo = build_standin_repo(tmp_path / "standin")
    with StandinRepoServer(repo.root) as server:
        result = cli(
            "image", "build", "--flavour", "scale", "--json", "--repo-url", server.url,
            "--base-image", debian_base, "--build-arg", "SCALE_PREREQS=",
            "--build-arg", f"SCALE_VERSION={repo.scale_version}",
            "--build-arg", "SCALE_VENDOR_HOSTS=scale-standin.invalid", env=env,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    image = json.loads(result.stdout)["id"]
    try:
        # A stand-in /dev/kfd the stand-in tools can open: they then report success.
        kfd = tmp_path / "kfd"
        kfd.write_text("")
        gpu = ("--mount", f"type=bind,source={kfd},target=/dev/kfd")
        with_gpu = {c.id: c for c in verdicts("t", parse_tool_output(run_tools(image, gpu)))}
        assert [c.status for c in with_gpu.values()] == ["pass"] * 3, with_gpu
        assert "TEST STAND-IN" in with_gpu["scale-scaleinfo-t"].detail
        without = {c.id: c for c in verdicts("t", parse_tool_output(run_tools(image, ())))}
        assert [c.status for c in without.values()] == ["warn"] * 3
        assert without["scale-hsakmtsysinfo-t"].detail == "exit 1: HSAKMT Error 20: Could not open KFD"
        assert "Error getting device count" in without["scale-scaleinfo-t"].detail
        # An image without SCALE's tools: warnings, not a crash.
        bare = {c.id: c for c in verdicts("t", parse_tool_output(run_tools(debian_base, ())))}
        assert all(c.status == "warn" and "is not in the image" in c.detail for c in bare.values())
    finally:
        subprocess.run(["docker", "rmi", "-f", image], capture_output=True, check=False)
