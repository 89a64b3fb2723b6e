"""Build every NVIDIA cuda-sample (Debian's nvidia-cuda-samples, unmodified Makefiles) with
the open toolkit, for each target, and write the per-program table.

    python bench/cuda_samples.py [--targets gfx1030,gfx1100] [--output docs/compat/cuda-samples.md]
                                 [--cuda-version 13.0] [--run]

For each target, `moatbridge setup --yes` installs the open toolchain into a throwaway HOME
(building or reusing its image), and each sample's own Makefile runs from the host shell
through the host shims (`make`, HOST_COMPILER=g++), as a user's would. With --run, and only
where /dev/kfd exists, the built programs run too, through `moatbridge run`, and their
PASSED/FAILED lines are recorded (no GPU here: nothing runs). The CI test
(tests/test_cuda_samples.py) builds a slice of the same samples the same way; this script is
the whole set, too long for CI on two cores.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

import toolchain  # noqa: E402

from support import cuda_samples, nvidia_toolkit  # noqa: E402


def _make_through_shims(
    env: dict[str, str], directory: Path, sms: str = ""
) -> subprocess.CompletedProcess[str]:
    """The sample's own Makefile, from the host shell, through the host shims (make, nvcc);
    `sms` is the Makefiles' own SMS variable (the architectures to build), when given."""
    command = f"make SMS={shlex.quote(sms)}" if sms else "make"
    return toolchain.in_shell(env, command, str(directory), timeout=1800)


# The Makefiles of Debian's samples (12.4) default to SMS=50 ... 90; CUDA 13 refuses targets
# below sm_75, NVIDIA's nvcc 13 as ours mimicking it does, so a user builds them with SMS set.
SMS_OF_RELEASE = {"13.0": "75 80 86 89 90"}


# The samples' own command-line options for a smaller problem, where they have them (read from
# each sample's argument parsing): an emulated GPU runs a full-size run of these for minutes.
# Never an edit of the sample; the checks are the same at any size.
SMALLER: dict[str, tuple[str, ...]] = {
    "0_Introduction/matrixMul": ("-wA=64", "-hA=64", "-wB=64", "-hB=64"),
    "0_Introduction/matrixMul_nvrtc": ("-wA=64", "-hA=64", "-wB=64", "-hB=64"),
    "0_Introduction/concurrentKernels": ("--nkernels=4",),
    "0_Introduction/simpleHyperQ": ("--nstreams=4",),
    "2_Concepts_and_Techniques/reduction": ("--n=262144",),
    "2_Concepts_and_Techniques/reductionMultiBlockCG": ("--n=262144",),
    "2_Concepts_and_Techniques/threadFenceReduction": ("--n=262144",),
    "2_Concepts_and_Techniques/radixSortThrust": ("--n=65536", "--iterations=1"),
    "2_Concepts_and_Techniques/eigenvalues": ("--matrix-size=256", "--iters-timing=1"),
    "4_CUDA_Libraries/matrixMulCUBLAS": ("--sizemult=1",),
    "5_Domain_Specific/SobolQRNG": ("--vectors=10000", "--dimensions=10"),
    "6_Performance/transpose": ("--dimX=256", "--dimY=256"),
    "1_Utilities/bandwidthTest": ("--mode=range", "--start=1048576", "--end=1048576", "--increment=1048576"),
    "4_CUDA_Libraries/MersenneTwisterGP11213": ("--count=240000",),
    "5_Domain_Specific/FDTD3d": ("--dimx=96", "--dimy=96", "--dimz=96", "--timesteps=1"),
    "5_Domain_Specific/p2pBandwidthLatencyTest": ("--numElems=1048576",),
    "6_Performance/UnifiedMemoryPerf": ("--kernel-iterations=1",),
}


def _run_program(
    env: dict[str, str], directory: Path, binary: str, emulate: bool, limit: int, args: tuple[str, ...] = ()
) -> str:
    """A built sample run as a user runs it: `moatbridge run ./sample` (the GPU passed in, or
    an emulated one), judged by its own output: exit 0 and no FAIL line."""
    result = toolchain.run_built(env, directory, binary, emulate=emulate, limit=limit, args=args)
    text = result.stdout + result.stderr
    if result.returncode == 2 and "aiv" in text:  # EXIT_WAIVED: the sample's own "not applicable"
        return f"WAIVED: {toolchain.first_line(result.stdout)}"
    kind, detail = toolchain.verdict(result.returncode, result.stdout, result.stderr, "FAIL" not in text)
    return kind.upper() if kind == "passed" else f"{kind}: {detail}"


def _finish(
    result: cuda_samples.Result, env: dict[str, str], work: Path, target: str, emulate: bool, limit: int
) -> cuda_samples.Result:
    """A build result, run when it built: its status becomes "built, PASSED" (or why not)."""
    if result.status != "built":
        return result
    args = SMALLER.get(result.sample, ())
    ran = _run_program(env, work / "Samples" / result.sample, result.detail, emulate, limit, args)
    command = " ".join((result.detail, *args))  # the table shows how it ran
    return cuda_samples.Result(result.sample, target, f"built, {ran}", command, result.seconds)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--targets", default="gfx1030,gfx1100")
    parser.add_argument("--output", type=Path, default=REPO / "docs" / "compat" / "cuda-samples.md")
    parser.add_argument("--only", default="", help="comma-separated sample names (default: all)")
    parser.add_argument("--run", action="store_true", help="also run what was built (on a GPU or --emulator)")
    parser.add_argument("--distro", help="the open flavour's stack (default: setup's choice)")
    parser.add_argument(
        "--cuda-version", help="the CUDA release the toolkit mimics (default: the catalog's); "
        "13.0 builds with SMS set to CUDA 13's architectures"
    )  # fmt: skip
    parser.add_argument("--emulator", help="run on an emulated GPU: the emulator's CLI (bin/rocjitsu)")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per program run (default: 120)")
    parser.add_argument("--jobs", type=int, default=1, help="programs run at once (default: 1)")
    parser.add_argument("--emulator-commit", default="", help="the emulator's source commit, for the table")
    args = parser.parse_args()
    commit = toolchain.commit()  # the images are built from the tree as it is now
    examples = nvidia_toolkit.samples_dir()
    samples = cuda_samples.discover(examples)
    if args.only:  # a sample by its own name (matrixMul) or with its folder (0_Introduction/matrixMul)
        wanted = {name for name in args.only.split(",") if name}
        chosen = [s for s in samples if s.name in wanted or s.name.rsplit("/", 1)[-1] in wanted]
        unknown = wanted - {s.name for s in chosen} - {s.name.rsplit("/", 1)[-1] for s in chosen}
        if unknown:
            parser.error(f"no such sample: {', '.join(sorted(unknown))}")
        samples = chosen
    sms = SMS_OF_RELEASE.get(args.cuda_version or "", "")
    results: list[cuda_samples.Result] = []
    for target in [t for t in args.targets.split(",") if t]:
        with toolchain.toolchain_home(target, "cuda-samples", args.distro, args.cuda_version) as env:
            if args.emulator:
                env["MOATBRIDGE_EMULATOR"] = args.emulator
            work = Path(env["HOME"]) / "src" / "cuda-samples"
            cuda_samples.prepare(examples, work)
            make = functools.partial(_make_through_shims, env, sms=sms)

            runs = args.run and (bool(args.emulator) or Path("/dev/kfd").exists())
            finish = functools.partial(
                _finish, env=env, work=work, target=target, emulate=bool(args.emulator), limit=args.timeout
            )
            built_ones = cuda_samples.build(samples, target, work, make)
            with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                for done in pool.map(finish, built_ones) if runs else built_ones:
                    results.append(done)
                    print(f"{target} {done.sample}: {done.status} {done.detail[:120]}", flush=True)
    built, failed, skipped = cuda_samples.summary(results)
    header = (
        f"# NVIDIA cuda-samples on the open toolkit\n\nGenerated by `python bench/cuda_samples.py` on "
        f"{datetime.date.today().isoformat()} at commit {commit} (Debian nvidia-cuda-samples 12.4.1, "
        f"unmodified Makefiles through the host shims; targets {args.targets}"
        + (f"; stack {args.distro}" if args.distro else "")
        + (f"; mimicking CUDA {args.cuda_version}" if args.cuda_version else "")
        + (f', `make SMS="{sms}"`' if sms else "")
        + "). Skipped samples need what no open stack has here (the reason is on each line)."
        + (
            f" Run on an emulated GPU ({args.emulator} at commit {args.emulator_commit or 'unknown'}),"
            f" {args.timeout} s per program, with the samples' own options for smaller sizes."
            if args.run and args.emulator
            else ""
        )
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(cuda_samples.markdown(results, header), encoding="utf-8")
    print(f"built {built}, failed {failed}, skipped {skipped} -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
