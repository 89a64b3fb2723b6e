"""Submitting a batch script to Slurm with sbatch, from the working directory (which becomes
the job's), and reading back the job id it reports."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

from moatbridge.adapters.proc import CommandFailed, run_streaming
from moatbridge.errors import MoatbridgeError

_JOB_ID = re.compile(r"^([0-9]+)(?:;\S+)?$", re.ASCII)  # sbatch --parsable: id[;cluster]


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


def submit_unwritten(script: str) -> str:
    """sbatch a script that was written nowhere, through a temporary file; returns the job id."""
    with tempfile.TemporaryDirectory(prefix="moatbridge-slurm-") as directory:
        temporary = Path(directory) / "job.sh"
        temporary.write_text(script, encoding="utf-8")
        return submit(temporary)  # sbatch keeps its own copy: the file can go
