"""Air-gapped bundles: the manifest and checksum list, built and validated (pure, no I/O).

A bundle is one uncompressed tar holding ``manifest.json`` (this module's
``Manifest``), ``image.tar`` (the ``docker save`` stream) and ``SHA256SUMS`` (every
other member's sha256, in ``sha256sum`` format). Reading and writing the archive
lives in ``adapters/bundle_archive.py``; the format is documented in docs/air-gapped.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from moatbridge.core.build_plan import MANAGED_LABEL
from moatbridge.core.catalog import Flavour
from moatbridge.core.gfx import is_target_name
from moatbridge.core.image_spec import ImageSpec
from moatbridge.core.licences import Licence
from moatbridge.core.references import parse_reference
from moatbridge.core.toolchains import Toolchain, unrecorded_source, validate_name
from moatbridge.errors import InputError

FORMAT = "moatbridge-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
IMAGE = "image.tar"
SUMS = "SHA256SUMS"
MEMBERS = (MANIFEST, IMAGE, SUMS)  # the order they are written in
MAX_SMALL_MEMBER = 1 << 20  # manifest.json and SHA256SUMS are read into memory: bounded

SCALE_REDISTRIBUTION = (
    "This bundle contains SCALE by Spectral Compute. The SCALE Free Licence allows passing "
    "it on only free of charge and for non-commercial purposes, together with its licence and "
    "copyright notice; anything else needs a commercial agreement with Spectral Compute."
)

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_IMAGE_ID = re.compile(r"^sha256:[0-9a-f]{64}$", re.ASCII)
_SUM_LINE = re.compile(r"^([0-9a-f]{64}) [ *](\S.*)$")
_WORD = re.compile(r"[a-z0-9][a-z0-9-]{0,63}", re.ASCII)  # flavour, variant, licence id
_DISTRO = re.compile(r"[a-z0-9][a-z0-9.+-]{0,31}", re.ASCII)  # trixie, sid, ubuntu24.04
_VERSION = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,4}){0,3}", re.ASCII)
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}", re.ASCII)


class BundleError(InputError):
    """The bundle file cannot be used: damaged, incomplete, unsafe or of another format."""


def _invalid(where: str, problem: str) -> BundleError:
    return BundleError(
        f"The bundle's manifest is invalid: {where}: {problem}.",
        "the file is damaged or was not written by 'moatbridge bundle save'; save it again",
    )


@dataclass(frozen=True)
class BundledToolchain:
    """The toolchain record as saved (the name is only the suggested one)."""

    name: str
    flavour: str
    variant: str
    targets: tuple[str, ...]
    cuda_version: str
    image: str  # reference the image carries (tagged again on load)
    image_id: str  # sha256:..., what the engine must report after loading
    licence: str
    digest: str | None = None  # registry digest, when the image was pulled
    distro: str | None = None  # the stack (open: trixie/sid/experimental); absent in older bundles


@dataclass(frozen=True)
class FlavourSummary:
    """The catalog entry for the toolchain's flavour and variant, in short."""

    name: str
    description: str
    rocm: str
    version: str | None
    variant: str
    variant_description: str
    provides: tuple[str, ...]


@dataclass(frozen=True)
class LicenceNotice:
    """A licence record (licenses/*.yaml) in plain words, carried along with the image."""

    id: str
    name: str
    vendor: str
    url: str
    terms_version: str
    acceptance_required: bool
    allowed_use: tuple[str, ...]
    summary: str


@dataclass(frozen=True)
class Manifest:
    format_version: int
    moatbridge_version: str
    created: str  # ISO 8601, UTC
    toolchain: BundledToolchain
    flavour: FlavourSummary
    licences: tuple[LicenceNotice, ...]
    notices: tuple[str, ...]  # redistribution notices, shown on save, load and inspect

    def to_json(self) -> dict[str, Any]:
        t, f = self.toolchain, self.flavour
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "moatbridge_version": self.moatbridge_version,
            "created": self.created,
            "toolchain": {
                "name": t.name, "flavour": t.flavour, "variant": t.variant, "targets": list(t.targets),
                "cuda_version": t.cuda_version, "image": t.image, "image_id": t.image_id,
                "licence": t.licence, "digest": t.digest, "distro": t.distro,
            },
            "flavour": {
                "name": f.name, "description": f.description, "rocm": f.rocm, "version": f.version,
                "variant": f.variant, "variant_description": f.variant_description,
                "provides": list(f.provides),
            },
            "licences": [
                {
                    "id": n.id, "name": n.name, "vendor": n.vendor, "url": n.url,
                    "terms_version": n.terms_version, "acceptance_required": n.acceptance_required,
                    "allowed_use": list(n.allowed_use), "summary": n.summary,
                }
                for n in self.licences
            ],
            "notices": list(self.notices),
            "members": {"image": IMAGE, "checksums": SUMS},
        }  # fmt: skip

    def to_bytes(self) -> bytes:
        return (json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n").encode("utf-8")


def notices_for(flavour: str) -> tuple[str, ...]:
    return (SCALE_REDISTRIBUTION,) if flavour == "scale" else ()


def build_manifest(
    toolchain: Toolchain,
    flavour: Flavour,
    licences: Mapping[str, Licence],
    moatbridge_version: str,
    created: str,
) -> Manifest:
    """The manifest for one installed toolchain; its licence record must be among ``licences``."""
    if toolchain.licence not in licences:
        raise BundleError(
            f"The toolchain {toolchain.name} names the licence {toolchain.licence!r}, which has no record.",
            "reinstall moatbridge (its licenses/ directory is incomplete)",
        )
    if not _IMAGE_ID.fullmatch(toolchain.image_id):
        raise BundleError(
            f"The toolchain {toolchain.name} records no image ID.",
            f"run 'moatbridge upgrade {toolchain.name}' (or setup again), then save",
        )
    variant = flavour.variant(toolchain.spec.variant or flavour.default_variant)
    record = licences[toolchain.licence]
    return Manifest(
        format_version=FORMAT_VERSION,
        moatbridge_version=moatbridge_version,
        created=created,
        toolchain=BundledToolchain(
            toolchain.name,
            toolchain.flavour,
            toolchain.spec.variant or variant.name,
            toolchain.targets,
            toolchain.spec.cuda_version or "",
            toolchain.image,
            toolchain.image_id,
            toolchain.licence,
            toolchain.digest,
            toolchain.spec.distro,
        ),
        flavour=FlavourSummary(
            flavour.name,
            flavour.description,
            flavour.distro(toolchain.spec.distro).rocm,
            flavour.version,
            variant.name,
            variant.description,
            variant.provides,
        ),
        licences=(
            LicenceNotice(
                record.id,
                record.name,
                record.vendor,
                record.url,
                record.terms_version,
                record.acceptance_required,
                record.allowed_use,
                record.summary,
            ),
        ),
        notices=notices_for(toolchain.flavour),
    )


# --- parsing ------------------------------------------------------------------------------


def _get(data: Mapping[str, Any], key: str, where: str, kind: type, optional: bool = False) -> Any:
    value = data.get(key)
    if value is None and optional:
        return None
    # bool is an int subclass in Python: a flag is never a number, nor a number a flag.
    if not isinstance(value, kind) or isinstance(value, bool) is not (kind is bool):
        raise _invalid(f"{where}{key}", f"expected {kind.__name__}")
    return value


def _strings(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    values = _get(data, key, where, list)
    if not all(isinstance(v, str) and v for v in values):
        raise _invalid(f"{where}{key}", "expected a list of non-empty strings")
    return tuple(values)


def _toolchain(data: Any) -> BundledToolchain:
    if not isinstance(data, dict):
        raise _invalid("toolchain", "expected a mapping")
    w = "toolchain."
    image_id = _get(data, "image_id", w, str)
    if not _IMAGE_ID.fullmatch(image_id):
        raise _invalid("toolchain.image_id", f"{image_id[:80]!r} is not a sha256: image ID")
    targets = _strings(data, "targets", w)
    if not targets:
        raise _invalid("toolchain.targets", "no target")
    name = _get(data, "name", w, str)
    try:
        validate_name(name)
    except InputError:
        raise _invalid("toolchain.name", f"{name[:80]!r} is not a usable toolchain name") from None
    # Every field ends up in files (toolchain.env, Dockerfiles, YAML) or on a terminal: each is
    # held to its own shape here, once, not escaped later in each place.
    for target in targets:
        if not is_target_name(target):
            raise _invalid("toolchain.targets", f"{target[:80]!r} is not of the expected form")
    image = _get(data, "image", w, str)
    try:
        parse_reference(image)
    except InputError:
        raise _invalid("toolchain.image", f"{image[:80]!r} is not an image reference") from None
    digest = _get(data, "digest", w, str, optional=True)
    distro = _get(data, "distro", w, str, optional=True)
    return BundledToolchain(
        name=name, flavour=_shaped(_get(data, "flavour", w, str), "toolchain.flavour", _WORD),
        variant=_shaped(_get(data, "variant", w, str), "toolchain.variant", _WORD), targets=targets,
        cuda_version=_shaped(_get(data, "cuda_version", w, str), "toolchain.cuda_version", _VERSION),
        image=image, image_id=image_id,
        licence=_shaped(_get(data, "licence", w, str), "toolchain.licence", _WORD),
        digest=None if digest is None else _shaped(digest, "toolchain.digest", _DIGEST),
        distro=None if distro is None else _shaped(distro, "toolchain.distro", _DISTRO),
    )  # fmt: skip


def _shaped(value: str, where: str, shape: re.Pattern[str]) -> str:
    if not shape.fullmatch(value):
        raise _invalid(where, f"{value[:80]!r} is not of the expected form")
    return value


def _flavour(data: Any) -> FlavourSummary:
    if not isinstance(data, dict):
        raise _invalid("flavour", "expected a mapping")
    w = "flavour."
    return FlavourSummary(
        name=_get(data, "name", w, str), description=_get(data, "description", w, str),
        rocm=_get(data, "rocm", w, str), version=_get(data, "version", w, str, optional=True),
        variant=_get(data, "variant", w, str), variant_description=_get(data, "variant_description", w, str),
        provides=_strings(data, "provides", w),
    )  # fmt: skip


def _licence(data: Any, index: int) -> LicenceNotice:
    w = f"licences[{index}]."
    if not isinstance(data, dict):
        raise _invalid(w[:-1], "expected a mapping")
    return LicenceNotice(
        id=_get(data, "id", w, str), name=_get(data, "name", w, str), vendor=_get(data, "vendor", w, str),
        url=_get(data, "url", w, str), terms_version=_get(data, "terms_version", w, str),
        acceptance_required=_get(data, "acceptance_required", w, bool),
        allowed_use=_strings(data, "allowed_use", w), summary=_get(data, "summary", w, str),
    )  # fmt: skip


def parse_manifest(raw: bytes) -> Manifest:
    """The manifest from ``manifest.json``'s bytes; one clear error naming the bad field."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: nested too deeply
        raise _invalid(MANIFEST, "not valid JSON") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BundleError(
            "The file is not a moatbridge bundle (its manifest.json has another format).",
            "bundles are written by 'moatbridge bundle save'",
        )
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise _invalid("format_version", "expected an integer")
    if version != FORMAT_VERSION:
        writer = data.get("moatbridge_version", "another version")
        raise BundleError(
            f"The bundle is in format {version} (written by moatbridge {writer}); "
            f"this moatbridge reads format {FORMAT_VERSION}.",
            "load it with a moatbridge of the same version as the one that saved it",
        )
    toolchain = _toolchain(data.get("toolchain"))
    licences = _get(data, "licences", "", list)
    notices = _strings(data, "notices", "") if data.get("notices") else ()
    parsed = tuple(_licence(item, i) for i, item in enumerate(licences))
    if toolchain.licence not in {n.id for n in parsed}:
        raise _invalid("licences", f"no notice for the toolchain's licence {toolchain.licence!r}")
    if toolchain.flavour == "scale" and SCALE_REDISTRIBUTION not in notices:
        raise _invalid("notices", "a SCALE bundle must carry the redistribution notice")
    return Manifest(
        format_version=version,
        moatbridge_version=_get(data, "moatbridge_version", "", str),
        created=_get(data, "created", "", str),
        toolchain=toolchain,
        flavour=_flavour(data.get("flavour")),
        licences=parsed,
        notices=notices,
    )


# --- members and checksums -----------------------------------------------------------------


def member_problem(name: str) -> str | None:
    """Why a member name is not acceptable in a bundle, or None (nothing is ever extracted,
    but a bundle with such names was not written by moatbridge and is refused)."""
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        return f"the member {name[:80]!r} has an absolute or malformed path"
    if ".." in name.split("/"):
        return f"the member {name[:80]!r} points outside the archive ('..')"
    if name not in MEMBERS:
        return f"the member {name[:80]!r} does not belong in a bundle"
    return None


def render_sums(digests: Mapping[str, str]) -> str:
    """``sha256sum`` format: ``sha256sum -c SHA256SUMS`` works on an extracted bundle."""
    return "".join(f"{digests[name]}  {name}\n" for name in MEMBERS if name in digests)


def parse_sums(text: str) -> dict[str, str]:
    digests: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        match = _SUM_LINE.match(line)
        if match is None or match.group(2) in digests:
            raise BundleError(
                f"The bundle's {SUMS} is malformed at line {number}.",
                "the file is damaged or was not written by 'moatbridge bundle save'",
            )
        digests[match.group(2)] = match.group(1)
    return digests


def checksum_problems(expected: Mapping[str, str], actual: Mapping[str, str]) -> list[str]:
    """Members whose digest differs, is missing from SHA256SUMS, or is listed but absent."""
    problems = []
    for name in MEMBERS:
        if name == SUMS:
            continue
        if name not in actual:
            problems.append(f"{name} is missing")
        elif name not in expected:
            problems.append(f"{name} is not covered by {SUMS}")
        elif expected[name] != actual[name]:
            problems.append(f"{name} does not match its checksum")
    problems += [
        f"{SUMS} lists {name}, which is not a bundle member" for name in expected if name not in MEMBERS
    ]
    return problems


def tag_problem(
    reference: str, own_repositories: Collection[str], current: Mapping[str, Any] | None,
    image_id: str, recorded: bool,
) -> str | None:  # fmt: skip
    """Why pointing ``reference`` at the bundle's image would take a tag that is not
    moatbridge's, or None. Ours: a repository moatbridge builds into or pulls from (the
    flavour's), where no tag exists yet or the tag's image is one moatbridge made or a
    toolchain here records. Anything else (``ubuntu:22.04``) would silently change what
    other software runs."""
    if current is not None and current.get("Id") == image_id:
        return None  # nothing moves
    if parse_reference(reference).repository not in own_repositories:
        return f"it names the image {reference[:200]}, which is not one of moatbridge's references"
    if current is None or recorded:
        return None
    config = current.get("Config")
    labels = config.get("Labels") if isinstance(config, dict) else None
    if isinstance(labels, dict) and labels.get(MANAGED_LABEL) == "1":
        return None
    held = str(current.get("Id"))[:19]
    return f"the tag {reference[:200]} is held here by {held}, an image moatbridge did not make"


def toolchain_from(manifest: Manifest, name: str, created: str) -> Toolchain:
    """The record ``bundle load`` registers, as setup would have made it."""
    t = manifest.toolchain
    spec = ImageSpec(t.flavour, t.variant, t.distro, t.targets, t.cuda_version,
                     source=unrecorded_source(t.image, t.digest, t.licence))  # fmt: skip
    return Toolchain(validate_name(name), spec, t.image, t.image_id, t.licence, t.digest, created)
