"""`moatbridge slurm [-t NAME] [-o FILE] [--submit] ... -- CMD`: a batch job in the toolchain.

Prints the script, writes it to FILE (never over a file moatbridge did not write), and
with --submit hands it to sbatch (services/slurm_jobs.py) and prints the job id.
"""

from __future__ import annotations

import os
from argparse import Namespace
from pathlib import Path

from moatbridge.adapters.console import safe
from moatbridge.adapters.filesystem import output_exists
from moatbridge.adapters.toolchain_files import write_owned
from moatbridge.commands.arguments import command_after_separator
from moatbridge.core.slurm import SlurmJob, render
from moatbridge.core.toolchains import pinned_image
from moatbridge.core.toolkit_env import ACTIVATORS
from moatbridge.errors import UsageError
from moatbridge.paths import Paths
from moatbridge.services.consent import licence_note
from moatbridge.services.slurm_jobs import submit, submit_unwritten
from moatbridge.services.toolchains import resolve_toolchain, state_store


def build_job(args: Namespace, command: list[str]) -> SlurmJob:
    state = state_store(Paths.from_environ(os.environ)).read_required()
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


def run(args: Namespace) -> int:
    command = command_after_separator(args.command_args)
    if not command:
        raise UsageError("Name the command the job runs.", "moatbridge slurm --gres gpu:1 -- make -j8")
    script = render(build_job(args, command))
    if args.output:
        path = Path(args.output)
        output_exists(path, "batch script", "choose another path, or leave out -o to print it")
        write_owned(path, script, "slurm", 0o755)
        print(safe(f"Wrote {path}" + ("" if args.submit else f"; submit it with: sbatch {path}")))
    if not args.submit:
        if not args.output:
            print(script, end="")
        return 0
    job_id = submit(Path(args.output)) if args.output else submit_unwritten(script)
    print(f"Submitted batch job {job_id}")
    return 0
