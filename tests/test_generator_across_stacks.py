"""What the CUDA layer's generator does where one stack's HIP differs from another's (pure
parts; the images' own checks are in test_api_signatures.py): hipify's table spelling a name
with other capitals than the headers, hand-written macros that a newer HIP's mapping would
redefine, and runtime functions listed as missing that a newer HIP has."""

from __future__ import annotations

from pathlib import Path

from cudacompat.generate import conflicts, probe, signatures
from cudacompat.generate.mappings import Mapping


def _mapping(cuda: str, hip: str) -> Mapping:
    return Mapping(cuda, hip, "numeric_literal", "runtime")


def test_a_name_spelled_with_other_capitals_takes_the_headers_spelling() -> None:
    unresolved = [
        _mapping("cudaDevAttrPciDomainId", "hipDeviceAttributePciDomainId"),
        _mapping("cudaGone", "hipGone"),
        _mapping("cudaTwice", "hipTwice"),
    ]
    names = {"hipDeviceAttributePciDomainID", "hipTWICE", "hiptwice", "hipOther"}
    assert probe.case_corrected(unresolved, names) == [
        _mapping("cudaDevAttrPciDomainId", "hipDeviceAttributePciDomainID")
    ]  # none for a name the headers lack, none where two spellings would do


def test_a_hand_written_macro_a_mapping_would_redefine_drops_the_mapping(tmp_path: Path) -> None:
    include = tmp_path / "include"
    (include / "moatbridge" / "generated").mkdir(parents=True)
    (include / "moatbridge" / "attributes.h").write_text("#define CU_X cudaDevAttrX\n")
    mapping = Mapping("CU_X", "hipX", "numeric_literal", "runtime")
    other = Mapping("CU_Y", "hipY", "numeric_literal", "runtime")
    stderr = (
        f"{include}/moatbridge/attributes.h:1:9: error: 'CU_X' macro redefined [-Werror,-Wmacro-redefined]\n"
        "<built-in>:565:9: error: '__WINT_MAX__' macro redefined [-Werror,-Wmacro-redefined]\n"
        f"{include}/moatbridge/generated/cusolver.h:9:9: error: 'CU_Y' macro redefined [-Werror,-Wmacro-redefined]\n"
    )
    found, others = conflicts.collisions(stderr, include, [mapping, other])
    assert [(c.mapping, c.where) for c in found] == [(mapping, "moatbridge/attributes.h:1")]
    assert others == []  # clang's and generated headers' own redefinitions are not errors


def test_a_listed_gap_that_compiles_on_this_stack_is_not_reported() -> None:
    committed = [
        signatures.Signature("cuda_runtime_api.h", "cudaGraphAddNode", "cudaError_t", ("int",), 1),
        signatures.Signature("cuda_runtime_api.h", "cudaStillMissing", "cudaError_t", ("int",), 1),
    ]
    gaps = [
        signatures.Gap("cudaGraphAddNode", "HIP 5.7 has none"),
        signatures.Gap("cudaStillMissing", "none anywhere"),
        signatures.Gap("cudaNotInTheTable", "not this release's: not reported"),
    ]

    def compile_probe(source: str) -> str:
        line = next(n for n, text in enumerate(source.splitlines(), 1) if "cudaStillMissing" in text)
        return f"probe.cu:{line}:5: error: use of undeclared identifier 'cudaStillMissing'\n"

    assert signatures.still_missing(gaps, committed, compile_probe) == gaps[1:2]


def test_a_probe_that_fails_outside_its_lines_keeps_every_gap() -> None:
    committed = [signatures.Signature("cuda_runtime_api.h", "cudaGraphAddNode", "cudaError_t", ("int",), 1)]
    gaps = [signatures.Gap("cudaGraphAddNode", "HIP 5.7 has none")]

    def broken_headers(source: str) -> str:
        return "moatbridge/overrides.h:12:1: error: unknown type name 'hipFoo'\n"

    assert signatures.still_missing(gaps, committed, broken_headers) == gaps
