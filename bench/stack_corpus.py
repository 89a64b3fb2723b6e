"""The CUDA corpus (tests/cuda_corpus) per stack and target, outside pytest: CI runs trixie
and sid in tests/test_cuda_corpus.py; the experimental stack (ROCm 7.2) only here (its image
takes long to build).

    python bench/stack_corpus.py [--stack STACK:TARGET ...] [--no-space-check] [--json FILE]

For each --stack (default experimental:gfx942) the per-target image is built through the
product (`moatbridge image build --flavour open --distro STACK --target TARGET --json`), the
corpus compiled and run in it by tests/support/corpus_runner.py exactly as the test does
(two programs at a time, the target's toolkit directory), and each record judged by the
runner's verdict, the test's own: compiles and links, the offload bundle holds exactly the
target's code object, the run stops at "no device" through the program's own check, or the
compile fails with the manifest's expected_failure message for that stack.
Prints a table per stack and writes every record and verdict to --json (default
stack_corpus.json). Exit status 0 when every program is as expected on every stack.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "cuda_corpus"
RUNNER = REPO / "tests" / "support" / "corpus_runner.py"
sys.path.insert(0, str(RUNNER.parent))
import corpus_runner  # noqa: E402  (the runner is a standalone script, not a package module)


def build(stack: str, target: str, no_space_check: bool) -> str:
    """The per-target image's reference, built (or found up to date) by the product."""
    argv = [sys.executable, "-m", "moatbridge", "image", "build", "--json", "--flavour", "open",
            "--distro", stack, "--target", target]  # fmt: skip
    if no_space_check:
        argv.append("--no-space-check")
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.exit(f"building {stack}:{target} failed:\n{result.stderr[-3000:]}")
    return str(json.loads(result.stdout)["reference"])


def run_corpus(image: str, target: str, manifest: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The test's fixture, for one image: sources, runner and manifest in a mounted directory."""
    with tempfile.TemporaryDirectory(prefix="stack-corpus-") as scratch:
        work = Path(scratch)
        (work / "src").mkdir()
        for path in CORPUS.iterdir():
            shutil.copy(path, work / "src")
        shutil.copy(RUNNER, work / "runner.py")
        (work / "manifest.json").write_text(json.dumps({"programs": manifest}))
        work.chmod(0o777)
        script = (
            f"python3 /w/runner.py /w/manifest.json /opt/moatbridge/targets/{target} /w/src /w/out-{target}"
        )
        run = subprocess.run(
            ["docker", "run", "--rm", "--network", "host", "-v", f"{work}:/w", image, "bash", "-c", script],
            capture_output=True, text=True, timeout=3600, check=False,
        )  # fmt: skip
        if run.returncode != 0:
            sys.exit(f"the corpus runner failed in {image}:\n{run.stderr[-3000:]}")
        records: list[dict[str, Any]] = json.loads((work / f"out-{target}" / "results.json").read_text())
        # the container wrote as root: let the temporary directory go
        cleanup = ["rm", "-rf", f"/w/out-{target}"]
        subprocess.run(
            ["docker", "run", "--rm", "--network", "host", "-v", f"{work}:/w", image, *cleanup],
            capture_output=True, check=False,
        )  # fmt: skip
    return records


def judge(
    stack: str, target: str, records: list[dict[str, Any]], manifest: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    by_name = {program["name"]: program for program in manifest}
    rows = []
    for record in records:
        program = by_name[record["name"]]
        source = (CORPUS / program["file"]).read_text()
        problems = corpus_runner.verdict(record, program, stack, target, source)
        expected = corpus_runner.expected_failure(program, stack, target)
        if problems:
            status = "FAIL"
        elif expected is not None:
            status = "refused as expected"
        else:
            status = "ok"
        rows.append({**record, "stack": stack, "target": target, "status": status, "problems": problems})
    return rows


def table(stack: str, target: str, image: str, rows: list[dict[str, Any]]) -> str:
    lines = [
        f"== {stack} {target} ({image})",
        f"{'program':28} {'compile':>7} {'bundle':>7} {'run':>5}  verdict",
    ]
    for row in rows:
        bundle = "-" if row["compile_rc"] != 0 else str(len(row.get("bundle", [])))
        run = str(row.get("run_rc", "-"))
        lines.append(f"{row['name']:28} {row['compile_rc']:>7} {bundle:>7} {run:>5}  {row['status']}")
    for row in rows:
        for problem in row["problems"]:
            lines.append(f"-- {row['name']}: {problem[:2000]}")
    good = sum(1 for row in rows if row["status"] != "FAIL")
    refused = sum(1 for row in rows if row["status"] == "refused as expected")
    compiled = sum(1 for row in rows if row["compile_rc"] == 0)
    lines.append(
        f"{stack} {target}: {good}/{len(rows)} as expected ({compiled} compiled and linked, "
        f"{refused} refused as the manifest says)"
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--stack", action="append", metavar="STACK:TARGET",
        help="a stack and the target of its per-target image, repeatable (default experimental:gfx942)",
    )  # fmt: skip
    parser.add_argument("--no-space-check", action="store_true", help="passed to moatbridge image build")
    parser.add_argument("--json", metavar="FILE", default="stack_corpus.json")
    args = parser.parse_args()

    manifest: list[dict[str, Any]] = yaml.safe_load((CORPUS / "corpus.yaml").read_text())["programs"]
    results = []
    all_good = True
    for spec in args.stack or ["experimental:gfx942"]:
        stack, _, target = spec.partition(":")
        if not target:
            sys.exit(f"--stack {spec}: give STACK:TARGET, e.g. experimental:gfx942")
        started = time.perf_counter()
        image = build(stack, target, args.no_space_check)
        built = time.perf_counter() - started
        rows = judge(stack, target, run_corpus(image, target, manifest), manifest)
        print(table(stack, target, image, rows), flush=True)
        all_good &= all(row["status"] != "FAIL" for row in rows)
        results.append(
            {
                "stack": stack, "target": target, "image": image, "build_seconds": round(built, 1),
                "corpus_seconds": round(time.perf_counter() - started - built, 1),
                "as_expected": sum(1 for row in rows if row["status"] != "FAIL"),
                "compiled": sum(1 for row in rows if row["compile_rc"] == 0), "programs": len(rows),
                "records": rows,
            }
        )  # fmt: skip
    document = {"date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"), "stacks": results}
    Path(args.json).write_text(json.dumps(document, indent=1) + "\n")
    print(f"results: {args.json}")
    return 0 if all_good else 1


if __name__ == "__main__":
    sys.exit(main())
