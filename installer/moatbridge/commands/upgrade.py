"""`moatbridge upgrade [NAME] [--rebuild]`: a newer image first, verified, then the switch.

Consent first: a licence-gated toolchain is neither built nor run without it. The image
is made the way setup made it (the toolchain's recorded ImageSource: the same repository,
base image and build args; a tarball toolchain needs the newer tarball, through setup).
The old image keeps serving (shims reference it by ID) until the new one has compiled
the sample and its shim commands are probed again; only then does the toolchain point at
the new image, and its warm container is recreated on next use.
"""

from __future__ import annotations

import os
import sys
from argparse import Namespace
from dataclasses import replace

from moatbridge.adapters import faults
from moatbridge.adapters.console import safe
from moatbridge.commands import _toolchain as tc
from moatbridge.commands._consent import require_for
from moatbridge.commands.setup import _ensure_image, check_commercial
from moatbridge.commands.setup_verify import probe_tools, verify
from moatbridge.core.licences import Licence
from moatbridge.core.setup_plan import SetupPlan
from moatbridge.core.toolchains import ImageSource, Toolchain
from moatbridge.errors import InputError
from moatbridge.paths import Paths


def _again(toolchain: Toolchain, what: str) -> str:
    """The setup command line that replaces the toolchain, with ``what`` given anew."""
    source = toolchain.source or ImageSource("repository")
    words = [f"moatbridge setup --yes --name {toolchain.name} --flavour {toolchain.flavour}",
             *(f"--target {t}" for t in toolchain.targets), f"--variant {toolchain.variant}",
             f"--cuda-version {toolchain.cuda_version}", what,
             *([f"--base-image {source.base_image}"] if source.base_image else []),
             *(f"--build-arg {a}" for a in source.build_args), "..."]  # fmt: skip
    return " ".join(words)


def check_repeatable(toolchain: Toolchain) -> None:
    """Refuse (exit 2) what upgrade cannot redo alone: never a silent change of channel."""
    source = toolchain.source
    if source is None:
        return
    if source.channel == "tarball":
        sha = f", sha256 {source.tarball_sha256[:12]}..." if source.tarball_sha256 else ""
        raise InputError(
            f"Toolchain {toolchain.name} was built from the tarball {source.tarball}{sha}: "
            "an upgrade needs the newer tarball.",
            f"run  {_again(toolchain, '--tarball NEWFILE')}  (setup replaces the toolchain)",
        )
    if source.repo_url_secret:
        raise InputError(
            f"Toolchain {toolchain.name} was built from {source.repo_url}, whose token moatbridge "
            "does not store: an upgrade needs the URL again.",
            f"run  {_again(toolchain, '--repo-url URL')}  (setup replaces the toolchain)",
        )


def _plan(toolchain: Toolchain) -> SetupPlan:
    source = toolchain.source
    pulled = source.channel == "registry" if source is not None else toolchain.digest is not None
    return SetupPlan(
        name=toolchain.name, flavour=toolchain.flavour, variant=toolchain.variant,
        targets=toolchain.targets, cuda_version=toolchain.cuda_version,
        distro=toolchain.distro, stack_reason="as installed", check_valid_until=None,
        source="pull" if pulled else "build",
        registry=toolchain.image.rsplit("/", 1)[0] if pulled and toolchain.digest else None,
        licence=toolchain.licence, shells=(), modify_rc=False, warnings=(),
        # A commercial SCALE toolchain is rebuilt from its customer repository.
        use="commercial" if toolchain.licence == "scale-commercial" else "non-commercial",
        customer=toolchain.customer, credentials_file=toolchain.credentials_file,
    )  # fmt: skip


def _image_args(toolchain: Toolchain) -> Namespace:
    """The build flags setup was given, as recorded (older state: the catalog's defaults)."""
    source = toolchain.source or ImageSource("repository")
    return Namespace(
        base="auto", mirror=None, json=False, base_image=source.base_image, repo_url=source.repo_url,
        build_arg=list(source.build_args), tarball=None,
    )  # fmt: skip


def run(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    store = tc.store(paths)
    if args.name:
        store.read().toolchain(args.name)  # an unknown name: refused before the lock file is made
    with store.locked():
        state = store.read()
        names = [state.toolchain(args.name).name] if args.name else [t.name for t in state.toolchains]
        licences: dict[str, Licence] = {}
        for name in list(names):  # every refusal before anything is built or run
            toolchain = state.toolchain(name)
            licences[name] = require_for(paths, toolchain, f"Upgrading toolchain {name}")
            try:
                check_repeatable(toolchain)
            except InputError as exc:
                if args.name:
                    raise
                # Upgrading them all: this one waits for its new tarball (or URL); the rest go on.
                sys.stderr.write(
                    safe(f"moatbridge: {name} skipped: {exc.message}\n  hint: {exc.hint}") + "\n"
                )
                names.remove(name)
                continue
            plan = _plan(toolchain)
            if plan.flavour == "scale" and plan.use == "commercial":
                check_commercial(plan, _image_args(toolchain), paths)
        for name in names:
            toolchain = state.toolchain(name)
            plan = _plan(toolchain)
            reference, image_id, action, digest = _ensure_image(
                plan, _image_args(toolchain), dry_run=args.dry_run, rebuild=args.rebuild
            )
            if args.dry_run or image_id == toolchain.image_id:
                said = "would check" if args.dry_run else "already up to date with"
                print(safe(f"{name}: {said} {reference}"))
                continue
            faults.point("upgrade.image-ready", reference)
            verify(reference, plan)  # the old image stays in use if this fails
            tools = probe_tools(reference, plan)  # the new image may have other commands
            faults.point("upgrade.verified", reference)
            upgraded = replace(
                toolchain, image=reference, image_id=image_id, digest=digest or toolchain.digest, tools=tools
            )
            runtime = tc.runtime_for(upgraded, paths, licences[name].acceptance_required)
            written = tc.install_files(paths, upgraded, runtime, state.default == name, dry_run=False)
            faults.point("upgrade.files-written", name)
            state = tc.record(state.with_toolchain(upgraded, state.default == name), written)
            store.write(state)
            # The warm container still runs the old image: without its PID file the next shim
            # call goes through toolchain-warm, which recreates it on the new image.
            pid_file = os.path.join(paths.home, "run", f"{name}.pid")
            if os.path.exists(pid_file):
                os.unlink(pid_file)
            if toolchain.image_id not in {t.image_id for t in state.toolchains}:
                from moatbridge.adapters import docker_api

                docker_api.remove_unused_image(docker_api.connect(), toolchain.image_id)
                faults.point("upgrade.old-image-removed", toolchain.image_id)
            print(safe(f"{name}: upgraded to {reference} ({image_id[7:19]}, {action})"))
    return 0
