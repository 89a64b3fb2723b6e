"""What a build sends the engine from its context folder, and the digest that stands for it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def _ignore_patterns(root: Path) -> list[str] | None:
    """The context's .dockerignore patterns, read as the Docker SDK reads them (lines
    stripped, blank lines and comments dropped); None when there is no such file."""
    try:
        text = (root / ".dockerignore").read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def sent_files(root: Path, dockerfile: str) -> set[str] | None:
    """The paths (relative, POSIX) a build of ``root`` sends, by the SDK's own matcher; None
    when a .dockerignore leaves nothing out (everything is sent)."""
    patterns = _ignore_patterns(root)
    if patterns is None:
        return None
    from docker.utils.build import exclude_paths

    return {Path(path).as_posix() for path in exclude_paths(str(root), patterns, dockerfile=dockerfile)}


def context_digest(root: Path, dockerfile: str) -> str:
    """sha256 over every regular file of the context the build sends (relative path, mode bit
    x, content), so a change to a file the image never sees (the toolkit's tests) rebuilds
    nothing. Python's byte-code caches never count."""
    sent = sent_files(root, dockerfile)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        relative = path.relative_to(root).as_posix()
        if sent is not None and relative not in sent:
            continue
        executable = os.access(path, os.X_OK)
        digest.update(f"{relative}\0{int(executable)}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def files_digest(folder: Path, names: tuple[str, ...]) -> str:
    """Over some files of a folder only, for a recipe that shares its folder with others
    (SCALE's tarball recipe beside the apt and dnf ones)."""
    digest = hashlib.sha256()
    for name in names:
        digest.update(f"{name}\0".encode() + hashlib.sha256((folder / name).read_bytes()).digest())
    return digest.hexdigest()
