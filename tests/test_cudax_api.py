"""Every function of NVIDIA's CUDA-X library headers of each mimicked release (cuBLAS,
cuBLASLt, cuFFT, cuFFTXt, cuRAND, cuSPARSE, dense cuSOLVER) is called as NVIDIA declares it
through our nvcc on each stack: it compiles, or tests/cudax_api_gaps.tsv lists it for that
stack's ROCm with the reason. The inventory is NVIDIA's headers, read by clang in the test,
not the calls seen so far; a listed gap that compiles is an error too (the list is exact)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cudacompat.generate import signatures

from conftest import ast_and_defines, compile_probe, docker_run
from support import cudax_api, nvidia_releases
from support.open_stacks import MIMICKED

# what everyday CUDA-X code calls: each must be among NVIDIA's functions and provided everywhere
EVERYDAY = {
    "cublasCreate", "cublasSgemm", "cublasGemmEx", "cublasSgemmStridedBatched", "cublasSetStream",
    "cufftPlan1d", "cufftExecC2C", "curandCreateGenerator", "curandGenerateUniform", "cusparseCreate",
    "cusparseCreateCsr", "cusparseSpMV", "cusparseSpMM", "cusolverDnCreate", "cusolverDnSgetrf",
    "cusolverDnSpotrf",
}  # fmt: skip


def test_gaps_file_reads_and_refuses_what_is_not_a_gap(tmp_path: Path) -> None:
    good = tmp_path / "gaps.tsv"
    good.write_text("# comment\ncublasXerbla\t5.7 6.4\tno counterpart\n")
    gaps = cudax_api.load_gaps(good)
    assert gaps == [cudax_api.Gap("cublasXerbla", frozenset({"5.7", "6.4"}), "no counterpart")]
    assert cudax_api.listed_for(gaps, "6.4", ["cublasXerbla", "cublasSgemm"]) == {
        "cublasXerbla": "no counterpart"
    }
    assert cudax_api.listed_for(gaps, "7.2", ["cublasXerbla"]) == {}
    assert cudax_api.listed_for(gaps, "6.4", ["cublasSgemm"]) == {}
    for bad in (
        "cublasX\t\tno reason stack",
        "cublasX\t5.7\t ",
        "a b\t5.7\tr",
        "cublasX\tsid\tr",
        "cublasX\t5.7",
    ):
        (tmp_path / "bad.tsv").write_text(bad + "\n")
        with pytest.raises(ValueError):
            cudax_api.load_gaps(tmp_path / "bad.tsv")


def test_the_committed_gaps_are_each_listed_once_for_a_library() -> None:
    gaps = cudax_api.load_gaps()
    names = [gap.name for gap in gaps]
    assert len(set(names)) == len(names), "a function is listed twice"
    prefixes = tuple(prefix for prefix, _ in cudax_api.HEADERS.values())
    assert all(name.startswith(prefixes) for name in names)
    assert not EVERYDAY & set(names)


@pytest.fixture(scope="module")
def nvidia_functions() -> dict[str, dict[str, list[signatures.Signature]]]:
    """release -> header -> its functions, filled by the first test of each release: any
    image's clang reads NVIDIA's headers alike, so not once per stack."""
    return {}


def _read_nvidia(image: str, release: str) -> dict[str, list[signatures.Signature]]:
    """header -> its functions, read by the image's clang from NVIDIA's headers."""
    mounts, options = nvidia_releases.header_mounts(release)

    def read(header: str, prefix: str) -> tuple[str, str]:
        return ast_and_defines(image, [header], options, prefix, *mounts)

    return {header: cudax_api.functions(header, read) for header in cudax_api.HEADERS}


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture", "release"), MIMICKED)
def test_every_cudax_function_compiles_as_called_or_is_a_listed_gap(
    request: pytest.FixtureRequest,
    nvidia_functions: dict[str, dict[str, list[signatures.Signature]]],
    gfx: str,
    fixture: str,
    release: str,
    tmp_path: Path,
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    if release not in nvidia_functions:
        nvidia_functions[release] = _read_nvidia(image, release)
    by_header = nvidia_functions[release]
    declared = {s.name for items in by_header.values() for s in items}
    assert declared >= EVERYDAY, sorted(EVERYDAY - declared)
    assert len(declared) > 1400, len(declared)

    report = json.loads(docker_run(image, "cat /opt/moatbridge/toolkit/compat-report.json").stdout)
    provided = [h for h in cudax_api.HEADERS if h in report["headers"]["provided"]]
    # a header not provided is listed, whole, with the reason (cublasLt.h where ROCm has no hipBLASLt)
    for header in cudax_api.HEADERS:
        assert header in provided or report["headers"]["unsupported"].get(header), header
    items = [s for header in provided for s in by_header[header]]
    source, lines = signatures.probe_source(items, provided)
    result = compile_probe(image, gfx, source, tmp_path)
    outside = [
        line for line in result.stderr.splitlines() if " error: " in line and not line.startswith("probe.cu:")
    ]
    assert not outside, "errors outside the probe lines:\n" + "\n".join(outside[:20])
    failed = signatures.failures(result.stderr, lines)
    rocm = str(report["stack"]["rocm"])
    names = {s.name for s in items}
    listed = cudax_api.listed_for(cudax_api.load_gaps(), rocm, names)
    print(
        f"\nCUDA {release} CUDA-X on ROCm {rocm}: {len(names) - len(failed)} of {len(names)} "
        f"functions compile as called ({', '.join(provided)})"
    )
    unlisted = {name: error for name, error in failed.items() if name not in listed}
    assert not unlisted, f"failing on ROCm {rocm}, not in {cudax_api.GAPS.name}:\n" + "\n".join(
        f"{name}\t{error}" for name, error in sorted(unlisted.items())
    )
    compiles = sorted(set(listed) - set(failed))
    assert not compiles, f"listed for ROCm {rocm} in {cudax_api.GAPS.name} but compile: {compiles}"
    assert (result.returncode == 0) == (not failed), result.stderr[-3000:]
