"""`moatbridge upgrade [NAME] [--rebuild]`: a newer image first, verified, then the switch.

The old image keeps serving (shims reference it by ID) until the new one has
compiled the sample; only then does the toolchain point at the new image, and its
warm container is recreated on next use.
"""

from __future__ import annotations

import os
from argparse import Namespace
from dataclasses import replace

from moatbridge.adapters import faults
from moatbridge.adapters.console import safe
from moatbridge.commands import _toolchain as tc
from moatbridge.commands._consent import require_for
from moatbridge.commands.setup import _ensure_image
from moatbridge.commands.setup_verify import verify
from moatbridge.core.setup_plan import SetupPlan
from moatbridge.paths import Paths


def run(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    store = tc.store(paths)
    if args.name:
        store.read().toolchain(args.name)  # an unknown name: refused before the lock file is made
    with store.locked():
        state = store.read()
        names = [state.toolchain(args.name).name] if args.name else [t.name for t in state.toolchains]
        for name in names:
            toolchain = state.toolchain(name)
            plan = SetupPlan(
                name=toolchain.name, flavour=toolchain.flavour, variant=toolchain.variant,
                targets=toolchain.targets, cuda_version=toolchain.cuda_version,
                distro=toolchain.distro, stack_reason="as installed", check_valid_until=None,
                source="build" if toolchain.digest is None else "pull",
                registry=toolchain.image.rsplit("/", 1)[0] if toolchain.digest else None,
                licence=toolchain.licence, shells=(), modify_rc=False, warnings=(),
                # A commercial SCALE toolchain is rebuilt from its customer repository.
                use="commercial" if toolchain.licence == "scale-commercial" else "non-commercial",
                customer=toolchain.customer, credentials_file=toolchain.credentials_file,
            )  # fmt: skip
            image_args = Namespace(base="auto", mirror=None, json=False)
            reference, image_id, action, digest = _ensure_image(
                plan, image_args, dry_run=args.dry_run, rebuild=args.rebuild
            )
            if args.dry_run or image_id == toolchain.image_id:
                said = "would check" if args.dry_run else "already up to date with"
                print(safe(f"{name}: {said} {reference}"))
                continue
            faults.point("upgrade.image-ready", reference)
            verify(reference, plan)  # the old image stays in use if this fails
            faults.point("upgrade.verified", reference)
            upgraded = replace(
                toolchain, image=reference, image_id=image_id, digest=digest or toolchain.digest
            )
            licence = require_for(paths, toolchain, f"Upgrading toolchain {name}")
            runtime = tc.runtime_for(upgraded, paths, licence.acceptance_required)
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
