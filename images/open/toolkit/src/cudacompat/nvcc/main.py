"""nvcc's entry point: expand, parse, plan, then run the steps (the only I/O in the driver).

Start-up time is paid on every compile, so this module avoids heavy imports (subprocess,
tempfile, pathlib, re, dataclasses): children are started with os.posix_spawn.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from . import archs, device_link, plan, report
from .config import ToolkitConfig, load
from .options import CommandLine, NvccUsageError, environment_flags, expand_options_files, parse
from .steps import nvcc_depfile_text

HELP = """\
Usage  : nvcc [options] <inputs>

moatbridge's nvcc compiles CUDA for the AMD target of this toolkit directory with the
image's clang (HIP; `nvcc --version` names both). It accepts nvcc's options; those with no
AMD meaning (-Xptxas, -maxrregcount, ...) are accepted and ignored, and every -arch/-gencode
value compiles for this directory's target. See /opt/moatbridge/share/doc/nvcc.md.
"""
# Modes that write only their named outputs: no scratch directory needed.
_NO_SCRATCH = ("compile", "device-c", "device-w", "preprocess", "generate-dependencies",
               "generate-nonsystem-dependencies", "cuda", "fdevice-syntax-only")  # fmt: skip


def _fatal(message: str) -> int:
    sys.stderr.write(f"nvcc fatal   : {message}\n")
    return 1


def _read_text(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _spawn(argv: tuple[str, ...] | list[str], capture: str | None = None) -> tuple[int, bytes]:
    """Run argv; capture "stdout" or "stderr" if asked. Returns (exit code, captured bytes)."""
    actions = []
    read_end = -1
    if capture is not None:
        read_end, write_end = os.pipe()
        target = 1 if capture == "stdout" else 2
        actions = [(os.POSIX_SPAWN_DUP2, write_end, target), (os.POSIX_SPAWN_CLOSE, read_end)]
    try:
        pid = os.posix_spawnp(argv[0], list(argv), dict(os.environ), file_actions=actions)
    except OSError as error:
        if capture is not None:
            os.close(read_end)
            os.close(write_end)
        sys.stderr.write(f"nvcc fatal   : cannot run {argv[0]}: {error.strerror}\n")
        return 127, b""
    chunks: list[bytes] = []
    if capture is not None:
        os.close(write_end)
        while chunk := os.read(read_end, 65536):
            chunks.append(chunk)
        os.close(read_end)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks)


def _needs_device_link(config: ToolkitConfig, path: str) -> bool:
    """An object or archive with relocatable device code, which references an undefined fatbin."""
    if not path.endswith((".o", ".a", ".obj", ".lib")) or not os.path.isfile(path):
        return False
    _, out = _spawn([config.tool("llvm-nm"), "--undefined-only", "--format=just-symbols", path], "stdout")
    return device_link.references_fatbin(out.decode("utf-8", "replace"))


def _compat_report_hints(diagnostics: str, config: ToolkitConfig) -> str:
    """For `'cublasLt.h' file not found`, `undeclared identifier 'cudaGraphAddNode'` or `no
    matching function for call to '__clusterDim'`: the compat report's reason that header,
    runtime function or device function is missing."""
    header_marker = "' file not found"
    name_markers = ("undeclared identifier '", "no matching function for call to '")
    if header_marker not in diagnostics and not any(marker in diagnostics for marker in name_markers):
        return ""
    import json  # only on failure: start-up time matters on every compile

    report = os.path.join(os.path.realpath(os.path.join(config.root, "include")), "..", "compat-report.json")
    try:
        with open(report, encoding="utf-8") as handle:
            data = json.load(handle)
        headers = data["headers"]["unsupported"]
        functions = data.get("api", {}).get("unsupported", {})
        device = data.get("device", {}).get("unsupported", {})
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return ""
    lookups = (
        (("fatal error: '",), header_marker, headers, "CUDA header the open toolkit does not provide"),
        (name_markers, "'", functions, "CUDA {api} function the open toolkit lacks"),
        (name_markers, "'", device, "CUDA device function the open toolkit lacks"),
    )
    hints: dict[str, None] = {}  # in order, each once
    for line in diagnostics.splitlines():
        for openings, closing, reasons, what in lookups:
            for opening in openings:
                if opening in line and closing in line.split(opening, 1)[1] and isinstance(reasons, dict):
                    name = line.split(opening, 1)[1].split(closing, 1)[0]
                    if isinstance(reasons.get(name), str):
                        # one table lists the runtime's (cuda...) and the driver's (cu...) functions
                        kind = what.format(api="runtime" if name.startswith("cuda") else "driver")
                        hints[f"nvcc: {name} is a {kind}: {reasons[name]}\n"] = None
    return "".join(hints)


# The section clang -fgpu-rdc writes device code into is named after this marker and the
# offload kind; a whole-program object's embedded image has the marker without the kind.
_RDC_SECTION = b"__CLANG_OFFLOAD_BUNDLE__hip-"
# Kept in step with static_names.EXTERNALIZED_MARKER (a test checks): that module needs `re`.
_EXTERNALIZED_MARKER = b".static."


def _has_relocatable_device_code(path: str) -> bool:
    """An object or archive (member) with a -fgpu-rdc device-code section."""
    if not path.endswith((".o", ".a", ".obj", ".lib")) or not os.path.isfile(path):
        return False
    overlap = len(_RDC_SECTION) - 1
    tail = b""
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            if _RDC_SECTION in tail + chunk:
                return True
            tail = chunk[-overlap:]
    return False


def _run_compile(step: plan.Run, verbose: bool, config: ToolkitConfig) -> int:
    """Run a compile; on failure caused by inline PTX, say so instead of clang's error wall."""
    code, captured = _spawn(step.argv, "stderr")
    diagnostics = captured.decode(errors="replace")
    if code != 0:
        diagnostics += _compat_report_hints(diagnostics, config)
    if code != 0 and step.compiles is not None:
        from . import ptx  # only on failure: it needs `re`

        try:
            source = _read_text(step.compiles)
        except (OSError, UnicodeDecodeError):
            source = ""
        hits = ptx.find_inline_ptx(source)
        if hits:
            if verbose:
                sys.stderr.write(diagnostics)
            sys.stderr.write(ptx.message(step.compiles, hits) + "\n")
            return code
    sys.stderr.write(diagnostics)
    return code


def _rewrite_depfile(path: str) -> None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.read()
    except OSError:
        return  # the compiler wrote none (an -MD compile that failed stops before this)
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write(nvcc_depfile_text(text))


def _bind_static_names(step: plan.BindStaticNames) -> None:
    """Rewrite the object's device bitcode where a kernel refers to an internal-linkage
    device variable by a name nothing defines (static_names says why clang leaves it so).
    A repair that cannot run leaves the object as clang wrote it, with a warning."""
    try:
        with open(step.object, "rb") as handle:
            data = handle.read()
    except OSError:
        return  # nothing was written (-fsyntax-only, or the compile's output went elsewhere)
    if _EXTERNALIZED_MARKER not in data:
        return
    import shutil
    import tempfile

    from . import static_names  # only here: it needs `re`

    scratch = tempfile.mkdtemp(prefix="nvcc-static-")
    try:
        for index, section in enumerate(static_names.bundle_sections(data)):
            bitcode, text = os.path.join(scratch, f"{index}.bc"), os.path.join(scratch, f"{index}.ll")
            if _spawn((step.objcopy, f"--dump-section={section}={bitcode}", step.object, os.devnull))[0] != 0:
                break
            with open(bitcode, "rb") as handle:
                if handle.read(4) != b"BC\xc0\xde":
                    continue  # a compressed or native bundle: nothing of this shape to bind
            if _spawn((step.disassembler, bitcode, "-o", text))[0] != 0:
                break
            original = _read_text(text)
            bound = static_names.bind_externalized_statics(original)
            if bound is original:
                continue
            with open(text, "w", encoding="utf-8") as handle:
                handle.write(bound)
            if _spawn((step.assembler, text, "-o", bitcode))[0] != 0:
                break
            if _spawn((step.objcopy, f"--update-section={section}={bitcode}", step.object))[0] != 0:
                break
        else:
            return
        sys.stderr.write(
            f"nvcc warning : could not bind the static device variables of '{step.object}'; "
            "a device link may not find them\n"
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


_ARCHIVE_MAGIC = b"!<arch>\n"


def _has_no_members(path: str) -> bool:
    """A library with no archive members to unbundle: an archive that is its magic string
    alone, or a linker script named like an archive (the toolkit's own libcublas_static.a
    and the like name a ROCm library with INPUT(...))."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(len(_ARCHIVE_MAGIC) + 1)
    except OSError:
        return False
    return start == _ARCHIVE_MAGIC or not start.startswith((_ARCHIVE_MAGIC, b"!<thin>\n"))


def _execute(steps: tuple[plan.Step, ...], config: ToolkitConfig, verbose: bool, dry_run: bool) -> int:
    for step in steps:
        if isinstance(step, plan.WriteText):
            if not dry_run:
                with open(step.path, "w", encoding="utf-8") as handle:
                    handle.write(step.text)
            continue
        if isinstance(step, plan.FatbinWrapper):
            if not dry_run:
                symbols: list[str] = []
                for obj in step.objects:
                    if obj.endswith((".a", ".lib")) and _has_no_members(obj):
                        continue  # nm refuses a linker script; neither holds fatbin references
                    code, output = _spawn((step.nm, "-u", "-j", obj), capture="stdout")
                    if code != 0:
                        return code if code > 0 else 128 - code
                    symbols += device_link.wrapper_symbols(output.decode("utf-8", "replace"))
                with open(step.path, "w", encoding="utf-8") as handle:
                    handle.write(device_link.fatbin_wrapper_assembly(step.fatbin, symbols))
            continue
        if isinstance(step, plan.BindStaticNames):
            if not dry_run:
                _bind_static_names(step)
            continue
        if isinstance(step, plan.NvccDepfile):
            if not dry_run:
                _rewrite_depfile(step.path)
            continue
        if verbose or dry_run:
            sys.stderr.write(report.render_command(step.argv, config))
            sys.stderr.flush()
        if dry_run:
            continue
        if step.unbundles_archive is not None and _has_no_members(step.unbundles_archive[0]):
            with open(step.unbundles_archive[1], "wb") as handle:
                handle.write(_ARCHIVE_MAGIC)
            continue
        sys.stdout.flush()
        code = _run_compile(step, verbose, config) if step.compiles is not None else _spawn(step.argv)[0]
        if code != 0:
            return code if code > 0 else 128 - code
    return 0


def _plan_and_run(
    cmdline: CommandLine, config: ToolkitConfig, work_dir: str, verbose: bool, dry_run: bool
) -> int:
    try:
        # Only a link device-links prebuilt objects itself (-dlink takes all it is given):
        # do not run llvm-nm over every object of a -dlink or -lib command.
        rdc_objects = frozenset(
            path for path in cmdline.inputs
            if plan.input_kind(path, None) == "object" and _needs_device_link(config, path)
        ) if plan.mode_of(cmdline) == "link" else frozenset()  # fmt: skip
        device_linking = plan.mode_of(cmdline) == "link" and (rdc_objects or plan.rdc_requested(cmdline))
        device_code = frozenset(
            path for path in cmdline.inputs
            if plan.input_kind(path, None) == "object" and _has_relocatable_device_code(path)
        ) if device_linking else frozenset()  # fmt: skip
        steps = plan.build(
            cmdline, config, work_dir, rdc_objects, is_directory=os.path.isdir, device_code=device_code
        )
    except NvccUsageError as error:
        return _fatal(str(error))
    if verbose:
        sys.stderr.write(report.virtual_arch_line(steps.virtual_arch))
    # nvcc itself opens CUDA sources; others go to the host compiler or linker as they are
    # (ggml asks `nvcc .c -Xcompiler --version` for the host compiler's version).
    language = cmdline.last("x")
    missing = [p for p in cmdline.inputs if plan.input_kind(p, language) == "cu" and not os.path.exists(p)]
    if missing and not dry_run:
        return _fatal(f"Could not open input file '{missing[0]}'")
    return _execute(steps.steps, config, verbose, dry_run)


def run(argv: list[str], config: ToolkitConfig, environ: Mapping[str, str]) -> int:
    env = dict(environ)
    try:
        args = [
            *environment_flags(env, "NVCC_PREPEND_FLAGS"),
            *argv,
            *environment_flags(env, "NVCC_APPEND_FLAGS"),
        ]
        args = expand_options_files(args, _read_text)
        cmdline = parse(args)
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
        sys.stderr.write(report.prologue(config, env))
        if cmdline.ignored:
            sys.stderr.write(f"#$ _MOATBRIDGE_IGNORED_={' '.join(cmdline.ignored)}\n")

    keep = cmdline.has("keep") or cmdline.has("save-temps")
    if keep:
        work_dir = cmdline.last("keep-dir") or os.getcwd()
        os.makedirs(work_dir, exist_ok=True)
        return _plan_and_run(cmdline, config, work_dir, verbose, dry_run)
    if any(cmdline.has(mode) for mode in _NO_SCRATCH):
        return _plan_and_run(cmdline, config, os.getcwd(), verbose, dry_run)
    import shutil
    import tempfile

    scratch = tempfile.mkdtemp(prefix="nvcc-")
    try:
        return _plan_and_run(cmdline, config, scratch, verbose, dry_run)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def entry(argv: list[str], root: str) -> int:
    try:
        config = load(root)
    except (OSError, ValueError, KeyError) as error:
        return _fatal(f"the toolkit directory {root} is damaged ({error}); rebuild the image")
    try:
        return run(argv, config, os.environ)
    except KeyboardInterrupt:
        return 130
