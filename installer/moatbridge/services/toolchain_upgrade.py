"""Moving an installed toolchain to a newer image made the way its recorded ImageSpec says:
the new image first, verified and probed, then the switch (the old one keeps serving until
then; shims name it by ID)."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from moatbridge.adapters import faults
from moatbridge.core.image_spec import RunOptions
from moatbridge.core.licences import Licence
from moatbridge.core.toolchains import State, Toolchain
from moatbridge.errors import InputError
from moatbridge.paths import Paths
from moatbridge.services.images import EnsuredImage, ensure_image
from moatbridge.services.installation import install_files
from moatbridge.services.runtime import runtime_for
from moatbridge.services.toolchains import record, state_store
from moatbridge.services.verify import probe_tools, verify


def _again(toolchain: Toolchain, what: str) -> str:
    """The setup command line that replaces the toolchain, with ``what`` given anew."""
    spec, source = toolchain.spec, toolchain.spec.source
    words = [f"moatbridge setup --yes --name {toolchain.name} --flavour {toolchain.flavour}",
             *(f"--target {t}" for t in toolchain.targets), f"--variant {spec.variant}",
             f"--cuda-version {spec.cuda_version}", what,
             *([f"--base-image {source.base_image}"] if source.base_image else []),
             *(f"--build-arg {a}" for a in source.build_args), "..."]  # fmt: skip
    return " ".join(words)


def check_repeatable(toolchain: Toolchain) -> None:
    """Refuse (exit 2) what upgrade cannot redo alone: never a silent change of channel."""
    source = toolchain.spec.source
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


@dataclass(frozen=True)
class Upgrade:
    image: EnsuredImage
    state: State
    upgraded: bool  # False: a dry run, or the image is the one in use


def upgrade(
    toolchain: Toolchain, licence: Licence, state: State, paths: Paths, options: RunOptions
) -> Upgrade:
    """Upgrade one toolchain under the state lock (the caller holds it); the new state."""
    image = ensure_image(toolchain.spec, options)
    if options.dry_run or image.image_id == toolchain.image_id:
        return Upgrade(image, state, upgraded=False)
    faults.point("upgrade.image-ready", image.reference)
    verify(image.reference, toolchain.spec)  # the old image stays in use if this fails
    tools = probe_tools(image.reference, toolchain.spec)  # the new image may have other commands
    faults.point("upgrade.verified", image.reference)
    upgraded = replace(
        toolchain, image=image.reference, image_id=image.image_id, digest=image.digest or toolchain.digest,
        tools=tools,
    )  # fmt: skip
    default = state.default == toolchain.name
    runtime = runtime_for(upgraded, paths, licence.acceptance_required)
    written = install_files(paths, upgraded, runtime, default, dry_run=False)
    faults.point("upgrade.files-written", toolchain.name)
    state = record(state.with_toolchain(upgraded, default), written)
    state_store(paths).write(state)
    # The warm container still runs the old image: without its PID file the next shim
    # call goes through toolchain-warm, which recreates it on the new image.
    pid_file = os.path.join(paths.home, "run", f"{toolchain.name}.pid")
    if os.path.exists(pid_file):
        os.unlink(pid_file)
    if toolchain.image_id not in {t.image_id for t in state.toolchains}:
        from moatbridge.adapters import docker_api
        from moatbridge.services.image_users import other_user

        client = docker_api.connect()
        if other_user(paths, client, toolchain.image_id) is None:  # another home's toolchain keeps it
            docker_api.remove_unused_image(client, toolchain.image_id)
            faults.point("upgrade.old-image-removed", toolchain.image_id)
    return Upgrade(image, state, upgraded=True)
