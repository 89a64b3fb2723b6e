"""Runs inside the open image: compile every corpus program with one toolkit directory's nvcc,
inspect the offload bundle of the result, run it, and write one JSON record per program.

Usage: python3 corpus_runner.py MANIFEST.json TOOLKIT_DIR SOURCE_DIR OUT_DIR
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

LLVM = "/usr/lib/llvm-17/bin"  # the stack's LLVM: set from the toolkit's target.conf in main()


def stack_llvm(toolkit: Path) -> str:
    conf = toolkit / "share" / "moatbridge" / "target.conf"
    for line in conf.read_text(encoding="utf-8").splitlines():
        if line.startswith("llvm_bin="):
            return line.split("=", 1)[1]
    return LLVM


def bundle_targets(executable: Path, scratch: Path) -> list[str]:
    section = scratch / f"{executable.name}.hip_fatbin"
    dump = subprocess.run(
        [f"{LLVM}/llvm-objcopy", f"--dump-section=.hip_fatbin={section}", str(executable), str(scratch / "discard")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if dump.returncode != 0:
        # A program with no kernels of its own (library calls only) has no offload bundle.
        return [] if "not found" in dump.stderr else [f"error: {dump.stderr.strip()}"]
    listed = subprocess.run(
        [f"{LLVM}/clang-offload-bundler", "--list", "--type=o", f"--input={section}"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return sorted(listed.stdout.split()) if listed.returncode == 0 else [f"error: {listed.stderr.strip()}"]


def build_and_run(program: dict[str, object], toolkit: Path, sources: Path, out: Path) -> dict[str, object]:
    name = str(program["name"])
    work = out / name
    work.mkdir(parents=True, exist_ok=True)
    executable = work / name
    flags = [str(f) for f in program.get("flags", [])]  # type: ignore[attr-defined]
    libs = [f"-l{lib}" for lib in program.get("libs", [])]  # type: ignore[attr-defined]
    argv = [
        str(toolkit / "bin" / "nvcc"),
        *flags,
        str(sources / str(program["file"])),
        "-o",
        str(executable),
        *libs,
    ]
    compiled = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=work)
    record: dict[str, object] = {
        "name": name,
        "command": argv,
        "compile_rc": compiled.returncode,
        "compile_stderr": compiled.stderr[-6000:],
    }
    if compiled.returncode != 0:
        return record
    record["bundle"] = bundle_targets(executable, work)
    try:
        ran = subprocess.run(
            [str(executable)], capture_output=True, text=True, check=False, cwd=work, timeout=120
        )
        record.update(run_rc=ran.returncode, run_stdout=ran.stdout[-3000:], run_stderr=ran.stderr[-3000:])
    except subprocess.TimeoutExpired:
        record.update(run_rc="timeout", run_stdout="", run_stderr="")
    return record


def main() -> int:
    global LLVM
    manifest, toolkit, sources, out = (Path(arg) for arg in sys.argv[1:5])
    LLVM = stack_llvm(toolkit)
    programs = json.loads(manifest.read_text())["programs"]
    out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        records = list(pool.map(lambda p: build_and_run(p, toolkit, sources, out), programs))
    (out / "results.json").write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
