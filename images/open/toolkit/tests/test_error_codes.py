"""CUDA's error codes HIP has no name for: each defined by its CUDA value, distinct where
CUDA's are. tests/test_api_signatures.py checks the result against NVIDIA's headers in each
stack's image."""

from __future__ import annotations

import pytest

from cudacompat.generate import error_codes
from cudacompat.generate.error_codes import ErrorCode

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


def test_hip_values_count_on_from_the_last_explicit_one() -> None:
    assert error_codes.hip_values(HIP) == {
        "hipSuccess": 0, "hipErrorInvalidValue": 1, "hipErrorOutOfMemory": 2,
        "hipErrorPeerAccessAlreadyEnabled": 704, "hipErrorNotSupported": 801, "hipErrorUnknown": 999,
        "hipErrorTbd": 1000,
    }  # fmt: skip


def test_unmapped_errors_take_a_mapped_alias_then_their_own_value_then_a_spare_one() -> None:
    codes = [
        ErrorCode("cudaErrorInvalidValue", 1),
        ErrorCode("cudaErrorMemoryAllocation", 2),
        ErrorCode("CUDA_ERROR_OUT_OF_MEMORY", 2),  # the driver's name for the same value
        ErrorCode("cudaErrorNotPermitted", 800),  # no HIP error has 800
        ErrorCode("CUDA_ERROR_NOT_PERMITTED", 800),  # so both take 800
        ErrorCode("cudaErrorDevicesUnavailable", 704),  # HIP's 704 is another error
        ErrorCode("cudaErrorTimeout", 909),
    ]
    mapped = {
        "cudaErrorInvalidValue": "hipErrorInvalidValue",
        "cudaErrorMemoryAllocation": "hipErrorOutOfMemory",
    }
    defined = error_codes.definitions(codes, mapped, error_codes.hip_values(HIP))
    assert defined.aliases == {"CUDA_ERROR_OUT_OF_MEMORY": "hipErrorOutOfMemory"}
    assert defined.values == {
        "cudaErrorNotPermitted": 800,
        "CUDA_ERROR_NOT_PERMITTED": 800,
        "cudaErrorDevicesUnavailable": error_codes.FIRST_SPARE,
        "cudaErrorTimeout": 909,
    }
    header = error_codes.header(defined)
    assert (
        "#ifndef CUDA_ERROR_OUT_OF_MEMORY\n#define CUDA_ERROR_OUT_OF_MEMORY hipErrorOutOfMemory\n#endif"
        in header
    )
    assert "#ifndef cudaErrorTimeout\n#define cudaErrorTimeout cudaErrorTimeout\n#endif" in header


def test_new_errors_become_enumerators_after_hips_last() -> None:
    defined = error_codes.Definitions({}, {"cudaErrorNotPermitted": 800, "cudaErrorTimeout": 909})
    changed = error_codes.with_error_codes(HIP, defined)
    assert changed is not None
    # hipErrorTbd keeps its value: the new ones follow it, each with its own
    values = error_codes.hip_values(changed)
    assert values["hipErrorTbd"] == 1000
    assert "\n    , cudaErrorNotPermitted = 800\n    , cudaErrorTimeout = 909\n} hipError_t;" in changed
    assert error_codes.with_error_codes("typedef int hipError_t;", defined) is None
    assert error_codes.with_error_codes(HIP, error_codes.Definitions({}, {})) == HIP


def test_a_hip_value_in_the_spare_range_is_refused() -> None:
    with pytest.raises(ValueError, match="spare range"):
        error_codes.definitions([ErrorCode("cudaErrorX", 5)], {}, {"hipErrorFar": error_codes.FIRST_SPARE})


def test_the_committed_table_round_trips_and_has_both_enums() -> None:
    codes = error_codes.load()
    assert error_codes.from_text(error_codes.to_text(codes)) == codes
    names = [code.name for code in codes]
    assert len(set(names)) == len(names)
    assert {"cudaSuccess", "CUDA_SUCCESS", "cudaErrorNotPermitted", "CUDA_ERROR_NOT_PERMITTED"} <= set(names)
    assert sum(name.startswith("cudaError") for name in names) > 120
    assert sum(name.startswith("CUDA_ERROR_") for name in names) > 90
