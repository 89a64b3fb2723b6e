"""Host shims: small shell scripts that run a tool inside the toolchain container (pure text).

Layout under MOATBRIDGE_HOME:
  cuda/bin/<tool>               dynamic shims (toolchain from a pin file, $MOATBRIDGE_TOOLCHAIN,
                                or the default); CUDA_HOME points at cuda/
  toolchains/<name>/bin/<tool>  explicit shims for one toolchain
  toolchains/<name>/toolchain.env   what the runner needs (image, container, target ...)
  libexec/moatbridge-exec       the runner: warm `docker exec`, or a one-shot `docker run`
  default                       the default toolchain's name
  consents/<licence>            the recorded consent; line 1 is the terms hash the runner checks
  run/<name>.pid                host PID of the warm container's init and its start time
                                (a free liveness check, true after a reboot too)

Shims are POSIX sh so a call costs a shell start plus the docker CLI, not a Python start.
Inside the container the activation is sourced by bash (dash would not pass it the
target argument).
"""

from __future__ import annotations

from dataclasses import dataclass

from moatbridge.core.activation import MARKER
from moatbridge.core.in_image import AFTER_ACTIVATION
from moatbridge.core.in_image import SHELL_NAME as IN_IMAGE_NAME
from moatbridge.core.launcher import RUN_HINT
from moatbridge.core.owner_shell import LABEL_ARGS, STARTED_AT, THIS_SHELL
from moatbridge.core.pins import PIN_FILE, SH_PIN
from moatbridge.core.sh_bytes import SH_ASCII, SH_SHOWN, SH_UTF8
from moatbridge.core.sh_quote import sh_quote
from moatbridge.errors import IMAGE_GONE, IMAGE_GONE_HINT, IMAGE_SHOWN

TOOLS = (
    "nvcc", "hipcc", "hipconfig", "hipify-perl", "clang", "clang++", "cmake", "ctest", "cpack",
    "make", "ninja", "ccache", "rocminfo", "rocm-smi",
)  # fmt: skip
SCALE_TOOLS = ("nvcc", "scaleinfo", "cmake", "ctest", "cpack", "make", "ninja", "clang", "clang++")


def candidate_tools(flavour: str) -> tuple[str, ...]:
    """The commands a toolchain of this flavour may get shims for (setup keeps those its
    image really has: the vendor's SCALE images lack ninja, and cmake/make on Rocky)."""
    return SCALE_TOOLS if flavour == "scale" else TOOLS


def probe_script(activate: str, tools: tuple[str, ...]) -> str:
    """bash -c text (target as $0) printing each of ``tools`` the image resolves after the
    toolchain's activation, one a line; `command -v` is a builtin, so one container does it."""
    names = " ".join(sh_quote(t) for t in tools)
    return f'{activate} "$0" >/dev/null 2>&1; for t in {names}; do command -v "$t" >/dev/null && echo "$t"; done; true'


def probed_tools(output: str, tools: tuple[str, ...]) -> tuple[str, ...]:
    """The probe's answer, in ``tools``' order; lines that are not one of them are ignored."""
    found = set(output.split())
    return tuple(t for t in tools if t in found)


# Variables a build reads, passed from the host into the container when set.
PASS_ENV = (
    "HOME", "TERM", "LANG", "LC_ALL", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "MAKEFLAGS",
    "CMAKE_BUILD_TYPE", "CMAKE_GENERATOR", "CMAKE_BUILD_PARALLEL_LEVEL", "CUDAARCHS",
    "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "CCACHE_DIR", "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION", "SOURCE_DATE_EPOCH",
    "SCALE_CCMAP", "SCALE_EXCEPTIONS", "SCALE_AMD_XNACK", "SCALE_CUDA_VERSION",
)  # fmt: skip


def warm_container_name(toolchain: str, uid: int, home_key: str) -> str:
    """The warm container of ``toolchain`` for account ``uid`` and the MOATBRIDGE_HOME whose
    Paths.engine_key is ``home_key``: two users of one engine, or two homes of one user,
    never share (or recreate under each other) a container."""
    return f"moatbridge-{toolchain}-{uid}-{home_key}"


@dataclass(frozen=True)
class ToolchainRuntime:
    """Everything the runner needs to start or reach a toolchain's container."""

    name: str
    image: str
    target: str
    activate: str  # sh prefix run before the tool, e.g. ". /opt/moatbridge/bin/activate"
    uid: int
    gid: int
    group_adds: tuple[int, ...]  # numeric gids of /dev/kfd and the render nodes
    devices: tuple[str, ...]  # /dev/kfd, /dev/dri (only those that exist)
    roots: tuple[str, ...]  # host directories mounted at the same path in the warm container
    licence: str | None  # a licence whose recorded consent the runner requires
    licence_records: str  # the shipped licence records (MOATBRIDGE_LICENSES overrides, as in Python)
    licence_env: tuple[str, ...]  # e.g. ("SCALE_LICENSE_ACCEPT=1",), passed only with consent
    home_key: str  # Paths.engine_key of the MOATBRIDGE_HOME that owns the warm container
    home: str  # that MOATBRIDGE_HOME, resolved (a label: which state a container belongs to)
    gpus: bool = False  # NVIDIA GPUs through docker's --gpus (SCALE's NVIDIA mode, sm_NN targets)

    @property
    def container(self) -> str:
        return warm_container_name(self.name, self.uid, self.home_key)

    @property
    def config_digest(self) -> str:
        """Changes whenever the warm container would have to be created differently."""
        import hashlib

        text = repr((self.image, self.uid, self.gid, self.group_adds, self.devices, self.roots))
        if self.gpus:  # appended only when set: existing warm containers keep their digest
            text += " gpus"
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def render_toolchain_env(rt: ToolchainRuntime) -> str:
    lines = [
        f"{MARKER}: configuration of toolchain {rt.name}, read by libexec/moatbridge-exec",
        f"MB_NAME={sh_quote(rt.name)}",
        f"MB_IMAGE={sh_quote(rt.image)}",
        f"MB_TARGET={sh_quote(rt.target)}",
        f"MB_ACTIVATE={sh_quote(rt.activate)}",
        f"MB_CONTAINER={sh_quote(rt.container)}",
        f"MB_USER={sh_quote(f'{rt.uid}:{rt.gid}')}",
        # One per line: a ':' is allowed in a directory name (and so in HOME).
        f"MB_ROOTS={sh_quote(chr(10).join(rt.roots))}",
        f"MB_LICENCE={sh_quote(rt.licence or '')}",
        f"MB_LICENCE_RECORDS={sh_quote(rt.licence_records)}",
        # Word-split on purpose: the values hold no spaces (numbers, device paths, NAME=VALUE).
        "MB_RUN_ARGS="
        + sh_quote(
            " ".join(
                [
                    *(f"--group-add {g}" for g in rt.group_adds),
                    *(f"--device {d}" for d in rt.devices),
                    # As the warm container is created (adapters.containers): SELinux labels
                    # would keep /dev/kfd from the one-shot container too.
                    *(["--security-opt label=disable"] if rt.devices else []),
                    *(["--gpus all"] if rt.gpus else []),
                ]
            )
        ),
        "MB_LICENCE_ARGS=" + sh_quote(" ".join(f"-e {e}" for e in rt.licence_env)),
        "MB_PASS_ENV=" + sh_quote(" ".join(f"-e {v}" for v in PASS_ENV)),
        "",
    ]
    return "\n".join(lines)


def render_shim(home: str, tool: str, toolchain: str | None) -> str:
    fixed = (
        f"MOATBRIDGE_TOOLCHAIN_FIXED={sh_quote(toolchain)}; export MOATBRIDGE_TOOLCHAIN_FIXED\n"
        if toolchain
        else ""
    )
    return f'#!/bin/sh\n{MARKER} shim for {tool}; do not edit\n{fixed}exec {sh_quote(home + "/libexec/moatbridge-exec")} {sh_quote(tool)} "$@"\n'


def render_runner(home: str, moatbridge: str) -> str:
    """The shared runner. Exit codes: the tool's own; 127 with a message when it cannot start."""
    # Templates of plain text (no sh quoting characters): filled in with the runner's variables.
    image_gone = IMAGE_GONE.format(toolchain="$name", image="$shown")
    image_gone_hint = IMAGE_GONE_HINT.format(toolchain="$name")
    return f"""#!/bin/sh
{MARKER} runner for shims; do not edit
MOATBRIDGE_HOME={sh_quote(home)}
tool=$1; shift

{SH_SHOWN}
# Every message shows what it quotes (a pin's name, a directory, a variable) escaped as
# core.textsafe.printable does: a terminal control in it is shown, never sent to the
# terminal; printable UTF-8 ("café") reads as it is.
say() {{ printf 'moatbridge: %s\\nhint: %s\\n' "$(mb_shown "$1")" "$(mb_shown "$2")" >&2; }}
fail() {{ say "$1" "$2"; exit 127; }}  # the tool cannot be started
refuse() {{ say "$1" "$2"; exit 2; }}  # what was asked cannot be passed as it is
{SH_PIN}
# Started with stdin closed (`nvcc x.cu <&-`), the tool gets an empty stdin, the nearest the
# engine can pass (and what it gets from a one-shot container): without this the runner's
# own use of stdin would fail with EBADF before the tool ran.
if {{ command exec 3<&0; }} 2>/dev/null; then exec 3<&-; else exec </dev/null; fi

# `nvcc --version` (or -V) for a person at a terminal: after nvcc's own output, one line
# on stderr saying where built programs run. stdout stays nvcc's, byte for byte (build
# systems parse it), and nothing is added when stderr is captured.
if [ "$tool" = nvcc ] && [ "$#" -eq 1 ] && [ -z "${{MOATBRIDGE_NO_RUN_HINT:-}}" ] && [ -t 2 ]; then
    case $1 in
        --version|-V)
            MOATBRIDGE_NO_RUN_HINT=1 /bin/sh "$0" "$tool" "$1"
            status=$?
            if [ "$status" -eq 0 ]; then printf '%s\\n' {sh_quote(RUN_HINT)} >&2; fi
            exit "$status" ;;
    esac
fi

# Which toolchain: an explicit shim, a pin file up from here, the shell's, the default.
name=${{MOATBRIDGE_TOOLCHAIN_FIXED:-}}
if [ -z "$name" ]; then
    dir=$PWD
    while :; do
        # A broken link is a pin too: refused by mb_pin, as by the Python commands.
        if [ -e "${{dir%/}}/{PIN_FILE}" ] || [ -L "${{dir%/}}/{PIN_FILE}" ]; then
            mb_pin "${{dir%/}}/{PIN_FILE}"
            break
        fi
        if [ -z "$dir" ] || [ "$dir" = / ]; then break; fi
        dir=${{dir%/*}}
    done
fi
if [ -z "$name" ]; then name=${{MOATBRIDGE_TOOLCHAIN:-}}; fi
if [ -z "$name" ] && [ -r "$MOATBRIDGE_HOME/default" ]; then IFS= read -r name < "$MOATBRIDGE_HOME/default" || true; fi
if ! mb_usable "$name"; then
    fail "no usable toolchain is selected ('$name')." "run 'moatbridge list' and 'moatbridge default NAME'"
fi
conf=$MOATBRIDGE_HOME/toolchains/$name/toolchain.env
if [ ! -r "$conf" ]; then fail "toolchain '$name' is not installed." "see 'moatbridge list', or run 'moatbridge setup'"; fi
# Only a whole file of ours is sourced: its header line first, its last variable set after.
damaged() {{ fail "the configuration of toolchain '$name' is damaged ($conf)." "run 'moatbridge setup' again for it (a file that is not moatbridge's: move it aside first)"; }}
IFS= read -r header < "$conf" || true
case $header in "{MARKER}: configuration of toolchain "*) ;; *) damaged ;; esac
# A file cut short inside a quoted value is a syntax error, which would end this shell.
/bin/sh -n "$conf" 2>/dev/null || damaged
MB_PASS_ENV=
. "$conf"
if [ "$MB_NAME" != "$name" ] || [ -z "$MB_PASS_ENV" ]; then damaged; fi
licence_args=
if [ -n "$MB_LICENCE" ]; then
    # The consent rule of core.licences, spelled out: line 1 of the consent file must be the
    # SHA-256 of the licence record as shipped now (a changed record asks again).
    record=${{MOATBRIDGE_LICENSES:-$MB_LICENCE_RECORDS}}/$MB_LICENCE.yaml
    terms=
    if [ -f "$record" ] && [ -r "$record" ]; then terms=$(sha256sum < "$record") || terms=; terms=${{terms%% *}}; fi
    if [ -z "$terms" ]; then
        fail "the record of the $MB_LICENCE licence is missing ($record)." "reinstall moatbridge, then run 'moatbridge setup' again"
    fi
    accepted=
    consent=$MOATBRIDGE_HOME/consents/$MB_LICENCE
    if [ -f "$consent" ] && [ ! -L "$consent" ]; then IFS= read -r accepted < "$consent" || true; fi
    if [ "$accepted" != "$terms" ]; then
        fail "toolchain '$name' needs your acceptance of the $MB_LICENCE licence." "moatbridge license show $MB_LICENCE; moatbridge license accept $MB_LICENCE"
    fi
    licence_args=$MB_LICENCE_ARGS
fi

# What is passed must reach the tool as it is, but the engine's API carries text and puts
# U+FFFD for every byte that is not UTF-8: such a value is refused (exit 2), as the
# moatbridge commands refuse arguments that are not UTF-8. Only a value with a byte
# outside ASCII costs a check.
{SH_ASCII}{SH_UTF8}passed=$PWD$*
for var in $MB_PASS_ENV; do
    if [ "$var" != -e ]; then eval "passed=\\$passed\\${{$var:-}}"; fi
done
case $passed in *[!"$mb_ascii"]*)
    utf8_hint="use names, paths and values in UTF-8 (rename the file or directory)"
    if ! mb_utf8 "$PWD"; then
        refuse "the working directory $PWD is not valid UTF-8, which the container engine cannot pass." "$utf8_hint"
    fi
    position=0
    for word in "$@"; do
        position=$((position + 1))
        if ! mb_utf8 "$word"; then
            refuse "Argument $position ($word) is not valid UTF-8: the container engine would pass it changed." "$utf8_hint"
        fi
    done
    for var in $MB_PASS_ENV; do
        if [ "$var" = -e ]; then continue; fi
        eval "value=\\${{$var:-}}"
        if ! mb_utf8 "$value"; then
            refuse "\\${{$var}} is not valid UTF-8: the container engine would pass it changed." "$utf8_hint"
        fi
    done ;;
esac

tty=
if [ -t 0 ] && [ -t 1 ]; then tty=-t; fi
# What bash runs in the image: the toolchain's activation, then the command (core/in_image.py).
in_image="$MB_ACTIVATE"{sh_quote(AFTER_ACTIVATION)}

# started_at PID: that process's start time in $now (core/owner_shell.py).
{STARTED_AT}

inside=
while IFS= read -r root; do
    if [ -n "$root" ]; then case "$PWD/" in "$root"/*) inside=yes ;; esac; fi
done <<MB_ROOTS_END
$MB_ROOTS
MB_ROOTS_END

# On an emulated GPU (`moatbridge run --emulate`, services/emulation.py): always a one-shot
# container, with the emulator's prefix (and a profile given by path) mounted read-only and
# none of the real GPU's nodes or groups; the command runs under the emulator's CLI with the
# profile, and the activation is the emulated target's.
emulated_mount= profile_mount= run_args=$MB_RUN_ARGS
if [ -n "${{MOATBRIDGE_EMULATE_CLI:-}}" ]; then
    inside= run_args=
    emulated_mount=$MOATBRIDGE_EMULATE_MOUNT profile_mount=${{MOATBRIDGE_EMULATE_PROFILE_MOUNT:-}}
    MB_TARGET=$MOATBRIDGE_EMULATE_TARGET
    set -- --config "$MOATBRIDGE_EMULATE_PROFILE" -- "$tool" "$@"
    tool=$MOATBRIDGE_EMULATE_CLI
fi

if [ -n "$inside" ]; then
    # Alive when the recorded PID still is the process that started then (services/
    # warm_containers.py): after a reboot or an engine restart the PID may be another's.
    pid= started= now=
    if [ -r "$MOATBRIDGE_HOME/run/$name.pid" ]; then read -r pid started < "$MOATBRIDGE_HOME/run/$name.pid" || true; fi
    case $pid in ''|*[!0123456789]*) pid= ;; esac
    if [ -n "$pid" ]; then started_at "$pid"; fi
    if [ -z "$pid" ] || [ -z "$now" ] || [ "$now" != "$started" ]; then
        # Status 2: toolchain-warm refused and said why (the image gone, no consent): that
        # one sentence is the shim's; any other failure gets the runner's own.
        {sh_quote(moatbridge)} toolchain-warm "$name" >&2 || {{
            [ $? -eq 2 ] && exit 2
            fail "cannot start the warm container of '$name'." "see 'moatbridge doctor'"
        }}
        # toolchain-warm brings an older configuration up to date (the container's name).
        /bin/sh -n "$conf" 2>/dev/null || damaged
        . "$conf"
    fi
    if [ -n "$tty" ]; then
        # On a terminal Ctrl-C travels through the TTY to the command itself.
        # shellcheck disable=SC2086  # the *_ARGS lists are word-split on purpose
        exec docker exec -i -t -u "$MB_USER" -w "$PWD" $MB_PASS_ENV $licence_args "$MB_CONTAINER" \\
            bash -c "$in_image" {IN_IMAGE_NAME} "$MB_TARGET" "$tool" "$@"
    fi
    # Without a terminal `docker exec` does not forward signals: remember the command's
    # PID inside the container and pass INT/TERM on to it ourselves. The docker CLI runs in
    # a session of its own, so a signal to this whole process group (`timeout`, a CI
    # runner, kill -TERM -PGID) does not end it too: it stays to report the tool's own
    # exit status (a tool that traps TERM and exits 9 gives 9, not the CLI's 143).
    token=$$
    detach=
    if command -v setsid >/dev/null 2>&1; then detach=setsid; fi
    exec 3<&0
    # shellcheck disable=SC2086
    $detach docker exec -i -u "$MB_USER" -w "$PWD" $MB_PASS_ENV $licence_args "$MB_CONTAINER" \\
        bash -c "echo \\$\\$ > /tmp/.moatbridge-$token.pid; $in_image" {IN_IMAGE_NAME} \\
        "$MB_TARGET" "$tool" "$@" <&3 &
    child=$!
    # To its process group, as a terminal's Ctrl-C does: make's own children stop too.
    forward() {{
        docker exec "$MB_CONTAINER" sh -c "kill -$1 -\\$(cat /tmp/.moatbridge-$token.pid) 2>/dev/null" || true
    }}
    trap 'signalled=yes; forward INT' INT
    trap 'signalled=yes; forward TERM' TERM
    # A trap ends `wait` early (status > 128) even when the tool exits meanwhile: then wait
    # again, for the tool's own status (a tool that traps TERM and exits 9 gives 9, not 143).
    status=
    while :; do
        signalled=
        wait "$child"
        got=$?
        # A second wait for a child already reported may say 127: the first answer stands.
        if [ "$got" -eq 127 ] && [ -n "$status" ] && ! kill -0 "$child" 2>/dev/null; then break; fi
        status=$got
        if [ -z "$signalled" ] || [ "$got" -le 128 ]; then break; fi
    done
    # The PID file stays (named after this shell's PID, so it is reused, not piling up):
    # removing it would cost another docker exec on every call.
    exit "$status"
fi
# Outside the mounted roots: a one-shot container with this directory mounted, by --mount,
# not -v, so a ':' or ',' in the directory's name stays part of it (CSV-quoted fields).
here=$PWD
case $here in *'"'*) here=$(printf '%s\\n' "$here" | sed 's/"/""/g') ;; esac
# Labelled transient with this process as its owner (the docker CLI, once exec'd, keeps the
# PID and start time): killed with -9, its container is swept by the next moatbridge command
# instead of running on (adapters/containers.sweep_transient).
{THIS_SHELL}
# An image removed behind moatbridge's back (`docker rmi`, a prune) is said in one sentence
# (errors.ImageGone, as toolchain-warm says it), not with docker's "No such image" or an
# attempt to pull a tag from a registry. Asked before `docker run`, at the cost of one
# `docker image inspect` (~15 ms of a one-shot run's ~200): after a failed run docker's own
# lines would already be out, mixed with the tool's stderr, and without exec the shim would
# stand between the CLI and the signals it passes on to the tool. Gone only while the engine
# answers: an engine that does not is docker's to report.
if ! docker image inspect --format . "$MB_IMAGE" >/dev/null 2>&1 &&
    docker version --format . >/dev/null 2>&1; then
    shown=$(printf '%.{IMAGE_SHOWN}s' "$MB_IMAGE")
    refuse "{image_gone}" "{image_gone_hint}"
fi
# shellcheck disable=SC2086
# --init, as the warm container has: the tool is not PID 1, which ignores a TERM it has no
# handler for and which `timeout` cannot run as (it exits 125).
exec docker run --rm --init -i $tty --network host -u "$MB_USER" $run_args \\
    {LABEL_ARGS} ${{emulated_mount:+--mount "$emulated_mount"}} ${{profile_mount:+--mount "$profile_mount"}} \\
    --mount "type=bind,\\"source=$here\\",\\"target=$here\\"" -w "$PWD" \\
    $MB_PASS_ENV $licence_args --entrypoint bash "$MB_IMAGE" \\
    -c "$in_image" {IN_IMAGE_NAME} "$MB_TARGET" "$tool" "$@"
"""
