"""cuRAND's tables that hipRAND 5.7 does not offer are rocRAND's, and must be NVIDIA's numbers:
one host program (the direction-vector API runs without a GPU) is built against NVIDIA's
curand.h and libcurand (Debian's non-free packages, fetched at test time) and against ours,
and both print the same digest of the Joe-Kuo Sobol direction vectors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import docker_run
from support import nvidia_toolkit

pytestmark = pytest.mark.engine

PROGRAM = r"""
#include <stdio.h>
#include <curand.h>
int main(void) {
    curandDirectionVectors32_t* v32;
    curandDirectionVectors64_t* v64;
    if (curandGetDirectionVectors32(&v32, CURAND_DIRECTION_VECTORS_32_JOEKUO6) != CURAND_STATUS_SUCCESS) return 1;
    if (curandGetDirectionVectors64(&v64, CURAND_DIRECTION_VECTORS_64_JOEKUO6) != CURAND_STATUS_SUCCESS) return 1;
    unsigned long long h32 = 0, h64 = 0;
    for (int d = 0; d < 20000; ++d) {
        for (int k = 0; k < 32; ++k) h32 = h32 * 1000003ULL + v32[d][k];
        for (int k = 0; k < 64; ++k) h64 = h64 * 1000003ULL + v64[d][k];
    }
    printf("%llu %llu %u\n", h32, h64, v32[19999][31]);
    return 0;
}
"""


def test_sobol_direction_vectors_are_nvidias(open_devel_gfx1030: dict[str, Any], tmp_path: Path) -> None:
    include = nvidia_toolkit.required(nvidia_toolkit.real_include_dir)
    library = nvidia_toolkit.required(nvidia_toolkit.real_curand_library)
    (tmp_path / "tables.cpp").write_text(PROGRAM)
    result = docker_run(
        str(open_devel_gfx1030["reference"]),
        ". /opt/moatbridge/bin/activate gfx1030 >/dev/null; cd /tmp"
        " && g++ -I/real/include /p/tables.cpp /real/libcurand.so.10 -o real && LD_LIBRARY_PATH=/real ./real"
        " && nvcc /p/tables.cpp -o ours -lcurand && ./ours",
        "-v", f"{include}:/real/include:ro", "-v", f"{library}:/real/libcurand.so.10:ro",
        "-v", f"{tmp_path}:/p:ro",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    real, ours = result.stdout.splitlines()
    assert real == ours
    assert real.split()[2] != "0"
