"""The `moatbridge` launcher and the `mbrun` shim, written next to the tool shims (pure text).

A project-local install (`.venv/bin/moatbridge`) is not on a new shell's PATH, but the
shim directory is: setup puts a `moatbridge` launcher there that runs the CLI with the
interpreter that ran setup, so `moatbridge run`, `list` and `uninstall` work in every
activated shell. When that interpreter (or moatbridge in it) is gone the launcher says so
in one sentence with a hint and exits 127, as a missing command would.

Programs built through the shims link the toolchain's runtime (libamdhip64, SCALE's
libredscale), which lives in the image, not on the host: `mbrun ./prog` runs them there,
through the same runner (and warm container) as `nvcc`, like `moatbridge run -- ./prog`.
"""

from __future__ import annotations

import json

from moatbridge.core.activation import MARKER
from moatbridge.core.sh_quote import sh_quote

LAUNCHER = "moatbridge"
MBRUN = "mbrun"
# The line `nvcc --version` adds on a terminal's stderr (the runner writes it; core.shims).
RUN_HINT = (
    "moatbridge: programs built with these tools need the toolchain's runtime, which is in "
    "its image: run them with 'moatbridge run ./prog' (or 'mbrun ./prog')."
)
GONE_HINT = (
    "install moatbridge for good with 'pipx install .' in a clone of it (or 'pipx install "
    "moatbridge' from PyPI), then run '~/.local/bin/moatbridge setup' once to point this launcher at it"
)


def _python_code(import_roots: tuple[str, ...]) -> str:
    """What the launcher asks Python to run: the CLI's entry point, as the console script
    does (the working directory is not put first on sys.path, so a `moatbridge` directory
    in a project cannot shadow the CLI). The directories moatbridge and the toolkit's
    cudacompat were imported from when setup ran are appended, so a setup run from a
    checkout (PYTHONPATH, an editable install) keeps working; an installed moatbridge is
    found first."""
    lines = ["import sys", 'if sys.path and sys.path[0] in ("", "."): del sys.path[0]']
    for root in dict.fromkeys(import_roots):
        literal = json.dumps(root)  # a JSON string is a Python literal (surrogates too)
        lines.append(f"if {literal} not in sys.path: sys.path.append({literal})")
    return "\n".join(
        [
            *lines,
            'sys.argv[0] = "moatbridge"',
            "try:",
            "    from moatbridge.cli import main",
            "except ImportError as error:",
            '    sys.stderr.write("moatbridge: %s can no longer run moatbridge (%s).\\nhint: %s\\n"'
            f" % (sys.executable, error, {json.dumps(GONE_HINT)}))",
            "    sys.exit(127)",
            "sys.exit(main())",
        ]
    )


def render_launcher(python: str, import_roots: tuple[str, ...]) -> str:
    """`moatbridge` on the activated PATH, running the CLI with ``python`` (setup's
    sys.executable) and moatbridge from ``import_roots`` (or wherever that Python has it)."""
    return (
        "#!/bin/sh\n"
        f"{MARKER}: launcher of the moatbridge CLI (the Python that ran setup); do not edit\n"
        f"py={sh_quote(python)}\n"
        'if [ ! -x "$py" ] || [ -d "$py" ]; then\n'
        "    printf 'moatbridge: the Python that ran moatbridge setup is gone (%s).\\nhint: %s\\n' "
        f'"$py" {sh_quote(GONE_HINT)} >&2\n'
        "    exit 127\n"
        "fi\n"
        f'exec "$py" -c {sh_quote(_python_code(import_roots))} "$@"\n'
    )


def render_mbrun(home: str, toolchain: str | None) -> str:
    """`mbrun CMD ARGS`: CMD in the toolchain, through the shims' runner (a pin file,
    $MOATBRIDGE_TOOLCHAIN or the default picks it; ``toolchain`` fixes it, as the explicit
    shims do). An optional leading `--` is dropped, as `moatbridge run --` takes it.
    `mbrun --emulate[=GFX] CMD` is `moatbridge run --emulate[=GFX] -- CMD`, through the
    launcher beside it: the emulator is found and chosen by the CLI."""
    fixed = ""
    if toolchain:
        fixed = f"MOATBRIDGE_TOOLCHAIN_FIXED={sh_quote(toolchain)}; export MOATBRIDGE_TOOLCHAIN_FIXED\n"
    usage = sh_quote(
        "moatbridge: mbrun needs the command to run in the toolchain.\n"
        "hint: mbrun ./prog ARGS (the same as moatbridge run -- ./prog ARGS)\n"
    )
    pinned = f" -t {sh_quote(toolchain)}" if toolchain else ""
    launcher = sh_quote(home + "/cuda/bin/" + LAUNCHER)
    return (
        "#!/bin/sh\n"
        f"{MARKER} shim: mbrun runs its arguments in the toolchain; do not edit\n"
        "case ${1:-} in --emulate|--emulate=*)\n"
        "    emulate=$1; shift\n"
        '    if [ "$#" -gt 0 ] && [ "$1" = -- ]; then shift; fi\n'
        f'    if [ "$#" -eq 0 ]; then printf %s {usage} >&2; exit 2; fi\n'
        f'    exec {launcher} run "$emulate"{pinned} -- "$@" ;;\n'
        "esac\n"
        'if [ "$#" -gt 0 ] && [ "$1" = -- ]; then shift; fi\n'
        f'if [ "$#" -eq 0 ]; then printf %s {usage} >&2; exit 2; fi\n'
        f"{fixed}"
        f'exec {sh_quote(home + "/libexec/moatbridge-exec")} "$@"\n'
    )
