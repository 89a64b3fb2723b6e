"""Build the CUDA corpus (tests/cuda_corpus) through the host shims and, where an AMD GPU is
present, run every program and report PASSED/FAILED per program: ready for the first machine
with a GPU. Without one (no /dev/kfd) the programs are built and reported as not run.

    python bench/run_on_gpu.py [--target gfx1100] [--output FILE.md]

Each corpus program verifies its own result and prints PASSED. The NVIDIA samples have the
same switch: `python bench/cuda_samples.py --run`.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import toolchain  # noqa: E402


def run(env: dict[str, str], directory: Path, name: str) -> str:
    """`moatbridge run ./name`, judged by the program's own PASSED line."""
    result = toolchain.run_built(env, directory, name)
    passed = result.returncode == 0 and "PASSED" in result.stdout
    said = (result.stderr or result.stdout)[-160:]
    return "PASSED" if passed else f"FAILED (exit {result.returncode}): {said}"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", default="gfx1100")
    parser.add_argument("--output", type=Path, help="also write the table here (markdown)")
    args = parser.parse_args()
    corpus = REPO / "tests" / "cuda_corpus"
    programs = yaml.safe_load((corpus / "corpus.yaml").read_text())["programs"]
    gpu = Path("/dev/kfd").exists()
    rows: list[tuple[str, str]] = []
    with toolchain.toolchain_home(args.target, "corpus") as env:
        work = Path(env["HOME"]) / "src" / "corpus"
        shutil.copytree(corpus, work)
        for program in programs:
            name = str(program["name"])
            words = ["nvcc", *map(str, program["flags"]), str(program["file"]), "-o", name]
            words += [f"-l{lib}" for lib in program["libs"]]
            built = toolchain.in_shell(env, shlex.join(words), str(work), timeout=1800)
            if built.returncode != 0:
                rows.append((name, f"does not build: {built.stderr.strip().splitlines()[-1:]}"))
            else:
                rows.append((name, run(env, work, name) if gpu else "built (no GPU here: not run)"))
            print(f"{name}: {rows[-1][1]}", flush=True)
    table = "| program | result |\n|---|---|\n" + "".join(f"| {n} | {r} |\n" for n, r in rows)
    if args.output:
        args.output.write_text(f"# The corpus on {args.target}\n\n{table}", encoding="utf-8")
    passed = sum(1 for _, result in rows if result == "PASSED")
    print(f"{passed} of {len(rows)} PASSED" if gpu else f"{len(rows)} programs, no GPU: none run")
    return 0 if not gpu or passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
