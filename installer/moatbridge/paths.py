"""Where moatbridge keeps its files, derived from the environment (no globals)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Paths:
    home: str  # MOATBRIDGE_HOME: env files, shims, state
    state: str  # logs and crash reports

    @property
    def state_file(self) -> Path:
        """Toolchains, consents and every file moatbridge wrote (versioned JSON)."""
        return Path(self.home) / "state.json"

    @property
    def lock_file(self) -> Path:
        """Taken by every command that changes the state; never removed (see StateStore)."""
        return Path(self.state) / "state.lock"

    @property
    def credentials(self) -> Path:
        """Private directory (0700) for repository credentials files (0600)."""
        return Path(self.home) / "credentials"

    @property
    def engine_key(self) -> str:
        """A short identifier of this MOATBRIDGE_HOME (its resolved path) in the names and labels
        of the engine objects it owns: two homes of one account (CI jobs, two checkouts, sudo
        -H) share the engine, never a warm container."""
        resolved = os.path.realpath(self.home).encode("utf-8", "surrogateescape")
        return hashlib.sha256(resolved).hexdigest()[:10]

    @property
    def images_state(self) -> Path:
        """Images moatbridge pulled or pushed, by digest."""
        return Path(self.state) / "images.json"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Paths:
        home = environ.get("MOATBRIDGE_HOME")
        if home:
            home = os.path.abspath(os.path.expanduser(home))
            return cls(home=home, state=os.path.join(home, "state"))
        import platformdirs  # only needed on this path; keeps --version light

        try:
            return cls(
                home=platformdirs.user_data_dir("moatbridge", appauthor=False),
                state=platformdirs.user_state_dir("moatbridge", appauthor=False),
            )
        except RuntimeError:  # no HOME, and a uid without a passwd entry (containers)
            from moatbridge.errors import InputError

            raise InputError(
                f"There is no home directory to keep moatbridge's files in (HOME is not set and "
                f"uid {os.getuid()} has no passwd entry).",
                "set HOME, or MOATBRIDGE_HOME to a directory you can write",
            ) from None


def home_problem(environ: Mapping[str, str]) -> str | None:
    """Why $MOATBRIDGE_HOME cannot hold moatbridge's files (it, or the nearest existing
    folder above it, is a file; it, or the HOME it derives from, is not UTF-8), or None.
    Checked once, before a command that keeps files runs."""
    for key in (
        ("MOATBRIDGE_HOME",)
        if environ.get("MOATBRIDGE_HOME")
        else ("HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
    ):
        value = environ.get(key, "")
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):  # bytes that are not UTF-8
            return f"{key} is not valid UTF-8 (its path goes into activation files and rc blocks)"
    user_home = environ.get("HOME")
    if user_home is not None and not os.path.isabs(user_home):
        # `~` is then the working directory (or / for an empty HOME) for rc files, while
        # platformdirs falls back to the passwd entry: rc blocks and the files they source
        # would be written to different places.
        return f"HOME is set to {user_home!r}, which is not an absolute path"
    home = environ.get("MOATBRIDGE_HOME")
    if not home:
        return None
    path = os.path.abspath(os.path.expanduser(home))
    while not os.path.lexists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return None if os.path.isdir(path) else f"{path} is not a directory"
