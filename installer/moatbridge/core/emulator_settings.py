"""Which GPU emulator each toolchain uses (`moatbridge emulator set`), as the settings file
records it (pure).

A setting names the emulator's CLI and, optionally, a GPU profile, both absolute and
resolved when they were set. Read back, every field must be of the form moatbridge writes:
a toolchain name, and paths that are absolute, normalised and free of control characters
(they reach mounts, the terminal and the runner's environment); anything else makes the
whole file damaged (ValueError), never half trusted.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from moatbridge.core.toolchains import is_name

SETTINGS_VERSION = 1
# An absolute path with no C0/C1 control, no line or paragraph separator and no lone
# surrogate (bytes that were not UTF-8), at most PATH_MAX long.
_PATH = re.compile("/[^\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]{0,4095}")


def is_recorded_path(value: object) -> bool:
    """Whether ``value`` is a path of the form a setting records: absolute, normalised (no
    `..`, `.`, `//` or trailing `/`), no control characters."""
    return (
        isinstance(value, str)
        and bool(_PATH.fullmatch(value))
        and posixpath.normpath(value) == value
        and not value.startswith("//")  # which normpath keeps (POSIX leaves its meaning open)
    )


@dataclass(frozen=True)
class EmulatorSetting:
    toolchain: str
    emulator: str  # the emulator's CLI, absolute and resolved
    profile: str | None = None  # a GPU profile (JSON), absolute and resolved

    def to_json(self) -> dict[str, Any]:
        return {"emulator": self.emulator, "profile": self.profile}


def setting_hint(toolchain: str) -> str:
    """How to mend a toolchain's setting: set it again, or drop it."""
    return (
        f"moatbridge emulator set -t {toolchain} /path/to/bin/rocjitsu [--profile FILE], "
        f"or moatbridge emulator unset -t {toolchain}"
    )


@dataclass(frozen=True)
class EmulatorSettings:
    settings: tuple[EmulatorSetting, ...] = ()

    def get(self, toolchain: str) -> EmulatorSetting | None:
        return next((s for s in self.settings if s.toolchain == toolchain), None)

    def with_setting(self, setting: EmulatorSetting) -> EmulatorSettings:
        others = tuple(s for s in self.settings if s.toolchain != setting.toolchain)
        return EmulatorSettings(tuple(sorted((*others, setting), key=lambda s: s.toolchain)))

    def without(self, *toolchains: str) -> EmulatorSettings:
        return EmulatorSettings(tuple(s for s in self.settings if s.toolchain not in toolchains))

    def kept(self, installed: Iterable[str]) -> EmulatorSettings:
        """Only the settings of toolchains that are installed."""
        names = set(installed)
        return EmulatorSettings(tuple(s for s in self.settings if s.toolchain in names))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": SETTINGS_VERSION,
            "toolchains": {s.toolchain: s.to_json() for s in self.settings},
        }

    @classmethod
    def from_json(cls, data: Any) -> EmulatorSettings:
        """The settings as recorded; ValueError when the file is not of the form moatbridge writes."""
        if not isinstance(data, dict) or data.get("version") != SETTINGS_VERSION:
            raise ValueError("unknown settings version")
        toolchains = data.get("toolchains")
        if not isinstance(toolchains, dict):
            raise ValueError("toolchains is not an object")
        settings = []
        for name, entry in toolchains.items():
            if not isinstance(name, str) or not is_name(name):
                raise ValueError("a toolchain name is not of the form moatbridge writes")
            if not isinstance(entry, dict) or not is_recorded_path(entry.get("emulator")):
                raise ValueError("an emulator path is not absolute")
            profile = entry.get("profile")
            if profile is not None and not is_recorded_path(profile):
                raise ValueError("a profile path is not absolute")
            settings.append(EmulatorSetting(name, entry["emulator"], profile))
        return cls(tuple(sorted(settings, key=lambda s: s.toolchain)))
