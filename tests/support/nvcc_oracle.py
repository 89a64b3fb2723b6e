"""Compare how real nvcc and moatbridge's nvcc interpret one command line.

Real nvcc's `--dryrun` lists the commands it would run; ours are planned by the pure driver
code. Both are reduced to what a build system can observe:

* whether the line is accepted;
* the words that reach the host compiler when compiling (from the host compiler's
  preprocessing and compile commands) and the host linker (the final link command), each
  minus what a baseline line (the same mode, no extra options) already produces;
* the output file.

Words that only exist because the two toolchains differ inside (nvcc's internal macros,
clang's HIP and device-side flags) are dropped before comparing. Used by
tests/test_nvcc_oracle.py.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cudacompat.nvcc import leniency, options, plan
from cudacompat.nvcc.config import ToolkitConfig

CONFIG = ToolkitConfig(
    root="/opt/moatbridge/targets/gfx1100", gfx="gfx1100", cuda_version="12.4.131", mimic_cc=86
)
# the toolkit mimicking each release an oracle is of
CONFIGS = {"12.4": CONFIG, "13.0": CONFIG._replace(cuda_version="13.0.88")}
# nvcc's internal tools: their commands are not the host compiler's.
_NVIDIA_TOOLS = {"cudafe++", "cicc", "ptxas", "fatbinary", "nvlink", "rm", "nvprune", "bin2c", "cp"}
# Options nvcc and gcc spell as two words; merged so both sides compare as one.
_PAIRED = ("-D", "-U", "-I", "-isystem", "-include", "-Xlinker", "-MF", "-MT", "-L", "-l")


@dataclass(frozen=True)
class Interpretation:
    accepted: bool
    compile_words: tuple[str, ...] = ()
    link_words: tuple[str, ...] = ()  # a word no longer passed (vs the baseline) reads "!word"
    output: str | None = None
    message: str = ""
    dependency_file: str | None = None


def _merge_pairs(words: list[str]) -> list[str]:
    merged: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in _PAIRED and index + 1 < len(words):
            merged.append(f"{word}{'' if word in ('-D', '-U', '-I', '-L', '-l') else ' '}{words[index + 1]}")
            index += 2
            continue
        merged.append(word)
        index += 1
    return merged


def _without_output(words: list[str]) -> tuple[list[str], str | None]:
    out: list[str] = []
    output = None
    index = 0
    while index < len(words):
        if words[index] == "-o" and index + 1 < len(words):
            output = words[index + 1]
            index += 2
            continue
        out.append(words[index])
        index += 1
    return out, output


# --- real nvcc -----------------------------------------------------------------------------

_REAL_NOISE = re.compile(
    r"-D__CUDA_ARCH__=\d+|-D__CUDA_ARCH_LIST__=[\d,]+|-D__CUDACC\w*(=.*)?|-D__NV\w*(=.*)?|-D__CUDA_API\w*=\d+|"
    r"-DCUDA_DOUBLE_MATH_FUNCTIONS|-D__CUDA_FTZ=\d|-D__CUDA_PREC_DIV=\d|-D__CUDA_PREC_SQRT=\d|-Wno-psabi|-m64|-x|c\+\+|-E|-c|-include cuda_runtime.h|"
    r"-DFATBINFILE=.*|-DREGISTERLINKBINARYFILE=.*|-Wl,--start-group|-Wl,--end-group|"
    r"-D__CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__|.*tmpxft.*|.*/crt/link\.stub|.*\.cu|.*\.cpp|.*\.c|"
    r"-M|-MM|-MD|-MMD|-MP|-MF .*|-MT .*"
)


def run_real(nvcc: Path, argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=f"{nvcc.parent}:{os.environ.get('PATH', '')}")
    return subprocess.run(
        [str(nvcc), "--dryrun", *_serial(argv)], capture_output=True, text=True, cwd=cwd, env=env, timeout=60
    )


def _serial(argv: list[str]) -> list[str]:
    """Without --threads: real nvcc's --dryrun cannot print a parallel compile (it fails on a
    temporary file it never wrote); the option only schedules, so nothing else changes."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--threads", "-t", "-threads"):
            skip = True
        elif not arg.startswith(("--threads=", "-t=", "-threads=")):
            out.append(arg)
    return out


def real(nvcc: Path, argv: list[str], cwd: Path) -> Interpretation:
    result = run_real(nvcc, argv, cwd)
    fatal = [line for line in result.stderr.splitlines() if line.startswith(("nvcc fatal", "nvcc error"))]
    if result.returncode != 0 or fatal:
        return Interpretation(False, message="\n".join(fatal) or result.stderr[-500:])
    commands = [
        shlex.split(line[3:])
        for line in result.stderr.splitlines()
        if line.startswith("#$ ") and not re.match(r"#\$ [A-Za-z_][A-Za-z0-9_]*=", line)
    ]
    compile_words: list[str] = []
    link_words: list[str] = []
    output = None
    dependency_file = None
    dependencies_only = any(
        arg.lstrip("-") in ("M", "MM", "generate-dependencies", "generate-nonsystem-dependencies")
        for arg in argv
    )
    for command in commands:
        if not command:
            continue
        if command[0] == "--":  # "-- Filter Dependencies -- [> file]": nvcc writes dependencies
            if ">" in command:
                target = command[command.index(">") + 1]
                if dependencies_only:
                    output = target
                else:
                    dependency_file = target
            continue
        tool = os.path.basename(command[0].strip('`"'))
        words, out = _without_output(command[1:])
        output = out if out is not None else output
        if tool in _NVIDIA_TOOLS or any("link.stub" in word for word in words):
            continue  # nvcc's own steps (and the device-link stub's compile)
        if "-print-prog-name=ar" in command[0]:  # -lib: `ar cr out objects`
            output = words[1]
        elif "-c" in words or "-E" in words or "-M" in words:
            compile_words += words
        else:
            link_words += words
    if output is not None and "tmpxft" in output:
        output = None
    return Interpretation(
        True, _clean(compile_words, _REAL_NOISE), _clean(link_words, _REAL_NOISE), output,
        dependency_file=dependency_file,
    )  # fmt: skip


# --- ours ------------------------------------------------------------------------------------

_OUR_NOISE = re.compile(
    r"-D__CUDA\w*=.*|-D__MOATBRIDGE\w*=.*|-D__CUDACC\w*(=.*)?|-x|hip|c\+\+|cu|-c|-E|-fgpu-rdc|"
    r"--offload-arch=.*|-isystem .*/include(/moatbridge/shadow)?|-include moatbridge/nvcc_prelude.h|"
    r"-Wno-unused-result|-Wno-unknown-cuda-version|-Wno-unused-command-line-argument|-Wno-pass-failed|"
    r"--cuda-host-only|-L.*/lib64(/stubs)?|"
    r".*\.cu|.*\.cpp|.*\.c|.*\.o|-M|-MM|-MD|-MMD|-MP|-MF .*|-MT .*|-fsyntax-only|-save-temps=obj|"
    # clang options that only act on device code (nvcc gives their counterparts to cicc/ptxas)
    r"-fgpu-flush-denormals-to-zero|-fno-hip-fp32-correctly-rounded-divide-sqrt|"
    r"-Rpass-analysis=kernel-resource-usage|"
    # clang's errors-by-default that g++ only warns about (leniency.py)
    + "|".join(re.escape(f"-Wno-error={group}") for group in leniency.TOLERATED)
)


def ours(argv: list[str], cwd: Path, config: ToolkitConfig = CONFIG) -> Interpretation:
    try:
        cmdline = options.parse(options.expand_options_files(argv, lambda p: (cwd / p).read_text()))
        if any(cmdline.has(f) for f in ("version", "help", "list-gpu-arch", "list-gpu-code")):
            return Interpretation(True)
        result = plan.build(cmdline, config, "/scratch", is_directory=lambda p: (cwd / p).is_dir())
    except options.NvccUsageError as error:
        return Interpretation(False, message=str(error))
    runs = [step.argv for step in result.steps if isinstance(step, plan.Run)]
    compile_words: list[str] = []
    link_words: list[str] = []
    output = None
    dependency_file = None
    for step in result.steps:
        if not isinstance(step, plan.Run):
            continue
        words, out = _without_output(list(step.argv[1:]))
        tool = os.path.basename(step.argv[0])
        if step.compiles is not None:
            compile_words += _host_view(words)
            if "-MF" in words:
                dependency_file = words[words.index("-MF") + 1]
            elif "-MD" in words or "-MMD" in words:
                dependency_file = os.path.splitext(out or "")[0] + ".d"
        elif tool in ("clang-offload-bundler", "lld", "llvm-mc"):
            pass  # the device link: ours, not the host linker's
        elif tool.endswith("ar"):
            out = words[1]
        else:
            link_words += words
        output = out if out is not None else output
    if runs and result.stdout_output:
        output = None
    if output is not None and output.startswith("/scratch"):
        output = None
    return Interpretation(
        True, _clean(compile_words, _OUR_NOISE), _clean(link_words, _OUR_NOISE), output,
        dependency_file=dependency_file,
    )  # fmt: skip


def _host_view(words: list[str]) -> list[str]:
    """What the host side of a clang HIP compile sees: -Xarch_host X is X, device-only dropped."""
    seen: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word == "-Xarch_host" and index + 1 < len(words):
            seen.append(words[index + 1])
            index += 2
        elif word == "-Xarch_device" and index + 1 < len(words):
            index += 2
        else:
            seen.append(word)
            index += 1
    return seen


def _clean(words: list[str], noise: re.Pattern[str]) -> tuple[str, ...]:
    merged = _merge_pairs(words)
    return tuple(dict.fromkeys(w for w in merged if not noise.fullmatch(w)))


def difference(base: Interpretation, line: Interpretation) -> Interpretation:
    """What `line` adds over `base` (same mode without the options under test)."""
    if not line.accepted:
        return line
    return Interpretation(
        True,
        tuple(w for w in line.compile_words if w not in base.compile_words),
        tuple(w for w in line.link_words if w not in base.link_words)
        + tuple(f"!{w}" for w in base.link_words if w not in line.link_words),
        line.output,
        dependency_file=line.dependency_file,
    )
