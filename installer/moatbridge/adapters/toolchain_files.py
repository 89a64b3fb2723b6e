"""Writing and removing the files moatbridge owns on the host.

Every file carries moatbridge's marker; a file without it is the user's and is never
overwritten or deleted. Writes are atomic. rc files are edited only inside the
managed block, byte for byte (core.rc_block), through symlinks, keeping mode, owner and
hard links, and the original bytes come back when the block is removed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from moatbridge.adapters import faults
from moatbridge.adapters.filesystem import (
    atomic_write_text,
    finish_interrupted_rewrite,
    refuse_unkeepable_owner,
    rewrite_preserving,
    sweep_stale_temps,
)
from moatbridge.adapters.hostfs import read_head
from moatbridge.core import rc_block
from moatbridge.core.activation import has_marker_header
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import xdg_dir

MAX_OWNED_BYTES = 1 << 20  # far more than any file moatbridge writes (env files, runners, shims)


class ForeignFileConflict(MoatbridgeError):
    exit_code = 2


class RcFileError(MoatbridgeError):
    """An rc file that cannot be edited (a directory, unreadable)."""

    exit_code = 2


@dataclass(frozen=True)
class Written:
    path: str
    kind: str
    created: bool  # False: it existed (ours, or an rc file we edited)
    changed: bool


def is_ours(path: Path) -> bool:
    """A regular file whose header line is moatbridge's (core.activation.has_marker_header)."""
    try:
        return has_marker_header(read_head(path, 4096, follow_links=False))
    except OSError:
        return False


def write_owned(path: Path, text: str, kind: str, mode: int = 0o644, dry_run: bool = False) -> Written:
    """Create or refresh a moatbridge file; refuse to replace anything else."""
    exists = path.exists() or path.is_symlink()
    if exists and not is_ours(path):
        raise ForeignFileConflict(
            f"{path} exists and was not written by moatbridge; it is left untouched.",
            "move it aside (or remove it) and run again",
        )
    # Bytes, not text: a file of ours damaged into bytes that are not UTF-8 is rewritten, not a crash.
    current = read_head(path, MAX_OWNED_BYTES + 1, follow_links=False) if exists and path.is_file() else None
    changed = current != text.encode("utf-8") or (exists and (path.stat().st_mode & 0o777) != mode)
    if changed and not dry_run:
        atomic_write_text(path, text, mode)
    return Written(str(path), kind, created=not exists, changed=changed)


def remove_owned(path: Path, dry_run: bool = False) -> bool:
    """Delete a file only if it carries the marker; True when something was (or would be) removed."""
    if not path.exists() or not is_ours(path):
        return False
    if not dry_run:
        faults.point("remove.before-unlink", str(path))
        path.unlink()
    return True


def _rc_target(path: Path) -> Path:
    """Where an rc file's bytes live: through a symlink (a dotfiles repository) to its target.
    Anything but a regular file (or none yet, in a folder that exists) is refused."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    if path.is_symlink() and not target.exists() and not target.parent.is_dir():
        # A dangling link into a folder that is not there (a dotfiles checkout not made yet):
        # making the folders would leave what no uninstall can tell from the user's own.
        raise RcFileError(f"{path} is a link to {target}, in a folder that does not exist; it is left alone.",
                          "create that folder (or remove the link), then run again")  # fmt: skip
    if target.exists() and not target.is_file():
        raise RcFileError(f"{path} is not a regular file; its moatbridge block is left alone.",
                          f"make {path} a file (or remove it) and run again")  # fmt: skip
    return target


def _read_rc(target: Path) -> bytes:
    try:
        return target.read_bytes() if target.exists() else b""
    except OSError as error:
        raise RcFileError(f"{target} cannot be read: {error.strerror}.", "check its permissions") from error


def edit_rc(path: Path, block: list[bytes], dry_run: bool = False) -> Written:
    """Add the managed block (idempotent); creates the rc file if it did not exist. The
    user's bytes (encoding, line endings, final newline) stay as they are."""
    target = _rc_target(path)
    if not dry_run:
        sweep_stale_temps(target.parent, target.name)
        finish_interrupted_rewrite(target)
    existed = target.exists()
    original = _read_rc(target)
    updated = rc_block.insert(original, block, str(path))
    changed = updated != original
    if changed and existed:
        refuse_unkeepable_owner(target, target.stat())  # on setup's dry run too: before anything is written
    if changed and not dry_run:
        rewrite_preserving(target, updated)
    return Written(str(path), "rc-block", created=not existed, changed=changed)


def unedit_rc(path: Path, created: bool, dry_run: bool = False) -> bool:
    """Remove the managed block; delete the file if moatbridge created it and nothing else remains."""
    target = _rc_target(path)
    if not dry_run:
        sweep_stale_temps(target.parent, target.name)
        finish_interrupted_rewrite(target)
    original = _read_rc(target)
    restored = rc_block.remove(original, str(path))  # parses (and checks) the block once
    if not target.exists() or restored == original:  # no block: nothing was taken out
        return False
    refuse_unkeepable_owner(target, target.stat())
    if dry_run:
        return True
    if created and restored == b"":
        # Created by setup (for a dangling link: the link's target): it goes, the link stays.
        faults.point("remove.before-unlink", str(target))
        target.unlink()
    else:
        rewrite_preserving(target, restored)
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


def rc_files_for(shells: tuple[str, ...], home: str, environ: Mapping[str, str]) -> dict[str, Path]:
    """The rc file each shell reads for interactive sessions (a relative XDG_CONFIG_HOME is
    ignored, as the XDG spec says; a relative ZDOTDIR is refused before any command runs)."""
    config = xdg_dir(environ, "XDG_CONFIG_HOME") or f"{home}/.config"
    candidates = {
        "bash": Path(home) / ".bashrc",
        "zsh": Path(environ.get("ZDOTDIR") or home) / ".zshrc",
        "fish": Path(config) / "fish" / "conf.d" / "moatbridge.fish",
        "dash": Path(home) / ".profile",
    }
    return {shell: candidates[shell] for shell in shells if shell in candidates}
