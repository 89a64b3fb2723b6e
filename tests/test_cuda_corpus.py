"""A corpus of unmodified CUDA programs (tests/cuda_corpus) compiled by the open toolkit's nvcc
per stack: trixie (HIP 5.7) for gfx1030 (RDNA2) and gfx1100 (RDNA3) in the multi-target
image, sid (HIP 6.4, clang 21) for gfx1201 (RDNA4) in its per-target image. The
experimental stack (gfx942) is checked by bench/stack_corpus.py, not on every run.

Each program must compile and link, carry exactly its target's code object in the offload
bundle, and, run without a GPU, stop at the HIP runtime's "no device" error through its
own error check: no crash, no missing symbol. A program whose manifest entry says a stack
or target cannot provide what it needs (`expected_failure`: nccl_allreduce on sid, no RCCL;
texture_object on gfx942, no texture units) must fail to compile there with exactly that
message: never skipped.
"""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest
import yaml

from conftest import REPO, docker_run
from support import corpus_runner

pytestmark = pytest.mark.engine

CORPUS = REPO / "tests" / "cuda_corpus"
RUNNER = REPO / "tests" / "support" / "corpus_runner.py"
# (stack, target, the session fixture of the image)
CASES = (("trixie", "gfx1030", "open_devel_all"), ("trixie", "gfx1100", "open_devel_all"),
         ("sid", "gfx1201", "open_devel_sid_gfx1201"))  # fmt: skip
TARGETS = tuple(gfx for _, gfx, _ in CASES)
STACK_OF = {gfx: stack for stack, gfx, _ in CASES}
MANIFEST: list[dict[str, Any]] = yaml.safe_load((CORPUS / "corpus.yaml").read_text())["programs"]


def test_corpus_is_big_and_covers_the_issue_list() -> None:
    # Every program in the directory is in the manifest and so tested, and none drops out
    # unnoticed: adding or removing one means changing this count too.
    files = [program["file"] for program in MANIFEST]
    assert sorted(files) == sorted(path.name for path in CORPUS.glob("*.cu"))
    assert len({program["name"] for program in MANIFEST}) == len(files) == 33
    covered = {topic for program in MANIFEST for topic in program["covers"]}
    libraries = {lib for program in MANIFEST for lib in program.get("libs", [])}
    assert {"cublas", "curand", "cufft", "cusparse", "cusolver", "nccl"} <= libraries
    sources = " ".join((CORPUS / p["file"]).read_text() for p in MANIFEST)
    for needle in ("thrust::", "cub::", "cooperative_groups", "__half", "cudaCreateTextureObject",
                   "__shfl_down_sync", "__ballot_sync", "atomicAdd", "cudaStreamBeginCapture", "curand_init",
                   "__shared__", "cudaEventElapsedTime", "template <"):  # fmt: skip
        assert needle in sources, needle
    assert len(covered) == 118
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
    """Compiles, links, carries exactly its target's code object (the host entry as the stack's
    bundler names it) and stops at "no device"; or, where the manifest says the stack cannot
    provide what it needs (nccl_allreduce on sid: no RCCL), fails with exactly that message."""
    record = corpus_results[gfx][program]
    (entry,) = [p for p in MANIFEST if p["name"] == program]
    problems = corpus_runner.verdict(record, entry, STACK_OF[gfx], gfx, (CORPUS / entry["file"]).read_text())
    assert not problems, "\n".join(problems)


def test_expected_failures_name_known_stacks() -> None:
    # a per-stack note is data the verdict reads: a misspelt stack would silently expect nothing
    for program in MANIFEST:
        known = {"trixie", "sid", "experimental", *TARGETS, "gfx942"}
        assert set(program.get("expected_failure", {})) <= known, program["name"]
    (nccl,) = [p for p in MANIFEST if p["name"] == "nccl_allreduce"]
    assert corpus_runner.expected_failure(nccl, "sid") and not corpus_runner.expected_failure(nccl, "trixie")
