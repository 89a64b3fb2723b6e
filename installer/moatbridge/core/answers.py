"""Setup answers: one value per question, merged by precedence (pure).

Precedence (services.answers): the wizard and flags > answers file > the existing
toolchain > defaults; the answers saved by the last setup only preselect the wizard's questions.
``None`` means "not answered at this layer".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

from moatbridge.core.gfx import is_target_name
from moatbridge.core.image_spec import ImageSource, ImageSpec, first_given, merge_specs
from moatbridge.core.toolchains import validate_name
from moatbridge.errors import InputError

SHELLS = ("bash", "zsh", "fish", "dash")
# The customer's part of the commercial repository's URL path: one plain path segment.
_CUSTOMER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}", re.ASCII)


def validate_customer(name: str) -> str:
    if not _CUSTOMER.fullmatch(name) or ".." in name:
        raise InputError(
            f"{name!r} is not a customer name.",
            "use the name from Spectral's customer repository URL (letters, digits, '.', '_', '-')",
        )
    return name


# The answers that say which image (ImageSpec's fields, and three of its source's).
SPEC_ANSWERS = ("flavour", "targets", "variant", "cuda_version", "distro", "check_valid_until")
SOURCE_ANSWERS = ("registry", "customer", "credentials_file")


@dataclass(frozen=True)
class Answers:
    # flavour, targets, variant, CUDA version, stack, Valid-Until; the registry to pull from;
    # SCALE commercial use: the customer repository's name and the credentials file's path
    # (saved; its content never is). None fields: not answered at this layer.
    image: ImageSpec = field(default_factory=ImageSpec)
    source: str | None = None  # "build" | "pull"
    use: str | None = None  # "non-commercial" | "commercial"
    accept_license: bool | None = None
    shells: tuple[str, ...] | None = None
    modify_rc: bool | None = None
    name: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The answers file's form: one key per question, hyphenated."""
        values: dict[str, Any] = {name: getattr(self.image, name) for name in SPEC_ANSWERS}
        values.update({name: getattr(self.image.source, name) for name in SOURCE_ANSWERS})
        values.update({item.name: getattr(self, item.name) for item in fields(self) if item.name != "image"})
        return {
            name.replace("_", "-"): list(value) if isinstance(value, tuple) else value
            for name, value in values.items()
            if value is not None
        }


def _answers(values: dict[str, Any]) -> Answers:
    """Answers from one value per question (the answers file's names, with underscores)."""
    source = ImageSource(**{k: v for k, v in values.items() if k in SOURCE_ANSWERS})
    spec = ImageSpec(**{k: v for k, v in values.items() if k in SPEC_ANSWERS}, source=source)
    rest = {k: v for k, v in values.items() if k not in SPEC_ANSWERS and k not in SOURCE_ANSWERS}
    return Answers(image=spec, **rest)


def merge(*layers: Answers) -> Answers:
    """The first layer that answers a question wins."""
    rest = {
        item.name: first_given(getattr(layer, item.name) for layer in layers)
        for item in fields(Answers)
        if item.name != "image"
    }
    return Answers(image=merge_specs(*(layer.image for layer in layers)), **rest)


_KEYS = {name.replace("_", "-"): name for name in (*SPEC_ANSWERS, *SOURCE_ANSWERS)} | {
    item.name.replace("_", "-"): item.name for item in fields(Answers) if item.name != "image"
}
_CHOICES = {
    "flavour": ("open", "scale"),
    "source": ("build", "pull"),
    "use": ("non-commercial", "commercial"),
}


def parse_answers(data: Any, where: str) -> Answers:
    """Validate an answers file's content; errors name the key and the file."""
    if data is None:
        return Answers()
    if not isinstance(data, dict):
        raise InputError(
            f"{where} must be a mapping of answers.", "e.g.  flavour: open\\n targets: [gfx1100]"
        )
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _KEYS:
            raise InputError(f"{where}: unknown answer {key!r}.", f"known: {', '.join(sorted(_KEYS))}")
        name = _KEYS[key]
        if name in ("targets", "shells"):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise InputError(f"{where}: {key} must be a list of names.", f"e.g.  {key}: [gfx1100]")
            if name == "targets":  # checked here, even when a flag overrides them
                bad = [v for v in value if not is_target_name(v)]
                if bad:
                    raise InputError(
                        f"{where}: {bad[0]!r} is not a gfx (or, for scale, sm_NN) target name.",
                        "e.g.  targets: [gfx1100]",
                    )
            if name == "shells":
                bad = [v for v in value if v not in SHELLS]
                if bad:
                    raise InputError(
                        f"{where}: unsupported shell {bad[0]!r}.", f"choose from {', '.join(SHELLS)}"
                    )
            values[name] = tuple(value)
        elif name in ("accept_license", "modify_rc", "check_valid_until"):
            if not isinstance(value, bool):
                raise InputError(f"{where}: {key} must be true or false.", f"e.g.  {key}: true")
            values[name] = value
        else:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                value = str(value)  # cuda-version: 11.8 read as a number
            if not isinstance(value, str) or not value:
                raise InputError(f"{where}: {key} must be a text value.", f"e.g.  {key}: ...")
            if name in _CHOICES and value not in _CHOICES[name]:
                raise InputError(
                    f"{where}: {key} must be one of {', '.join(_CHOICES[name])}.", "fix the file"
                )
            if name == "name":
                validate_name(value)
            if name == "customer":
                validate_customer(value)
            values[name] = value
    return _answers(values)
