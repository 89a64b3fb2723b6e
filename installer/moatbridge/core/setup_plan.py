"""From answers to a concrete setup plan: what will be fetched, written and edited (pure)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

from moatbridge.core.answer_layers import (
    DEFAULT,
    FLAG,
    Layer,
    Origin,
    changes,
    merge_layers,
    recorded_layer,
    value_of,
)
from moatbridge.core.answers import SHELLS, Answers
from moatbridge.core.catalog import Catalog, CatalogError
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.image_spec import ImageSpec
from moatbridge.core.model import HostReport
from moatbridge.core.nvidia import sm_target
from moatbridge.core.recipes import checks_valid_until, normalise_targets, valid_until_note
from moatbridge.core.references import parse_reference
from moatbridge.core.stacks import choose_stack
from moatbridge.core.toolchains import Toolchain, default_name, validate_name
from moatbridge.errors import InputError, MoatbridgeError, UsageError


def detected_targets(report: HostReport) -> tuple[str, ...]:
    """Usable GPUs' targets, discrete GPUs first (ROCm handles iGPUs poorly)."""
    usable = [g for g in report.amd_gpus if g.usable and g.gfx_target]
    ordered = sorted(usable, key=lambda g: g.apu)
    return tuple(dict.fromkeys(g.gfx_target for g in ordered if g.gfx_target))


def detected_nvidia_targets(report: HostReport) -> tuple[str, ...]:
    """sm_NN of the usable NVIDIA GPUs (for SCALE's NVIDIA mode), newest first."""
    ccs = {g.compute_capability for g in report.gpus if g.vendor == "nvidia" and g.usable}
    ordered = sorted((cc for cc in ccs if cc), key=lambda cc: tuple(map(int, cc.split("."))), reverse=True)
    return tuple(target for target in map(sm_target, ordered) if target)


NVIDIA_MODE_REASON = "SCALE's NVIDIA mode; NVIDIA's own CUDA libraries are needed in the image"


def default_shells(environ: dict[str, str], existing_rc: dict[str, bool]) -> tuple[str, ...]:
    """The login shell plus every supported shell whose rc file already exists."""
    login = os.path.basename(environ.get("SHELL", ""))
    chosen = [login] if login in SHELLS else []
    chosen += [shell for shell, exists in existing_rc.items() if exists and shell not in chosen]
    return tuple(chosen) or ("bash",)


def defaults(report: HostReport, environ: dict[str, str], existing_rc: dict[str, bool]) -> Answers:
    targets = detected_targets(report)
    nvidia = () if targets else detected_nvidia_targets(report)
    return Answers(
        # Only NVIDIA GPUs here: the scale flavour can serve them (NVIDIA_MODE_REASON), but its
        # licence needs acceptance, so it is never a silent default: the wizard proposes it,
        # --yes needs it named (make_plan says so). Otherwise the open flavour. No GPU: the
        # user must say which target.
        image=ImageSpec(flavour=None if nvidia else "open", targets=(targets or nvidia)[:1] or None),
        modify_rc=True,
        shells=default_shells(environ, existing_rc),
        accept_license=False,
    )


@dataclass(frozen=True)
class SetupPlan:
    name: str
    # Resolved: flavour, variant, targets and CUDA version named; distro None only for SCALE,
    # whose pull and build defaults differ; the source's channel says build or pull.
    spec: ImageSpec
    stack_reason: str  # why this distribution: shown in the summary
    licence: str
    use: str
    shells: tuple[str, ...]
    modify_rc: bool
    warnings: tuple[str, ...]
    # How this setup changes the existing toolchain of that name, one line each, naming who asked.
    changes: tuple[str, ...] = ()

    @property
    def flavour(self) -> str:
        return self.spec.flavour_name

    @property
    def targets(self) -> tuple[str, ...]:
        return self.spec.build_targets


@contextmanager
def _naming(origin: Origin, key: str, value: object) -> Iterator[None]:
    """An unusable answer that no flag gave: the error names where it came from."""
    try:
        yield
    except MoatbridgeError as exc:
        if value is None or origin.kind in ("flag", "wizard"):
            raise
        raise type(exc)(f"{exc.message.rstrip('.')} ({origin.names(key, value)}).", exc.hint) from None


def make_plan(answers: Answers, catalog: Catalog, origins: Mapping[str, Origin] | None = None) -> SetupPlan:
    """The plan for ``answers``; ``origins`` says which source gave each (None: all flags)."""

    def origin(key: str) -> Origin:
        if origins is None:
            return FLAG if value_of(answers, key) is not None else DEFAULT
        return origins.get(key, DEFAULT)

    wanted = answers.image
    if wanted.flavour is None:
        if wanted.targets and all(is_nvidia_target(t) for t in wanted.targets):
            raise UsageError(
                f"No flavour was named for {', '.join(wanted.targets)} (NVIDIA: SCALE's NVIDIA mode), "
                "and SCALE's licence is accepted only for a flavour named explicitly.",
                "read 'moatbridge license show scale-free', then pass --flavour scale (--use, "
                "--accept-license), or --flavour open with an AMD --target",
            )
        raise UsageError("No flavour chosen.", "pass --flavour open or --flavour scale")
    with _naming(origin("flavour"), "flavour", wanted.flavour):
        flavour = catalog.flavour(wanted.flavour)
    if not wanted.targets:
        raise UsageError(
            "No AMD GPU was detected, so the target must be named.",
            "pass --target gfx1100 (repeatable); 'moatbridge detect' shows your GPUs",
        )
    with _naming(origin("distro"), "distro", wanted.distro):
        choice = choose_stack(
            flavour, wanted.targets, wanted.distro, _stack_why(origin("distro"), wanted.distro)
        )
    # A stack kept from a toolchain's record that cannot serve the new targets: say whose.
    with (
        _naming(origin("distro"), "distro", wanted.distro),
        _naming(origin("targets"), "targets", wanted.targets),
    ):
        try:
            targets, warnings = normalise_targets(flavour, choice.distro, wanted.targets)
        except CatalogError as exc:
            if any(all(d.compiles_for(t) for t in wanted.targets) for d in flavour.distros):
                raise  # another stack of this flavour does: its hint says which
            other = "scale" if flavour.name == "open" else "open"
            alternative = catalog.flavour(other)
            if all(t in alternative.compiler_targets for t in wanted.targets):
                raise CatalogError(
                    exc.message, f"the {other} flavour supports it: --flavour {other}"
                ) from None
            raise
    with _naming(origin("variant"), "variant", wanted.variant):
        variant = flavour.variant(wanted.variant or flavour.default_variant)
    with _naming(origin("cuda_version"), "cuda_version", wanted.cuda_version):
        cuda = flavour.cuda(wanted.cuda_version, choice.distro)
    if not checks_valid_until(choice.distro, wanted.check_valid_until):
        said = origin("check_valid_until")
        given_by = "--no-check-valid-until" if said.kind == "flag" else said.names("check_valid_until", False)
        warnings = (*warnings, valid_until_note(choice.distro, wanted.check_valid_until, given_by))
    # SCALE's distributions differ in their base, not in what they serve: keep its own default.
    distro = choice.distro.name if flavour.name == "open" or wanted.distro else None
    use = answers.use or "non-commercial"
    commercial = flavour.name == "scale" and use == "commercial"
    # Commercial SCALE comes from the customer repository: built here unless a registry is named.
    source = answers.source or (
        "pull" if wanted.source.registry else "build" if commercial else flavour.source
    )
    licence = flavour.licence
    if flavour.name == "scale" and use == "commercial":
        licence = flavour.commercial_licence or licence
    name = validate_name(answers.name) if answers.name else default_name(flavour.name, targets)
    if wanted.source.registry is not None:  # HOST/PATH: the repository's prefix in an image reference
        with _naming(origin("registry"), "registry", wanted.source.registry):
            try:
                parse_reference(f"{wanted.source.registry}/{flavour.name}:x")
            except InputError:
                raise InputError(
                    f"{wanted.source.registry!r} is not a registry (HOST[:PORT]/PATH, lower case).",
                    "e.g. --registry registry.example:5000/team",
                ) from None
    if commercial and source == "pull" and wanted.source.registry is None:
        raise UsageError(
            "Commercial use of SCALE cannot come from the vendor's public images: they are the free product.",
            "build from your customer repository (--source build --customer NAME --credentials-file FILE), "
            "or pull your own build with --registry HOST/PATH",
        )
    channel = (
        "registry" if source == "pull" else "tarball" if wanted.source.tarball is not None else "repository"
    )
    spec = ImageSpec(
        flavour=flavour.name, variant=variant.name, distro=distro, targets=targets, cuda_version=cuda,
        check_valid_until=wanted.check_valid_until,
        source=replace(
            wanted.source, channel=channel, commercial=commercial,
            customer=wanted.source.customer if use == "commercial" else None,
            credentials_file=wanted.source.credentials_file if use == "commercial" else None,
        ),
    )  # fmt: skip
    return SetupPlan(
        name=name, spec=spec, stack_reason=choice.reason, licence=licence, use=use,
        shells=answers.shells or ("bash",), modify_rc=bool(answers.modify_rc), warnings=warnings,
    )  # fmt: skip


def _stack_why(origin: Origin, distro: str | None) -> str | None:
    """How the stack line names a stack that was not the auto-choice's."""
    if distro is None or origin.kind == "flag":
        return None  # choose_stack's own: as asked (--distro NAME)
    if origin.kind == "toolchain":
        return f"kept from {origin.names('distro', distro)} (--distro to change it)"
    if origin.kind == "file":
        return f"as asked in {origin.where} (distro: {distro})"
    return origin.names("distro", distro)


def plan_setup(layers: Sequence[Layer], catalog: Catalog, toolchains: Sequence[Toolchain]) -> SetupPlan:
    """The plan for this command's layers (the first answers; the last, the defaults). When
    a toolchain of the planned name exists, its record answers what this command did not,
    just above the defaults, and the plan lists what it changes; a change that no answer of
    this command asked for is refused."""
    gathered = merge_layers(layers)
    name = gathered.answers.name or make_plan(gathered.answers, catalog, gathered.origins).name
    existing = next((t for t in toolchains if t.name == name), None)
    if existing is None:
        return make_plan(gathered.answers, catalog, gathered.origins)
    asked_flavour = gathered.answers.image.flavour if gathered.origin("flavour").asked else None
    asked_use = gathered.answers.use if gathered.origin("use").asked else None
    recorded = recorded_layer(existing, asked_flavour, asked_use)
    gathered = merge_layers([*layers[:-1], recorded, *layers[-1:]])
    plan = make_plan(gathered.answers, catalog, gathered.origins)
    found = changes(plan.spec, existing, gathered)
    unasked = [line for line, asked in found if not asked]
    if unasked:
        raise UsageError(
            f"Setup would change toolchain {name}'s {unasked[0]}, which nothing on this command asked for.",
            "name the value to keep or change it with its flag, or set up another toolchain with --name",
        )
    return replace(plan, changes=tuple(f"toolchain {name}: {line}" for line, _ in found))
