"""`moatbridge slurm [-t NAME] [-o FILE] [--submit] ... -- CMD`: a batch job in the toolchain.

Prints the script, writes it to FILE (never over a file moatbridge did not write), and
with --submit hands it to sbatch and prints the job id.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from argparse import Namespace
from pathlib import Path

from moatbridge.adapters.console import safe
from moatbridge.adapters.proc import CommandFailed, run_streaming
from moatbridge.adapters.toolchain_files import write_owned
from moatbridge.commands.arguments import command_after_separator
from moatbridge.core.slurm import SlurmJob, render
from moatbridge.core.toolchains import pinned_image
from moatbridge.core.toolkit_env import ACTIVATORS
from moatbridge.errors import MoatbridgeError, UsageError
from moatbridge.paths import Paths
from moatbridge.services.consent import licence_note
from moatbridge.services.toolchains import resolve_toolchain, state_store

_JOB_ID = re.compile(r"^([0-9]+)(?:;\S+)?$", re.ASCII)  # sbatch --parsable: id[;cluster]


def build_job(args: Namespace, command: list[str]) -> SlurmJob:
    state = state_store(Paths.from_environ(os.environ)).read()
    toolchain = resolve_toolchain(state, args.toolchain, os.environ)
    note = licence_note(toolchain, "A Slurm job for this toolchain")
    return SlurmJob(
        toolchain=toolchain.name,
        image=pinned_image(toolchain),
        target=toolchain.target,
        activate=ACTIVATORS.get(toolchain.flavour, ACTIVATORS["open"]),
        command=tuple(command),
        runtime=args.runtime,
        gres=args.gres,
        partition=args.partition,
        time=args.time,
        job_name=args.job_name,
        sif=os.path.abspath(args.sif) if args.sif else None,
        licence_env=note.env if note else (),
    )


def submit(script: Path) -> str:
    """sbatch the script (from this directory, which becomes the job's); returns the job id."""
    if shutil.which("sbatch") is None:
        raise MoatbridgeError(
            "sbatch is not installed here, so the job cannot be submitted.",
            "run this on a Slurm login node (or install slurm-client); without --submit the script "
            "is printed or written for you to submit",
        )
    lines: list[str] = []
    try:
        run_streaming(["sbatch", "--parsable", str(script)], lines.append, what="sbatch")
    except CommandFailed as failed:
        said = "\n".join(line for line in lines[-10:] if line.strip()) or "(nothing)"
        raise CommandFailed(
            f"sbatch refused the job ({failed.message.rstrip('.')}).",
            f"sbatch said:\n{said}\ncheck --gres (default gpu:1; '' for none), --partition and --time "
            "against this cluster (sinfo shows its partitions)",
        ) from None
    for line in reversed(lines):
        match = _JOB_ID.match(line.strip())
        if match:
            return match[1]
    raise MoatbridgeError("sbatch did not report a job id.", "its output was:\n" + "\n".join(lines[-20:]))


def run(args: Namespace) -> int:
    command = command_after_separator(args.command_args)
    if not command:
        raise UsageError("Name the command the job runs.", "moatbridge slurm --gres gpu:1 -- make -j8")
    script = render(build_job(args, command))
    if args.output:
        path = Path(args.output)
        write_owned(path, script, "slurm", 0o755)
        print(safe(f"Wrote {path}" + ("" if args.submit else f"; submit it with: sbatch {path}")))
    if not args.submit:
        if not args.output:
            print(script, end="")
        return 0
    if args.output:
        job_id = submit(Path(args.output))
    else:
        with tempfile.TemporaryDirectory(prefix="moatbridge-slurm-") as directory:
            temporary = Path(directory) / "job.sh"
            temporary.write_text(script, encoding="utf-8")
            job_id = submit(temporary)  # sbatch keeps its own copy: the file can go
    print(f"Submitted batch job {job_id}")
    return 0
