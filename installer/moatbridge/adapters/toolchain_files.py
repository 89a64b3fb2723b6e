"""Writing and removing the files moatbridge owns on the host.

Every file carries moatbridge's marker; a file without it is the user's and is never
overwritten or deleted. Writes are atomic. rc files are edited only inside the
managed block, and the original bytes come back when the block is removed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from moatbridge.adapters.filesystem import atomic_write_text
from moatbridge.core.activation import MARKER, has_block, insert_block, remove_block
from moatbridge.errors import MoatbridgeError


class ForeignFileConflict(MoatbridgeError):
    exit_code = 2


@dataclass(frozen=True)
class Written:
    path: str
    kind: str
    created: bool  # False: it existed (ours, or an rc file we edited)
    changed: bool


def is_ours(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return MARKER in head


def write_owned(path: Path, text: str, kind: str, mode: int = 0o644, dry_run: bool = False) -> Written:
    """Create or refresh a moatbridge file; refuse to replace anything else."""
    exists = path.exists() or path.is_symlink()
    if exists and not is_ours(path):
        raise ForeignFileConflict(
            f"{path} exists and was not written by moatbridge; it is left untouched.",
            "move it aside (or remove it) and run again",
        )
    current = path.read_text(encoding="utf-8") if exists and path.is_file() else None
    changed = current != text or (exists and (path.stat().st_mode & 0o777) != mode)
    if changed and not dry_run:
        atomic_write_text(path, text, mode)
    return Written(str(path), kind, created=not exists, changed=changed)


def remove_owned(path: Path, dry_run: bool = False) -> bool:
    """Delete a file only if it carries the marker; True when something was (or would be) removed."""
    if not path.exists() or not is_ours(path):
        return False
    if not dry_run:
        path.unlink()
    return True


def edit_rc(path: Path, block: str, dry_run: bool = False) -> Written:
    """Add the managed block (idempotent); creates the rc file if it did not exist."""
    existed = path.exists()
    original = path.read_text(encoding="utf-8") if existed else ""
    updated = insert_block(original, block)
    changed = updated != original
    if changed and not dry_run:
        mode = path.stat().st_mode & 0o777 if existed else 0o644
        atomic_write_text(path, updated, mode)
    return Written(str(path), "rc-block", created=not existed, changed=changed)


def unedit_rc(path: Path, created: bool, dry_run: bool = False) -> bool:
    """Remove the managed block; delete the file if moatbridge created it and nothing else remains."""
    if not path.exists():
        return False
    original = path.read_text(encoding="utf-8")
    if not has_block(original):
        return False
    restored = remove_block(original)
    if dry_run:
        return True
    if created and restored == "":
        path.unlink()
    else:
        atomic_write_text(path, restored, path.stat().st_mode & 0o777)
    return True


def remove_empty_dirs(root: Path, below: Path) -> None:
    """Remove empty directories from ``root`` up to (not including) ``below``."""
    current = root
    while current != below and below in current.parents:
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


def rc_files_for(shells: tuple[str, ...], home: str) -> dict[str, Path]:
    """The rc file each shell reads for interactive sessions."""
    candidates = {
        "bash": Path(home) / ".bashrc",
        "zsh": Path(os.environ.get("ZDOTDIR") or home) / ".zshrc",
        "fish": Path(os.environ.get("XDG_CONFIG_HOME") or f"{home}/.config")
        / "fish"
        / "conf.d"
        / "moatbridge.fish",
        "dash": Path(home) / ".profile",
    }
    return {shell: candidates[shell] for shell in shells if shell in candidates}
