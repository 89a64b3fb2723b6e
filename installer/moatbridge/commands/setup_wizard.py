"""The interactive half of `moatbridge setup`: questions asked with questionary.

Answers already given by flags are not asked again. The answers saved by the last setup
preselect a question's choice, and the wizard says so (a toolchain set up again preselects
its own record's stack and CUDA version instead); each question it asks is recorded
in ``args.chosen_in_wizard``, so that the summary names the wizard, not a flag. Every prompt uses
``unsafe_ask`` so Ctrl-C raises KeyboardInterrupt (exit 130) before anything changed;
Ctrl-D (end of input) cancels with exit 2, nothing changed (console.ask_prompt).
"""

from __future__ import annotations

import os
from argparse import Namespace
from collections.abc import Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any

from moatbridge.adapters.console import ask_prompt, safe
from moatbridge.adapters.hostfs import HostFS
from moatbridge.adapters.records import load_catalog, load_licences
from moatbridge.adapters.toolchain_files import rc_files_for
from moatbridge.core.answers import SHELLS
from moatbridge.core.catalog import Flavour
from moatbridge.core.detection import detect
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.nvidia import sm_target
from moatbridge.core.setup_plan import (
    NVIDIA_MODE_REASON,
    default_shells,
    detected_nvidia_targets,
    detected_targets,
)
from moatbridge.core.stacks import choose_stack, describe
from moatbridge.core.target_choices import stacks_for, target_menu
from moatbridge.core.toolchains import Toolchain, default_name
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.answers import remembered, saved_answers_path

COMPARISON = """\
  open   built here from Debian's ROCm (clang, HIP, rocBLAS, rocFFT, ...): open-source, free
         for any use, builds offline from a Debian mirror. Stacks: trixie's ROCm 5.7 (stable;
         gfx803-gfx1102), sid's ROCm 6.4 and experimental's ROCm 7.2 (previews; RDNA4
         gfx1200/1201, MI300 gfx942, Strix Halo gfx1151).
  scale  SCALE by Spectral Compute: a complete nvcc-compatible CUDA toolkit for AMD GPUs,
         newer targets (gfx942, gfx1151, gfx1200/1201). Free tier: non-commercial use only;
         commercial use needs Spectral's customer repository."""


def _q() -> Any:
    import questionary

    return questionary


def _chose(args: Namespace, *keys: str) -> None:
    chosen = list(getattr(args, "chosen_in_wizard", None) or [])
    args.chosen_in_wizard = [*chosen, *(k for k in keys if k not in chosen)]


def ask(args: Namespace, paths: Paths, toolchains: Sequence[Toolchain] = ()) -> Namespace:
    """``toolchains``: the installed ones; the one this setup would set up again preselects
    its own stack and CUDA version, over the remembered answers."""
    q = _q()
    report = detect(HostFS("/"), os.environ)
    catalog = load_catalog()
    last = remembered(paths)
    where = str(saved_answers_path(paths))  # printed through safe(), as every line
    found = detected_targets(report)
    print("moatbridge setup\n")
    if report.amd_gpus:
        for gpu in report.amd_gpus:
            notes = " (integrated)" if gpu.apu else ""
            if gpu.hsa_override_gfx_version and gpu.gfx_target:
                # The override is the open flavour's need; SCALE may support the chip itself.
                native = gpu.gfx_target in catalog.flavour("scale").compiler_targets
                notes += (
                    f" (open flavour: needs HSA_OVERRIDE_GFX_VERSION={gpu.hsa_override_gfx_version}; "
                    + ("scale: supported natively)" if native else "scale: not among its targets)")
                )
            print(safe(f"  GPU: {gpu.name or gpu.pci_device_id} - {gpu.gfx_target}{notes}"))
    else:
        print("  No AMD GPU detected: you can still set up a toolchain to build for any target.")
    nvidia = () if found else detected_nvidia_targets(report)
    if nvidia:
        for gpu in (g for g in report.gpus if g.vendor == "nvidia" and g.usable):
            sm = sm_target(gpu.compute_capability)
            print(safe(f"  NVIDIA GPU: {gpu.name or gpu.pci_device_id}" + (f" - {sm}" if sm else "")))
        print(safe(f"  Offered: the scale flavour for {nvidia[0]} ({NVIDIA_MODE_REASON})."))
    driver = report.amdgpu_driver.kind or "not loaded"
    print(safe(f"  amdgpu driver: {driver}; host ROCm: {report.rocm.version or 'none'}") + "\n")

    if not args.flavour:
        print(COMPARISON)
        nvidia_mode = any(is_nvidia_target(t) for t in args.target or nvidia)
        default = "scale" if nvidia_mode else "open"
        if last.image.flavour in ("open", "scale") and last.image.flavour != default:
            default = last.image.flavour
            print(safe(f"  Preselected: {default}, remembered from the last setup ({where})."))
        args.flavour = ask_prompt(q.select("Flavour:", choices=["open", "scale"], default=default))
        _chose(args, "flavour")
    flavour = catalog.flavour(args.flavour)
    if flavour.name == "scale" and not args.accept_license:
        if not args.use:
            args.use = ask_prompt(
                q.select("How will you use SCALE?", choices=["non-commercial", "commercial"],
                         default=last.use or "non-commercial")
            )  # fmt: skip
            _chose(args, "use")
        if args.use == "commercial":
            print("Commercial use is outside SCALE's free tier: it needs Spectral's customer repository")
            print("(your customer name, and its credentials in a private file),")
            if ask_prompt(q.confirm("or use the open flavour instead?", default=True)):
                args.flavour, args.use = "open", None
                _chose(args, "flavour")
        if args.flavour == "scale":
            chosen = flavour.commercial_licence if args.use == "commercial" else None
            licence = load_licences()[chosen or flavour.licence]
            print(f"\n{licence.name} - in plain words (the binding text: {licence.url},")
            print(f"and {licence.text_in_image} inside the image):\n{licence.summary}\n")
            accepted = ask_prompt(q.confirm(f"Do you accept the {licence.name}?", default=False))
            if not accepted:
                raise MoatbridgeError("The licence was not accepted; nothing changed.",
                                      "choose the open flavour, or accept to use SCALE")  # fmt: skip
            args.accept_license = True
            _chose(args, "accept_license")
    if args.flavour == "scale" and args.use == "commercial":
        _ask_customer(args, paths, last.image.source.customer, last.image.source.credentials_file)
    flavour = catalog.flavour(args.flavour)
    if not args.target:
        args.target = _ask_targets(flavour, getattr(args, "distro", None), found, nvidia)
        _chose(args, "targets")
    record = _recorded(toolchains, args.name, flavour.name, tuple(args.target))
    kept = f"kept from toolchain {record.name}'s record" if record is not None else ""
    if not getattr(args, "distro", None) and len(flavour.distros) > 1 and flavour.name == "open":
        choice = choose_stack(flavour, tuple(args.target))
        print(safe(f"Stack: {choice.reason}"))
        preselected = choice.distro
        # The last setup's stack, only for the same flavour and targets: for others the
        # auto-choice stands (a preview stack chosen once is no default for every GPU). A
        # toolchain set up again keeps its own: Enter through the wizard changes nothing.
        same = last.image.flavour == flavour.name and last.image.targets == tuple(args.target)
        if record is not None and record.spec.distro in {d.name for d in flavour.distros}:
            preselected = flavour.distro(record.spec.distro)
            print(safe(f"  Preselected: {preselected.name}, {kept}."))
        elif same and last.image.distro in {d.name for d in flavour.distros}:
            preselected = flavour.distro(last.image.distro)
            if preselected is not choice.distro:
                print(safe(f"  Preselected: {preselected.name}, remembered from the last setup ({where})."))
        others = [d for d in flavour.distros if d is not preselected]
        labels = {describe(d): d.name for d in (preselected, *others)}
        picked = ask_prompt(q.select("Stack:", choices=list(labels), default=describe(preselected)))
        args.distro = labels[picked]
        _chose(args, "distro")
    if not args.cuda_version:
        distro = flavour.distro(getattr(args, "distro", None))
        default = distro.default_cuda
        if record is not None and record.spec.cuda_version in flavour.cuda_versions:
            default = str(record.spec.cuda_version)
            print(safe(f"  Preselected: CUDA {default}, {kept}."))
        elif last.image.cuda_version in flavour.cuda_versions and last.image.cuda_version != default:
            default = last.image.cuda_version
            print(safe(f"  Preselected: CUDA {default}, remembered from the last setup ({where})."))
        versions = {_with_note(v, flavour.cuda_note(v)): v for v in flavour.cuda_versions}
        picked = ask_prompt(
            q.select(
                "CUDA version to mimic:",
                choices=list(versions),
                default=_with_note(default, flavour.cuda_note(default)),
            )
        )
        args.cuda_version = versions[picked]
        _chose(args, "cuda_version")
    if not args.shell and not args.no_modify_rc:
        home = os.path.expanduser("~")
        existing = {s: p.exists() for s, p in rc_files_for(("bash", "zsh", "fish"), home, os.environ).items()}
        shells = default_shells(dict(os.environ), existing)
        if last.shells and set(last.shells) != set(shells):
            shells = last.shells
            print(safe(f"  Preselected: {', '.join(shells)}, remembered from the last setup ({where})."))
        picked = ask_prompt(
            q.checkbox(
                "Shells to set up:",
                choices=[q.Choice(s, checked=s in shells) for s in SHELLS if s != "dash"],
            )
        )
        args.shell = picked or list(shells)
        args.no_modify_rc = not ask_prompt(q.confirm("Add moatbridge to their rc files?", default=True))
        _chose(args, "shells", "modify_rc")
    return args


def _recorded(
    toolchains: Sequence[Toolchain], name: str | None, flavour: str, targets: tuple[str, ...]
) -> Toolchain | None:
    """The installed toolchain of this flavour that this setup would set up again: the one
    named, else the one of the name its flavour and targets give."""
    with suppress(MoatbridgeError):  # a name no toolchain can have: none is set up again
        wanted = name or default_name(flavour, targets)
        return next((t for t in toolchains if t.name == wanted and t.flavour == flavour), None)
    return None


def _ask_targets(
    flavour: Flavour, distro: str | None, found: Sequence[str], nvidia: Sequence[str]
) -> list[str]:
    """The picker: product names, grouped by family, the served targets first; typing filters."""
    from moatbridge.adapters.picker import PickItem, pick_many

    menu = target_menu(stacks_for(flavour.distros, distro), found, nvidia)
    for target in menu.unoffered:
        print(safe(f"  This machine's {target} is not among the {flavour.name} flavour's targets."))
    picked = pick_many(
        "Targets to build for:",
        [PickItem(c.target, c.label, c.note, c.checked) for c in menu.choices],
        lambda text: [c.target for c in menu.search(text)],
        "(type a product or gfx name; Tab or Space toggles)",
    )
    if not picked:
        raise MoatbridgeError("No target chosen; nothing changed.", "run setup again and pick at least one")
    return list(picked)


def _ask_customer(
    args: Namespace, paths: Paths, last_customer: str | None = None, last_credentials: str | None = None
) -> None:
    """The customer repository's name and its credentials file (a path: the content is read
    to check it, never kept). Asked until the file is usable; Ctrl-C or Ctrl-D stop. The
    last setup's answers are the prompts' defaults."""
    from moatbridge.adapters.credentials import load_credentials
    from moatbridge.core.answers import validate_customer

    q = _q()
    while not getattr(args, "customer", None):
        name = str(ask_prompt(
            q.text("Customer name (as in your customer repository's URL):", default=last_customer or "")
        )).strip()  # fmt: skip
        try:
            args.customer = validate_customer(name)
            _chose(args, "customer")
        except MoatbridgeError as exc:
            print(safe(f"  {exc.message} ({exc.hint})"))
    default = last_credentials or str(paths.credentials / "scale.json")
    while True:
        given = getattr(args, "credentials_file", None)
        path = (
            given
            or str(
                ask_prompt(
                    q.path('Credentials file (JSON {"username", "password"}, mode 600):', default=default)
                )
            ).strip()
        )
        # Absolute: the answers and the toolchain keep it, and upgrade may run from anywhere.
        path = os.path.abspath(os.path.expanduser(path))
        try:
            load_credentials(Path(path))
        except MoatbridgeError as exc:
            print(safe(f"  {exc.message} ({exc.hint})"))
            args.credentials_file = None
            continue
        args.credentials_file = path
        if not given:
            _chose(args, "credentials_file")
        return


def confirm_plan() -> str:
    """Proceed / Customize / Cancel, as rustup asks."""
    return str(ask_prompt(_q().select("Proceed?", choices=["Proceed", "Customize", "Cancel"])))


def _with_note(version: str, note: str) -> str:
    """A CUDA version as the wizard lists it: with the catalog's line on who should pick it."""
    return f"{version}  ({note})" if note else version
