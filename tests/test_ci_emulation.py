"""`moatbridge ci github|gitlab --emulate`: a job that tests on an emulated AMD GPU on an
ordinary runner. Its structure, and its one step run as written in the real toolchain
image, with AMD's emulation package replaced by a .deb of the STAND-IN emulator
(tests/support/standin_emulator.py) served from 127.0.0.1. The stand-in emulates nothing,
so the step must stop at its own check that the runtime enumerates the emulated GPU,
before the project's tests: that check is what keeps tests that skip without a GPU from
passing on a runner that has none."""

from __future__ import annotations

import functools
import http.server
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from moatbridge.core.ci_emulation import EMULATOR_DEB, emulated_test_script
from moatbridge.core.ci_templates import CiSpec, github_workflow, gitlab_ci

from support.standin_emulator import profile, standin_emulator

SPEC = CiSpec("open-gfx1030", "open", "gfx1030", "registry.example.com/team/open:12.4-devel-trixie-gfx1030",
              emulate="gfx1030")  # fmt: skip


def test_github_gets_an_emulated_test_job_on_an_ordinary_runner() -> None:
    workflow = yaml.safe_load(github_workflow(SPEC))
    job = workflow["jobs"]["test-emulated"]
    assert job["needs"] == "build" and job["runs-on"] == "ubuntu-latest"
    assert job["container"] == {"image": SPEC.image}  # no device options: there is no GPU
    assert job["env"][EMULATOR_DEB] == "${{ vars.MOATBRIDGE_EMULATOR_DEB }}"
    (step,) = [s for s in job["steps"] if "run" in s]
    assert step["run"] == emulated_test_script("gfx1030", SPEC.test)
    assert "MOATBRIDGE_EMULATOR_DEB" in github_workflow(SPEC).split("jobs:")[0]  # the header says so
    assert "test-emulated" not in yaml.safe_load(github_workflow(replace(SPEC, emulate=None)))["jobs"]


def test_gitlab_gets_the_same_job_in_a_test_stage() -> None:
    document = yaml.safe_load(gitlab_ci(SPEC))
    assert document["stages"] == ["build", "test"]
    job = document["test-emulated"]
    assert job["stage"] == "test" and job["needs"] == ["build"] and "tags" not in job
    assert job["script"] == [emulated_test_script("gfx1030", SPEC.test)]


def test_the_step_is_posix_sh() -> None:
    checked = subprocess.run(["sh", "-n"], input=emulated_test_script("gfx1100", ("ctest",)), text=True)
    assert checked.returncode == 0


# --- the step, run in the toolchain image --------------------------------------------------------


def _standin_deb(tmp_path: Path) -> Path:
    """AMD's package as the nightly builds lay it out (/opt/rocm/bin, lib, share), with the
    STAND-IN's CLI and a gfx1030 profile of the user's kind (rocjitsu ships none)."""
    tree = tmp_path / "deb"
    standin_emulator(tree / "opt" / "rocm")
    (tree / "opt/rocm/share/rocjitsu/configs/gfx1030_rx6800xt.json").write_text(profile(100300, "RX 6800 XT"))
    (tree / "DEBIAN").mkdir()
    (tree / "DEBIAN" / "control").write_text(
        "Package: standin-emulation\nVersion: 0.0.1\nArchitecture: all\nMaintainer: tests <t@example.com>\n"
        "Description: STAND-IN for AMD's amdrocm-emulation package (moatbridge tests)\n"
    )
    built = subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(tree), str(tmp_path / "e.deb")],
                           capture_output=True, text=True)  # fmt: skip
    assert built.returncode == 0, built.stderr
    return tmp_path / "e.deb"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    deb = _standin_deb(tmp_path)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(deb.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/{deb.name}"
    finally:
        server.shutdown()


def _step(image: str, url: str | None, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    marker = tmp_path / "work"
    marker.mkdir()
    script = emulated_test_script("gfx1030", ("touch /work/tests-ran",))
    env = ["-e", f"{EMULATOR_DEB}={url}"] if url else []
    return subprocess.run(
        ["docker", "run", "--rm", "--network", "host", "--entrypoint", "bash", "-v", f"{marker}:/work",
         *env, "-e", "HSA_OVERRIDE_GFX_VERSION=10.3.0", "-e", "PATH=/opt/moatbridge/targets/gfx1030/bin:"
         "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", image, "-c", script],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.engine
def test_the_step_finds_the_emulator_and_stops_when_no_gpu_is_enumerated(
    served: str, tmp_path: Path, open_devel_gfx1030: dict[str, Any]
) -> None:
    ran = _step(str(open_devel_gfx1030["reference"]), served, tmp_path)
    out = ran.stdout + ran.stderr
    assert ran.returncode == 1, out[-3000:]
    assert "moatbridge: the GPU is emulated: gfx1030 (/tmp/amd-emulation/opt/rocm/bin/rocjitsu, profile " \
           "/tmp/amd-emulation/opt/rocm/share/rocjitsu/configs/gfx1030_rx6800xt.json)" in out, out[-3000:]  # fmt: skip
    assert "standin-emulator: config=/tmp/amd-emulation/opt/rocm/share/rocjitsu/configs/gfx1030_rx6800xt.json " \
           "target_version=100300" in out, out[-3000:]  # fmt: skip
    assert "moatbridge: the runtime enumerates no emulated GPU" in out, out[-3000:]
    assert not (tmp_path / "work" / "tests-ran").exists(), "the tests ran without an emulated GPU"


@pytest.mark.engine
def test_the_step_says_which_variable_to_set(tmp_path: Path, open_devel_gfx1030: dict[str, Any]) -> None:
    ran = _step(str(open_devel_gfx1030["reference"]), None, tmp_path)
    assert ran.returncode == 1
    assert ran.stderr.strip() == (
        "moatbridge: set the CI variable MOATBRIDGE_EMULATOR_DEB to the URL of AMD's amdrocm-emulation .deb"
    )
