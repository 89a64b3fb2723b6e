"""Writing generated files into a user's project (devcontainer.json, CI workflows).

The user owns these files: an existing one is never replaced without --force, and the
difference is always shown first. Writes are atomic.
"""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path

from moatbridge.adapters.filesystem import atomic_write_text, output_exists
from moatbridge.adapters.hostfs import read_limited
from moatbridge.core.textsafe import printable
from moatbridge.errors import InputError

OUTPUT_FILE_LIMIT = 16 << 20  # generated files are a few KB; anything larger is not ours


def project_directory(value: str) -> Path:
    """--dir: the project the files are written into (it must exist)."""
    project = Path(os.path.realpath(value))  # Path.resolve raises RuntimeError on a symlink loop
    if not project.is_dir():
        raise InputError(f"{value} is not a directory.", "pass the project directory with --dir")
    return project


def unified_diff(path: Path, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"{path} (now)", f"{path} (generated)"
    )
    return "".join(lines)


def existing_text(path: Path, what: str) -> str | None:
    """What an output path holds now: None when nothing is there; its text otherwise
    (bytes that are not UTF-8 shown as replacement characters). A symlink, directory,
    FIFO, device or huge file is refused: a generated file goes to a new or regular file."""
    if not output_exists(path, what, "choose another path (a new or regular file)"):
        return None
    try:
        return read_limited(path, OUTPUT_FILE_LIMIT, follow_links=False).decode("utf-8", "replace")
    except FileNotFoundError:
        return None  # removed meanwhile
    except OSError as exc:
        raise InputError(
            f"{path} cannot be replaced by the {what}: {exc.strerror or exc}.",
            "choose another path (a new or regular file)",
        ) from None


def write_project_file(path: Path, text: str, force: bool, dry_run: bool, what: str) -> str:
    """Write `text` to `path`; returns what happened: created, replaced, unchanged, would-*."""
    old = existing_text(path, what)
    if old == text:
        return "unchanged"
    if old is not None:
        sys.stderr.write(printable(unified_diff(path, old, text)))  # their file: no controls
        if not force:
            raise InputError(
                f"{path} already exists and differs from the generated {what} (diff above).",
                "keep yours, or pass --force to replace it",
            )
    if dry_run:
        if old is None:
            sys.stdout.write(text)
        return "would create" if old is None else "would replace"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, text)
    return "created" if old is None else "replaced"
