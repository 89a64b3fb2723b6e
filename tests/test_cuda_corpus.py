"""A corpus of unmodified CUDA programs (tests/cuda_corpus) compiled by the open toolkit's nvcc
per stack: trixie (HIP 5.7) for gfx1030 (RDNA2) and gfx1100 (RDNA3) in the multi-target
image, sid (HIP 6.4, clang 21) for gfx1201 (RDNA4) in its per-target image. The
experimental stack (gfx942) is checked by bench/stack_corpus.py, not on every run.

Each program must compile and link, carry exactly its target's code object in the offload
bundle, and, run without a GPU, stop at the HIP runtime's "no device" error through its
own error check: no crash, no missing symbol.
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
import yaml

from conftest import REPO, docker_run

pytestmark = pytest.mark.engine

CORPUS = REPO / "tests" / "cuda_corpus"
RUNNER = REPO / "tests" / "support" / "corpus_runner.py"
# (stack, target, the session fixture of the image)
CASES = (("trixie", "gfx1030", "open_devel_all"), ("trixie", "gfx1100", "open_devel_all"),
         ("sid", "gfx1201", "open_devel_sid_gfx1201"))  # fmt: skip
TARGETS = tuple(gfx for _, gfx, _ in CASES)
NO_DEVICE = ("no ROCm-capable device is detected", "invalid device ordinal")
MANIFEST: list[dict[str, Any]] = yaml.safe_load((CORPUS / "corpus.yaml").read_text())["programs"]
CRASH_SIGNS = (
    "error while loading shared libraries",
    "symbol lookup error",
    "undefined symbol",
    "Segmentation",
)


def test_corpus_is_big_and_covers_the_issue_list() -> None:
    # Every program in the directory is in the manifest and so tested, and none drops out
    # unnoticed: adding or removing one means changing this count too.
    files = [program["file"] for program in MANIFEST]
    assert sorted(files) == sorted(path.name for path in CORPUS.glob("*.cu"))
    assert len({program["name"] for program in MANIFEST}) == len(files) == 29
    covered = {topic for program in MANIFEST for topic in program["covers"]}
    libraries = {lib for program in MANIFEST for lib in program.get("libs", [])}
    assert {"cublas", "curand", "cufft", "cusparse", "cusolver", "nccl"} <= libraries
    sources = " ".join((CORPUS / p["file"]).read_text() for p in MANIFEST)
    for needle in ("thrust::", "cub::", "cooperative_groups", "__half", "cudaCreateTextureObject",
                   "__shfl_down_sync", "__ballot_sync", "atomicAdd", "cudaStreamBeginCapture", "curand_init",
                   "__shared__", "cudaEventElapsedTime", "template <"):  # fmt: skip
        assert needle in sources, needle
    assert len(covered) == 101
    assert {"streams", "events", "cuda-graphs", "texture-objects", "multi-gpu"} <= covered


@pytest.fixture(scope="session")
def corpus_results(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, dict[str, Any]]]:
    """Build and run the whole corpus once per target (two programs at a time), each in its
    stack's image (images built only for the targets the run selects)."""
    work = tmp_path_factory.mktemp("corpus")
    (work / "src").mkdir(parents=True)
    for path in CORPUS.iterdir():
        shutil.copy(path, work / "src")
    shutil.copy(RUNNER, work / "runner.py")
    (work / "manifest.json").write_text(json.dumps({"programs": MANIFEST}))
    wanted = {item.callspec.params.get("gfx") for item in request.session.items if hasattr(item, "callspec")}
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for _stack, gfx, fixture in CASES:
        if gfx not in wanted:
            continue
        image = str(request.getfixturevalue(fixture)["reference"])
        run = docker_run(
            image,
            f"python3 /w/runner.py /w/manifest.json /opt/moatbridge/targets/{gfx} /w/src /w/out-{gfx}",
            "-v", f"{work}:/w",
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-4000:]
        records = json.loads((work / f"out-{gfx}" / "results.json").read_text())
        results[gfx] = {record["name"]: record for record in records}
    return results


@pytest.mark.parametrize("gfx", TARGETS)
@pytest.mark.parametrize("program", [p["name"] for p in MANIFEST])
def test_program_compiles_links_and_reaches_the_runtime(
    corpus_results: dict[str, dict[str, dict[str, Any]]], program: str, gfx: str
) -> None:
    record = corpus_results[gfx][program]
    assert record["compile_rc"] == 0, f"{' '.join(record['command'])}\n{record['compile_stderr']}"
    (entry,) = [p for p in MANIFEST if p["name"] == program]
    has_kernels = "__global__" in (CORPUS / entry["file"]).read_text()
    # Programs with kernels carry exactly this target's code object; library-only ones none.
    expected = (
        sorted(["host-x86_64-unknown-linux--", f"hipv4-amdgcn-amd-amdhsa--{gfx}"]) if has_kernels else []
    )
    assert record["bundle"] == expected, record["bundle"]
    output = f"{record['run_stdout']}\n{record['run_stderr']}"
    assert record["run_rc"] != "timeout"
    assert 0 < int(record["run_rc"]) < 128, f"exit {record['run_rc']}:\n{output}"
    assert any(message in output for message in NO_DEVICE), output
    assert not any(sign in output for sign in CRASH_SIGNS), output
