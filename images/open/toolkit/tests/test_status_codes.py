"""CUDA's status codes HIP has no name for, or folds into another's: each defined by its CUDA
value, distinct where CUDA's are, an enumerator of the HIP enum. tests/test_api_signatures.py
checks the result against NVIDIA's headers in each stack's image."""

from __future__ import annotations

from pathlib import Path

from cudacompat.generate import status_codes
from cudacompat.generate.status_codes import Definitions, StatusCode

RUNTIME = status_codes.ENUM_OF["runtime"]
SOLVER = status_codes.ENUM_OF["cusolver"]

HIP = """
typedef enum __HIP_NODISCARD hipError_t {
    hipSuccess = 0,  ///< Successful completion.
    hipErrorInvalidValue = 1,
    hipErrorOutOfMemory = 2,
    // a comment, = 5
    hipErrorPeerAccessAlreadyEnabled =
        704,
    hipErrorNotSupported = 801,
    hipErrorUnknown = 999,
    hipErrorTbd  ///< Marker that more error codes are needed.
} hipError_t;
"""

HIPSOLVER = """
typedef enum
{
    HIPSOLVER_STATUS_SUCCESS           = 0, // Function succeeds
    HIPSOLVER_STATUS_INVALID_VALUE     = 3,
    HIPSOLVER_STATUS_INTERNAL_ERROR    = 6, // an internal hipSOLVER operation failed
    HIPSOLVER_STATUS_ZERO_PIVOT        = 12,
} hipsolverStatus_t;
"""


def test_hip_values_count_on_from_the_last_explicit_one() -> None:
    assert status_codes.hip_values(HIP, RUNTIME) == {
        "hipSuccess": 0, "hipErrorInvalidValue": 1, "hipErrorOutOfMemory": 2,
        "hipErrorPeerAccessAlreadyEnabled": 704, "hipErrorNotSupported": 801, "hipErrorUnknown": 999,
        "hipErrorTbd": 1000,
    }  # fmt: skip


def test_unmapped_errors_take_a_mapped_alias_then_their_own_value_then_a_spare_one() -> None:
    codes = [
        StatusCode("runtime", "cudaErrorInvalidValue", 1),
        StatusCode("runtime", "cudaErrorMemoryAllocation", 2),
        StatusCode("runtime", "CUDA_ERROR_OUT_OF_MEMORY", 2),  # the driver's name for the same value
        StatusCode("runtime", "cudaErrorNotPermitted", 800),  # no HIP error has 800
        StatusCode("runtime", "CUDA_ERROR_NOT_PERMITTED", 800),  # so both take 800
        StatusCode("runtime", "cudaErrorDevicesUnavailable", 704),  # HIP's 704 is another error
        StatusCode("runtime", "cudaErrorTimeout", 909),
        StatusCode("cusolver", "CUSOLVER_STATUS_SUCCESS", 0),  # another enum's: not this one's business
    ]
    mapped = {
        "cudaErrorInvalidValue": "hipErrorInvalidValue",
        "cudaErrorMemoryAllocation": "hipErrorOutOfMemory",
    }
    defined = status_codes.definitions(codes, RUNTIME, mapped, status_codes.hip_values(HIP, RUNTIME))
    assert defined.unmapped == frozenset()
    assert defined.aliases == {"CUDA_ERROR_OUT_OF_MEMORY": "hipErrorOutOfMemory"}
    # above every HIP value (hipErrorTbd's 1000) and every CUDA one
    assert defined.values == {
        "cudaErrorNotPermitted": 800,
        "CUDA_ERROR_NOT_PERMITTED": 800,
        "cudaErrorDevicesUnavailable": 1001,
        "cudaErrorTimeout": 909,
    }
    header = status_codes.header([defined])
    assert (
        "#ifndef CUDA_ERROR_OUT_OF_MEMORY\n#define CUDA_ERROR_OUT_OF_MEMORY hipErrorOutOfMemory\n#endif"
        in header
    )
    assert "#ifndef cudaErrorTimeout\n#define cudaErrorTimeout cudaErrorTimeout\n#endif" in header


def test_statuses_folded_into_one_hip_status_are_unfolded() -> None:
    # hipify's table maps the IRS statuses onto hipSOLVER's general ones
    codes = [
        StatusCode("cusolver", "CUSOLVER_STATUS_INVALID_VALUE", 3),
        StatusCode("cusolver", "CUSOLVER_STATUS_INTERNAL_ERROR", 7),
        StatusCode("cusolver", "CUSOLVER_STATUS_IRS_PARAMS_INVALID", 13),
        StatusCode("cusolver", "CUSOLVER_STATUS_IRS_INTERNAL_ERROR", 20),
        StatusCode("cusolver", "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR", 30),
        StatusCode("cusolver", "CUSOLVER_STATUS_ZERO_PIVOT", 10),
    ]
    mapped = {
        "CUSOLVER_STATUS_INVALID_VALUE": "HIPSOLVER_STATUS_INVALID_VALUE",
        "CUSOLVER_STATUS_IRS_PARAMS_INVALID": "HIPSOLVER_STATUS_INVALID_VALUE",
        "CUSOLVER_STATUS_INTERNAL_ERROR": "HIPSOLVER_STATUS_INTERNAL_ERROR",
        "CUSOLVER_STATUS_IRS_INTERNAL_ERROR": "HIPSOLVER_STATUS_INTERNAL_ERROR",
        "CUSOLVER_STATUS_ZERO_PIVOT": "HIPSOLVER_STATUS_ZERO_PIVOT",
    }
    hip = status_codes.hip_values(HIPSOLVER, SOLVER)
    assert hip == {
        "HIPSOLVER_STATUS_SUCCESS": 0, "HIPSOLVER_STATUS_INVALID_VALUE": 3, "HIPSOLVER_STATUS_INTERNAL_ERROR": 6,
        "HIPSOLVER_STATUS_ZERO_PIVOT": 12,
    }  # fmt: skip
    defined = status_codes.definitions(codes, SOLVER, mapped, hip)
    # the status HIP names keeps the mapping; the folded ones get values of their own
    assert defined.unmapped == {"CUSOLVER_STATUS_IRS_PARAMS_INVALID", "CUSOLVER_STATUS_IRS_INTERNAL_ERROR"}
    assert defined.values == {
        "CUSOLVER_STATUS_IRS_PARAMS_INVALID": 13,
        "CUSOLVER_STATUS_IRS_INTERNAL_ERROR": 20,
        "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR": 30,
    }


def test_new_enumerators_follow_the_last_with_or_without_its_comma() -> None:
    defined = Definitions(frozenset(), {}, {"cudaErrorNotPermitted": 800, "cudaErrorTimeout": 909})
    changed = status_codes.with_status_codes(HIP, RUNTIME, defined)
    assert changed is not None
    # hipErrorTbd keeps its value: the new ones follow it, each with its own
    assert status_codes.hip_values(changed, RUNTIME)["hipErrorTbd"] == 1000
    assert "\n    , cudaErrorNotPermitted = 800,\n    cudaErrorTimeout = 909\n} hipError_t;" in changed
    solver = Definitions(frozenset(), {}, {"CUSOLVER_STATUS_IRS_MATRIX_SINGULAR": 30})
    changed = status_codes.with_status_codes(HIPSOLVER, SOLVER, solver)
    assert changed is not None
    assert "= 12,\n    /* moatbridge:" in changed
    assert "\n    CUSOLVER_STATUS_IRS_MATRIX_SINGULAR = 30,\n} hipsolverStatus_t;" in changed
    assert status_codes.with_status_codes("typedef int hipError_t;", RUNTIME, defined) is None
    assert status_codes.with_status_codes(HIP, RUNTIME, Definitions(frozenset(), {}, {})) == HIP


def test_a_library_whose_headers_include_each_other_is_shadowed_whole(tmp_path: Path) -> None:
    system = tmp_path / "usr"
    (system / "hipsolver" / "internal").mkdir(parents=True)
    (system / "hipsolver" / "hipsolver.h").write_text('#include "internal/hipsolver-types.h"\n')
    (system / "hipsolver" / "internal" / "hipsolver-types.h").write_text(HIPSOLVER)
    shadow = tmp_path / "shadow"
    solver = Definitions(frozenset(), {}, {"CUSOLVER_STATUS_IRS_MATRIX_SINGULAR": 30})
    assert status_codes.write_shadows(shadow, system, [(SOLVER, solver)]) == 1
    assert (shadow / "hipsolver" / "hipsolver.h").read_text() == '#include "internal/hipsolver-types.h"\n'
    assert "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR = 30" in (shadow / SOLVER.hip_header).read_text()


def test_the_committed_table_round_trips_and_has_every_enum() -> None:
    codes = status_codes.load()
    assert status_codes.from_text(status_codes.to_text(codes)) == codes
    names = [code.name for code in codes]
    assert len(set(names)) == len(names)
    assert {
        "cudaSuccess",
        "CUDA_SUCCESS",
        "cudaErrorNotPermitted",
        "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR",
    } <= set(names)
    assert sum(name.startswith("cudaError") for name in names) > 120
    assert sum(name.startswith("CUDA_ERROR_") for name in names) > 90
    assert sum(name.startswith("CUSOLVER_STATUS_") for name in names) > 20
    assert sum(name.startswith("CUFFT_") for name in names) > 20


def test_each_mimicked_release_takes_its_own_headers_codes() -> None:
    codes = status_codes.load()
    older = {code.name for code in status_codes.of_release(codes, "12.4.131")}
    newer = {code.name for code in status_codes.of_release(codes, "13.0.88")}
    # CUDA 13 added these and dropped cuFFT's three unused results
    assert {"CUFFT_MISSING_DEPENDENCY", "CUFFT_NVSHMEM_FAILURE", "cudaErrorContained"} <= newer - older
    assert {"CUFFT_LICENSE_ERROR", "CUFFT_PARSE_ERROR"} <= older - newer
    assert "cudaSuccess" in older & newer


def test_the_releases_are_merged_with_the_ones_declaring_each(tmp_path: Path) -> None:
    for release, extra in (("12.4", ""), ("13.0", "    CUFFT_NVRTC_FAILURE = 0x12,\n")):
        include = tmp_path / release
        include.mkdir()
        (include / "driver_types.h").write_text(
            "enum cudaError {\n    cudaSuccess = 0,\n};\n"
            "enum __device_builtin__ cudaMemLocationType {\n    cudaMemLocationTypeInvalid = 0\n"
            "    , cudaMemLocationTypeHost = 2 /**< a leading comma */\n};\n"
        )
        (include / "cuda.h").write_text("typedef enum cudaError_enum {\n    CUDA_SUCCESS = 0,\n} CUresult;\n")
        (include / "cufft.h").write_text(
            f"typedef enum cufftResult_t {{\n    CUFFT_SUCCESS = 0x0,\n{extra}}} cufftResult;\n"
        )
        (include / "cusolver_common.h").write_text(
            "typedef enum {\n    CUSOLVER_STATUS_SUCCESS = 0,\n} cusolverStatus_t;\n"
        )
    codes = status_codes.read_releases({r: tmp_path / r for r in status_codes.RELEASES})
    assert StatusCode("cufft", "CUFFT_NVRTC_FAILURE", 18, ("13.0",)) in codes
    assert StatusCode("runtime", "cudaSuccess", 0, ("12.4", "13.0")) in codes
    assert StatusCode("mem_location", "cudaMemLocationTypeHost", 2, ("12.4", "13.0")) in codes


def test_enumerators_take_every_way_headers_write_them() -> None:
    body = """
        A = 0,       /* a, comment = 7 */
        B            // implicit: 1
        , C = 0x10   /**< hex, leading comma */
        , D,         // 17
        E = C,       // an alias
        F = (1 << 2), G, H = 3
    """
    assert status_codes.enumerators(body) == {"A": 0, "B": 1, "C": 16, "D": 17, "E": 16, "H": 3}
