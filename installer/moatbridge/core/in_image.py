"""The shell text that runs a user's command inside a toolchain's image (pure).

One definition for every way in (shims, `mbrun`, `moatbridge run`/`shell`, Slurm jobs):
`bash -c SCRIPT moatbridge TARGET COMMAND ARGS...` sources the toolchain's activation for
TARGET, then execs COMMAND. ``moatbridge`` is bash's ``$0``, the name its own messages
start with (it used to be the target, so a typo read "gfx1100: line 1: ./vad: No such
file or directory"); a command the image cannot run is said in one line instead.
"""

from __future__ import annotations

SHELL_NAME = "moatbridge"  # $0 of the in-image bash


# Appended to the activation command (". /opt/moatbridge/bin/activate"): the target is $1.
# Exit codes as a shell's: 127 when the command is nowhere, 126 when it cannot be run.
AFTER_ACTIVATION = (
    ' "$1" >/dev/null || exit; shift; '
    'if ! command -v -- "$1" >/dev/null; then '
    'if [ -d "$1" ]; then echo "moatbridge: $1: is a directory" >&2; exit 126; fi; '
    'if [ -e "$1" ]; then echo "moatbridge: $1: is not executable (chmod +x it)" >&2; exit 126; fi; '
    'echo "moatbridge: $1: not found in the toolchain (not on its PATH, nor a file under the '
    'directories it mounts)" >&2; exit 127; fi; '
    'exec "$@"'
)


def exec_after_activation(activate: str) -> str:
    """bash -c text: ``activate`` for the target ($1), then exec the command ($2, ...)."""
    return activate + AFTER_ACTIVATION
