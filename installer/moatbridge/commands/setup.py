"""`moatbridge setup`: from nothing to a working toolchain (non-interactive with --yes).

Steps: detect and check the engine; gather answers (the wizard's and flags > --answers
file > the existing toolchain's record > defaults; the last setup's saved answers only
preselect the wizard's questions); licence; plan and summary; then apply under the state lock:
image, shims, env files, rc blocks; verify by compiling a sample in the image.
"""

from __future__ import annotations

import os
import sys
from argparse import Namespace
from dataclasses import replace
from pathlib import Path

from moatbridge.adapters.console import safe
from moatbridge.adapters.engine import probe_engine
from moatbridge.adapters.hostfs import HostFS
from moatbridge.adapters.records import load_catalog, load_licences
from moatbridge.core.answer_layers import FLAG, Layer, Origin, merge_layers, only
from moatbridge.core.answers import Answers, validate_customer
from moatbridge.core.detection import detect
from moatbridge.core.engine_checks import engine_checks
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.image_spec import ImageSpec, RunOptions
from moatbridge.core.licences import USES, Licence, LicenceError, check_use, consent_status
from moatbridge.core.listing import group_by_directory
from moatbridge.core.model import HostReport
from moatbridge.core.setup_plan import NVIDIA_MODE_REASON, SetupPlan, plan_setup
from moatbridge.core.shims import candidate_tools
from moatbridge.core.toolchains import Toolchain
from moatbridge.errors import MoatbridgeError, UsageError
from moatbridge.paths import Paths
from moatbridge.services.answers import gather, save_answers
from moatbridge.services.consent import consents
from moatbridge.services.images import check_inputs
from moatbridge.services.scale_sources import check_commercial
from moatbridge.services.toolchain_setup import install, preview
from moatbridge.services.toolchains import state_store


def flags(args: Namespace) -> Answers:
    """The answers the command line gives (the wizard's are on ``args`` too)."""
    image = ImageSpec.from_args(args)
    if image.source.customer is not None:
        validate_customer(image.source.customer)
    return Answers(
        image=image,
        source=args.source or ("build" if image.source.tarball else None),  # a tarball is built
        use=args.use,
        accept_license=True if args.accept_license else None,
        shells=tuple(args.shell) if args.shell else None,
        modify_rc=False if args.no_modify_rc else None,
        name=args.name,
    )


def layers_of(args: Namespace, report: HostReport) -> list[Layer]:
    """The wizard's answers (the questions it recorded in ``args.chosen_in_wizard``), the
    flags, the answers file, the defaults."""
    given = flags(args)
    chosen = tuple(getattr(args, "chosen_in_wizard", ()) or ())
    wizard = [Layer(only(given, chosen), Origin("wizard"))] if chosen else []
    return gather([*wizard, Layer(given, FLAG)], args.answers, report)


def answers_of(args: Namespace, paths: Paths, report: HostReport) -> Answers:
    """This command's answers, merged (without any toolchain's record)."""
    return merge_layers(layers_of(args, report)).answers


def plan_of(args: Namespace, report: HostReport, toolchains: tuple[Toolchain, ...]) -> SetupPlan:
    return plan_setup(layers_of(args, report), load_catalog(), toolchains)


def licence_use(licence: Licence, use: str) -> str:
    """The summary's word on use: a licence that allows every use and asks for no acceptance
    (the open flavour's) puts no condition on it; one that allows only some uses, or whose
    acceptance is recorded for the use stated (SCALE's), shows that use."""
    if set(USES) <= set(licence.allowed_use) and not licence.acceptance_required:
        return "free for any use"
    return f"{use} use"


def summary(
    plan: SetupPlan, licence: Licence, image: str, action: str, files: list[str], rcs: list[str]
) -> str:
    lines = [
        f"Toolchain {plan.name}: {plan.flavour} {plan.spec.variant}, target(s) {', '.join(plan.targets)}, "
        f"CUDA {plan.spec.cuda_version}",
        f"  image   {image} ({action})",
        f"  stack   {plan.stack_reason}",
        f"  licence {licence.id} ({licence_use(licence, plan.use)})",
        *([f"  mode    {NVIDIA_MODE_REASON}"] if any(is_nvidia_target(t) for t in plan.targets) else []),
        *[f"  change  {line}" for line in plan.changes],
        "  write   " + ("\n          ".join(group_by_directory(files)) if files else "(nothing new)"),
        "  rc      " + ("\n          ".join(rcs) if rcs else "(not modified)"),
    ]
    return "\n".join(lines + [f"  warning: {w}" for w in plan.warnings])


def run(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    if not args.yes and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "setup needs answers: there is no terminal to ask on.",
            "pass --yes with --flavour, --target (repeatable), and for scale --use and --accept-license; "
            "or --answers FILE.yaml",
        )
    store = state_store(paths)
    # Its toolchain of the planned name answers what this command does not (and, in the
    # wizard, preselects its own stack and CUDA version).
    state = store.read()
    if not args.yes:
        from moatbridge.commands import setup_wizard

        args = setup_wizard.ask(args, paths, state.toolchains)
    report = detect(HostFS("/"), os.environ)
    options = RunOptions.from_args(args)
    # Bad flags or a bad answers file: one clear error (exit 2) before the engine is asked.
    asked = plan_of(args, report, state.toolchains)
    check_commercial(asked.spec)  # what commercial use lacks, said before what its build would lack
    check_inputs(asked.spec, options)
    blockers = [c for c in engine_checks(probe_engine(os.environ)) if c.status == "fail"]
    if blockers:
        first = blockers[0]
        raise MoatbridgeError(f"The container engine is not ready: {first.detail}.", first.fix)
    interactive = not args.yes
    while True:
        answers = answers_of(args, paths, report)
        plan = plan_of(args, report, state.toolchains)
        licence = load_licences()[plan.licence]
        check_use(licence, plan.use)
        check_commercial(plan.spec)
        status = consent_status(licence, consents(paths).read(licence.id))
        if status in ("missing", "outdated") and not answers.accept_license:
            raise LicenceError(
                f"The {licence.name} must be accepted first ({status}).",
                f"read 'moatbridge license show {licence.id}', then add --accept-license --use {plan.use}",
            )
        make_default = state.default is None or state.default == plan.name or bool(args.default)
        planned = preview(plan, licence, state, paths, options, make_default)
        print(safe(summary(plan, licence, planned.image.reference, planned.image.action,
                           list(planned.files), list(planned.rc_files))))  # fmt: skip
        if args.dry_run or not interactive:
            break
        from moatbridge.commands import setup_wizard

        choice = setup_wizard.confirm_plan()
        if choice == "Proceed":
            break
        if choice == "Cancel":
            print("Cancelled; nothing changed.")
            return 1
        for key in ("target", "flavour", "use", "cuda_version", "shell", "distro"):
            setattr(args, key, None)
        args.accept_license, args.no_modify_rc = False, False
        args = setup_wizard.ask(args, paths, state.toolchains)
    if args.dry_run:
        print("Dry run: nothing changed.")
        return 0
    # The summary is the progress report: the build itself reports on stderr only.
    building = replace(options, json=True, quiet=bool(args.json))
    with store.locked():
        done = install(plan, licence, planned, paths, building, report, consent_recorded=status == "accepted")
        save_answers(paths, answers)
    env = Path(paths.home) / "env"
    if done.note:
        print(safe(f"  note: {done.note}"))
    tools = done.toolchain.tools or ()
    missing = [t for t in candidate_tools(plan.flavour) if t not in tools]
    if missing:
        print(safe(f"  no shims for {', '.join(missing)}: the image does not have them"))
        print("  hint: install them in an image derived from it (FROM it; RUN apt-get install ...)")
    print(safe(f"Ready: toolchain {plan.name} ({done.image.action} {done.image.reference})."))
    print(
        f"Next: open a new shell, or run  . {env}  - then nvcc, hipcc, cmake and make run in the toolchain."
    )
    for line in closing_lines(plan.modify_rc):
        print(safe(line))
    return 0


def closing_lines(rc_edited: bool = True) -> list[str]:
    """What a new user needs next: built programs run in the toolchain (its GPU runtime is
    in the image, not on the host), and `moatbridge` is on the activated PATH."""
    where = "The new shell has" if rc_edited else "A shell that loaded that env file has"
    return [
        "Run what you build there too - the GPU runtime is in the image, not on this host:",
        "  moatbridge run ./prog    (short: mbrun ./prog)",
        f"{where} moatbridge on PATH too, run by {sys.executable}; to install it",
        "for good: pipx install .  in a clone of moatbridge (or from PyPI: pipx install moatbridge).",
    ]
