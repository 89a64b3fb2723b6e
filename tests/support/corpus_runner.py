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


# What each stack's bundler calls the host entry of an offload bundle: clang 17 writes the
# triple without its environment, clang 18 and later (sid, experimental) with it.
HOST_BUNDLE = {"trixie": "host-x86_64-unknown-linux--"}
HOST_BUNDLE_DEFAULT = "host-x86_64-unknown-linux-gnu-"
NO_DEVICE = ("no ROCm-capable device is detected", "invalid device ordinal")
CRASH_SIGNS = (
    "error while loading shared libraries",
    "symbol lookup error",
    "undefined symbol",
    "Segmentation",
)


def expected_failure(program: dict[str, object], stack: str, gfx: str = "") -> str | None:
    """The message a program must fail to compile with on this stack or target (the manifest's
    `expected_failure: {stack or target: message}`: what the stack's ROCm or the GPU cannot
    provide), or None."""
    expected = program.get("expected_failure") or {}
    if not isinstance(expected, dict):
        return None
    return expected.get(stack) or expected.get(gfx)


def verdict(
    record: dict[str, object], program: dict[str, object], stack: str, gfx: str, source: str
) -> list[str]:
    """What is wrong with one program's record on one stack and target (empty: as expected).
    Shared by tests/test_cuda_corpus.py and bench/stack_corpus.py."""
    output = str(record.get("compile_stderr", ""))
    failure = expected_failure(program, stack, gfx)
    if failure is not None:
        if record["compile_rc"] == 0:
            return [f"compiled, but {stack} was expected to refuse it with: {failure}"]
        return [] if failure in output else [f"failed without the expected message ({failure}):\n{output}"]
    if record["compile_rc"] != 0:
        return [f"{' '.join(map(str, record['command']))}\n{output}"]  # type: ignore[call-overload]
    host = HOST_BUNDLE.get(stack, HOST_BUNDLE_DEFAULT)
    # Programs with kernels carry exactly this target's code object; library-only ones none.
    expected = sorted([host, f"hipv4-amdgcn-amd-amdhsa--{gfx}"]) if "__global__" in source else []
    problems = [] if record["bundle"] == expected else [f"bundle {record['bundle']}, expected {expected}"]
    ran = f"{record['run_stdout']}\n{record['run_stderr']}"
    if record["run_rc"] == "timeout":
        return [*problems, "timed out"]
    if not 0 < int(str(record["run_rc"])) < 128:
        problems.append(f"exit {record['run_rc']}:\n{ran}")
    if not any(message in ran for message in NO_DEVICE):
        problems.append(f"did not stop at 'no device':\n{ran}")
    if any(sign in ran for sign in CRASH_SIGNS):
        problems.append(f"crashed or missed a symbol:\n{ran}")
    return problems


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
