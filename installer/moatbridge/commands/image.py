"""`moatbridge image list`, `image stacks` and `image remove`: the images moatbridge made."""

from __future__ import annotations

import os
from argparse import Namespace
from typing import Any

from moatbridge.adapters import docker_api
from moatbridge.adapters.console import markup, print_json, safe, stdout_console
from moatbridge.core.build_plan import LABEL_PREFIX, MANAGED_LABEL
from moatbridge.errors import MoatbridgeError, UsageError
from moatbridge.paths import Paths

GB = 1_000_000_000


def run(args: Namespace) -> int:
    """list, stacks and remove (build, pull and push are verbs of their own: parser.MODULES)."""
    if args.image_command == "list":
        return list_images(args)
    if args.image_command == "stacks":
        return list_stacks(args)
    return remove_images(args)


def _label(image: dict[str, Any], key: str) -> str:
    return str((image.get("Labels") or {}).get(f"{LABEL_PREFIX}{key}", ""))


def _rows(client: Any) -> list[dict[str, Any]]:
    rows = []
    for image in docker_api.list_images(client, f"{MANAGED_LABEL}=1"):
        tags = [t for t in image.get("RepoTags") or [] if t != "<none>:<none>"]
        rows.append(
            {
                "references": tags,
                "id": image["Id"],
                "digests": image.get("RepoDigests") or [],
                "flavour": _label(image, "flavour") or None,
                "variant": _label(image, "variant") or None,
                "targets": [t for t in _label(image, "targets").split(",") if t],
                "cuda_version": _label(image, "cuda-version") or None,
                "distro": _label(image, "distro") or None,
                "rocm_version": _label(image, "rocm-version") or None,
                "licence": _label(image, "licence") or None,
                "recipe_digest": _label(image, "recipe-digest") or None,
                "size": image.get("Size"),
            }
        )
    return sorted(rows, key=lambda r: (r["flavour"] or "", r["references"][:1]))


def list_stacks(args: Namespace) -> int:
    """The catalog's stacks (no engine needed): what each is and which GPUs it serves."""
    from moatbridge.adapters.records import load_catalog
    from moatbridge.core.stacks import coverage_markdown, stack_rows

    flavour = load_catalog().flavour("open")
    if args.json:
        print_json({"stacks": stack_rows(flavour)})
        return 0
    if args.markdown:
        print(coverage_markdown(flavour), end="")
        return 0
    from rich.table import Table

    table = Table(title="open flavour stacks (oldest first)", title_justify="left")
    for column in ("stack", "status", "ROCm", "clang", "libraries serve", "Valid-Until"):
        table.add_column(column, overflow="fold")
    for row in stack_rows(flavour):
        served = ", ".join(row["library_targets"])
        checked = "checked" if row["valid_until_checked"] else "not checked"
        table.add_row(*(markup(str(c)) for c in (row["distro"], row["status"], row["rocm"], row["clang"],
                                                   served, checked)))  # fmt: skip
    stdout_console().print(table)
    print("The full stack x GPU table: moatbridge image stacks --markdown (docs/images.md)")
    return 0


# What the flavour, variant/stack, targets, CUDA and size columns need beside the reference.
_DETAIL_COLUMNS_WIDTH = 64


def list_images(args: Namespace) -> int:
    client = docker_api.connect()
    rows = _rows(client)
    if args.json:
        print_json({"images": rows})
        return 0
    from rich.table import Table

    console = stdout_console()
    references = ["\n".join(row["references"]) or row["id"][7:19] for row in rows]
    widest = max((len(line) for ref in references for line in ref.splitlines()), default=0)
    # References are copied into commands: never folded. Where the full table does not fit
    # beside them, the details share one column under a word-wrapped description.
    compact = console.width < widest + _DETAIL_COLUMNS_WIDTH
    table = Table(title="moatbridge images", title_justify="left")
    table.add_column("reference", no_wrap=True)
    for column in ("image",) if compact else ("flavour", "variant", "targets", "CUDA", "size"):
        table.add_column(column, overflow="fold")
    for reference, row in zip(references, rows, strict=True):  # tags and labels: text, not markup
        stack = " ".join(
            x for x in (row["distro"], row["rocm_version"] and f"ROCm {row['rocm_version']}") if x
        )
        size = f"{(row['size'] or 0) / GB:.2f} GB"
        targets = ",".join(row["targets"]) or "-"
        if compact:
            what = f"{row['flavour']} {row['variant'] or ''}".strip() if row["flavour"] else "base image"
            cuda = row["cuda_version"] and f"CUDA {row['cuda_version']}"
            details = (what, stack, row["targets"] and f"targets {targets}", cuda, size)
            table.add_row(markup(reference), markup(", ".join(d for d in details if d)))
            continue
        variant = "\n".join(x for x in (row["variant"] or "-", stack) if x)
        cells = (row["flavour"] or "base", variant, targets, row["cuda_version"] or "-", size)
        table.add_row(markup(reference), *(markup(cell) for cell in cells))
    console.print(table if rows else "No moatbridge images yet: moatbridge image build --flavour open")
    return 0


def remove_images(args: Namespace) -> int:
    from moatbridge.core.references import parse_reference

    if not args.references and not args.all_managed:  # bad input: said before the engine is asked
        raise UsageError(
            "Name the images to remove.", "moatbridge image remove REF [REF...] or --all-managed"
        )
    for ref in args.references:  # a name or ID ('sha256:...' reads as one): never a path into the API's URL
        parse_reference(ref)
    from moatbridge.services.image_users import any_user

    paths = Paths.from_environ(os.environ)
    client = docker_api.connect()
    targets: list[str] = list(args.references)
    if args.all_managed:
        targets += [r["references"][0] if r["references"] else r["id"] for r in _rows(client)]
    if not targets:
        raise UsageError(
            "Name the images to remove.", "moatbridge image remove REF [REF...] or --all-managed"
        )
    for ref in targets:
        image = docker_api.inspect_image(client, ref)
        if image is None:
            raise MoatbridgeError(f"There is no image {ref}.", "see 'moatbridge image list'")
        labels = (image.get("Config") or {}).get("Labels") or {}
        if labels.get(MANAGED_LABEL) != "1" and not args.force:
            raise MoatbridgeError(
                f"{ref} was not made by moatbridge; it is left alone.",
                "remove it with docker, or pass --force",
            )
        user = None if args.force else any_user(paths, client, str(image.get("Id") or ""), ref)
        if user is not None:  # a toolchain of this home or another records it
            raise MoatbridgeError(f"{ref} is still in use ({user}); it is left alone.",
                                  "uninstall that toolchain first, or pass --force")  # fmt: skip
    removed = []
    for ref in targets:
        if not args.dry_run:
            docker_api.remove_image(client, ref, force=args.force)
        removed.append(ref)
    if args.json:
        print_json({"removed": removed, "dry_run": args.dry_run})
    else:
        verb = "Would remove" if args.dry_run else "Removed"
        for ref in removed:
            print(safe(f"{verb} {ref}"))
    return 0
