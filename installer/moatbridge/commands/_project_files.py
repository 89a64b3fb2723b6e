"""Writing generated files into a user's project (devcontainer.json, CI workflows).

The user owns these files: an existing one is never replaced without --force, and the
difference is always shown first. Writes are atomic.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from moatbridge.adapters.filesystem import atomic_write_text
from moatbridge.errors import InputError


def project_directory(value: str) -> Path:
    """--dir: the project the files are written into (it must exist)."""
    project = Path(value).resolve()
    if not project.is_dir():
        raise InputError(f"{value} is not a directory.", "pass the project directory with --dir")
    return project


def unified_diff(path: Path, old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"{path} (now)", f"{path} (generated)"
    )
    return "".join(lines)


def write_project_file(path: Path, text: str, force: bool, dry_run: bool, what: str) -> str:
    """Write `text` to `path`; returns what happened: created, replaced, unchanged, would-*."""
    if path.is_dir():
        raise InputError(f"{path} is a directory, not a file.", "pass a project directory with --dir")
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return "unchanged"
    if old is not None:
        sys.stderr.write(unified_diff(path, old, text))
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
