"""Which CUDA release's tables a toolkit takes, and what a newer release redeclared or removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudacompat.generate import mappings, releases, signatures, status_codes


def test_a_toolkit_takes_the_newest_release_not_after_its_own() -> None:
    assert releases.release_of("11.8.89") == "12.4"
    assert releases.release_of("12.1") == "12.4"
    assert releases.release_of("12.4.131") == "12.4"
    assert releases.release_of("13.0.88") == "13.0"
    assert releases.release_of("13.5") == "13.0"


def test_each_release_gets_one_include_directory() -> None:
    assert releases.include_arguments(["13.0=/b", "12.4=/a"]) == {"12.4": Path("/a"), "13.0": Path("/b")}
    for bad in (["12.4=/a"], ["12.4=/a", "13.0=/b", "12.4=/c"], ["12.4=/a", "14.0=/b"], ["12.4", "13.0=/b"]):
        with pytest.raises(ValueError, match=r"one RELEASE=DIR for each of 12\.4, 13\.0"):
            releases.include_arguments(bad)


def test_cuda_13_redeclares_and_removes_from_13_on_only() -> None:
    assert mappings.redeclared("12.4.131") == frozenset()
    assert {"cudaMemPrefetchAsync", "cudaGraphAddDependencies"} <= mappings.redeclared("13.0.88")
    assert signatures.removed_by("12.4.131") == frozenset()
    removed = signatures.removed_by("13.0.88")
    assert {
        "cudaThreadSynchronize",
        "cudaMemPrefetchAsync_v2",
        "cudaLaunchCooperativeKernelMultiDevice",
    } <= removed
    # a redeclared function is not a removed one: 13.0 has it, with other parameters
    assert not removed & mappings.redeclared("13.0.88")


def test_cuda_13_removes_three_cufft_results_from_13_on_only() -> None:
    codes = status_codes.load()
    assert status_codes.removed_by(codes, "12.4.131") == frozenset()
    assert status_codes.removed_by(codes, "13.0.88") == {
        "CUFFT_INCOMPLETE_PARAMETER_LIST",
        "CUFFT_PARSE_ERROR",
        "CUFFT_LICENSE_ERROR",
    }


def test_hipsparse_is_read_as_under_cuda_12_by_the_header_and_its_probe() -> None:
    """NVIDIA's CUDA 13.0 cuSPARSE keeps the legacy routines hipSPARSE hides from CUDA 13: the
    compat header and the generator's probe include hipSPARSE the same way, as CUDA 12 would."""
    from cudacompat.generate import probe

    header = (Path(__file__).parents[1] / "include" / "cusparse.h").read_text(encoding="utf-8")
    assert probe.HIPSPARSE_AS_CUDA_12 in header
    assert probe.FAMILY_PREAMBLE["cusparse"] == probe.HIPSPARSE_AS_CUDA_12
    assert header.count("#include <hipsparse/hipsparse.h>") == 1
    assert "#define CUDART_VERSION 12090" in probe.preamble("cusparse", "13.0.88")
