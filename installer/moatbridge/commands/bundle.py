"""`moatbridge bundle save|load|inspect`: a toolchain as one file, for machines without a registry.

save writes the image, a manifest and checksums (adapters/bundle_archive.py);
load verifies every checksum before the engine sees a byte, loads the image,
checks the engine reports the manifest's image ID, and registers the toolchain
the way setup does (state record, shims, activation files; rc files untouched).
"""

from __future__ import annotations

import os
import sys
from argparse import Namespace
from datetime import datetime, timezone
from pathlib import Path
from types import TracebackType
from typing import Any

from moatbridge import __version__
from moatbridge.adapters import bundle_archive, docker_api, faults, image_archive
from moatbridge.adapters.console import markup, print_json, safe, stdout_console
from moatbridge.adapters.records import load_licences
from moatbridge.core.bundle import IMAGE, BundleError, Manifest, build_manifest, toolchain_from
from moatbridge.core.bundle_image import ImageClaims, contradiction, image_claims
from moatbridge.core.licences import licence_of, require_consent
from moatbridge.core.listing import group_by_directory
from moatbridge.core.toolchains import State, Toolchain, validate_name
from moatbridge.errors import InputError, MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.consent import consents
from moatbridge.services.installation import install_files
from moatbridge.services.runtime import runtime_for
from moatbridge.services.toolchains import record, resolve_toolchain, state_store


def run(args: Namespace) -> int:
    if args.action == "save":
        return save(args)
    if args.action == "load":
        return load(args)
    return inspect(args)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _size(count: int) -> str:
    if count < 1e6:
        return f"{count} bytes"
    return f"{count / 1e9:.2f} GB" if count >= 1e9 else f"{count / 1e6:.1f} MB"


class _Bytes:
    """A byte progress bar on stderr when it is a terminal; one plain line otherwise."""

    def __init__(self, title: str, total: int | None) -> None:
        self.title, self.total = title, total
        self.live = sys.stderr.isatty()
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> _Bytes:
        if not self.live:
            print(safe(self.title), file=sys.stderr, flush=True)  # a path or tag from outside
            return self
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
            TimeRemainingColumn(), console=Console(stderr=True),
        )  # fmt: skip
        self._progress.start()
        self._task = self._progress.add_task(markup(self.title), total=self.total)
        return self

    def __call__(self, count: int) -> None:
        if self._progress is not None:
            self._progress.advance(self._task, count)

    def describe(self, text: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=markup(f"{self.title}: {text}"))

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            if kind is None:
                done = self._progress.tasks[0].completed
                self._progress.update(self._task, total=done, completed=done)
            self._progress.stop()


# --- save ----------------------------------------------------------------------------------


def save(args: Namespace) -> int:
    from moatbridge.adapters.records import load_catalog

    paths = Paths.from_environ(os.environ)
    toolchain = resolve_toolchain(state_store(paths).read(), args.toolchain, os.environ)
    output = Path(args.output).expanduser().absolute()
    if output.is_dir():
        raise InputError(f"{output} is a directory.", "pass a file name: -o DIR/NAME.tar")
    if output.exists() and not args.force:
        raise InputError(f"{output} already exists.", "pass --force to replace it, or choose another -o FILE")
    if not output.parent.is_dir():
        raise InputError(f"The directory {output.parent} does not exist.", "create it, or choose another -o")
    manifest = build_manifest(
        toolchain, load_catalog().flavour(toolchain.flavour), load_licences(), __version__, _now()
    )
    client = docker_api.connect(timeout=image_archive.SAVE_LOAD_TIMEOUT_S)
    image = docker_api.inspect_image(client, toolchain.image_id)
    if image is None:
        raise MoatbridgeError(
            f"The image of toolchain {toolchain.name} ({toolchain.image_id[:19]}) is not in the engine.",
            f"run 'moatbridge upgrade {toolchain.name}' to build or pull it again, then save",
        )
    for notice in manifest.notices:
        print(f"Notice: {notice}")
    # By ID: the bundle holds exactly the recorded image, whatever the tag points at now.
    with _Bytes(f"Saving {toolchain.image}", int(image.get("Size") or 0) or None) as progress:
        stream = image_archive.save_image_stream(client, toolchain.image_id)
        members = bundle_archive.write_bundle(
            output, manifest.to_bytes(), stream, force=args.force, on_bytes=progress
        )
    size = output.stat().st_size
    image_member = next(m for m in members if m.name == IMAGE)
    print(safe(f"Saved toolchain {toolchain.name} to {output} ({_size(size)})."))
    print(safe(f"  image   {toolchain.image} ({toolchain.image_id[:19]}, {_size(image_member.size)})"))
    print(f"  sha256  {image_member.sha256} (image.tar)")
    print(safe(f"Next: copy it to the other machine and run  moatbridge bundle load {output.name}"))
    return 0


# --- load ----------------------------------------------------------------------------------


def _check_licence(paths: Paths, manifest: Manifest, claims: ImageClaims) -> bool:
    """The consent rule, for the licence the manifest names (which must cover its flavour)
    and any the image's own labels name. Returns whether the runtime must enforce one."""
    t = manifest.toolchain
    problem = contradiction(manifest, claims)
    if problem is not None:
        raise BundleError(
            f"The bundle is mislabelled: {problem}; nothing was loaded.",
            "save it again with 'moatbridge bundle save' on the machine it came from",
        )
    records = load_licences()
    licences = [licence_of(records, t.licence, t.flavour)]
    licences += [records[i] for i in sorted(claims.licences) if i in records and i != t.licence]
    for licence in licences:
        if licence.acceptance_required:
            require_consent(licence, consents(paths).read(licence.id), "Loading this bundle")
    return licences[0].acceptance_required  # the runner enforces the toolchain's own licence


def _print_manifest_notices(manifest: Manifest) -> None:
    for notice in manifest.notices:
        print(safe(f"Notice: {notice}"))


def _verify(path: Path) -> bundle_archive.Verified:
    total = path.stat().st_size if path.is_file() else None
    with _Bytes(f"Verifying {path.name}", total) as progress:
        return bundle_archive.verify(path, on_bytes=progress)


def _plan_lines(verified: bundle_archive.Verified, toolchain: Toolchain, present: bool, state: State,
                files: list[str]) -> list[str]:  # fmt: skip
    image = verified.member(IMAGE)
    replacing = any(t.name == toolchain.name for t in state.toolchains)
    return [
        f"Toolchain {toolchain.name}: {toolchain.flavour} {toolchain.spec.variant}, target(s) "
        f"{', '.join(toolchain.targets)}, CUDA {toolchain.spec.cuda_version}"
        + (" (replaces the installed one of that name)" if replacing else ""),
        f"  image   {toolchain.image} ({toolchain.image_id[:19]}, "
        + ("already in the engine)" if present else f"load {_size(image.size)})"),
        f"  licence {toolchain.licence}",
        "  write   " + ("\n          ".join(group_by_directory(files)) if files else "(nothing new)"),
    ]


def _load_image(client: Any, verified: bundle_archive.Verified) -> None:
    """docker load the verified image.tar, then insist the engine has the manifest's image ID."""
    expected = verified.manifest.toolchain.image_id
    image = verified.member(IMAGE)
    with _Bytes(f"Loading {verified.manifest.toolchain.image}", image.size) as progress:

        def status(event: docker_api.StreamEvent) -> None:
            if event.kind == "status":
                progress.describe(event.text)

        chunks = bundle_archive.image_chunks(verified, on_bytes=progress)
        loaded = image_archive.load_image_stream(client, chunks, status)
    ids = {
        str(found["Id"])
        for ref in loaded
        if (found := docker_api.inspect_image(client, ref)) is not None
    }  # fmt: skip
    if ids != {expected}:
        raise MoatbridgeError(
            f"The engine loaded {', '.join(sorted(ids)) or 'nothing'} from the bundle, not the manifest's "
            f"image {expected}; nothing was registered.",
            "the bundle was not written by 'moatbridge bundle save'; remove that image with "
            "'docker rmi' and save the bundle again",
        )


def _tag(client: Any, toolchain: Toolchain) -> None:
    from moatbridge.core.references import parse_reference

    current = docker_api.inspect_image(client, toolchain.image)
    if current is not None and current["Id"] == toolchain.image_id:
        return
    ref = parse_reference(toolchain.image)
    docker_api.tag_image(client, toolchain.image_id, ref.repository, ref.tag or "latest")
    if current is not None:
        was = str(current["Id"])[:19]
        print(safe(f"Moved the tag {toolchain.image} to the bundle's image (it was {was})."))


def load(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    store = state_store(paths)
    path = Path(args.file).expanduser().absolute()
    if args.name is not None:
        validate_name(args.name)
    verified = _verify(path)  # every checksum, before anything else happens
    manifest = verified.manifest
    toolchain = toolchain_from(manifest, args.name or manifest.toolchain.name, _now())
    state = store.read()
    claims = image_claims(bundle_archive.image_metadata(verified), manifest.toolchain.image_id)
    licence_required = _check_licence(paths, manifest, claims)
    _print_manifest_notices(manifest)
    client = docker_api.connect(timeout=image_archive.SAVE_LOAD_TIMEOUT_S)
    present = docker_api.inspect_image(client, toolchain.image_id) is not None
    make_default = state.default is None or state.default == toolchain.name
    runtime = runtime_for(toolchain, paths, licence_required)
    changes = install_files(paths, toolchain, runtime, make_default, dry_run=True)
    files = [w.path for w in changes if w.changed]
    print(safe(f"Verified {path.name}: every member matches {verified.member('SHA256SUMS').name}."))
    print("\n".join(_plan_lines(verified, toolchain, present, state, files)))
    if args.dry_run:
        print("Dry run: nothing changed.")
        return 0
    with store.locked():
        if not present:
            _load_image(client, verified)
            faults.point("bundle.image-loaded", toolchain.image_id)
        _tag(client, toolchain)
        faults.point("bundle.tagged", toolchain.image)
        state = store.read()
        make_default = state.default is None or state.default == toolchain.name
        runtime = runtime_for(toolchain, paths, licence_required)
        written = install_files(paths, toolchain, runtime, make_default, dry_run=False)
        faults.point("bundle.files-written", toolchain.name)
        store.write(record(state.with_toolchain(toolchain, make_default), written))
    env = Path(paths.home) / "env"
    done = "found" if present else "loaded"
    print(safe(f"Ready: toolchain {toolchain.name} ({done} {toolchain.image})."))
    print(safe(f"Next: run  . {env}  (or open a new shell) - then its tools run in the toolchain."))
    return 0


# --- inspect -------------------------------------------------------------------------------


def inspect(args: Namespace) -> int:
    path = Path(args.file).expanduser().absolute()
    verified = _verify(path)
    manifest = verified.manifest
    if args.json:
        print_json({
            "file": str(path), "size": verified.size, "verified": True, "manifest": manifest.to_json(),
            "members": [{"name": m.name, "size": m.size, "sha256": m.sha256} for m in verified.members],
        })  # fmt: skip
        return 0
    from rich.table import Table

    t, f = manifest.toolchain, manifest.flavour
    title = f"Bundle {markup(path.name)} (checksums verified)"
    table = Table(title=title, title_justify="left", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    rows = [
        ("toolchain", t.name), ("flavour", f"{t.flavour} {t.variant} - {f.variant_description}"),
        ("targets", ", ".join(t.targets)), ("CUDA", t.cuda_version), ("ROCm", f.rocm),
        ("image", t.image), ("image ID", t.image_id), ("licence", t.licence),
        ("created", manifest.created), ("written by", f"moatbridge {manifest.moatbridge_version} "
                                                     f"(format {manifest.format_version})"),
        *((m.name, f"{_size(m.size)}  sha256 {m.sha256}") for m in verified.members),
    ]  # fmt: skip
    for key, value in rows:  # the manifest is the bundle's word: text, never markup or controls
        table.add_row(markup(key), markup(value))
    stdout_console().print(table)
    for notice in manifest.licences:
        print(safe(f"\n{notice.name} ({notice.id}):\n{notice.summary}\nFull terms: {notice.url}"))
    for text in manifest.notices:
        print(safe(f"\nNotice: {text}"))
    return 0
