"""The emulator settings file, ``<state>/emulators.json`` (core/emulator_settings.py): read
bounded, refused whole when damaged, written atomically, and gone when it records nothing.

Changed only under the state lock (services/emulator_config.py, toolchain_removal.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from moatbridge.adapters.filesystem import atomic_write_json
from moatbridge.adapters.hostfs import read_limited
from moatbridge.core.emulator_settings import EmulatorSettings
from moatbridge.core.textsafe import printable
from moatbridge.errors import InputError

MAX_SETTINGS_BYTES = 1 << 20


class SettingsUnusable(InputError):
    """The settings file cannot be read or is not of the form moatbridge writes (exit 2)."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(
            f"The emulator settings file {printable(str(path))} cannot be used ({why}).",
            "remove it, then set each toolchain's emulator again with 'moatbridge emulator set'",
        )


class EmulatorSettingsFile:
    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> EmulatorSettings:
        """The settings (none when there is no file); SettingsUnusable when the file is damaged."""
        try:
            data = read_limited(self.path, MAX_SETTINGS_BYTES)
        except FileNotFoundError:
            return EmulatorSettings()
        except OSError as exc:  # a directory, FIFO or device; unreadable; implausibly large
            raise SettingsUnusable(self.path, exc.strerror or "it cannot be read") from None
        try:
            return EmulatorSettings.from_json(json.loads(data.decode("utf-8")))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise SettingsUnusable(self.path, "it is damaged or from another version") from None

    def problem(self) -> str | None:
        """Why the file cannot be used, or None (for reports that go on without it)."""
        try:
            self.load()
        except SettingsUnusable as error:
            return error.message
        return None

    def save(self, settings: EmulatorSettings) -> None:
        """Write the settings atomically; with none left, the file goes."""
        if settings.settings:
            atomic_write_json(self.path, settings.to_json())
        else:
            self.path.unlink(missing_ok=True)
