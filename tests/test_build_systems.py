"""One small CUDA project (a shared library of kernels and a CUDA executable linked to it)
built unmodified by the two build systems CMake's native CUDA support does not cover:
Meson (the current release from PyPI, run in the toolchain as a devcontainer or CI job runs
it) and CMake's legacy FindCUDA module (`cuda_add_library`/`cuda_add_executable`, which
drive nvcc themselves with `-m64`, `-Xcompiler ,"-fPIC"` and `-M` dependency runs).

No GPU here: the program must link, load its library and the HIP runtime, and stop at the
device query with CUDA's "no device" error, not a loader error.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from conftest import REPO, docker_run
from support import pypi

pytestmark = pytest.mark.engine

PROJECT = REPO / "tests" / "cuda_projects" / "lib_app"
# Every stack CI builds: trixie (CMake 3.31, HIP 5.7) and sid (CMake 4.3, HIP 6.4).
STACKS = [("open_devel_gfx1030", "gfx1030"), ("open_devel_sid_gfx1201", "gfx1201")]


@pytest.fixture(params=STACKS, ids=["trixie-gfx1030", "sid-gfx1201"])
def stack_image(request: pytest.FixtureRequest) -> tuple[str, str]:
    """(image reference, target) of one stack's per-target devel image."""
    fixture, target = request.param
    return str(request.getfixturevalue(fixture)["reference"]), target


@pytest.fixture(scope="session")
def meson_tree() -> Path:
    """Meson's wheel from PyPI (pure Python), unpacked once into the test cache."""
    wheel = pypi.download_wheel("meson")
    target = pypi.CACHE / wheel.name.removesuffix(".whl")
    if not (target / "mesonbuild" / "mesonmain.py").exists():
        staging = target.with_suffix(".partial")
        shutil.rmtree(staging, ignore_errors=True)
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(staging)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    return target


def _run(stack: tuple[str, str], script: str, *volumes: str) -> tuple[str, str]:
    image, target = stack
    mounts = ["-v", f"{PROJECT}:/src:ro"]
    for volume in volumes:
        mounts += ["-v", volume]
    result = docker_run(
        image, f"set -e\n. /opt/moatbridge/bin/activate {target} >/dev/null\n{script}", *mounts
    )
    assert result.returncode == 0, f"stdout:\n{result.stdout[-4000:]}\nstderr:\n{result.stderr[-6000:]}"
    return result.stdout, result.stderr


def _ran_to_the_device_query(output: str) -> None:
    assert "no GPU: CUDA error 100" in output or "no GPU: CUDA error 101" in output, output[-2000:]
    assert "error while loading shared libraries" not in output


def test_meson_builds_the_shared_library_and_the_executable(
    stack_image: tuple[str, str], meson_tree: Path
) -> None:
    out, err = _run(
        stack_image,
        """
        export PYTHONPATH=/opt/meson
        meson() { python3 -m mesonbuild.mesonmain "$@"; }
        meson --version
        meson setup /tmp/build /src
        meson compile -C /tmp/build -v
        cd /tmp/build
        readelf -d libkernels.so | grep -E 'SONAME'
        readelf -d scale_app | grep -E 'NEEDED|RUNPATH'
        ./scale_app 2>&1 || echo "scale_app rc=$?"
        """,
        f"{meson_tree}:/opt/meson:ro",
    )
    assert "Cuda compiler for the host machine: " in out and "(nvcc 12.4.131)" in out
    assert "warning" not in (out + err).lower().replace("-winvalid-pch", ""), "Meson's -Wall build warned"
    assert "Library soname: [libkernels.so]" in out  # -Xcompiler=-Wl\,-soname\,libkernels.so
    assert "Shared library: [libkernels.so]" in out and "$ORIGIN/" in out  # the rpath Meson quotes
    assert "scale_app rc=2" in out
    _ran_to_the_device_query(out)


def test_findcuda_builds_the_shared_library_and_the_executable(stack_image: tuple[str, str]) -> None:
    out, err = _run(
        stack_image,
        """
        cmake -S /src -B /tmp/build -Wno-dev
        cmake --build /tmp/build -- VERBOSE=1
        cd /tmp/build
        readelf -d scale_app | grep -E 'NEEDED'
        ./scale_app 2>&1 || echo "scale_app rc=$?"
        """,
    )
    assert f'-- Found CUDA: /opt/moatbridge/targets/{stack_image[1]} (found version "12.4")' in out
    assert (
        "nvcc -M -D__CUDACC__" in out
        and "-m64" in out
        and '-Xcompiler ,\\"-O3\\",\\"-DNDEBUG\\",\\"-fPIC\\"' in out
    )
    assert "warning" not in (out + err).lower()
    assert "Shared library: [libkernels.so]" in out
    assert "scale_app rc=2" in out
    _ran_to_the_device_query(out)
