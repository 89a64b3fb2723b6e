"""`moatbridge ci github|gitlab [-t NAME] [--dir PATH] [--build CMD] [--test CMD]
[--gpu-runner LABEL] [--emulate[=GFX]]`."""

from __future__ import annotations

from argparse import Namespace

from moatbridge.adapters.console import safe
from moatbridge.adapters.scaleenv_probe import environment_of
from moatbridge.core.ci_templates import DEFAULT_BUILD, DEFAULT_TEST, CiSpec, github_workflow, gitlab_ci
from moatbridge.services.consent import licence_note
from moatbridge.services.project_files import project_directory, write_project_file
from moatbridge.services.toolchains import current_toolchain

FILES = {"github": ".github/workflows/moatbridge-cuda.yml", "gitlab": ".gitlab-ci.yml"}


def run(args: Namespace) -> int:
    project = project_directory(args.dir)
    _, toolchain = current_toolchain(args.toolchain)
    emulate = None
    if args.emulate is not None:
        from moatbridge.core.emulator import emulated_gfx

        emulate = emulated_gfx(args.emulate or None, toolchain.targets, toolchain.name)
    spec = CiSpec(
        toolchain=toolchain.name,
        flavour=toolchain.flavour,
        target=toolchain.target,
        image=args.image or toolchain.image,
        local_image=toolchain.image,
        build=(args.build,) if args.build else DEFAULT_BUILD,
        test=(args.test,) if args.test else DEFAULT_TEST,
        gpu_runner=args.gpu_runner,
        licence=licence_note(toolchain, "A CI file for this toolchain"),
        environment=environment_of(toolchain),
        emulate=emulate,
    )
    text = github_workflow(spec) if args.provider == "github" else gitlab_ci(spec)
    target = project / FILES[args.provider]
    outcome = write_project_file(target, text, args.force, args.dry_run, f"{args.provider} CI file")
    print(safe(f"{outcome}: {target}"))
    if "/" not in spec.image.split(":")[0] or spec.image.startswith("moatbridge/"):
        print(safe(f"note: runners pull {spec.image}; push it to a registry they reach and pass --image REF"))
    return 0
