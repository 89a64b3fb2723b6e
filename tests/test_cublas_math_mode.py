"""cublasSetMathMode through the open toolkit, per stack: cuBLAS accepts every math mode on
every GPU (they allow or forbid reduced-precision kernels), so CUDA programs check its status
and stop on an error. hipBLAS 2+ (HIP 6.4, sid) maps the modes, but its rocBLAS backend
refuses all but the default with HIPBLAS_STATUS_NOT_SUPPORTED; corpus program cublas_gemm_ex
stopped there under the emulator. HIP 5.7 (trixie) has no math modes: ours accept them.

No GPU here: on HIP 6 the program defines hipblasSetMathMode itself, as libhipblas 6.4's
rocBLAS backend behaves (checked under the emulator: only HIPBLAS_DEFAULT_MATH succeeds), so
the test is of the header's translation, compile and host run only.
"""

from __future__ import annotations

import pytest

from conftest import docker_run
from support.open_stacks import OPEN_STACKS

_PROGRAM = r"""
#include <cstdio>
#include <cublas_v2.h>
static int forwarded = 0;
#if HIP_VERSION_MAJOR >= 6
hipblasStatus_t hipblasSetMathMode(hipblasHandle_t, hipblasMath_t mode) {
    ++forwarded;
    return mode == HIPBLAS_DEFAULT_MATH ? HIPBLAS_STATUS_SUCCESS : HIPBLAS_STATUS_NOT_SUPPORTED;
}
#endif
int main() {
    static int storage;
    cublasHandle_t handle = &storage;
    const cublasMath_t modes[] = {CUBLAS_DEFAULT_MATH, CUBLAS_TENSOR_OP_MATH, CUBLAS_PEDANTIC_MATH,
                                  CUBLAS_TF32_TENSOR_OP_MATH,
                                  CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION};
    int ok = 0;
    for (cublasMath_t mode : modes) ok += cublasSetMathMode(handle, mode) == CUBLAS_STATUS_SUCCESS;
    ok += cublasSetMathMode(handle, 3) == CUBLAS_STATUS_SUCCESS; /* an int, as CUDA code ORs them */
    printf("accepted: %d of 6\nforwarded: %d\nhip6: %d\n", ok, forwarded, HIP_VERSION_MAJOR >= 6);
    return 0;
}
"""


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_every_cuda_math_mode_is_accepted(request: pytest.FixtureRequest, gfx: str, fixture: str) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    script = f""". /opt/moatbridge/bin/activate {gfx} >/dev/null
set -eu
mkdir -p /tmp/t && cd /tmp/t
cat > modes.cu <<'CU'
{_PROGRAM}
CU
nvcc -o modes modes.cu
./modes
"""
    result = docker_run(image, script)
    assert result.returncode == 0, result.stdout + result.stderr[-4000:]
    facts = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    assert facts["accepted"] == "6 of 6", result.stdout
    # on HIP 6 every call still reaches hipBLAS, so a bad handle's error is not hidden
    assert facts["forwarded"] == ("6" if facts["hip6"] == "1" else "0"), result.stdout
