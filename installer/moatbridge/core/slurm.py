"""Slurm batch scripts that run one command in a toolchain image (pure text, no I/O).

The script runs on a compute node, so everything that differs between nodes — which
GPU device nodes exist and which groups own them — is looked up there, when the job
starts, not on the machine that wrote the script. How GPUs are asked for depends on the
target's vendor (core.gpu_request): AMD's device nodes and their groups, or, for an sm_NN
target (SCALE's NVIDIA mode), NVIDIA's `--gpus all` (podman: the CDI device
nodes `nvidia.com/gpu=all`) and Apptainer's `--nv`. The job's allocation is the site's
own `--gres` either way.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from moatbridge.core.activation import MARKER
from moatbridge.core.gpu_request import GpuRequest, gpu_request
from moatbridge.core.in_image import SHELL_NAME, exec_after_activation
from moatbridge.core.owner_shell import LABEL_ARGS, STARTED_AT, THIS_SHELL
from moatbridge.errors import InputError

RUNTIMES = ("docker", "podman", "apptainer")
DEFAULT_OUTPUT = "slurm-%j.out"
# Variables passed from the job into the container when set: Slurm's GPU selection
# (with AMD GPUs in gres.conf it sets ROCR_VISIBLE_DEVICES), what a build may read, and
# SCALE's own switches (docs/images.md).
JOB_ENV = (
    "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
    "SLURM_JOB_ID", "SLURM_JOB_NAME", "SLURM_SUBMIT_DIR", "SLURM_CPUS_ON_NODE", "SLURM_CPUS_PER_TASK",
    "SLURM_NTASKS", "SLURM_NODEID", "SLURM_PROCID",
    "SCALE_CCMAP", "SCALE_EXCEPTIONS", "SCALE_AMD_XNACK", "SCALE_CUDA_VERSION",
)  # fmt: skip

# #SBATCH values are read by sbatch's own option parser, not by a shell: keep them to
# characters that need no quoting at all.
_GRES = re.compile(r"^[A-Za-z0-9_:.,/=+()-]*$", re.ASCII)
_PARTITION = re.compile(r"^[A-Za-z0-9_.,-]+$", re.ASCII)
_TIME = re.compile(r"^(?:\d+(?:-\d+)?(?::\d+){0,2}|UNLIMITED|unlimited|INFINITE|infinite)$", re.ASCII)
_JOB_NAME = re.compile(r"^[A-Za-z0-9_.+:@-]{1,128}$", re.ASCII)
_OUTPUT = re.compile(r"^[A-Za-z0-9_.,%/+:@=-]+$", re.ASCII)


@dataclass(frozen=True)
class SlurmJob:
    """What the batch script does: the toolchain's image, the command, the job's resources."""

    toolchain: str
    image: str  # the recorded image ID, or repository@digest for a pulled image
    target: str  # gfx (or SCALE's sm_NN) target the activation selects
    activate: str  # sh prefix, e.g. ". /opt/moatbridge/bin/activate"
    command: tuple[str, ...]
    runtime: str = "docker"
    gres: str = ""  # the site's syntax (gpu:1, gpu:mi250:2); empty: no --gres line
    partition: str | None = None
    time: str | None = None
    job_name: str | None = None
    output: str = DEFAULT_OUTPUT
    sif: str | None = None  # apptainer: the converted image
    licence_env: tuple[str, ...] = ()  # e.g. ("SCALE_LICENSE_ACCEPT=1",): only with recorded consent

    @property
    def name(self) -> str:
        """The job name: given, else the command's program name."""
        if self.job_name:
            return self.job_name
        program = re.sub(r"[^A-Za-z0-9_.+-]", "_", self.command[0].rsplit("/", 1)[-1]) if self.command else ""
        return program[:128] or "moatbridge"


def validate(job: SlurmJob) -> None:
    def bad(option: str, value: str, example: str) -> InputError:
        return InputError(f"{option} {value!r} cannot go into a batch script.", f"write it like {example}")

    if not job.command:
        raise InputError("Name the command the job runs.", "moatbridge slurm -- make -j8")
    if job.runtime not in RUNTIMES:
        raise InputError(f"Unknown runtime {job.runtime!r}.", f"choose one of {', '.join(RUNTIMES)}")
    if job.runtime == "apptainer" and not job.sif:
        raise InputError(
            "--runtime apptainer needs the toolchain converted to a SIF file: pass --sif FILE.",
            f"'moatbridge export apptainer -t {job.toolchain}' shows how to make one",
        )
    if not _GRES.fullmatch(job.gres):
        raise bad("--gres", job.gres, "gpu:1 or gpu:mi250:2 ('' for none)")
    if job.partition is not None and not _PARTITION.fullmatch(job.partition):
        raise bad("--partition", job.partition, "gpu")
    if job.time is not None and not _TIME.fullmatch(job.time):
        raise bad("--time", job.time, "1:00:00 or 2-00:00:00")
    if job.job_name is not None and not _JOB_NAME.fullmatch(job.job_name):
        raise bad("--job-name", job.job_name, "build-cuda (no spaces or quotes)")
    if not _OUTPUT.fullmatch(job.output):
        raise bad("output file", job.output, DEFAULT_OUTPUT)
    for text in (job.image, job.target, job.activate, job.sif or "", *job.licence_env):
        if "\n" in text or "\r" in text:
            raise InputError(f"{text!r} cannot go into a batch script.", "check the toolchain's state")


def _header(job: SlurmJob) -> list[str]:
    lines = [
        "#!/bin/bash",
        f"{MARKER}: Slurm batch script for toolchain {job.toolchain} ({job.runtime}); submit with sbatch",
        f"#SBATCH --job-name={job.name}",
        f"#SBATCH --output={job.output}",
    ]
    if job.gres:
        lines.append(f"#SBATCH --gres={job.gres}")
    if job.partition:
        lines.append(f"#SBATCH --partition={job.partition}")
    if job.time:
        lines.append(f"#SBATCH --time={job.time}")
    return [
        *lines,
        "",
        "# Runs one command in the toolchain's image on the compute node, in the directory the",
        "# job was submitted from, as the job's own user.",
        "set -uo pipefail",
        "",
        "# sbatch's working directory, mounted at the same path so that paths in the command and",
        "# in build files mean the same thing inside the container as outside.",
        'workdir=${SLURM_SUBMIT_DIR:-$PWD}',
        "# --mount, not -v: a ':' or ',' in its name stays part of it (CSV-quoted, quotes doubled).",
        'mount=${workdir//\\"/\\"\\"}',
    ]  # fmt: skip


def _mount(engine: str) -> str:
    """The work directory's bind mount: --mount, so that a ':' stays part of the path. Docker
    reads its fields as CSV (quoted, so a ',' can stay too); podman splits at every ','."""
    if engine == "podman":
        return '--mount "type=bind,source=$workdir,target=$workdir"'
    return '--mount "type=bind,\\"source=$mount\\",\\"target=$mount\\""'


def _in_image(job: SlurmJob) -> str:
    """bash -c arguments: activate the toolchain for the target, then exec the command."""
    script = exec_after_activation(job.activate)
    command = " ".join(shlex.quote(word) for word in job.command)
    return f"-c {shlex.quote(script)} {SHELL_NAME} {shlex.quote(job.target)} \\\n    {command}"


def _amd_gpus() -> list[str]:
    return [
        "# GPU access without --privileged: the device nodes this node has, and the groups that",
        "# own them by number, looked up here at job time (nodes differ; the image has no host",
        "# group names). The root group is never added: it would open far more than the GPU.",
        "gpu_args=()",
        "for node in /dev/kfd /dev/dri; do",
        '    if [ -e "$node" ]; then gpu_args+=(--device "$node"); fi',
        "done",
        "group_args=()",
        "for gid in $(stat -c %g /dev/kfd /dev/dri/renderD* 2>/dev/null | sort -un); do",
        '    if [ "$gid" != 0 ]; then group_args+=(--group-add "$gid"); fi',
        "done",
    ]


def _nvidia_gpus(engine: str, request: GpuRequest) -> list[str]:
    args = " ".join(request.podman_args if engine == "podman" else request.docker_args)
    how = "the CDI devices the NVIDIA Container Toolkit generates" if engine == "podman" else "--gpus"
    return [
        "# SCALE's NVIDIA mode: NVIDIA's GPUs through the NVIDIA Container Toolkit (" + how + "),",
        "# never /dev/kfd; the job's CUDA_VISIBLE_DEVICES is passed in below.",
        f"gpu_args=({args})",
        "group_args=()",
    ]


def _container_body(job: SlurmJob) -> list[str]:
    engine, request = job.runtime, gpu_request(job.target)
    env = [" ".join(f"--env {name}" for name in JOB_ENV[i : i + 4]) for i in range(0, len(JOB_ENV), 4)]
    licence = "".join(f" --env {shlex.quote(item)}" for item in job.licence_env)
    lines = [
        "# Exactly the image the toolchain recorded (by ID or digest), not a tag that may have moved.",
        f"image={shlex.quote(job.image)}",
        "",
        *(_nvidia_gpus(engine, request) if request.is_nvidia else _amd_gpus()),
        'user_args=(--user "$(id -u):$(id -g)")',
    ]
    if engine == "podman":
        lines += [
            'if [ "$(id -u)" != 0 ]; then',
            "    # Rootless podman: host uids and gids exist in the container only through keep-id,",
            "    # and the user's device groups (render, video) only through keep-groups.",
            "    user_args=(--userns=keep-id)",
            "    if [ ${#group_args[@]} -gt 0 ]; then group_args=(--group-add keep-groups); fi",
            "fi",
        ]
    lines += [
        "",
        "# The container is the engine daemon's child, not this script's: name it after the job so",
        "# that scancel and the time limit, which signal this script, can stop it too.",
        'container="moatbridge-slurm-${SLURM_JOB_ID:-$$}"',
        f"trap '{engine} stop --time 10 \"$container\" >/dev/null 2>&1' TERM INT",
        "",
        "# A kill -9 runs no trap (the node's OOM killer, the time limit's last SIGKILL): the",
        "# container is labelled transient with this shell (host, boot, PID, start time) as its",
        "# owner, so the next moatbridge command on this node removes it once the job is gone.",
        *STARTED_AT.splitlines(),
        *THIS_SHELL.splitlines(),
        "",
        "# The job's uid has no home in the image: HOME=/tmp gives tools a writable one.",
        # An init, as moatbridge's other containers have, so the command is not PID 1 (which
        # ignores an unhandled TERM, and which `timeout` cannot be); podman's needs catatonit,
        # which its package only recommends, so there the command stays PID 1.
        f'{engine} run --rm{" --init" if engine == "docker" else ""} --name "$container" --network host '
        '"${user_args[@]}" \\',
        f"    {LABEL_ARGS} \\",
        '    "${gpu_args[@]}" "${group_args[@]}" ' + _mount(engine) + " \\",
        '    -w "$workdir" \\',
        f"    --env HOME=/tmp{licence} \\",
        *(f"    {line} \\" for line in env),
        '    --entrypoint bash "$image" \\',
        f"    {_in_image(job)} &",
        "child=$!",
        'wait "$child"',
        "status=$?",
        "# A trapped signal ends the wait early: wait again for the command's own exit status.",
        'while kill -0 "$child" 2>/dev/null; do',
        '    wait "$child"',
        "    status=$?",
        "done",
        'exit "$status"',
    ]
    return lines


def _apptainer_body(job: SlurmJob) -> list[str]:
    licence = "".join(f" --env {shlex.quote(item)}" for item in job.licence_env)
    flag = gpu_request(job.target).apptainer_flag
    return [
        "# The toolchain converted to a SIF file (moatbridge export apptainer). Apptainer runs the",
        f"# command as the job's own process and user; {flag} binds the GPU device nodes and the",
        "# host's driver interface, so no groups or privileges are needed.",
        f"sif={shlex.quote(job.sif or '')}",
        "",
        f'exec apptainer exec {flag} --bind "$workdir" --pwd "$workdir"{licence} "$sif" \\',
        f"    bash -l {_in_image(job)}",
    ]


def render(job: SlurmJob) -> str:
    """The batch script (validated first: raises InputError for values it cannot hold)."""
    validate(job)
    body = _apptainer_body(job) if job.runtime == "apptainer" else _container_body(job)
    return "\n".join([*_header(job), "", *body, ""])
