"""Setup's answers from every layer: the command line's (flags and the wizard's), the answers
file it names, and the defaults this machine suggests (first layer that answers wins; the
existing toolchain's record joins above the defaults: core.setup_plan.plan_setup). The
answers saved by the last setup are not a layer: they only preselect the wizard's questions
(``remembered``), so that they never decide another toolchain, nor read as asked."""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from moatbridge.adapters.filesystem import atomic_write_text
from moatbridge.adapters.hostfs import read_user_file
from moatbridge.adapters.toolchain_files import rc_files_for
from moatbridge.core import yaml_text
from moatbridge.core.answer_layers import DEFAULT, Layer, Origin
from moatbridge.core.answers import Answers, parse_answers
from moatbridge.core.model import HostReport
from moatbridge.core.setup_plan import defaults
from moatbridge.errors import MoatbridgeError, UsageError
from moatbridge.paths import Paths


def _load_yaml(path: Path, what: str) -> Any:
    import yaml

    text = read_user_file(path, what)  # regular, bounded, UTF-8: else one clear InputError
    try:
        return yaml_text.safe_load(text)
    except RecursionError:
        raise UsageError(f"The {what} {path} is nested too deeply.", "answers are plain values") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark is not None else ""
        raise UsageError(f"The {what} {path} is not valid YAML{line}.", "fix its syntax") from None


def saved_answers_path(paths: Paths) -> Path:
    return Path(paths.home) / "answers.yaml"


def gather(given: list[Layer], answers_file: str | None, report: HostReport) -> list[Layer]:
    """This command's layers (``given``: the wizard's and the flags'), then the answers file,
    then the defaults; a credentials file's path made absolute (recorded for upgrade, which
    may run from anywhere)."""
    layers = list(given)
    if answers_file:
        from_file = parse_answers(_load_yaml(Path(answers_file), "answers file"), answers_file)
        layers.append(Layer(from_file, Origin("file", answers_file)))
    rc_files = rc_files_for(("bash", "zsh", "fish"), os.path.expanduser("~"), os.environ)
    existing = {s: p.exists() for s, p in rc_files.items()}
    layers.append(Layer(defaults(report, dict(os.environ), existing), DEFAULT))
    return [replace(layer, answers=_absolute_credentials(layer.answers)) for layer in layers]


def _absolute_credentials(answers: Answers) -> Answers:
    credentials = answers.image.source.credentials_file
    if not credentials:
        return answers
    source = replace(answers.image.source, credentials_file=absolute_path(credentials))
    return replace(answers, image=replace(answers.image, source=source))


def remembered(paths: Paths) -> Answers:
    """The last setup's answers, for the wizard to preselect (stale ones never block a setup)."""
    saved = saved_answers_path(paths)
    with contextlib.suppress(MoatbridgeError, OSError):
        if saved.exists():
            return parse_answers(_load_yaml(saved, "saved answers"), str(saved))
    return Answers()


def absolute_path(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def save_answers(paths: Paths, answers: Answers) -> None:
    """What the next wizard preselects (never the acceptance, nor the toolchain's name)."""
    import yaml

    keep = {k: v for k, v in answers.to_json().items() if k not in ("accept-license", "name")}
    atomic_write_text(saved_answers_path(paths), yaml.safe_dump(keep, sort_keys=True))
