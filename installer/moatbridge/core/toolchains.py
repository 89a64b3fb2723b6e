"""Installed toolchains and the state that records them (pure data + transitions).

A toolchain is one installed (flavour, target(s), CUDA version, image digest), named
like ``open-gfx1030``. The state file lists them, the default and
every file moatbridge wrote (so uninstall can reverse exactly that).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from moatbridge.core.image_spec import CHANNELS, ImageSource, ImageSpec
from moatbridge.errors import InputError

STATE_VERSION = 1
# The licence a commercial SCALE toolchain records (older state knew its channel only by it).
COMMERCIAL_LICENCE = "scale-commercial"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}$", re.ASCII)
NAME_HINT = "use lower-case letters, digits, '.', '_' and '-' (e.g. open-gfx1030), at most 63 characters"


def is_name(name: str) -> bool:
    """Toolchain names become file and container names: keep them boring."""
    return bool(_NAME.fullmatch(name)) and ".." not in name


def validate_name(name: str) -> str:
    if not is_name(name):
        raise InputError(f"{name!r} is not a usable toolchain name.", NAME_HINT)
    return name


def pinned_image(toolchain: Toolchain) -> str:
    """The exact image the toolchain recorded, for files other machines or tools run.

    A pulled image is named by repository@digest, which any node can pull and which
    cannot move; a locally built one by its image ID (the machine must hold that image).
    """
    from moatbridge.core.references import parse_reference

    if toolchain.digest:
        try:
            reference = parse_reference(toolchain.image)
        except InputError:
            reference = None
        if reference is not None:
            return f"{reference.repository}@{toolchain.digest}"
    return toolchain.image_id or toolchain.image


_DISTRO = re.compile(r"[a-z0-9][a-z0-9.+-]{0,31}", re.ASCII)


def _distro_name(value: Any) -> str | None:
    """A recorded distribution name, or None (older state, or a value that is not a name)."""
    return value if isinstance(value, str) and _DISTRO.fullmatch(value) else None


def _tool_names(value: Any) -> tuple[str, ...] | None:
    """A recorded list of shim commands, or None (older state, or not a list of names)."""
    if not isinstance(value, list) or not all(isinstance(v, str) and _WORD.fullmatch(v) for v in value):
        return None
    return tuple(value)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# What the state file records, in the forms moatbridge writes: a tool, flavour, variant,
# licence, target or CUDA version is a word; an image reference, ID or digest one token
# without controls.
_WORD = re.compile(r"[a-z0-9][a-z0-9+._-]{0,63}", re.ASCII)
_TOKEN = re.compile(r"[!-~]{1,1024}", re.ASCII)
_TOKEN_OR_NONE = re.compile(r"[!-~]{0,1024}", re.ASCII)
_LINE = re.compile(r"[ -~]{0,256}", re.ASCII)


def _of_form(value: Any, key: str, form: re.Pattern[str]) -> str:
    if not isinstance(value, str) or not form.fullmatch(value) or (form is _NAME and ".." in value):
        raise ValueError(f"the recorded {key} is not of the form moatbridge writes")
    return value


def _recorded(data: Mapping[str, Any], key: str, form: re.Pattern[str]) -> str:
    return _of_form(data[key], key, form)


def _recorded_file(entry: Any) -> dict[str, Any]:
    """A `files` entry as moatbridge writes it ({path, kind, created}); ValueError otherwise."""
    if not isinstance(entry, dict) or not isinstance(entry.get("created"), bool):
        raise ValueError("a recorded file is not of the form moatbridge writes")
    path = entry.get("path")
    if not isinstance(path, str) or not path.startswith("/") or "\x00" in path:
        raise ValueError("a recorded file's path is not absolute")
    _recorded(entry, "kind", _WORD)
    return dict(entry)


def default_name(flavour: str, targets: tuple[str, ...]) -> str:
    return validate_name(f"{flavour}-{'_'.join(targets)}")


@dataclass(frozen=True)
class Toolchain:
    name: str
    spec: ImageSpec  # what its image is and how it was made (so upgrade makes the next one alike)
    image: str  # reference moatbridge tagged or pulled
    image_id: str
    licence: str
    digest: str | None = None  # registry digest, for pulled images
    created: str = ""
    tools: tuple[str, ...] | None = None  # commands its image has, probed by setup (shims); None: all

    @property
    def flavour(self) -> str:
        return self.spec.flavour_name

    @property
    def targets(self) -> tuple[str, ...]:
        return self.spec.build_targets

    @property
    def target(self) -> str:
        """The target activation selects (a toolchain's first)."""
        return self.targets[0]

    def to_json(self) -> dict[str, Any]:
        spec = self.spec
        return {
            "name": self.name, "flavour": self.flavour, "variant": spec.variant,
            "targets": list(self.targets), "cuda_version": spec.cuda_version, "image": self.image,
            "image_id": self.image_id,
            "licence": self.licence, "digest": self.digest, "created": self.created,
            "distro": spec.distro, "tools": list(self.tools) if self.tools is not None else None,
            **spec.source.to_json(kept="toolchain"), "source": spec.source.to_json(),
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Toolchain:
        """A recorded toolchain; ValueError when a field is not of the form moatbridge writes (the
        state is then damaged: these names reach file names, generated files and the terminal)."""
        targets = data["targets"]
        if not isinstance(targets, list) or not targets:
            raise ValueError("targets is not a list of names")
        targets = [_of_form(target, "targets", _WORD) for target in targets]
        digest = data.get("digest")
        image = _recorded(data, "image", _TOKEN)
        licence = _recorded(data, "licence", _WORD)
        digest = None if digest is None else _recorded(data, "digest", _TOKEN)
        spec = ImageSpec(
            flavour=_recorded(data, "flavour", _WORD), variant=_recorded(data, "variant", _WORD),
            distro=_distro_name(data.get("distro")), targets=tuple(targets),
            cuda_version=_recorded(data, "cuda_version", _WORD),
            source=_recorded_source(data, image, digest, licence),
        )  # fmt: skip
        return cls(
            name=_recorded(data, "name", _NAME), spec=spec, image=image,
            image_id=_recorded(data, "image_id", _TOKEN_OR_NONE), licence=licence, digest=digest,
            created=_of_form(data.get("created", ""), "created", _LINE), tools=_tool_names(data.get("tools")),
        )  # fmt: skip


def _recorded_source(data: dict[str, Any], image: str, digest: str | None, licence: str) -> ImageSource:
    """How the image was made, as recorded (``unrecorded_source`` for older state without a
    record, or one that is not); the registry and the commercial channel are read from the
    image reference and the licence."""
    recorded = data.get("source")
    derived = unrecorded_source(image, digest, licence)
    if not isinstance(recorded, dict) or recorded.get("channel") not in CHANNELS:
        return replace(derived, **ImageSource.from_json({}, beside=data).to_json(kept="toolchain"))
    source = ImageSource.from_json(recorded, beside=data)
    registry = derived.registry if source.channel == "registry" else None
    return replace(source, registry=registry, commercial=derived.commercial)


def unrecorded_source(image: str, digest: str | None, licence: str) -> ImageSource:
    """The source of a toolchain that records none (older state, a loaded bundle): a pulled
    image is pulled again from the registry its reference names, any other is rebuilt from
    the catalog's repository (the customer's, for a commercial licence)."""
    if digest is not None:
        registry = image.rsplit("/", 1)[0] if "/" in image else None  # HOST/PATH of HOST/PATH/<flavour>:tag
        return ImageSource("registry", registry=registry, commercial=licence == COMMERCIAL_LICENCE)
    return ImageSource("repository", commercial=licence == COMMERCIAL_LICENCE)


@dataclass(frozen=True)
class State:
    version: int = STATE_VERSION
    default: str | None = None
    toolchains: tuple[Toolchain, ...] = ()
    # Files moatbridge created or edited: {"path", "kind": "env"|"shim"|"rc-block"|"dir", "created": bool}
    files: tuple[dict[str, Any], ...] = field(default=())

    def toolchain(self, name: str) -> Toolchain:
        for toolchain in self.toolchains:
            if toolchain.name == name:
                return toolchain
        known = ", ".join(t.name for t in self.toolchains) or "none installed"
        raise InputError(f"There is no toolchain {name!r}.", f"installed: {known}; see 'moatbridge list'")

    def with_toolchain(self, toolchain: Toolchain, make_default: bool) -> State:
        others = tuple(t for t in self.toolchains if t.name != toolchain.name)
        default = toolchain.name if make_default or self.default is None else self.default
        return replace(self, toolchains=(*others, toolchain), default=default)

    def without_toolchain(self, name: str) -> State:
        rest = tuple(t for t in self.toolchains if t.name != name)
        default = self.default if self.default != name else (rest[0].name if rest else None)
        return replace(self, toolchains=rest, default=default)

    def with_file(self, path: str, kind: str, created: bool) -> State:
        if any(f["path"] == path and f["kind"] == kind for f in self.files):
            return self
        return replace(self, files=(*self.files, {"path": path, "kind": kind, "created": created}))

    def without_file(self, path: str, kind: str) -> State:
        return replace(
            self, files=tuple(f for f in self.files if not (f["path"] == path and f["kind"] == kind))
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "default": self.default,
            "toolchains": [t.to_json() for t in self.toolchains],
            "files": list(self.files),
        }

    @classmethod
    def from_json(cls, data: Any) -> State:
        if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
            raise ValueError("unknown state version")
        toolchains, files = data.get("toolchains", []), data.get("files", [])
        if not isinstance(toolchains, list) or not isinstance(files, list):
            raise ValueError("toolchains and files are not lists")
        default = data.get("default")
        return cls(
            version=STATE_VERSION,
            default=None if default is None else _recorded(data, "default", _NAME),
            toolchains=tuple(Toolchain.from_json(t) for t in toolchains),
            files=tuple(_recorded_file(f) for f in files),
        )


def choose_toolchain(
    explicit: str | None, pin: tuple[str, str] | None, environ: Mapping[str, str], default: str | None
) -> tuple[str, str] | None:
    """The toolchain a command acts on, and why: -t NAME, then the pin file found up from the
    working directory (core.pins.find_pin's answer), then $MOATBRIDGE_TOOLCHAIN, then the default.
    The shims' runner spells the same order in sh (core.shims.render_runner)."""
    if explicit is not None:  # `-t ''` names nothing: an error, never a fall-back to the default
        return validate_name(explicit), "-t"
    if pin is not None:
        return pin[1], f"pin file {pin[0]}"
    if environ.get("MOATBRIDGE_TOOLCHAIN"):
        return environ["MOATBRIDGE_TOOLCHAIN"], "MOATBRIDGE_TOOLCHAIN"
    return (default, "the default") if default else None
