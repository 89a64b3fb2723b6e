"""`moatbridge export apptainer [-t NAME] [-o FILE]`: hand a toolchain to Apptainer sites."""

from __future__ import annotations

import sys
from argparse import Namespace
from pathlib import Path

from moatbridge.adapters.console import safe
from moatbridge.adapters.scaleenv_probe import environment_of
from moatbridge.core.apptainer import ApptainerSpec, conversion_commands, definition
from moatbridge.services.consent import licence_note
from moatbridge.services.project_files import write_project_file
from moatbridge.services.toolchains import current_toolchain


def run(args: Namespace) -> int:
    _, toolchain = current_toolchain(args.toolchain)
    spec = ApptainerSpec(
        toolchain=toolchain.name, flavour=toolchain.flavour, target=toolchain.target, image=toolchain.image,
        image_id=toolchain.image_id,
        licence=licence_note(toolchain, "An Apptainer definition for this toolchain"),
        environment=environment_of(toolchain),
    )  # fmt: skip
    text = definition(spec)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    outcome = write_project_file(Path(args.output), text, force=False, dry_run=False, what="definition file")
    print(safe(f"{outcome}: {args.output}"))
    for line in conversion_commands(spec, args.output):
        print(line)
    return 0
