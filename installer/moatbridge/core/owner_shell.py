"""Shell text that makes a generated script's container transient and owned by the script
(pure text, POSIX sh, so bash runs it too).

A container is the engine daemon's child, not the script's: a script killed with -9 leaves
it running. Labelled with the script's own host, boot, PID and start time (the owner format
adapters/containers.sweep_transient judges), it is removed by the next moatbridge command
that reaches that engine once the script is gone, and left alone while the script runs.
"""

from __future__ import annotations

from moatbridge.core.build_plan import MANAGED_LABEL, OWNER_LABEL, TRANSIENT_LABEL

# started_at PID: that process's start time (field 22 of /proc/PID/stat) in $now, empty when
# unknown (then the sweep never judges the owner gone); a function, so that the caller's "$@"
# stays its own.
STARTED_AT = """\
started_at() {
    now= stat=
    [ -r "/proc/$1/stat" ] || return 0
    IFS= read -r stat < "/proc/$1/stat" || true
    stat=${stat##*) }  # after the command's name, which may hold spaces and ')'
    set -f
    # shellcheck disable=SC2086  # split into fields on purpose
    set -- $stat
    set +f
    if [ "$#" -ge 20 ]; then shift 19; now=$1; fi
}"""

# After STARTED_AT: this shell's host and boot, and its start time in $now.
THIS_SHELL = """\
host= boot=
IFS= read -r host 2>/dev/null < /proc/sys/kernel/hostname || host=$(uname -n)
IFS= read -r boot 2>/dev/null < /proc/sys/kernel/random/boot_id || true
started_at $$"""

# The engine's `run` options that label the container with THIS_SHELL as its owner.
LABEL_ARGS = (
    f'--label {MANAGED_LABEL}=1 --label {TRANSIENT_LABEL}=1 --label "{OWNER_LABEL}=$host/$boot/$$/$now"'
)
