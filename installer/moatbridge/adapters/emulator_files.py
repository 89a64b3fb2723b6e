"""Finding a GPU emulator on this machine (core/emulator.py): its CLI, the prefix to mount,
its GPU profiles and its version.

Where, in order: $MOATBRIDGE_EMULATOR (the CLI, or a prefix with bin/rocjitsu), the
toolchain's setting (`moatbridge emulator set`), `rocjitsu` or `mirage` on PATH, then AMD's
install directories (/opt/rocm/bin, TheRock's /opt/rocm/core-*/bin, the versioned
/opt/rocm-*/bin). A place the user named (the variable, the setting) that holds no usable
emulator is an error, never a reason to look elsewhere; a place searched by default is skipped.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, replace

from moatbridge.adapters.hostfs import read_limited
from moatbridge.adapters.proc import CommandFailed, run_captured
from moatbridge.core.emulator import (
    CLI_NAMES,
    FOUND_BY_ENVIRONMENT,
    FOUND_BY_SETTING,
    PROFILE_BY_ENVIRONMENT,
    PROFILE_DIRS,
    WHERE_TO_GET,
    Emulator,
    Profile,
    is_profile_file_name,
    library_candidates,
    parse_profile,
    parse_version,
    prefix_for,
)
from moatbridge.core.emulator_settings import EmulatorSetting, setting_hint
from moatbridge.core.textsafe import printable
from moatbridge.errors import InputError
from moatbridge.paths import has_control

PROFILE_LIMIT = 1 << 20
MAX_PROFILES = 200
VERSION_TIMEOUT_S = 5
INSTALL_DIRS = ("/opt/rocm/bin", "/opt/rocm/core-*/bin", "/opt/rocm-*/bin")


@dataclass(frozen=True)
class Named:
    """A path the user named for the emulator or its profile, and how sentences name it: an
    environment variable, an argument of `moatbridge emulator set`, or a toolchain's setting."""

    value: str
    what: str  # "MOATBRIDGE_EMULATOR=/x", "The emulator /x", "The emulator set for toolchain t (/x)"
    hint: str  # how to name a usable one
    found_by: str = FOUND_BY_ENVIRONMENT
    setting: bool = False  # a toolchain's setting: every error's hint is to set or unset it


def from_environment(value: str, variable: str = FOUND_BY_ENVIRONMENT) -> Named:
    example = "/path/to/bin/rocjitsu" if variable == FOUND_BY_ENVIRONMENT else "/path/to/gpu.json"
    return Named(value, f"{variable}={printable(value)}", f"set it to {example}")


def from_argument(value: str, profile: bool = False) -> Named:
    shown = printable(value) or "''"
    if profile:
        return Named(value, f"The emulator profile {shown}", "pass --profile /path/to/gpu.json")
    return Named(
        value, f"The emulator {shown}",
        "name its CLI or its prefix by absolute path: moatbridge emulator set /path/to/bin/rocjitsu",
        found_by=FOUND_BY_SETTING,
    )  # fmt: skip


def from_setting(setting: EmulatorSetting, profile: bool = False) -> Named:
    value = setting.profile if profile and setting.profile else setting.emulator
    what = "emulator profile" if profile else "emulator"
    return Named(
        value, f"The {what} set for toolchain {setting.toolchain} ({printable(value)})",
        setting_hint(setting.toolchain), found_by=FOUND_BY_SETTING, setting=True,
    )  # fmt: skip


def find_emulator(
    environ: Mapping[str, str], root: str = "/", setting: EmulatorSetting | None = None
) -> Emulator | None:
    """The emulator to use, or None when there is none; InputError for one the user named
    that cannot be used. In order: MOATBRIDGE_EMULATOR, the toolchain's ``setting``, PATH,
    the install directories; its profile: MOATBRIDGE_EMULATOR_PROFILE, else the setting's."""
    named = environ.get("MOATBRIDGE_EMULATOR", "")
    if named:
        emulator: Emulator | None = named_emulator(from_environment(named), root)
    elif setting is not None:
        emulator = named_emulator(from_setting(setting), root)
    else:
        emulator = None
        for cli, found_by in _searched(environ, root):
            emulator = _at(cli, found_by)
            if emulator is not None:
                break
    if emulator is None:
        return None
    given = environ.get("MOATBRIDGE_EMULATOR_PROFILE", "")
    if given:
        profile: Profile | None = given_profile(from_environment(given, PROFILE_BY_ENVIRONMENT))
    elif setting is not None and setting.profile:
        profile = given_profile(from_setting(setting, profile=True))
    else:
        profile = None
    if profile is not None:
        emulator = replace(emulator, profiles=(profile, *emulator.profiles))
    return emulator


def require_emulator(
    environ: Mapping[str, str], root: str = "/", setting: EmulatorSetting | None = None
) -> Emulator:
    emulator = find_emulator(environ, root, setting)
    if emulator is None:
        raise InputError(
            "No GPU emulator was found (not in MOATBRIDGE_EMULATOR, no toolchain setting, not rocjitsu "
            "or mirage on PATH, not under /opt/rocm).",
            WHERE_TO_GET,
        )
    return emulator


def named_emulator(named: Named, root: str = "/") -> Emulator:
    """The emulator at a path the user named (its CLI, or a prefix with bin/rocjitsu); one
    that cannot be used is an InputError saying why, in the words ``named`` gives."""
    value = named.value
    if has_control(value):
        raise InputError(f"{named.what} holds a control character.", named.hint)
    if not os.path.isabs(value):
        raise InputError(f"{named.what} is not an absolute path.", named.hint)
    path = os.path.join(root, value.lstrip("/"))
    if os.path.isdir(path):
        clis = [os.path.join(path, "bin", name) for name in CLI_NAMES]
        path = next((c for c in clis if os.path.isfile(c)), clis[0])
    usable = os.path.isfile(path) and os.access(path, os.X_OK)
    emulator = _at(path, named.found_by) if usable else None
    if emulator is None:
        why = (
            "is not an executable file"
            if not usable
            else "has no librocjitsu.so beside it (../lib, ../lib64 or a build tree's root)"
        )
        raise InputError(f"{named.what} {why}.", named.hint if named.setting else WHERE_TO_GET)
    return emulator


def _searched(environ: Mapping[str, str], root: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for name in CLI_NAMES:
        on_path = shutil.which(name, path=environ.get("PATH", "")) if root == "/" else None
        if on_path:
            found.append((on_path, "PATH"))
    for pattern in INSTALL_DIRS:
        # Newest first: core-10.0 before core-7.15 (a version's numbers, not its text).
        for directory in sorted(
            glob.glob(os.path.join(root, pattern.lstrip("/"))), key=_version_key, reverse=True
        ):
            for name in CLI_NAMES:
                cli = os.path.join(directory, name)
                if os.path.isfile(cli) and os.access(cli, os.X_OK):
                    found.append((cli, directory))
    return found


def _version_key(path: str) -> tuple[int, ...]:
    digits = "".join(c if c.isdigit() else " " for c in path)
    return tuple(int(d) for d in digits.split()[:4])


def _at(cli: str, found_by: str) -> Emulator | None:
    resolved = os.path.realpath(cli)
    prefix = prefix_for(resolved, [c for c in library_candidates(resolved) if os.path.isfile(c)])
    if prefix is None:
        return None
    return Emulator(
        cli=resolved,
        prefix=prefix,
        found_by=found_by,
        version=_version(resolved),
        profiles=_profiles(prefix),
    )


def _profiles(prefix: str) -> tuple[Profile, ...]:
    profiles: list[Profile] = []
    for directory in PROFILE_DIRS:
        folder = os.path.join(prefix, directory)
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names[:MAX_PROFILES]:
            if not is_profile_file_name(name):
                continue
            parsed = _read_profile(os.path.join(folder, name))
            if parsed is not None:
                profiles.append(Profile(path=f"{directory}/{name}", gfx=parsed[0], device=parsed[1]))
        if profiles:
            break  # an installed prefix's own, not also a source tree's copy
    return tuple(profiles)


def _read_profile(path: str) -> tuple[str, str] | None:
    try:
        return parse_profile(read_limited(path, PROFILE_LIMIT).decode("utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def given_profile(named: Named) -> Profile:
    """A GPU profile the user named by path, read and checked; InputError saying why not."""
    value = named.value
    if has_control(value):
        raise InputError(f"{named.what} holds a control character.", named.hint)
    if not os.path.isabs(value):
        raise InputError(f"{named.what} is not an absolute path.", named.hint)
    try:
        parsed = parse_profile(read_limited(value, PROFILE_LIMIT).decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "it is not UTF-8 text"
        raise InputError(
            f"{named.what} cannot be read: {why}.",
            named.hint if named.setting else "pass a rocjitsu GPU profile (JSON)",
        ) from None
    if parsed is None:
        raise InputError(
            f"{named.what} does not describe a GPU (no vm.gpu.device.gfx_target_version).",
            named.hint
            if named.setting
            else "pass one of rocjitsu's GPU profiles (its configs/*.json) or one written like them",
        )
    return Profile(path=os.path.realpath(value), gfx=parsed[0], device=parsed[1])


def _version(cli: str) -> str | None:
    """What `CLI --version` says; None when it cannot run here (it may need the image's libraries)."""
    try:
        done = run_captured([cli, "--version"], timeout=VERSION_TIMEOUT_S)
    except (OSError, CommandFailed):
        return None
    return parse_version(done.stdout + done.stderr)


def look_for_emulator(
    environ: Mapping[str, str], setting: EmulatorSetting | None = None
) -> tuple[Emulator | None, InputError | None]:
    """For status and doctor: the emulator, or why the one named cannot be used."""
    try:
        return find_emulator(environ, setting=setting), None
    except InputError as error:
        return None, error
