"""Setup's answers from every layer: the command line's, an answers file, the answers saved
by the last setup, and the defaults this machine suggests (first layer that answers wins)."""

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
from moatbridge.core.answers import Answers, merge, parse_answers
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


def gather(flags: Answers, answers_file: str | None, paths: Paths, report: HostReport) -> Answers:
    """Flags > the answers file > saved answers (stale ones never block a setup) > defaults."""
    layers = [flags]
    if answers_file:
        layers.append(parse_answers(_load_yaml(Path(answers_file), "answers file"), answers_file))
    saved = saved_answers_path(paths)
    if saved.exists():
        with contextlib.suppress(MoatbridgeError):
            layers.append(parse_answers(_load_yaml(saved, "saved answers"), str(saved)))
    rc_files = rc_files_for(("bash", "zsh", "fish"), os.path.expanduser("~"), os.environ)
    existing = {s: p.exists() for s, p in rc_files.items()}
    layers.append(defaults(report, dict(os.environ), existing))
    merged = merge(*layers)
    credentials = merged.image.source.credentials_file
    if credentials:  # recorded for upgrade, which may run from anywhere
        source = replace(merged.image.source, credentials_file=absolute_path(credentials))
        merged = replace(merged, image=replace(merged.image, source=source))
    return merged


def absolute_path(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def save_answers(paths: Paths, answers: Answers) -> None:
    """What the next setup starts from (never the acceptance, nor the toolchain's name)."""
    import yaml

    keep = {k: v for k, v in answers.to_json().items() if k not in ("accept-license", "name")}
    atomic_write_text(saved_answers_path(paths), yaml.safe_dump(keep, sort_keys=True))
