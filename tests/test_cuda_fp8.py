"""CUDA's FP8 types (cuda_fp8.h) are software types in the open toolkit (HIP 5.7 has none);
NVIDIA's own header is the oracle: one program prints every conversion over every half
value, special values and every FP8 code, compiled on the host against the real header
(g++) and in the image against ours (nvcc). The outputs must be identical."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO, docker_run
from support import nvidia_toolkit

pytestmark = pytest.mark.engine

PROGRAM = REPO / "tests" / "cuda_programs" / "fp8_conversions.cpp"


def _real_output(tmp_path: Path) -> str:
    include = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.fail("g++ is needed to compile against NVIDIA's headers on the host")
    binary = tmp_path / "fp8-real"
    subprocess.run(
        [compiler, "-std=c++17", "-O1", "-I", str(include), str(PROGRAM), "-o", str(binary)],
        check=True, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return subprocess.run([str(binary)], check=True, capture_output=True, text=True, timeout=120).stdout


def test_fp8_conversions_match_nvidias_header_bit_for_bit(
    open_devel_gfx1030: dict[str, Any], shared_tmp: Path, tmp_path: Path
) -> None:
    real = _real_output(tmp_path)
    shutil.copy(PROGRAM, shared_tmp / "fp8.cu")
    ours = docker_run(
        str(open_devel_gfx1030["reference"]),
        f". /opt/moatbridge/bin/activate gfx1030 && cd {shared_tmp} && nvcc -o /tmp/fp8 fp8.cu && /tmp/fp8",
        "-v", f"{shared_tmp}:{shared_tmp}",
    )  # fmt: skip
    assert ours.returncode == 0, ours.stderr[-3000:]
    real_lines, our_lines = real.splitlines(), ours.stdout.splitlines()
    assert len(real_lines) > 250_000
    differing = [(r, o) for r, o in zip(real_lines, our_lines, strict=True) if r != o]
    assert not differing, f"{len(differing)} conversions differ, first: {differing[:5]}"
