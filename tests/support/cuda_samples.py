"""NVIDIA's cuda-samples (Debian's nvidia-cuda-samples, Makefile projects, unmodified) as a
corpus: which samples the open toolkit should build, which are skipped and why, and a
runner that builds each with its own Makefile and records the result.

Used by tests/test_cuda_samples.py (a slice, in CI) and bench/cuda_samples.py (all of them,
for every target; its results go to docs/compat/cuda-samples.md).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

# Why a sample is skipped, checked in this order; each rule is (reason, pattern over the
# sample's Makefile and sources). Short on purpose: everything else must build.
SKIP_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Windows-only (Direct3D)", re.compile(r"d3d1[0-2]|d3d9|Direct3D", re.I)),
    ("graphics (OpenGL/EGL/Vulkan/X11): the toolchain image has no display stack",
     re.compile(r"-lGL\b|-lglut|-lEGL|-lvulkan|-lX11|<GL/|<GLES|<EGL/|<vulkan/|helper_gl\.h|\bGLFW|libGL\.so")),
    ("MPI: no MPI in the toolchain image", re.compile(r"\bmpi\.h|-lmpi|\bMPICXX|mpicxx")),
    ("NPP: no open counterpart in Debian's ROCm", re.compile(r"-lnpp|\bnpp\.h|\bnppi\w*\.h|UtilNPP")),
    ("nvJPEG: no open counterpart in Debian's ROCm", re.compile(r"nvjpeg", re.I)),
    ("sparse/refactorisation cuSOLVER (cusolverSp.h, cusolverRf.h): hipSOLVER 5.5 has neither",
     re.compile(r"cusolverSp\.h|cusolverRf\.h|cusolverSp_LOWLEVEL")),
    ("cuDLA / NvSci: NVIDIA Jetson hardware only", re.compile(r"cudla|nvsci", re.I)),
    ("libNVVM: NVIDIA's IR compiler", re.compile(r"\bnvvm\.h|-lnvvm|libnvvm", re.I)),
    ("dynamic parallelism (kernels launching kernels): not available on AMD GPUs",
     re.compile(r"-lcudadevrt.*-rdc|cdp[A-Z]|CUDA_DYNAMIC_PARALLELISM")),
    ("runs PTX, cubin or fatbin files through the driver API: AMD GPUs run neither",
     re.compile(r"\.ptx\b|\.fatbin\b|cuModuleLoadData|cuLinkAddData|ptxjit", re.I)),
    ("inline PTX assembly: cannot compile for AMD GPUs", re.compile(r"\basm\s*(volatile\s*)?\(")),
    ("libcu++ (cuda/barrier, cuda/pipeline, cuda/std): libhipcxx is not packaged in Debian trixie",
     re.compile(r"#include\s*<cuda/")),
    ("cuBLASXt (multi-GPU host BLAS): hipBLAS has no counterpart", re.compile(r"cublasXt")),
    ("Boost: not part of the toolchain image", re.compile(r"#include\s*<boost/")),
    ("warp matrix functions (wmma, tensor cores): rocWMMA is not packaged in Debian trixie",
     re.compile(r"<mma\.h>|nvcuda::wmma|\bwmma::")),
)  # fmt: skip
_SOURCES = ("Makefile", "*.cu", "*.cuh", "*.cpp", "*.h", "*.hpp", "*.c")


@dataclass(frozen=True)
class Sample:
    name: str  # e.g. "0_Introduction/matrixMul"
    directory: Path
    skip: str | None  # the reason, or None when it should build

    @property
    def category(self) -> str:
        return self.name.split("/", 1)[0]


@dataclass(frozen=True)
class Result:
    sample: str
    target: str
    status: str  # "built", "failed", "skipped"
    detail: str  # the skip reason, or the first error line
    seconds: float


def _text(directory: Path) -> str:
    parts: list[str] = []
    for pattern in _SOURCES:
        for path in sorted(directory.glob(pattern)):
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


def skip_reason(text: str, name: str) -> str | None:
    for reason, pattern in SKIP_RULES:
        if pattern.search(text) or pattern.search(name):
            return reason
    return None


def discover(examples: Path) -> list[Sample]:
    """Every sample directory with a Makefile under examples/Samples."""
    samples = []
    for makefile in sorted((examples / "Samples").glob("*/*/Makefile")):
        directory = makefile.parent
        name = f"{directory.parent.name}/{directory.name}"
        samples.append(Sample(name, directory, skip_reason(_text(directory), name)))
    return samples


def first_error(output: str) -> str:
    """The line that says what went wrong (a compiler error, nvcc fatal, a linker error)."""
    for pattern in (r"error:.*", r"nvcc fatal.*", r"undefined reference to .*", r"\*\*\*.*", r"Error.*"):
        match = re.search(pattern, output)
        if match:
            return match.group(0).strip()[:300]
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


def built_binaries(directory: Path, since: float) -> list[Path]:
    """Executables the Makefile wrote into the sample directory."""
    return [
        path
        for path in directory.iterdir()
        if path.is_file() and path.stat().st_mode & 0o111 and path.stat().st_mtime >= since
        and not path.name.endswith((".sh", ".py", ".o"))
    ]  # fmt: skip


def build(
    samples: Iterable[Sample],
    target: str,
    work: Path,
    make: Callable[[Path], subprocess.CompletedProcess[str]],
) -> list[Result]:
    """Copy the examples tree once into `work` and run each sample's own Makefile with `make`."""
    results = []
    for sample in samples:
        if sample.skip is not None:
            results.append(Result(sample.name, target, "skipped", sample.skip, 0.0))
            continue
        copy = work / "Samples" / sample.name
        started = time.time()
        done = make(copy)
        elapsed = time.time() - started
        binaries = built_binaries(copy, started - 1)
        output = done.stdout + "\n" + done.stderr
        waiver = re.search(r">>> ?(?:WARNING - .*waiving sample|Waiving build.*?)<<<", output)
        if done.returncode == 0 and binaries:
            results.append(Result(sample.name, target, "built", binaries[0].name, elapsed))
        elif done.returncode == 0 and waiver:  # the Makefile's own rule, as on NVIDIA's toolkit
            results.append(
                Result(sample.name, target, "skipped", f"waived by its Makefile: {waiver.group(0)}", 0.0)
            )
        else:
            detail = first_error(output) if done.returncode != 0 else "make succeeded but built nothing"
            results.append(Result(sample.name, target, "failed", detail, elapsed))
    return results


def prepare(examples: Path, work: Path) -> None:
    """The examples tree (Common/ and Samples/) where the Makefiles expect it, writable."""
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(examples, work, symlinks=True)


def summary(results: list[Result]) -> tuple[int, int, int]:
    built = sum(r.status.split(",")[0] == "built" for r in results)  # "built" or "built, PASSED"...
    failed = sum(r.status == "failed" for r in results)
    skipped = sum(r.status == "skipped" for r in results)
    return built, failed, skipped


def by_cause(results: Iterable[Result], status: str) -> list[tuple[str, list[str]]]:
    """The samples with `status`, grouped by what stops them (their first error, or the skip
    reason), the most common cause first; a sample failing alike on every target counts once."""
    groups: dict[str, set[str]] = {}
    for result in results:
        if result.status == status:
            groups.setdefault(result.detail, set()).add(result.sample)
    return sorted(
        ((cause, sorted(names)) for cause, names in groups.items()), key=lambda g: (-len(g[1]), g[0])
    )


def markdown(results: list[Result], header: str) -> str:
    built, failed, skipped = summary(results)
    rate = built / (built + failed) if built + failed else 0.0
    lines = [
        header,
        "",
        f"built {built}, failed {failed}, skipped {skipped}: {rate:.0%} of the buildable",
        "",
    ]
    for target in sorted({r.target for r in results}):
        mine = [r for r in results if r.target == target]
        t_built, t_failed, _ = summary(mine)
        lines.append(f"* {target}: {t_built} of {t_built + t_failed} buildable samples build")
    lines += _run_outcomes(results)
    for title, status in (("What stops the others", "failed"), ("Skipped on purpose", "skipped")):
        groups = by_cause(results, status)
        if groups:
            lines += ["", f"## {title}", "", "| cause | samples |", "|---|---|"]
            lines += [f"| {_cell(cause)} | {len(names)}: {', '.join(names)} |" for cause, names in groups]
    lines += ["", "## Every sample", "", "| sample | target | result | detail |", "|---|---|---|---|"]
    for r in sorted(results, key=lambda r: (r.status != "failed", r.sample, r.target)):
        lines.append(f"| {r.sample} | {r.target} | {r.status} | {_cell(r.detail)} |")
    return "\n".join(lines) + "\n"


def run_outcome(result: Result) -> str | None:
    """What running a built sample gave ("PASSED", "WAIVED", "wrong result", "too slow", ...),
    or None when it was not run."""
    built, sep, ran = result.status.partition(", ")
    return ran.split(":")[0] if built == "built" and sep else None


def _run_outcomes(results: list[Result]) -> list[str]:
    """Per target, how the built samples that ran ended, when they ran."""
    lines: list[str] = []
    for target in sorted({r.target for r in results}):
        outcomes = [o for o in map(run_outcome, (r for r in results if r.target == target)) if o]
        if outcomes:
            counts = sorted({o: outcomes.count(o) for o in outcomes}.items(), key=lambda c: (-c[1], c[0]))
            passed = outcomes.count("PASSED")
            tally = ", ".join(f"{n} {o}" for o, n in counts)
            lines.append(f"* {target}, run: {passed} of {len(outcomes)} built samples passed ({tally})")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
