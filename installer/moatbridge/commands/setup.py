"""`moatbridge setup`: from nothing to a working toolchain (non-interactive with --yes).

Steps: detect and check the engine; gather answers (flags > --answers file > saved
answers > defaults); licence; plan and summary; then apply under the state lock:
image, shims, env files, rc blocks; verify by compiling a sample in the image.
"""

from __future__ import annotations

import contextlib
import os
import sys
from argparse import Namespace
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from moatbridge.adapters import faults
from moatbridge.adapters.console import safe
from moatbridge.adapters.engine import probe_engine
from moatbridge.adapters.hostfs import HostFS
from moatbridge.adapters.records import load_catalog, load_licences
from moatbridge.commands import _toolchain as tc
from moatbridge.commands._consent import consents, new_consent
from moatbridge.commands.setup_verify import gpu_run_args, probe_tools, verify
from moatbridge.core.answers import Answers, merge, parse_answers, validate_customer
from moatbridge.core.detection import detect
from moatbridge.core.engine_checks import engine_checks
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.licences import USES, Licence, LicenceError, check_use, consent_status
from moatbridge.core.redact import has_secret, redact_url
from moatbridge.core.scale_tarball import tarball_source
from moatbridge.core.setup_plan import NVIDIA_MODE_REASON, SetupPlan, defaults, make_plan
from moatbridge.core.shims import candidate_tools
from moatbridge.core.toolchains import ImageSource, Toolchain
from moatbridge.errors import InputError, MoatbridgeError, UsageError
from moatbridge.paths import Paths


def _flags(args: Namespace) -> Answers:
    return Answers(
        flavour=args.flavour,
        targets=tuple(args.target) if args.target else None,
        variant=args.variant,
        cuda_version=args.cuda_version,
        distro=getattr(args, "distro", None),
        check_valid_until=getattr(args, "check_valid_until", None),
        source=args.source or ("build" if getattr(args, "tarball", None) else None),  # a tarball is built
        registry=args.registry,
        use=args.use,
        accept_license=True if args.accept_license else None,
        customer=validate_customer(args.customer) if getattr(args, "customer", None) else None,
        credentials_file=getattr(args, "credentials_file", None) or None,
        shells=tuple(args.shell) if args.shell else None,
        modify_rc=False if args.no_modify_rc else None,
        name=args.name,
    )


def _load_yaml(path: Path, what: str) -> Any:
    import yaml

    from moatbridge.adapters.hostfs import read_user_file
    from moatbridge.core import yaml_text

    text = read_user_file(path, what)  # regular, bounded, UTF-8: else one clear InputError
    try:
        return yaml_text.safe_load(text)
    except RecursionError:
        raise UsageError(f"The {what} {path} is nested too deeply.", "answers are plain values") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark is not None else ""
        raise UsageError(f"The {what} {path} is not valid YAML{line}.", "fix its syntax") from None


def gather(args: Namespace, paths: Paths, report: Any) -> Answers:
    from moatbridge.adapters.toolchain_files import rc_files_for

    layers = [_flags(args)]
    if args.answers:
        layers.append(parse_answers(_load_yaml(Path(args.answers), "answers file"), args.answers))
    saved = Path(paths.home) / "answers.yaml"
    if saved.exists():
        with contextlib.suppress(MoatbridgeError):  # stale saved answers never block a setup
            layers.append(parse_answers(_load_yaml(saved, "saved answers"), str(saved)))
    existing = {
        s: p.exists() for s, p in rc_files_for(("bash", "zsh", "fish"), os.path.expanduser("~")).items()
    }
    layers.append(defaults(report, dict(os.environ), existing))
    merged = merge(*layers)
    if merged.credentials_file:  # recorded for upgrade, which may run from anywhere
        merged = replace(merged, credentials_file=absolute_path(merged.credentials_file))
    return merged


def absolute_path(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def group_by_directory(files: list[str]) -> list[str]:
    """One line per directory: 'DIR/: a, b, c' keeps a 30-file summary readable."""
    by_dir: dict[str, list[str]] = {}
    for path in files:
        directory, _, name = path.rpartition("/")
        by_dir.setdefault(directory, []).append(name)
    return [f"{d}/: {', '.join(names)}" for d, names in by_dir.items()]


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
        f"Toolchain {plan.name}: {plan.flavour} {plan.variant}, target(s) {', '.join(plan.targets)}, "
        f"CUDA {plan.cuda_version}",
        f"  image   {image} ({action})",
        f"  stack   {plan.stack_reason}",
        f"  licence {licence.id} ({licence_use(licence, plan.use)})",
        *([f"  mode    {NVIDIA_MODE_REASON}"] if any(is_nvidia_target(t) for t in plan.targets) else []),
        "  write   " + ("\n          ".join(group_by_directory(files)) if files else "(nothing new)"),
        "  rc      " + ("\n          ".join(rcs) if rcs else "(not modified)"),
    ]
    return "\n".join(lines + [f"  warning: {w}" for w in plan.warnings])


def _ensure_image(
    plan: SetupPlan, args: Namespace, dry_run: bool, rebuild: bool = False, consent_checked: bool = False
) -> tuple[str, str, str, str | None]:
    """Returns (reference, image id, what happened, registry digest when pulled).
    ``consent_checked``: the caller applied the consent rule itself (setup, which records
    the acceptance only once the toolchain works); else the build asks for it."""
    from moatbridge.adapters import docker_api
    from moatbridge.commands import image_build

    client = docker_api.connect()
    catalog = load_catalog()
    flavour = catalog.flavour(plan.flavour)
    if plan.source == "pull":
        from moatbridge.commands.image_transfer import pull_reference

        distro = flavour.distro(plan.distro)
        tag = flavour.tag.format(cuda=plan.cuda_version, variant=plan.variant, distro=distro.name,
                                 targets="_".join(plan.targets), version=flavour.version or "")  # fmt: skip
        repository = f"{plan.registry}/{flavour.name}" if plan.registry else flavour.registries[0]
        reference = f"{repository}:{tag}"
        if dry_run:
            return reference, "", "would pull", None
        image_id, digest = pull_reference(client, reference, retries=4, stall_timeout=60, quiet=args.json)
        return reference, image_id, "pulled", digest
    commercial = plan.flavour == "scale" and plan.use == "commercial"
    tarball = getattr(args, "tarball", None)
    credentials: str | None = None
    if commercial and tarball is None:
        credentials = str(credentials_path(plan, Paths.from_environ(os.environ)))
    elif commercial and tarball is not None and tarball_source(tarball).is_url:
        credentials = plan.credentials_file  # only when its server asks for them (given)
    options = image_build.BuildOptions(
        flavour=plan.flavour, variant=plan.variant, cuda_version=plan.cuda_version, distro=plan.distro,
        check_valid_until=getattr(args, "check_valid_until", None),
        # SCALE images hold every target's toolkit; the toolchain picks its target at activation.
        target=None if plan.flavour == "scale" else plan.targets,
        base=args.base, mirror=args.mirror, dry_run=dry_run, json=True, no_cache=rebuild,
        base_image=getattr(args, "base_image", None), repo_url=getattr(args, "repo_url", None),
        tarball=tarball, consent_checked=consent_checked,
        build_arg=tuple(getattr(args, "build_arg", None) or ()),
        commercial=commercial, customer=plan.customer,
        credentials_file=credentials,
    )  # fmt: skip
    result = image_build.build(options, quiet=args.json or dry_run)  # the summary says it all
    return str(result["reference"]), str(result.get("id", "")), str(result["action"]), None


def image_source(plan: SetupPlan, args: Namespace) -> ImageSource:
    """What the toolchain records of how its image is made (never a secret), for upgrade."""
    if plan.source == "pull":
        return ImageSource("registry")
    base_image = getattr(args, "base_image", None)
    build_args = tuple(getattr(args, "build_arg", None) or ())
    tarball = getattr(args, "tarball", None)
    if tarball is not None:
        from moatbridge.adapters.file_server import file_sha256

        given = tarball_source(tarball)
        sha256 = None if given.is_url else file_sha256(Path(given.location))  # hashed once per process
        return ImageSource("tarball", base_image=base_image, build_args=build_args, tarball=given.name,
                           tarball_sha256=sha256)  # fmt: skip
    repo_url: str | None = getattr(args, "repo_url", None)
    return ImageSource(
        "repository", repo_url=redact_url(repo_url) if repo_url else None,
        repo_url_secret=has_secret(repo_url) if repo_url else False, base_image=base_image,
        build_args=build_args,
    )  # fmt: skip


def credentials_path(plan: SetupPlan, paths: Paths) -> Path:
    return Path(plan.credentials_file) if plan.credentials_file else paths.credentials / "scale.json"


def check_commercial(plan: SetupPlan, args: Namespace, paths: Paths) -> None:
    """A commercial SCALE build needs the customer repository (its name, or --repo-url for a
    mirror of it) and readable credentials for it: one clear error (exit 2) before any build.
    A pull from the customer's own registry needs neither (the engine's login serves it), nor
    does a local tarball (air-gapped sites carry the customer's tarball in); a tarball URL
    needs credentials only when its server asks for them (checked when given)."""
    if plan.source == "pull":
        return
    tarball = getattr(args, "tarball", None)
    if tarball is not None:
        if tarball_source(tarball).is_url and plan.credentials_file:
            _check_credentials(Path(plan.credentials_file), "your tarball's server")
        return
    if not plan.customer and not getattr(args, "repo_url", None):
        raise LicenceError(
            "Commercial use of SCALE needs your customer repository, whose URL has your customer name.",
            "pass --customer NAME and --credentials-file FILE, or choose the open flavour "
            "(free for commercial use)",
        )
    _check_credentials(credentials_path(plan, paths), "your customer repository")


def _check_credentials(path: Path, what: str) -> None:
    from moatbridge.adapters.credentials import load_credentials

    try:
        load_credentials(path)  # checked now; the build reads it again
    except InputError as exc:
        raise InputError(
            f"{exc.message.rstrip('.')}; commercial use of SCALE needs it to reach {what}.",
            f"{exc.hint}; or pass --credentials-file FILE" if exc.hint else "pass --credentials-file FILE",
        ) from None


def run(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    if not args.yes and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "setup needs answers: there is no terminal to ask on.",
            "pass --yes with --flavour, --target (repeatable), and for scale --use and --accept-license; "
            "or --answers FILE.yaml",
        )
    if not args.yes:
        from moatbridge.commands import setup_wizard

        args = setup_wizard.ask(args, paths)
    report = detect(HostFS("/"), os.environ)
    # Bad flags or a bad answers file: one clear error (exit 2) before the engine is asked.
    make_plan(gather(args, paths, report), load_catalog())
    blockers = [c for c in engine_checks(probe_engine(os.environ)) if c.status == "fail"]
    if blockers:
        first = blockers[0]
        raise MoatbridgeError(f"The container engine is not ready: {first.detail}.", first.fix)
    interactive = not args.yes
    while True:
        answers = gather(args, paths, report)
        plan = make_plan(answers, load_catalog())
        licence = load_licences()[plan.licence]
        check_use(licence, plan.use)
        if plan.flavour == "scale" and plan.use == "commercial":
            check_commercial(plan, args, paths)
        store = tc.store(paths)
        state = store.read()
        status = consent_status(licence, consents(paths).read(licence.id))
        if status in ("missing", "outdated") and not answers.accept_license:
            raise LicenceError(
                f"The {licence.name} must be accepted first ({status}).",
                f"read 'moatbridge license show {licence.id}', then add --accept-license --use {plan.use}",
            )
        reference, image_id, action, _ = _ensure_image(plan, args, dry_run=True)
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        toolchain = Toolchain(plan.name, plan.flavour, plan.variant, plan.targets, plan.cuda_version,
                              reference, image_id, licence.id, None, created, plan.distro,
                              customer=plan.customer, credentials_file=plan.credentials_file,
                              source=image_source(plan, args))  # fmt: skip
        runtime = tc.runtime_for(toolchain, paths, licence.acceptance_required)
        make_default = state.default is None or state.default == plan.name or bool(args.default)
        changes = tc.install_files(paths, toolchain, runtime, make_default, dry_run=True)
        files = [w.path for w in changes if w.changed]
        rc_changes = tc.edit_shell_rcs(paths, plan.shells, dry_run=True) if plan.modify_rc else []
        rcs = [w.path for w in rc_changes if w.changed]
        print(safe(summary(plan, licence, reference, action, files, rcs)))
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
        args = setup_wizard.ask(args, paths)
    if args.dry_run:
        print("Dry run: nothing changed.")
        return 0
    with store.locked():
        reference, image_id, action, digest = _ensure_image(plan, args, dry_run=False, consent_checked=True)
        toolchain = replace(toolchain, image=reference, image_id=image_id, digest=digest)
        faults.point("setup.image-ready", reference)
        note = verify(reference, plan, gpu_run_args(report, plan.targets[0]))
        faults.point("setup.verified", reference)
        tools = probe_tools(reference, plan)
        toolchain = replace(toolchain, tools=tools)
        state = store.read()
        runtime = tc.runtime_for(toolchain, paths, licence.acceptance_required)
        written = tc.install_files(paths, toolchain, runtime, make_default, dry_run=False)
        faults.point("setup.files-written", plan.name)
        if plan.modify_rc:
            written += tc.edit_shell_rcs(paths, plan.shells, dry_run=False)
            faults.point("setup.rc-edited", plan.name)
        state = tc.record(state.with_toolchain(toolchain, make_default), written)
        store.write(state)
        if licence.acceptance_required and status != "accepted":
            # Last: a kill before this leaves a toolchain that asks for consent, never the reverse.
            consents(paths).write(new_consent(licence, plan.use))
        _save_answers(paths, answers)
    env = Path(paths.home) / "env"
    if note:
        print(safe(f"  note: {note}"))
    missing = [t for t in candidate_tools(plan.flavour) if t not in tools]
    if missing:
        print(safe(f"  no shims for {', '.join(missing)}: the image does not have them"))
        print("  hint: install them in an image derived from it (FROM it; RUN apt-get install ...)")
    print(safe(f"Ready: toolchain {plan.name} ({action} {reference})."))
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


def _save_answers(paths: Paths, answers: Answers) -> None:
    import yaml

    from moatbridge.adapters.filesystem import atomic_write_text

    keep = {k: v for k, v in answers.to_json().items() if k not in ("accept-license", "name")}
    atomic_write_text(Path(paths.home) / "answers.yaml", yaml.safe_dump(keep, sort_keys=True))
