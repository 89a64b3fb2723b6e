"""`moatbridge bundle save|load|inspect`: a toolchain as one file, for machines without a registry.

save writes the image, a manifest and checksums (services/bundle_save.py);
load verifies every checksum before the engine sees a byte, loads the image,
checks the engine reports the manifest's image ID, and registers the toolchain
the way setup does (services/bundle_load.py). This module parses, shows the
progress the services count bytes into, and prints.
"""

from __future__ import annotations

import os
import sys
from argparse import Namespace
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from moatbridge.adapters.console import markup, print_json, safe, stdout_console
from moatbridge.core.bundle import Manifest
from moatbridge.core.listing import group_by_directory
from moatbridge.core.toolchains import validate_name
from moatbridge.paths import Paths
from moatbridge.services.bundle_load import LoadPlan, admit_bundle, load_bundle, plan_load
from moatbridge.services.bundle_save import plan_save, save_bundle
from moatbridge.services.bundle_verify import verify_bundle


def run(args: Namespace) -> int:
    if args.action == "save":
        return save(args)
    if args.action == "load":
        return load(args)
    return inspect(args)


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


def _showing(title: str) -> Callable[[int | None], _Bytes]:
    """The progress display a service opens for a transfer of so many bytes."""
    return lambda total: _Bytes(title, total)


def save(args: Namespace) -> int:
    plan = plan_save(Paths.from_environ(os.environ), args.toolchain, args.output, args.force,
                     to_terminal=args.output == "-" and sys.stdout.isatty())  # fmt: skip
    toolchain, output = plan.toolchain, plan.output
    said = sys.stdout if output is not None else sys.stderr  # with -o -, stdout is the bundle
    for notice in plan.manifest.notices:
        print(f"Notice: {notice}", file=said)
    sys.stdout.flush()
    saved = save_bundle(plan, _showing(f"Saving {toolchain.image}"), sys.stdout.buffer)
    where = "stdout" if output is None else str(output)
    print(safe(f"Saved toolchain {toolchain.name} to {where} ({_size(saved.size)})."), file=said)
    image = f"{toolchain.image} ({toolchain.image_id[:19]}, {_size(saved.image.size)})"
    print(safe(f"  image   {image}"), file=said)
    print(f"  sha256  {saved.image.sha256} (image.tar)", file=said)
    name = "FILE" if output is None else output.name
    print(safe(f"Next: copy it to the other machine and run  moatbridge bundle load {name}"), file=said)
    return 0


# --- load ----------------------------------------------------------------------------------


def _print_manifest_notices(manifest: Manifest) -> None:
    for notice in manifest.notices:
        print(safe(f"Notice: {notice}"))


def _plan_lines(plan: LoadPlan) -> list[str]:
    toolchain, files = plan.request.toolchain, list(plan.files)
    return [
        f"Toolchain {toolchain.name}: {toolchain.flavour} {toolchain.spec.variant}, target(s) "
        f"{', '.join(toolchain.targets)}, CUDA {toolchain.spec.cuda_version}"
        + (" (replaces the installed one of that name)" if plan.replacing else ""),
        f"  image   {toolchain.image} ({toolchain.image_id[:19]}, "
        + ("already in the engine)" if plan.present else f"load {_size(plan.image_size)})"),
        f"  licence {toolchain.licence}",
        "  write   " + ("\n          ".join(group_by_directory(files)) if files else "(nothing new)"),
    ]


def load(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    path = Path(args.file).expanduser().absolute()
    if args.name is not None:
        validate_name(args.name)
    # Every checksum, before anything else happens.
    verified = verify_bundle(path, _showing(f"Verifying {path.name}"))
    manifest = verified.manifest
    request = admit_bundle(paths, verified, args.name, args.move_tag)
    _print_manifest_notices(manifest)
    plan = plan_load(paths, request)
    toolchain = request.toolchain
    print(safe(f"Verified {path.name}: every member matches {verified.member('SHA256SUMS').name}."))
    print("\n".join(_plan_lines(plan)))
    if args.dry_run:
        print("Dry run: nothing changed.")
        return 0

    def tag_moved(was: str) -> None:
        print(safe(f"Moved the tag {toolchain.image} to the bundle's image (it was {was[:19]})."))

    load_bundle(paths, plan, _showing(f"Loading {manifest.toolchain.image}"), tag_moved)
    env = Path(paths.home) / "env"
    done = "found" if plan.present else "loaded"
    print(safe(f"Ready: toolchain {toolchain.name} ({done} {toolchain.image})."))
    print(safe(f"Next: run  . {env}  (or open a new shell) - then its tools run in the toolchain."))
    return 0


# --- inspect -------------------------------------------------------------------------------


def inspect(args: Namespace) -> int:
    path = Path(args.file).expanduser().absolute()
    verified = verify_bundle(path, _showing(f"Verifying {path.name}"))
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
