"""The records shipped with moatbridge, read from disk: the image catalog and the licences.

Parsing and validation are core's (core.catalog, core.licences); this module finds the
files (the wheel's copy, a checkout's, or MOATBRIDGE_CATALOG / MOATBRIDGE_LICENSES) and
reads them bounded, regular files only, so an override pointing at a FIFO cannot hang.
"""

from __future__ import annotations

import os
from pathlib import Path

from moatbridge.adapters.hostfs import read_limited
from moatbridge.core.catalog import Catalog, CatalogError
from moatbridge.core.catalog_parse import catalog_from_text
from moatbridge.core.licences import Licence, LicenceError, parse_licence_records

_PACKAGE = Path(__file__).resolve().parent.parent


def default_catalog_path() -> Path:
    """The catalog shipped in the wheel, or the repository's own when running from a checkout."""
    override = os.environ.get("MOATBRIDGE_CATALOG")
    if override:
        return Path(override)
    bundled = _PACKAGE / "images" / "catalog.yaml"
    return bundled if bundled.exists() else _PACKAGE.parent.parent / "images" / "catalog.yaml"


def load_catalog(path: Path | None = None) -> Catalog:
    path = path or default_catalog_path()
    try:
        text = read_limited(path, 16 << 20).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "it is not UTF-8"
        raise CatalogError(
            f"Cannot read the image catalog {path}: {why}.",
            "reinstall moatbridge, or point MOATBRIDGE_CATALOG at a catalog.yaml",
        ) from None
    return catalog_from_text(text, path)


def default_licences_dir() -> Path:
    bundled = _PACKAGE / "licenses"
    return bundled if bundled.is_dir() else _PACKAGE.parent.parent / "licenses"


def load_licences(directory: Path | None = None) -> dict[str, Licence]:
    directory = directory or Path(os.environ.get("MOATBRIDGE_LICENSES") or default_licences_dir())
    raw: dict[Path, bytes] = {}
    for path in sorted(directory.glob("*.yaml")):
        try:
            raw[path] = read_limited(path, 1 << 20)
        except OSError:
            raise LicenceError(f"Cannot read the licence record {path}.", "reinstall moatbridge") from None
    if not raw:
        raise LicenceError(f"No licence records in {directory}.", "reinstall moatbridge")
    return parse_licence_records(raw)
