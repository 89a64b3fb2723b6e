"""nvcc's entry point: expand, parse, plan, then run the steps (the only I/O in the driver)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from . import archs, plan, ptx, report
from .config import ToolkitConfig, load
from .options import CommandLine, NvccUsageError, environment_flags, expand_options_files, parse

HELP = """\
Usage  : nvcc [options] <inputs>

moatbridge's nvcc compiles CUDA for the AMD target of this toolkit directory with clang-17
(HIP). It accepts nvcc's options; those with no AMD meaning (-Xptxas, -maxrregcount, ...)
are accepted and ignored, and every -arch/-gencode value compiles for this directory's
target. See /opt/moatbridge/share/doc/nvcc.md.
"""


def _fatal(message: str) -> int:
    sys.stderr.write(f"nvcc fatal   : {message}\n")
    return 1


def _read_text(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


def _needs_device_link(config: ToolkitConfig, path: str) -> bool:
    """An object or archive with relocatable device code references an undefined __hip_fatbin."""
    if not path.endswith((".o", ".a", ".obj", ".lib")) or not os.path.isfile(path):
        return False
    result = subprocess.run(
        [config.tool("llvm-nm"), "--undefined-only", "--format=just-symbols", path],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return "__hip_fatbin" in result.stdout.split()


def _run_compile(step: plan.Run, verbose: bool) -> int:
    """Run a compile; on failure caused by inline PTX, say so instead of clang's error wall."""
    result = subprocess.run(step.argv, stderr=subprocess.PIPE, check=False)
    diagnostics = result.stderr.decode(errors="replace")
    if result.returncode != 0 and step.compiles is not None:
        try:
            source = Path(step.compiles).read_text(encoding="utf-8", errors="replace")
        except OSError:
            source = ""
        hits = ptx.find_inline_ptx(source)
        if hits:
            if verbose:
                sys.stderr.write(diagnostics)
            sys.stderr.write(ptx.message(step.compiles, hits) + "\n")
            return result.returncode
    sys.stderr.write(diagnostics)
    return result.returncode


def _execute(steps: tuple[plan.Step, ...], config: ToolkitConfig, verbose: bool, dry_run: bool) -> int:
    for step in steps:
        if isinstance(step, plan.WriteText):
            if not dry_run:
                Path(step.path).write_text(step.text, encoding="utf-8")
            continue
        if verbose or dry_run:
            sys.stderr.write(report.render_command(step.argv, config))
            sys.stderr.flush()
        if dry_run:
            continue
        if step.compiles is not None:
            code = _run_compile(step, verbose)
        else:
            code = subprocess.run(step.argv, check=False).returncode
        if code != 0:
            return code if code > 0 else 128 - code
    return 0


def run(argv: list[str], config: ToolkitConfig, environ: Mapping[str, str]) -> int:
    try:
        args = [
            *environment_flags(dict(environ), "NVCC_PREPEND_FLAGS"),
            *argv,
            *environment_flags(dict(environ), "NVCC_APPEND_FLAGS"),
        ]
        args = expand_options_files(args, _read_text)
        cmdline: CommandLine = parse(args)
    except NvccUsageError as error:
        return _fatal(str(error))
    except OSError as error:
        return _fatal(f"Could not open input file '{error.filename}'")

    if cmdline.has("version"):
        sys.stdout.write(report.version_text(config))
        return 0
    if cmdline.has("help"):
        sys.stdout.write(HELP)
        return 0
    if cmdline.has("list-gpu-arch"):
        sys.stdout.write(archs.list_gpu_arch(config.cuda_major))
        return 0
    if cmdline.has("list-gpu-code"):
        sys.stdout.write(archs.list_gpu_code(config.cuda_major))
        return 0
    dry_run = cmdline.has("dryrun")
    verbose = cmdline.has("verbose") or dry_run
    if verbose:
        sys.stderr.write(report.prologue(config, dict(environ)))
        if cmdline.ignored:
            ignored = " ".join(cmdline.ignored)
            sys.stderr.write(f"#$ _MOATBRIDGE_IGNORED_={ignored}\n")

    keep = cmdline.has("keep") or cmdline.has("save-temps")
    keep_dir = cmdline.last("keep-dir") if keep else None
    with tempfile.TemporaryDirectory(prefix="nvcc-") as scratch:
        work_dir = keep_dir or (os.getcwd() if keep else scratch)
        try:
            os.makedirs(work_dir, exist_ok=True)
            rdc_objects = frozenset(
                path for path in cmdline.inputs
                if plan.input_kind(path, None) == "object" and _needs_device_link(config, path)
            )  # fmt: skip
            steps = plan.build(cmdline, config, work_dir, rdc_objects)
        except NvccUsageError as error:
            return _fatal(str(error))
        if verbose:
            sys.stderr.write(report.virtual_arch_line(steps.virtual_arch))
        missing = [p for p in cmdline.inputs if not os.path.exists(p)]
        if missing and not dry_run:
            return _fatal(f"Could not open input file '{missing[0]}'")
        return _execute(steps.steps, config, verbose, dry_run)


def entry(argv: list[str], root: str) -> int:
    try:
        config = load(Path(root))
    except (OSError, ValueError, KeyError) as error:
        return _fatal(f"the toolkit directory {root} is damaged ({error}); rebuild the image")
    try:
        return run(argv, config, os.environ)
    except KeyboardInterrupt:
        return 130
