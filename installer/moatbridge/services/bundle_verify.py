"""Checking a bundle file against its checksums before anything trusts a byte of it
(`bundle load` and `bundle inspect` both start here)."""

from __future__ import annotations

from pathlib import Path

from moatbridge.adapters import bundle_archive
from moatbridge.services.bundle_progress import OpenProgress


def verify_bundle(path: Path, show: OpenProgress) -> bundle_archive.Verified:
    """Hash every member, counting the bytes into the verb's display; raise unless all match."""
    total = path.stat().st_size if path.is_file() else None
    with show(total) as progress:
        return bundle_archive.verify(path, on_bytes=progress)
