"""Build the CUDA corpus (tests/cuda_corpus) through the host shims and run every program,
on this machine's AMD GPU or on an emulated one, and report per program: passed, wrong
result, crashed or too slow, with the first line of the failure.

    python bench/run_on_gpu.py [--target gfx1100] [--distro sid] [--output FILE.md]
    python bench/run_on_gpu.py --emulator /path/to/bin/rocjitsu [--emulator-commit SHA] ...

Each corpus program verifies its own result and prints PASSED; its first call is a checked
runtime call, so a GPU the runtime does not enumerate (an emulator profile the runtime
lacks) shows as "no GPU enumerated", never as a pass. Without a GPU or an emulator the
programs are built and reported as not run. The NVIDIA samples: bench/cuda_samples.py --run.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import toolchain  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", default="gfx1100")
    parser.add_argument(
        "--distro", help="the open flavour's stack (trixie, sid, ...); default: setup's choice"
    )
    parser.add_argument("--emulator", help="run on an emulated GPU: the emulator's CLI (bin/rocjitsu)")
    parser.add_argument("--emulator-commit", default="", help="the emulator's source commit, for the table")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per program (default: 120)")
    parser.add_argument("--jobs", type=int, default=2, help="programs run at once (default: 2)")
    parser.add_argument("--only", action="append", default=[], help="run only this program (repeatable)")
    parser.add_argument("--output", type=Path, help="also write the table here (markdown)")
    args = parser.parse_args()
    corpus = REPO / "tests" / "cuda_corpus"
    programs = [p for p in yaml.safe_load((corpus / "corpus.yaml").read_text())["programs"]
                if not args.only or p["name"] in args.only]  # fmt: skip
    runs = bool(args.emulator) or Path("/dev/kfd").exists()
    rows: dict[str, tuple[str, str, float]] = {}
    with toolchain.toolchain_home(args.target, "corpus", args.distro) as env:
        if args.emulator:
            env["MOATBRIDGE_EMULATOR"] = args.emulator
        work = Path(env["HOME"]) / "src" / "corpus"
        shutil.copytree(corpus, work)
        built: list[str] = []
        for program in programs:
            name = str(program["name"])
            words = ["nvcc", *map(str, program["flags"]), str(program["file"]), "-o", name]
            words += [f"-l{lib}" for lib in program["libs"]]
            result = toolchain.in_shell(env, shlex.join(words), str(work), timeout=1800)
            expected = program.get("expected_failure") or {}
            why = expected.get(args.distro or "") or expected.get(args.target)
            if result.returncode != 0 and why and why in result.stderr:
                rows[name] = ("not in this stack", why.replace("|", "\\|"), 0.0)  # the corpus says so
            elif result.returncode != 0:
                rows[name] = ("does not build", toolchain.first_line(result.stderr), 0.0)
            else:
                built.append(name)

        def run(name: str) -> tuple[str, tuple[str, str, float]]:
            started = time.monotonic()
            done = toolchain.run_built(env, work, name, emulate=bool(args.emulator), limit=args.timeout)
            kind, detail = toolchain.verdict(
                done.returncode, done.stdout, done.stderr, "PASSED" in done.stdout
            )
            return name, (kind, detail, time.monotonic() - started)

        if runs:
            with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                for name, row in pool.map(run, built):
                    rows[name] = row
                    print(f"{name}: {row[0]} {row[1]} ({row[2]:.1f} s)", flush=True)
        else:
            rows.update({name: ("built, not run", "no GPU here", 0.0) for name in built})
    order = [str(p["name"]) for p in programs]
    table = "| program | result | first line of the failure | seconds |\n|---|---|---|---|\n" + "".join(
        f"| {n} | {rows[n][0]} | {rows[n][1]} | {rows[n][2]:.1f} |\n" for n in order
    )
    passed = sum(1 for n in order if rows[n][0] == "passed")
    ran = sum(1 for n in order if rows[n][0] not in ("does not build", "not in this stack", "built, not run"))
    where = f"an emulated {args.target}" if args.emulator else args.target
    summary = (
        f"{passed} of {ran} run passed on {where} ({len(order)} programs)"
        if runs
        else f"{len(order)} programs, none run"
    )
    if args.output:
        emulator = os.path.basename(args.emulator) if args.emulator else ""
        header = (
            f"# The corpus on {where} ({args.distro or 'default'} stack)\n\n"
            f"moatbridge {toolchain.commit()}"
            + (f"; emulator {emulator} at commit {args.emulator_commit or 'unknown'}" if emulator else "")
            + f"; {args.timeout} s per program.\n\n{summary}.\n\n"
        )
        args.output.write_text(header + table, encoding="utf-8")
    print(summary)
    return 0 if not runs or passed == ran else 1


if __name__ == "__main__":
    sys.exit(main())
