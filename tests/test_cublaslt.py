"""cuBLASLt on the stack without hipBLASLt (trixie): NVIDIA's API over hipBLAS, the library
built at image build for the image's targets (cudacompat/generate/cublaslt.py).

What runs here without a GPU: the link (every function NVIDIA's cublasLt.h of the mimicked
release exports, from the library under NVIDIA's soname, found by the loader as NVIDIA's is),
and the host side of the API (descriptors, attributes, the algorithm search's validation,
statuses, versions, logging). The matmul and its epilogue kernels need a GPU or an emulator.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from conftest import docker_run
from support import nvidia_releases

TRIXIE_RELEASES = [("open_devel_gfx1030", "12.4"), ("open_devel_gfx1030_cuda13", "13.0")]

_EXPORTED = re.compile(r"CUBLASWINAPI\s+(cublasLt\w+)\s*\(")

# Host-side behaviour, each result one `key=value` line. The handle the searches get is never
# dereferenced by them: a non-null stand-in, since creating a real one needs a GPU.
HOST_PROGRAM = r"""
#include <cublasLt.h>
#include <cstdio>
#include <cstring>
static int logged_level = 0;
static char logged[256];
static void on_log(int level, const char* function, const char* message) {
    logged_level = level;
    snprintf(logged, sizeof logged, "%s: %s", function, message);
}
int main() {
    printf("version=%zu\n", cublasLtGetVersion());
    printf("cudart=%zu\n", cublasLtGetCudartVersion());
    int major = -1;
    cublasLtGetProperty(MAJOR_VERSION, &major);
    printf("major=%d\n", major);
    printf("name=%s\n", cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED));
    printf("sizes=%zu %zu %zu %zu\n", sizeof(cublasLtMatmulDescOpaque_t), sizeof(cublasLtMatrixLayoutOpaque_t),
           sizeof(cublasLtMatmulAlgo_t), sizeof(cublasLtMatmulHeuristicResult_t));

    cublasLtMatmulDesc_t desc;
    cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_GELU_AUX_BIAS, read = CUBLASLT_EPILOGUE_DEFAULT;
    size_t written = 0;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
    cublasLtMatmulDescGetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &read, sizeof(read), &written);
    printf("epilogue=%d %zu\n", (int)read, written);
    size_t needed = 0;
    cublasLtMatmulDescGetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, nullptr, 0, &needed);
    printf("bias_pointer_size=%zu\n", needed);
    int32_t small = 0;
    printf("wrong_size=%s\n", cublasLtGetStatusName(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &small, sizeof(small))));
    epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue));
    cublasOperation_t transpose = CUBLAS_OP_T;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose));

    cublasLtMatrixLayoutOpaque_t a, b, c, d;  // caller memory, as the Init functions allow
    cublasLtMatrixLayoutInit(&a, CUDA_R_32F, 64, 32, 64);  // op(A) = A^T: 32 x 64
    cublasLtMatrixLayoutInit(&b, CUDA_R_32F, 64, 16, 64);
    cublasLtMatrixLayoutInit(&c, CUDA_R_32F, 32, 16, 32);
    cublasLtMatrixLayoutInit(&d, CUDA_R_32F, 32, 16, 32);
    uint64_t rows = 0;
    cublasLtMatrixLayoutGetAttribute(&a, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof(rows), &written);
    printf("rows=%llu\n", (unsigned long long)rows);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    size_t workspace = 1 << 22;
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace, sizeof(workspace));

    cublasLtHandle_t handle = reinterpret_cast<cublasLtHandle_t>(&workspace);
    cublasLtMatmulHeuristicResult_t results[4];
    int found = -1;
    cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle, desc, &a, &b, &c, &d, pref, 4, results, &found);
    printf("heuristic=%s %d %zu\n", cublasLtGetStatusName(status), found, results[0].workspaceSize);

    cublasLtLoggerSetCallback(on_log);
    cublasLtLoggerSetLevel(1);
    cublasLtMatrixLayoutInit(&b, CUDA_R_32F, 63, 16, 64);  // k no longer matches
    status = cublasLtMatmulAlgoGetHeuristic(handle, desc, &a, &b, &c, &d, pref, 4, results, &found);
    printf("mismatch=%s %d\n", cublasLtGetStatusName(status), found);
    printf("logged=%d %s\n", logged_level, logged);

    cublasLtMatrixLayoutInit(&b, CUDA_R_32F, 64, 16, 64);
    cublasLtOrder_t row = CUBLASLT_ORDER_ROW;
    cublasLtMatrixLayoutSetAttribute(&a, CUBLASLT_MATRIX_LAYOUT_ORDER, &row, sizeof(row));
    status = cublasLtMatmulAlgoGetHeuristic(handle, desc, &a, &b, &c, &d, pref, 4, results, &found);
    printf("row_order=%s %d\n", cublasLtGetStatusName(status), found);

    cublasLtMatmulDescDestroy(desc);
    cublasLtMatmulPreferenceDestroy(pref);
    cublasLtHandle_t real = nullptr;
    status = cublasLtCreate(&real);  // no GPU here: a status, not a crash
    printf("create=%s\n", cublasLtGetStatusName(status));
    return 0;
}
"""


def _exported_by_nvidia(release: str) -> list[str]:
    text = (nvidia_releases.include_of(release) / "cublasLt.h").read_text(encoding="utf-8", errors="replace")
    return sorted(set(_EXPORTED.findall(text)))


@pytest.mark.engine
@pytest.mark.parametrize(("fixture", "release"), TRIXIE_RELEASES)
def test_every_function_nvidia_exports_links_from_the_library(
    request: pytest.FixtureRequest, fixture: str, release: str, tmp_path: Path
) -> None:
    image: Any = request.getfixturevalue(fixture)["reference"]
    names = _exported_by_nvidia(release)
    assert len(names) >= 45 and "cublasLtMatmul" in names, names
    # every name's address taken: the link fails on the first the library lacks
    (tmp_path / "links.cu").write_text(
        "#include <cublasLt.h>\n#include <cstdio>\nint main() {\n"
        + "".join(f'    printf("%p\\n", (void*)&{name});\n' for name in names)
        + "    return 0;\n}\n"
    )
    major = release.split(".")[0]
    result = docker_run(
        str(image),
        ". /opt/moatbridge/bin/activate gfx1030 >/dev/null; cd /p && nvcc -o /tmp/links links.cu -lcublasLt && "
        "/tmp/links >/dev/null && echo RAN && ldd /tmp/links | grep cublasLt && "
        f"nm -D --defined-only /opt/moatbridge/toolkit/lib64/libcublasLt.so.{major} | grep -c ' T '",
        "-v", f"{tmp_path}:/p",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert "RAN" in lines
    # the loader finds NVIDIA's soname without LD_LIBRARY_PATH, as with NVIDIA's packages
    assert f"libcublasLt.so.{major} => /" in result.stdout
    # nothing but the API is exported
    assert int(lines[-1]) == len(names), (lines[-1], len(names))


@pytest.mark.engine
@pytest.mark.parametrize(("fixture", "release"), TRIXIE_RELEASES)
def test_descriptors_attributes_and_the_algorithm_search_behave_as_nvidias(
    request: pytest.FixtureRequest, fixture: str, release: str, tmp_path: Path
) -> None:
    image: Any = request.getfixturevalue(fixture)["reference"]
    (tmp_path / "host.cu").write_text(HOST_PROGRAM)
    result = docker_run(
        str(image),
        ". /opt/moatbridge/bin/activate gfx1030 >/dev/null; cd /p && nvcc -o /tmp/host host.cu -lcublasLt "
        "&& /tmp/host",
        "-v", f"{tmp_path}:/p",
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    got = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    major = int(release.split(".")[0])
    assert got["cudart"] == str(major * 1000 + int(release.split(".")[1]) * 10)
    assert got["major"] == str(major) and int(got["version"]) // 10000 == major
    assert got["name"] == "CUBLAS_STATUS_NOT_SUPPORTED"
    assert got["sizes"] == "256 64 64 96"  # NVIDIA's structure sizes
    assert got["epilogue"] == "164 4"  # CUBLASLT_EPILOGUE_GELU_AUX_BIAS, an int32_t
    assert got["bias_pointer_size"] == "8"
    assert got["wrong_size"] == "CUBLAS_STATUS_INVALID_VALUE"
    assert got["rows"] == "64"
    assert got["heuristic"] == "CUBLAS_STATUS_SUCCESS 1 0"
    assert got["mismatch"] == "CUBLAS_STATUS_INVALID_VALUE 0"
    assert got["logged"].startswith("1 cublasLtMatmulAlgoGetHeuristic: ") and "shapes" in got["logged"]
    assert got["row_order"] == "CUBLAS_STATUS_NOT_SUPPORTED 0"
    assert got["create"] != "CUBLAS_STATUS_SUCCESS"
