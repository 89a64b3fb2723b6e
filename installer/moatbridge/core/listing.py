"""Lists of paths as people read them in a summary (pure)."""

from __future__ import annotations


def group_by_directory(files: list[str]) -> list[str]:
    """One line per directory: 'DIR/: a, b, c' keeps a 30-file summary readable."""
    by_dir: dict[str, list[str]] = {}
    for path in files:
        directory, _, name = path.rpartition("/")
        by_dir.setdefault(directory, []).append(name)
    return [f"{d}/: {', '.join(names)}" for d, names in by_dir.items()]
