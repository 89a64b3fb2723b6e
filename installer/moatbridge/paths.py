"""Where moatbridge keeps its files, derived from the environment (no globals)."""

from __future__ import annotations

import hashlib
import os
import pwd
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Paths:
    home: str  # MOATBRIDGE_HOME: env files, shims, state
    state: str  # logs and crash reports
    # This account's registry of homes (adapters/home_registry); None: none is kept.
    homes_registry: str | None = None

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

    @property
    def emulator_settings(self) -> Path:
        """The GPU emulator each toolchain uses (`moatbridge emulator set`), by toolchain."""
        return Path(self.state) / "emulators.json"

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Paths:
        registry = homes_registry(environ)
        home = environ.get("MOATBRIDGE_HOME")
        if home:
            home = os.path.abspath(os.path.expanduser(home))
            return cls(home=home, state=os.path.join(home, "state"), homes_registry=registry)
        data = xdg_dir(environ, "XDG_DATA_HOME") or os.path.join(user_home(environ), ".local", "share")
        state = xdg_dir(environ, "XDG_STATE_HOME") or os.path.join(user_home(environ), ".local", "state")
        return cls(
            home=os.path.join(data, "moatbridge"), state=os.path.join(state, "moatbridge"),
            homes_registry=registry,
        )  # fmt: skip


def homes_registry(environ: Mapping[str, str]) -> str | None:
    """Where this account's homes meet: $MOATBRIDGE_HOMES_DIR (absolute), else under the
    passwd entry's home, not $HOME, so that homes made under different HOMEs of one account
    (CI jobs, `sudo -H`) find each other; None without a passwd entry (some containers)."""
    given = environ.get("MOATBRIDGE_HOMES_DIR", "")
    if given:
        return given if os.path.isabs(given) and not has_control(given) else None
    try:
        account_home = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return None
    return os.path.join(account_home, ".local", "state", "moatbridge", "homes") if account_home else None


# The XDG base directories moatbridge reads (its data and state, fish's conf.d, the engine's
# socket) and the cache one, and every other variable a path of moatbridge's comes from.
XDG_DIRS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR")
PATH_VARIABLES = ("MOATBRIDGE_HOME", "MOATBRIDGE_HOMES_DIR", "HOME", "ZDOTDIR", *XDG_DIRS)


def xdg_dir(environ: Mapping[str, str], key: str) -> str | None:
    """An XDG base directory from the environment, or None for the default. Only an absolute
    path counts: the XDG Base Directory spec says a relative one is invalid and to be ignored
    (recorded as is, it named a different place from every working directory)."""
    value = environ.get(key, "")
    return value if os.path.isabs(value) and not has_control(value) else None


def has_control(value: str) -> bool:
    """Whether a value holds a C0 or C1 control character (a newline, ESC ...), which no
    path moatbridge writes into rc blocks, env files and state may carry."""
    return any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in value)


def user_home(environ: Mapping[str, str]) -> str:
    """$HOME, else the passwd entry's home (containers often set neither)."""
    home = environ.get("HOME")
    if home:
        return home
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        from moatbridge.errors import InputError

        raise InputError(
            f"There is no home directory to keep moatbridge's files in (HOME is not set and "
            f"uid {os.getuid()} has no passwd entry).",
            "set HOME, or MOATBRIDGE_HOME to a directory you can write",
        ) from None


def home_problem(environ: Mapping[str, str]) -> str | None:
    """Why $MOATBRIDGE_HOME cannot hold moatbridge's files (it, or the nearest existing
    folder above it, is a file; it, or the HOME it derives from, is not UTF-8; a path-like
    variable carries a control character; HOME or ZDOTDIR, where rc files are, is not
    absolute), or None. Checked once, before a command that keeps files runs."""
    for key in PATH_VARIABLES:
        if has_control(environ.get(key, "")):
            # A newline in a path ends the rc block's line early: a block moatbridge can no
            # longer recognise, so never remove.
            return f"{key} holds a control character (a newline or the like)"
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
        # moatbridge's files fall back to the passwd entry: rc blocks and the files they
        # source would be written to different places.
        return f"HOME is set to {user_home!r}, which is not an absolute path"
    homes = environ.get("MOATBRIDGE_HOMES_DIR")
    if homes and not os.path.isabs(homes):
        return f"MOATBRIDGE_HOMES_DIR is set to {homes!r}, which is not an absolute path"
    zdotdir = environ.get("ZDOTDIR")
    if zdotdir and not os.path.isabs(zdotdir):
        # zsh reads it from the directory each shell starts in: no one .zshrc to keep a block in.
        return f"ZDOTDIR is set to {zdotdir!r}, which is not an absolute path"
    home = environ.get("MOATBRIDGE_HOME")
    if not home:
        return None
    path = os.path.abspath(os.path.expanduser(home))
    while not os.path.lexists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return None if os.path.isdir(path) else f"{path} is not a directory"
