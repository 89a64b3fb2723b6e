"""Licence records (licenses/*.yaml) and consent: what was accepted, for which use, when.

A consent stores a hash of the terms it was given for; when the record's terms
version (or the licence text found in the image) changes, the hash no longer
matches and moatbridge asks again.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moatbridge.errors import MoatbridgeError

USES = ("non-commercial", "commercial")


class LicenceError(MoatbridgeError):
    exit_code = 2


@dataclass(frozen=True)
class Licence:
    id: str
    name: str
    vendor: str
    terms_version: str
    url: str
    text_in_image: str | None
    flavours: tuple[str, ...]
    acceptance_required: bool
    allowed_use: tuple[str, ...]
    summary: str

    def terms_hash(self, licence_text: str | None = None) -> str:
        """Identifies the exact terms: record id and version, plus the full text when known."""
        digest = hashlib.sha256(f"{self.id}\0{self.terms_version}\0".encode())
        if licence_text is not None:
            digest.update(licence_text.encode())
        return digest.hexdigest()


@dataclass(frozen=True)
class Consent:
    licence: str
    terms_hash: str
    use: str
    at: str  # ISO 8601, UTC
    user: str

    def to_json(self) -> dict[str, str]:
        return {"licence": self.licence, "terms_hash": self.terms_hash, "use": self.use, "at": self.at,
                "user": self.user}  # fmt: skip

    @classmethod
    def from_json(cls, data: Any) -> Consent | None:
        try:
            return cls(str(data["licence"]), str(data["terms_hash"]), str(data["use"]), str(data["at"]),
                       str(data["user"]))  # fmt: skip
        except (KeyError, TypeError):
            return None


def _field(data: dict[str, Any], key: str, path: Path, kind: type = str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        raise LicenceError(f"Invalid licence record {path.name}: {key}: expected {kind.__name__}.",
                           f"fix {path}")  # fmt: skip
    return value


def parse_licence(data: Any, path: Path) -> Licence:
    if not isinstance(data, dict):
        raise LicenceError(f"Invalid licence record {path.name}: expected a mapping.", f"fix {path}")
    covers = _field(data, "covers", path, dict)
    allowed = tuple(_field(data, "allowed_use", path, list))
    unknown = [u for u in allowed if u not in USES]
    if unknown:
        raise LicenceError(
            f"Invalid licence record {path.name}: allowed_use: unknown {unknown}.", f"fix {path}"
        )
    licence = Licence(
        id=_field(data, "id", path),
        name=_field(data, "name", path),
        vendor=_field(data, "vendor", path),
        terms_version=str(data.get("terms_version", "")),
        url=_field(data, "url", path),
        text_in_image=data.get("text_in_image"),
        flavours=tuple(covers.get("flavours") or ()),
        acceptance_required=_field(data, "acceptance_required", path, bool),
        allowed_use=allowed,
        summary=_field(data, "summary", path).strip(),
    )
    if licence.id != path.stem:
        raise LicenceError(f"Licence record {path.name} has id {licence.id!r}.", "name the file after its id")
    return licence


def default_licences_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    bundled = package / "licenses"
    return bundled if bundled.is_dir() else package.parent.parent / "licenses"


def load_licences(directory: Path | None = None) -> dict[str, Licence]:
    import yaml

    directory = directory or Path(os.environ.get("MOATBRIDGE_LICENSES") or default_licences_dir())
    records = {}
    for path in sorted(directory.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            raise LicenceError(f"Cannot read the licence record {path}.", "reinstall moatbridge") from None
        licence = parse_licence(data, path)
        records[licence.id] = licence
    if not records:
        raise LicenceError(f"No licence records in {directory}.", "reinstall moatbridge")
    return records


@dataclass(frozen=True)
class LicenceNote:
    """A toolchain's licence as generated files (devcontainer, k8s, Slurm) describe it."""

    id: str
    name: str
    url: str
    accepted: bool  # consent recorded on this machine
    env: tuple[str, ...]  # e.g. ("SCALE_LICENSE_ACCEPT=1",), passed only when accepted


def consent_status(licence: Licence, consent: Consent | None, licence_text: str | None = None) -> str:
    """ "not-required", "accepted", "missing" or "outdated" (terms changed since)."""
    if not licence.acceptance_required:
        return "not-required"
    if consent is None:
        return "missing"
    return "accepted" if consent.terms_hash == licence.terms_hash(licence_text) else "outdated"


def check_use(licence: Licence, use: str) -> None:
    if use not in licence.allowed_use:
        alternatives = "the commercial repository (with your credentials) or the open flavour"
        raise LicenceError(
            f"{licence.name} does not allow {use} use.",
            f"for {use} use choose {alternatives}" if use == "commercial" else "choose an allowed use",
        )
