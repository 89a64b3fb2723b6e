"""Where each of setup's answers came from (pure).

A line that explains a choice names its real source: this command's flag, the wizard, the
answers file named on this command line, the existing toolchain's record, or the default
(the auto-choice). The answers remembered from the last setup are none of these: they only
preselect the wizard's questions, so a remembered value is never used, nor shown, as if
this command had asked for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from moatbridge.core.answers import SOURCE_ANSWERS, SPEC_ANSWERS, Answers, merge
from moatbridge.core.image_spec import ImageSource, ImageSpec
from moatbridge.core.scale_recipes import is_commercial
from moatbridge.core.toolchains import Toolchain

# This command's own answers: a flag, a wizard question, or the answers file it names.
ASKED = ("flag", "wizard", "file")
KINDS = (*ASKED, "toolchain", "default")

# The option that answers each question (argparse dest, for the wizard's record).
_OPTION = {"targets": "target", "shells": "shell", "modify_rc": "no_modify_rc"}


def option_of(key: str) -> str:
    """The argparse dest of the question ``key``."""
    return _OPTION.get(key, key)


@dataclass(frozen=True)
class Origin:
    kind: str  # one of KINDS
    where: str = ""  # the answers file's path; the toolchain's name

    @property
    def asked(self) -> bool:
        return self.kind in ASKED

    def names(self, key: str, value: Any) -> str:
        """This source, for one answer, as the summary and the errors say it."""
        shown = ", ".join(value) if isinstance(value, tuple) else str(value)
        if self.kind == "flag":
            return f"--{option_of(key).replace('_', '-')} {shown}"
        if self.kind == "wizard":
            return "chosen in the wizard"
        if self.kind == "file":
            return f"{key.replace('_', '-')}: {shown} in {self.where}"
        if self.kind == "toolchain":
            return f"toolchain {self.where}'s record"
        return "the default"


DEFAULT = Origin("default")
FLAG = Origin("flag")


@dataclass(frozen=True)
class Layer:
    answers: Answers
    origin: Origin


KEYS = (*SPEC_ANSWERS, *SOURCE_ANSWERS, *(f.name for f in fields(Answers) if f.name != "image"))


def value_of(answers: Answers, key: str) -> Any:
    if key in SPEC_ANSWERS:
        return getattr(answers.image, key)
    if key in SOURCE_ANSWERS:
        return getattr(answers.image.source, key)
    return getattr(answers, key)


@dataclass(frozen=True)
class Gathered:
    """The merged answers, and for each question the source that answered it."""

    answers: Answers
    origins: Mapping[str, Origin]

    def origin(self, key: str) -> Origin:
        return self.origins.get(key, DEFAULT)


def merge_layers(layers: Iterable[Layer]) -> Gathered:
    """The first layer that answers a question wins, and is that answer's origin."""
    ordered = list(layers)
    origins: dict[str, Origin] = {}
    for key in KEYS:
        origin = next((lay.origin for lay in ordered if value_of(lay.answers, key) is not None), None)
        if origin is not None:
            origins[key] = origin
    return Gathered(merge(*(lay.answers for lay in ordered)), origins)


def only(answers: Answers, keys: Iterable[str]) -> Answers:
    """``answers`` with only the questions ``keys`` answered (the wizard's part of the flags)."""
    wanted = set(keys)
    spec = {k: getattr(answers.image, k) for k in SPEC_ANSWERS if k in wanted}
    source = {k: getattr(answers.image.source, k) for k in SOURCE_ANSWERS if k in wanted}
    rest = {k: getattr(answers, k) for k in KEYS if k in wanted and k not in spec and k not in source}
    image = ImageSpec(**spec, source=type(answers.image.source)(**source))
    return Answers(image=image, **rest)


def recorded_layer(toolchain: Toolchain, flavour: str | None = None, use: str | None = None) -> Layer:
    """What an existing toolchain answers for itself: its image's shape and its name, so
    that setting it up again keeps its stack, variant and CUDA version unless asked. Asked
    for another ``flavour``, its record's stack, variant and CUDA version belong to
    the old flavour: only its name and targets stay. A commercial SCALE toolchain keeps
    its customer repository unless this command asks for ``use`` non-commercial."""
    spec = toolchain.spec
    origin = Origin("toolchain", toolchain.name)
    if flavour is not None and flavour != spec.flavour:
        return Layer(Answers(image=ImageSpec(targets=spec.targets), name=toolchain.name), origin)
    # A commercial toolchain stays commercial: its customer repository and credentials path
    # (never the credentials) are part of what it is, as its stack is.
    commercial = is_commercial(spec) and use != "non-commercial"
    source = ImageSource(
        customer=spec.source.customer if commercial else None,
        credentials_file=spec.source.credentials_file if commercial else None,
    )
    image = ImageSpec(
        flavour=spec.flavour, variant=spec.variant, distro=spec.distro, targets=spec.targets,
        cuda_version=spec.cuda_version, check_valid_until=spec.check_valid_until, source=source,
    )  # fmt: skip
    kept_use = "commercial" if commercial else None
    return Layer(Answers(image=image, name=toolchain.name, use=kept_use), origin)


# What changing an existing toolchain means, question by question, as the summary says it.
_CHANGED = (("flavour", "flavour"), ("variant", "variant"), ("distro", "stack"),
            ("targets", "targets"), ("cuda_version", "CUDA version"))  # fmt: skip


def changes(planned: ImageSpec, toolchain: Toolchain, gathered: Gathered) -> tuple[tuple[str, bool], ...]:
    """Each way the plan changes ``toolchain``'s image: (one line naming old, new and the
    source that asked for it, whether this command asked for it)."""
    found = []
    # Another flavour brings its own stack, variant and CUDA version: the flavour's line says it.
    compared = _CHANGED if planned.flavour == toolchain.spec.flavour else _CHANGED[:1] + _CHANGED[3:4]
    for key, what in compared:
        old, new = getattr(toolchain.spec, key), getattr(planned, key)
        if old is None or new is None or old == new:
            continue
        origin = gathered.origin(key)
        shown = [", ".join(v) if isinstance(v, tuple) else str(v) for v in (old, new)]
        found.append((f"{what} {shown[0]} -> {shown[1]} ({origin.names(key, new)})", origin.asked))
    return tuple(found)
