"""NVTX on the open flavour: NVIDIA's NVTX 3 headers of each mimicked release (Debian's CUDA
12.4, the nvidia-nvtx 13.0 wheel) are the inventory and the oracle.

* every function of nvToolsExt.h and its CUDA, CUDA-runtime and sync extensions exists in ours
  with NVIDIA's type, as CUDA code spells it (a probe built by our nvcc);
* every enumerator, public macro, structure size and field offset has NVIDIA's value, and
  every function answers as NVIDIA's does with no tool injected (the same program built with
  g++ against NVIDIA's headers and with our nvcc against ours prints the same lines);
* every other header of NVIDIA's nvtx3/ is listed in tests/nvtx_gaps.tsv with the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cudacompat.generate import signatures

from conftest import ast_and_defines, docker_run
from support import nvidia_releases, nvtx_api
from support.open_stacks import MIMICKED

TOOLKIT_INCLUDE = Path(__file__).parents[1] / "images" / "open" / "toolkit" / "include"
GAPS = Path(__file__).with_name("nvtx_gaps.tsv")
# what profiled training code calls: each must be among NVIDIA's names and ours
EVERYDAY = {
    "nvtxRangePushA", "nvtxRangePushEx", "nvtxRangePop", "nvtxRangeStartA", "nvtxRangeEnd", "nvtxMarkA",
    "nvtxNameOsThreadA", "nvtxDomainCreateA", "nvtxDomainRangePushEx", "nvtxDomainRangePop",
    "nvtxDomainRegisterStringA", "nvtxNameCudaStreamA", "nvtxNameCudaDeviceA", "nvtxNameCudaEventA",
    "nvtxNameCuStreamA", "nvtxDomainSyncUserCreate",
}  # fmt: skip


def _nvidia_nvtx_headers(include: Path) -> set[str]:
    """NVIDIA's public NVTX headers of one release: nvtx3/ (not its nvtxDetail/) and the
    top-level nvToolsExt*.h."""
    found = {f"nvtx3/{p.name}" for p in (include / "nvtx3").iterdir() if p.suffix in (".h", ".hpp")}
    return found | {p.name for p in include.glob("nvToolsExt*.h")}


@pytest.mark.parametrize("release", ["12.4", "13.0"])
def test_every_nvidia_nvtx_header_is_ours_or_a_listed_gap(release: str) -> None:
    gaps = {gap.name: gap.reason for gap in signatures.load_gaps(GAPS)}
    headers = _nvidia_nvtx_headers(nvidia_releases.include_of(release))
    assert set(nvtx_api.HEADERS) <= headers, sorted(headers)
    missing = {h for h in headers if not (TOOLKIT_INCLUDE / h).is_file()}
    assert missing <= set(gaps), (
        f"CUDA {release}'s NVTX headers neither provided nor listed: {missing - set(gaps)}"
    )
    assert not set(gaps) & {h for h in headers if (TOOLKIT_INCLUDE / h).is_file()}, "a listed gap is provided"
    assert all(reason.strip() for reason in gaps.values())


def test_values_program_calls_every_function_with_zeroed_arguments() -> None:
    api = nvtx_api.NvtxApi(
        functions=(("nvtxMarkA", "void (const char *)"), ("nvtxRangePop", "int ()")),
        enums=(("nvtxColorType_t", ("NVTX_COLOR_UNKNOWN",)),),
        records=(("nvtxEventAttributes_v2", ("version",)),),
        macros=("NVTX_VERSION",),
        aliases=(("nvtxMark", "nvtxMarkA"),),
    )
    source = nvtx_api.values_source(api)
    assert '    call("nvtxMarkA", &nvtxMarkA);' in source
    assert "offsetof(struct nvtxEventAttributes_v2, version)" in source
    assert 'show("NVTX_COLOR_UNKNOWN", NVTX_COLOR_UNKNOWN);' in source
    assert (
        nvtx_api.pointer_type("nvtxDomainHandle_t (const char *)", "t")
        == "nvtxDomainHandle_t (*t)(const char *)"
    )
    assert nvtx_api.parse_values("NVTX_VERSION 3\nnvtxMarkA returns\n") == {
        "NVTX_VERSION": "3", "nvtxMarkA": "returns"
    }  # fmt: skip


def _read_nvidia(image: str, include: Path) -> nvtx_api.NvtxApi:
    return nvtx_api.read(
        *ast_and_defines(image, nvtx_api.HEADERS, "-isystem /real", "nvtx", "-v", f"{include}:/real:ro")
    )


def check_against_nvidia(image: str, gfx: str, release: str, scratch: Path, *mounts: str) -> None:
    include = nvidia_releases.include_of(release)
    api = _read_nvidia(image, include)
    names = {name for name, _ in api.functions}
    assert names >= EVERYDAY, sorted(EVERYDAY - names)
    assert len(api.enums) >= 8 and len(api.records) >= 3 and len(api.macros) >= 15, api
    (scratch / "probe.cu").write_text(nvtx_api.probe_source(api))
    (scratch / "values.cpp").write_text(nvtx_api.values_source(api))
    (scratch / "values.cu").write_text(nvtx_api.values_source(api))
    # C code includes them too (NVTX's headers are C headers)
    (scratch / "plain.c").write_text(
        "\n".join(nvtx_api.include_lines())
        + '\nint main(void) { nvtxNameCudaStreamA(0, "s"); return nvtxRangePop(); }\n'
    )
    script = (
        "cd /work && g++ -std=c++17 -isystem /real values.cpp -o nvidia && ./nvidia > nvidia.txt && echo @@ORACLE-OK@@; "
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null && nvcc -c probe.cu -o /tmp/probe.o"
        ' && nvcc values.cu -o ours && ./ours > ours.txt && gcc -std=c11 -fsyntax-only -I"$CUDA_HOME/include" plain.c'
        " && echo @@OURS-OK@@"
    )
    result = docker_run(image, script, "-v", f"{scratch}:/work", "-v", f"{include}:/real:ro", *mounts)
    assert "@@ORACLE-OK@@" in result.stdout, result.stderr[-3000:]
    assert "@@OURS-OK@@" in result.stdout, result.stderr[-4000:]
    nvidia = nvtx_api.parse_values((scratch / "nvidia.txt").read_text())
    ours = nvtx_api.parse_values((scratch / "ours.txt").read_text())
    assert nvidia["nvtxRangePushA"] == "-2" and nvidia["nvtxMarkA"] == "returns", nvidia
    differing = {name: (nvidia.get(name), ours.get(name)) for name in nvidia.keys() | ours.keys()
                 if nvidia.get(name) != ours.get(name)}  # fmt: skip
    assert not differing, f"CUDA {release} NVTX on {gfx}: (NVIDIA's, ours) {differing}"


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture", "release"), MIMICKED)
def test_nvtx_is_nvidias_in_names_types_values_and_answers(
    request: pytest.FixtureRequest, gfx: str, fixture: str, release: str, tmp_path: Path
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    check_against_nvidia(image, gfx, release, tmp_path)
