"""`moatbridge ci github|gitlab`: the files' structure (YAML), and their build steps run
exactly as written in the toolchain image here, twice, to show ccache is used."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from moatbridge.core.ci_templates import CiSpec, github_workflow, gitlab_ci

from conftest import REPO, mb

SPEC = CiSpec("open-gfx1030", "open", "gfx1030", "registry.example.com/team/open:12.4-devel-trixie-gfx1030")


def test_github_workflow_structure() -> None:
    workflow = yaml.safe_load(github_workflow(SPEC))
    assert set(workflow["on"]) == {"push", "pull_request"}
    build = workflow["jobs"]["build"]
    assert build["container"]["image"] == SPEC.image
    assert build["env"]["CUDA_HOME"] == "/opt/moatbridge/targets/gfx1030"
    assert build["env"]["CCACHE_DIR"] == "${{ github.workspace }}/.ccache"
    cache = next(step for step in build["steps"] if step.get("uses", "").startswith("actions/cache"))
    assert cache["with"]["path"] == ".ccache"
    assert "test-gpu" not in workflow["jobs"]
    with_gpu = yaml.safe_load(github_workflow(CiSpec(**{**SPEC.__dict__, "gpu_runner": "mi210"})))
    test = with_gpu["jobs"]["test-gpu"]
    assert test["runs-on"] == ["self-hosted", "mi210"] and test["needs"] == "build"
    assert (
        "--device /dev/kfd" in test["container"]["options"]
        and "--privileged" not in test["container"]["options"]
    )


def test_gitlab_structure() -> None:
    document = yaml.safe_load(gitlab_ci(CiSpec(**{**SPEC.__dict__, "gpu_runner": "amd-gpu"})))
    assert document["stages"] == ["build", "test"]
    assert document["build"]["image"] == SPEC.image
    assert document["build"]["cache"]["paths"] == [".ccache/"]
    assert document["build"]["variables"]["CCACHE_DIR"] == "$CI_PROJECT_DIR/.ccache"
    assert document["test-gpu"]["tags"] == ["amd-gpu"] and document["test-gpu"]["needs"] == ["build"]


def test_nvidia_targets_test_with_gpus_all() -> None:
    """SCALE's NVIDIA mode (sm_89): the GPU job asks for --gpus all, never /dev/kfd."""
    from moatbridge.core.toolkit_env import ToolkitEnv

    env = ToolkitEnv((("SCALE_ENV", "sm_89"),), ("/opt/scale/llvm/bin",), (), (), "measured in test")
    spec = CiSpec("scale-sm_89", "scale", "sm_89", "r.example/scale:1", gpu_runner="rtx", environment=env)
    test = yaml.safe_load(github_workflow(spec))["jobs"]["test-gpu"]
    assert test["container"]["options"] == "--gpus all"
    gitlab = gitlab_ci(spec)
    assert 'gpus = "all"' in gitlab and "/dev/kfd" not in gitlab
    assert "/dev/kfd" in gitlab_ci(CiSpec(**{**SPEC.__dict__, "gpu_runner": "amd-gpu"}))


@pytest.mark.engine
def test_generated_github_build_steps_run_in_the_image_with_ccache(
    toolchain_home: Path, tmp_path: Path, open_devel_gfx1030: dict[str, Any]
) -> None:
    project = tmp_path / "project"
    shutil.copytree(REPO / "tests" / "cuda_projects" / "cmake_app", project)
    result = mb("ci", "github", "--dir", str(project), "--image", str(open_devel_gfx1030["reference"]))
    assert result.returncode == 0, result.stderr
    workflow = yaml.safe_load((project / ".github/workflows/moatbridge-cuda.yml").read_text())
    build = workflow["jobs"]["build"]
    image = build["container"]["image"]
    assert image == open_devel_gfx1030["reference"]
    workspace = "/__w/project/project"  # where GitHub mounts the checkout in container jobs
    env = {key: value.replace("${{ github.workspace }}", workspace) for key, value in build["env"].items()}
    (run_step,) = [step["run"] for step in build["steps"] if "run" in step]
    script = "set -e\n" + run_step + "rm -rf build\n" + run_step + "ccache --print-stats\n"
    env_args = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
    # The container job has no login shell or entrypoint: nothing sources activate here.
    ran = subprocess.run(
        ["docker", "run", "--rm", "--network", "host", "--entrypoint", "bash", "-v", f"{project}:{workspace}",
         "-w", workspace, *env_args, image, "-c", script],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    stats = dict(line.split("\t") for line in ran.stdout.splitlines() if line.count("\t") == 1)
    hits = int(stats.get("direct_cache_hit", "0")) + int(stats.get("preprocessed_cache_hit", "0"))
    misses = int(stats.get("cache_miss", "0"))
    assert hits >= 3 and misses >= 3, stats  # the second build was served from the cache
    assert (project / "build" / "saxpy").exists() and (project / ".ccache").is_dir()


@pytest.mark.engine
def test_gitlab_file_is_written_and_never_clobbered(toolchain_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".gitlab-ci.yml").write_text("stages: [mine]\n")
    refused = mb("ci", "gitlab", "--dir", str(project))
    assert refused.returncode == 2 and "--force" in refused.stderr
    assert (project / ".gitlab-ci.yml").read_text() == "stages: [mine]\n"
    forced = mb("ci", "gitlab", "--dir", str(project), "--force", "--gpu-runner", "amd")
    assert forced.returncode == 0, forced.stderr
    document = yaml.safe_load((project / ".gitlab-ci.yml").read_text())
    assert document["test-gpu"]["tags"] == ["amd"]
