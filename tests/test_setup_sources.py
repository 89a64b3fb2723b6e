"""Setup's other sources: SCALE built from a (stand-in) repository with the licence
gate enforced by moatbridge, and a team registry that setup pulls from."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import build_image
from support.registry import run_registry
from support.scale_standin import StandinRepoServer, build_standin_repo, missing_tools
from support.toolchains import warm_container

pytestmark = pytest.mark.engine


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.delenv("MOATBRIDGE_HOME", raising=False)
    for key in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    yield home
    for name in ("scale-gfx1030", "open-gfx1030"):
        subprocess.run(["docker", "rm", "-f", warm_container(name, home)], capture_output=True, check=False)


def mb(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=900)  # fmt: skip


def test_scale_toolchain_runs_only_with_recorded_consent(
    home: Path, debian_base: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    if missing_tools():
        pytest.fail(f"the stand-in repository needs: {' '.join(missing_tools())}")
    repo = build_standin_repo(tmp_path / "standin")
    with StandinRepoServer(repo.root) as server:
        setup = mb(
            "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--source", "build",
            "--repo-url", server.url, "--base-image", debian_base, "--build-arg", "SCALE_PREREQS=",
            "--build-arg", f"SCALE_VENDOR_HOSTS={repo.vendor_host}",
            "--accept-license", "--use", "non-commercial", "--no-modify-rc",
        )  # fmt: skip
    assert setup.returncode == 0, setup.stdout + setup.stderr
    (toolchain,) = json.loads(mb("list", "--json").stdout)["toolchains"]
    # Removed by uninstall below, with the latest/latest-<version> tags the build gave it; this
    # is for a failure on the way.
    request.addfinalizer(
        lambda: subprocess.run(
            ["docker", "rmi", "-f", toolchain["image_id"]], capture_output=True, check=False
        )
    )
    assert (toolchain["flavour"], toolchain["licence"]) == ("scale", "scale-free")
    status = {r["licence"]: r for r in json.loads(mb("license", "status", "--json").stdout)["licences"]}
    assert status["scale-free"]["status"] == "accepted"

    work = home / "w"
    work.mkdir()
    accepted = mb("run", "--", "printenv", "SCALE_LICENSE_ACCEPT", cwd=work)
    assert (accepted.returncode, accepted.stdout.strip()) == (0, "1"), accepted.stderr
    shim = home / ".local" / "share" / "moatbridge" / "cuda" / "bin" / "nvcc"
    assert (
        "TEST STAND-IN"
        in subprocess.run([str(shim), "--version"], capture_output=True, text=True, cwd=work).stdout
    )

    assert mb("license", "revoke", "scale-free").returncode == 0
    refused = mb("run", "--", "true", cwd=work)
    assert refused.returncode != 0 and "needs your acceptance of the SCALE Free Licence" in refused.stderr
    by_shim = subprocess.run([str(shim), "--version"], capture_output=True, text=True, cwd=work)
    assert by_shim.returncode == 127 and "needs your acceptance of the scale-free licence" in by_shim.stderr

    assert mb("license", "accept", "scale-free", "--use", "non-commercial", "--yes").returncode == 0
    assert mb("run", "--", "true", cwd=work).returncode == 0
    tags = json.loads(subprocess.run(["docker", "inspect", toolchain["image_id"]], capture_output=True,
                                     text=True, check=True).stdout)[0]["RepoTags"]  # fmt: skip
    repository = toolchain["image"].rpartition(":")[0]
    assert {f"{repository}:latest", f"{repository}:latest-1.7.2", toolchain["image"]} <= set(tags)
    uninstall = mb("uninstall", "--all", "--remove-images")
    assert uninstall.returncode == 0, uninstall.stderr
    assert f"image {repository}:latest" in uninstall.stdout
    # The vendor's moving tags went with it: nothing keeps the image alive.
    gone = subprocess.run(["docker", "image", "inspect", toolchain["image_id"]], capture_output=True)
    assert gone.returncode != 0


def test_setup_pulls_from_a_team_registry(home: Path, engine_version: str, tmp_path: Path) -> None:
    built: dict[str, Any] = build_image("--flavour", "open", "--variant", "base", "--target", "gfx1030")
    with run_registry(tmp_path / "registry") as registry:
        team = f"{registry}/team"
        pushed = mb(
            "image", "push", f"{team}/open:12.4-base-trixie-gfx1030", "--from", built["reference"], "--json"
        )
        assert pushed.returncode == 0, pushed.stderr
        digest = json.loads(pushed.stdout)["digest"]
        subprocess.run(
            ["docker", "rmi", f"{team}/open:12.4-base-trixie-gfx1030"], capture_output=True, check=True
        )
        setup = mb("setup", "--yes", "--flavour", "open", "--variant", "base", "--target", "gfx1030",
                   "--registry", team, "--no-modify-rc")  # fmt: skip
        assert setup.returncode == 0, setup.stdout + setup.stderr
        assert "pulled" in setup.stdout
    (toolchain,) = json.loads(mb("list", "--json").stdout)["toolchains"]
    assert toolchain["image"] == f"{team}/open:12.4-base-trixie-gfx1030"
    assert toolchain["digest"] == digest
    assert mb("uninstall", "--all", "--keep-images").returncode == 0
    subprocess.run(
        ["docker", "rmi", f"{team}/open:12.4-base-trixie-gfx1030"], capture_output=True, check=False
    )
