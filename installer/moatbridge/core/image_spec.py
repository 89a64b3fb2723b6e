"""Which image, in one shape from the command line to the recorded toolchain (pure).

``ImageSpec`` is what decides an image: flavour, variant, stack, targets, CUDA version, the
Valid-Until rule and where it comes from (``ImageSource``). Setup's answers carry one (its
``None`` fields not answered yet), the setup plan a resolved one, ``image build`` and
``upgrade`` hand one to the images service, and a toolchain records one. ``RunOptions`` is
how a build or pull runs, which never changes the image.

A new build input is a field of ``ImageSource`` here (read from the option of the same
name, recorded and read back by its form), its option in parser.py, and its use in the
recipe planner: nothing in between names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

ALL_TARGETS = "all"
CHANNELS = ("repository", "tarball", "registry")

_SHA256 = re.compile(r"[0-9a-f]{64}", re.ASCII)
_BUILD_ARG = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=[^\x00-\x1f\x7f]*", re.ASCII)
_TEXT = re.compile(r"[^\x00-\x1f\x7f]{1,4096}", re.ASCII)
_REGISTRY = re.compile(r"[a-z0-9][a-z0-9._:-]*(?:/[a-z0-9._-]+)*", re.ASCII)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and _TEXT.fullmatch(value) else None


def _of(form: re.Pattern[str]) -> Callable[[Any], str | None]:
    return lambda value: value if isinstance(value, str) and form.fullmatch(value) else None


def _build_args(value: Any) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(isinstance(a, str) and _BUILD_ARG.fullmatch(a) for a in value):
        return None
    return tuple(value)


def _flag(value: Any) -> bool:
    return value is True


def _recorded(reader: Callable[[Any], Any], kept: str = "source") -> dict[str, Any]:
    """Field metadata: how the state file's value is read back (None: not of the form written)
    and where a toolchain keeps it: in its ``source`` record, beside it in the toolchain's
    own record (where older state has it), or nowhere, ``derived`` from the image reference
    and the licence each toolchain records anyway."""
    return {"read": reader, "kept": kept}


@dataclass(frozen=True)
class ImageSource:
    """Where an image comes from, so that it can be made again the same way.

    ``repository``: built from a package repository (``repo_url``: a mirror, None for the
    catalog's; recorded masked, with ``repo_url_secret`` set when it carried a token, so that
    upgrade asks for it again rather than store it). ``tarball``: built from the vendor's
    tarball (a path or URL when given, its file name and SHA-256 once recorded; an upgrade
    needs the newer tarball). ``registry``: pulled (``registry``: HOST/PATH, None for the
    flavour's own). ``commercial``: SCALE's commercial channel (the customer repository,
    with ``customer`` in its URL and the ``credentials_file`` path: never its content).
    ``base_image`` and ``build_args`` reach the recipe; build args with secret-looking names
    are refused on input."""

    channel: str = field(default="repository", metadata=_recorded(lambda v: v if v in CHANNELS else None))
    repo_url: str | None = field(default=None, metadata=_recorded(_text))
    repo_url_secret: bool = field(default=False, metadata=_recorded(_flag))
    base_image: str | None = field(default=None, metadata=_recorded(_text))
    build_args: tuple[str, ...] = field(default=(), metadata=_recorded(_build_args))
    tarball: str | None = field(default=None, metadata=_recorded(_text))
    tarball_sha256: str | None = field(default=None, metadata=_recorded(_of(_SHA256)))
    apt_mirror: str | None = field(default=None, metadata=_recorded(_text))  # open: the packages' mirror
    registry: str | None = field(default=None, metadata=_recorded(_of(_REGISTRY), "derived"))
    commercial: bool = field(default=False, metadata=_recorded(_flag, "derived"))
    customer: str | None = field(default=None, metadata=_recorded(_text, "toolchain"))
    credentials_file: str | None = field(default=None, metadata=_recorded(_text, "toolchain"))

    @classmethod
    def from_args(cls, args: Any, channel: str | None = None) -> ImageSource:
        """The options of the same names (argparse dests); a tarball means the tarball channel."""
        values: dict[str, Any] = {}
        for item in fields(cls):
            value = getattr(args, item.name, None)
            if value is None or value == "" or value == []:
                continue
            values[item.name] = tuple(value) if isinstance(value, list) else value
        tarball = values.get("tarball") is not None
        return cls(**{**values, "channel": channel or ("tarball" if tarball else "repository")})

    def to_json(self, kept: str = "source") -> dict[str, Any]:
        """The fields a toolchain keeps in its ``source`` record (or, ``kept="toolchain"``, beside it)."""
        return {
            item.name: _json_value(getattr(self, item.name))
            for item in fields(self)
            if item.metadata["kept"] == kept
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], beside: Mapping[str, Any] | None = None) -> ImageSource:
        """Each recorded field by its form, from the ``source`` record (``data``) or the
        toolchain's record around it (``beside``); one that is not of its form reads as unset."""
        values = {}
        for item in fields(cls):
            record = (beside or {}) if item.metadata["kept"] == "toolchain" else data
            if item.metadata["kept"] != "derived" and item.name in record:
                value = item.metadata["read"](record[item.name])
                if value is not None:
                    values[item.name] = value
        return cls(**values)


@dataclass(frozen=True)
class ImageSpec:
    """What decides an image. ``None``: the catalog's default (for setup's answers: not
    answered yet); ``targets`` ``("all",)``: every target the stack serves."""

    flavour: str | None = None
    variant: str | None = None
    distro: str | None = None  # the stack (open: trixie, sid, experimental)
    targets: tuple[str, ...] | None = None
    cuda_version: str | None = None
    check_valid_until: bool | None = None  # None: as the stack's catalog entry says
    source: ImageSource = field(default_factory=ImageSource)

    @classmethod
    def from_args(cls, args: Any, channel: str | None = None) -> ImageSpec:
        """``image build``'s or setup's options (``--target`` repeatable)."""
        targets = getattr(args, "target", None)
        return cls(
            flavour=getattr(args, "flavour", None),
            variant=getattr(args, "variant", None),
            distro=getattr(args, "distro", None),
            targets=tuple(targets) if targets else None,
            cuda_version=getattr(args, "cuda_version", None),
            check_valid_until=getattr(args, "check_valid_until", None),
            source=ImageSource.from_args(args, channel),
        )

    @property
    def flavour_name(self) -> str:
        if self.flavour is None:
            raise ValueError("an image spec without a flavour names no image")
        return self.flavour

    @property
    def build_targets(self) -> tuple[str, ...]:
        return self.targets or (ALL_TARGETS,)


def first_given(values: Iterable[Any], unset: Any = None) -> Any:
    """The first of ``values`` that is not ``unset`` (the layer that answers), else ``unset``."""
    return next((value for value in values if value != unset), unset)


def merge_specs(*layers: ImageSpec) -> ImageSpec:
    """Field by field, the first layer that answers wins (``source``'s fields too)."""
    spec = {
        item.name: first_given(getattr(layer, item.name) for layer in layers)
        for item in fields(ImageSpec)
        if item.name != "source"
    }
    source = {
        item.name: first_given((getattr(layer.source, item.name) for layer in layers), item.default)
        for item in fields(ImageSource)
    }
    return ImageSpec(**spec, source=ImageSource(**source))


def _json_value(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class RunOptions:
    """How a build or pull runs; none of it changes the image."""

    dry_run: bool = False
    no_cache: bool = False
    base: str = "auto"  # where a base image comes from: auto, pull or bootstrap
    mirror: str | None = None  # a Debian mirror for debootstrap
    quiet: bool = False  # no progress at all (the caller says what happened)
    json: bool = False  # progress on stderr: stdout carries the result
    verbose: bool = False  # the builder's full output
    space_check: bool = True

    @classmethod
    def from_args(cls, args: Any) -> RunOptions:
        return cls(
            dry_run=bool(getattr(args, "dry_run", False)),
            no_cache=bool(getattr(args, "no_cache", False)),
            base=getattr(args, "base", None) or "auto",
            mirror=getattr(args, "mirror", None),
            json=bool(getattr(args, "json", False)),
            verbose=bool(getattr(args, "verbose", False)),
            space_check=not getattr(args, "no_space_check", False),
        )
