"""Setting a toolchain up from a setup plan: what it would change (the summary's facts),
then, under the state lock, the image made and verified, its files and rc blocks written,
the state recorded and, last, the consent."""

from __future__ import annotations

from dataclasses import dataclass, replace

from moatbridge.adapters import faults
from moatbridge.adapters.clock import now_stamp
from moatbridge.core.image_spec import ImageSpec, RunOptions
from moatbridge.core.licences import Licence
from moatbridge.core.model import HostReport
from moatbridge.core.recipes import recorded_source
from moatbridge.core.setup_plan import SetupPlan
from moatbridge.core.toolchains import State, Toolchain
from moatbridge.paths import Paths
from moatbridge.services.consent import consents, new_consent
from moatbridge.services.images import EnsuredImage, ensure_image
from moatbridge.services.installation import edit_shell_rcs, install_files
from moatbridge.services.runtime import runtime_for
from moatbridge.services.toolchains import record, state_store
from moatbridge.services.verify import gpu_run_args, probe_tools, verify


@dataclass(frozen=True)
class Preview:
    """What setup would do: the image (and whether it is made), the files and rc files changed."""

    toolchain: Toolchain
    image: EnsuredImage
    files: tuple[str, ...]
    rc_files: tuple[str, ...]
    make_default: bool


@dataclass(frozen=True)
class Installed:
    toolchain: Toolchain
    image: EnsuredImage
    note: str | None  # a check verification skipped


def recorded_spec(spec: ImageSpec) -> ImageSpec:
    """The spec as a toolchain records it: never a secret (core.recipes.recorded_source)."""
    return replace(spec, source=recorded_source(spec.source))


def preview(
    plan: SetupPlan, licence: Licence, state: State, paths: Paths, options: RunOptions, make_default: bool
) -> Preview:
    image = ensure_image(plan.spec, replace(options, dry_run=True, quiet=True, json=True))
    created = now_stamp()
    toolchain = Toolchain(
        plan.name, recorded_spec(image.spec or plan.spec), image.reference, image.image_id, licence.id,
        None, created,
    )  # fmt: skip
    runtime = runtime_for(toolchain, paths, licence.acceptance_required)
    changes = install_files(paths, toolchain, runtime, make_default, dry_run=True)
    rc_changes = edit_shell_rcs(paths, plan.shells, dry_run=True) if plan.modify_rc else []
    return Preview(
        toolchain, image, tuple(w.path for w in changes if w.changed),
        tuple(w.path for w in rc_changes if w.changed), make_default,
    )  # fmt: skip


def install(
    plan: SetupPlan,
    licence: Licence,
    planned: Preview,
    paths: Paths,
    options: RunOptions,
    report: HostReport,
    consent_recorded: bool,
) -> Installed:
    """Make the toolchain real, as ``planned``; the caller holds the state lock. The
    consent, given at setup, is recorded only once the toolchain works (``consent_recorded``:
    it already was)."""
    store = state_store(paths)
    image = ensure_image(plan.spec, options, consent_checked=True)
    toolchain = replace(
        planned.toolchain, spec=recorded_spec(image.spec or plan.spec), image=image.reference,
        image_id=image.image_id, digest=image.digest,
    )  # fmt: skip
    faults.point("setup.image-ready", image.reference)
    note = verify(image.reference, plan.spec, gpu_run_args(report, plan.targets[0]))
    faults.point("setup.verified", image.reference)
    toolchain = replace(toolchain, tools=probe_tools(image.reference, plan.spec))
    state = store.read()
    runtime = runtime_for(toolchain, paths, licence.acceptance_required)
    written = install_files(paths, toolchain, runtime, planned.make_default, dry_run=False)
    faults.point("setup.files-written", plan.name)
    if plan.modify_rc:
        written += edit_shell_rcs(paths, plan.shells, dry_run=False)
        faults.point("setup.rc-edited", plan.name)
    store.write(record(state.with_toolchain(toolchain, planned.make_default), written))
    if licence.acceptance_required and not consent_recorded:
        # Last: a kill before this leaves a toolchain that asks for consent, never the reverse.
        consents(paths).write(new_consent(licence, plan.use))
    return Installed(toolchain, image, note)
