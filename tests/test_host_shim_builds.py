"""The host shims (`cmake`, `make`, `nvcc`) run the CMake and Makefile projects of
test_open_toolkit.py from the host, through the warm toolchain container."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, mb
from support import device_symbols

pytestmark = pytest.mark.engine

PROJECTS = REPO / "tests" / "cuda_projects"
NO_DEVICE = ("no ROCm-capable device is detected", "invalid device ordinal")


def _host_shell(home: Path, script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """A host bash with the env file sourced: every tool below is a moatbridge shim."""
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", f'. "$HOME/.local/share/moatbridge/env"\n{script}'],
        capture_output=True, text=True, cwd=cwd, timeout=1800,
    )  # fmt: skip


def test_cmake_project_builds_through_the_host_shims(toolchain_home: Path) -> None:
    home = toolchain_home
    project = home / "src" / "cmake app"
    shutil.copytree(PROJECTS / "cmake_app", project)
    result = _host_shell(
        home,
        """
        command -v cmake nvcc
        cmake -S . -B build -G Ninja -DCMAKE_CUDA_ARCHITECTURES=86
        cmake --build build
        """,
        project,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    shims = result.stdout.splitlines()[:2]
    assert all(line.startswith(str(home / ".local/share/moatbridge/cuda/bin/")) for line in shims), shims
    assert "The CUDA compiler identification is NVIDIA 12.4.131" in result.stdout
    built = project / "build" / "saxpy"
    assert built.exists() and built.stat().st_uid == os.getuid()
    # On the host itself the binary cannot start: the HIP runtime lives only in the image.
    on_host = subprocess.run([str(built)], capture_output=True, text=True, timeout=60)
    assert on_host.returncode == 127, (on_host.returncode, on_host.stderr)
    assert on_host.stderr == (
        f"{built}: error while loading shared libraries: libhipblas.so.0: "
        "cannot open shared object file: No such file or directory\n"
    )
    # In the toolchain it starts, links every library, and stops at its own device check.
    in_toolchain = mb("run", "--", "./build/saxpy", cwd=project, timeout=300)
    assert in_toolchain.returncode == 1, (in_toolchain.returncode, in_toolchain.stderr)
    assert any(message in in_toolchain.stderr for message in NO_DEVICE), in_toolchain.stderr
    assert "error while loading shared libraries" not in in_toolchain.stderr


def test_makefile_project_builds_through_the_host_shims(toolchain_home: Path) -> None:
    home = toolchain_home
    project = home / "src" / "make_app"
    shutil.copytree(PROJECTS / "make_app", project)
    result = _host_shell(home, "make\nnvcc --version | tail -1", project)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "nvcc -O2 -std=c++17 -arch=sm_80" in result.stdout  # make's echo: the shim was called as nvcc
    assert "Build cuda_12.4" in result.stdout
    run = mb("run", "--", "./histogram", cwd=project, timeout=300)
    assert run.returncode == 1
    assert any(message in run.stderr for message in NO_DEVICE), run.stderr


def test_separable_compilation_project_builds_through_the_host_shims(toolchain_home: Path) -> None:
    """CMake on the host drives nvcc -rdc, the static library and the device link through
    the shims; in the toolchain, every device variable the host registers is in the code."""
    home = toolchain_home
    project = home / "src" / "rdc app"
    shutil.copytree(PROJECTS / "rdc_app", project)
    (project / "listing.sh").write_text(device_symbols.LISTING_SCRIPT)
    result = _host_shell(
        home,
        'cmake -S . -B build -G Ninja "-DCMAKE_CUDA_ARCHITECTURES=75;86" && cmake --build build',
        project,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert (project / "build" / "CMakeFiles" / "rdc_app.dir" / "cmake_device_link.o").is_file()
    listing = mb("run", "--", "bash", "-eu", "listing.sh", "build/rdc_app", cwd=project, timeout=300)
    assert listing.returncode == 0, listing.stderr
    targets, host = device_symbols.parse_listing(listing.stdout)
    registered = device_symbols.externalized_names(host)
    assert len(registered) >= 5, registered  # two c_Table, d_Bias, threads_run and its .managed
    assert list(targets) == ["hipv4-amdgcn-amd-amdhsa--gfx1030"], targets
    assert registered | {"scale_factor", "offsets"} <= targets["hipv4-amdgcn-amd-amdhsa--gfx1030"]
