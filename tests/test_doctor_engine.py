"""`moatbridge doctor` against the live Docker engine that .ci/run starts."""

from __future__ import annotations

import json
import os
from typing import Any

from conftest import cli


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
    assert checks["engine-daemon"]["fix"].startswith("start it")


def test_doctor_with_a_gpu_tree_and_the_live_engine(engine_version: str, machine: Any) -> None:
    _, report = _doctor("--root", str(machine("rdna3-desktop")))
    checks = {c["id"]: c for c in report["checks"]}
    assert checks["gpu"]["status"] == "pass"
    assert "gfx1100 (AMD Radeon RX 7900 XTX)" in checks["gpu"]["detail"]
    assert checks["engine-daemon"]["status"] == "pass"
