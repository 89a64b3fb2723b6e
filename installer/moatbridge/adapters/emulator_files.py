"""Finding a GPU emulator on this machine (core/emulator.py): its CLI, the prefix to mount,
its GPU profiles and its version.

Where, in order: $MOATBRIDGE_EMULATOR (the CLI, or a prefix with bin/rocjitsu), `rocjitsu`
or `mirage` on PATH, then AMD's install directories (/opt/rocm/bin, TheRock's
/opt/rocm/core-*/bin, the versioned /opt/rocm-*/bin). A place the user named that holds
no usable emulator is an error; a place searched by default is skipped.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Mapping
from dataclasses import replace

from moatbridge.adapters.hostfs import read_limited
from moatbridge.adapters.proc import CommandFailed, run_captured
from moatbridge.core.emulator import (
    CLI_NAMES,
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
from moatbridge.core.textsafe import printable
from moatbridge.errors import InputError
from moatbridge.paths import has_control

PROFILE_LIMIT = 1 << 20
MAX_PROFILES = 200
VERSION_TIMEOUT_S = 5
INSTALL_DIRS = ("/opt/rocm/bin", "/opt/rocm/core-*/bin", "/opt/rocm-*/bin")


def find_emulator(environ: Mapping[str, str], root: str = "/") -> Emulator | None:
    """The emulator to use, or None when there is none; InputError for one the user named
    (MOATBRIDGE_EMULATOR, MOATBRIDGE_EMULATOR_PROFILE) that cannot be used."""
    named = environ.get("MOATBRIDGE_EMULATOR", "")
    if named:
        emulator = _named(named, root)
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
        emulator = replace(emulator, profiles=(_given_profile(given), *emulator.profiles))
    return emulator


def require_emulator(environ: Mapping[str, str], root: str = "/") -> Emulator:
    emulator = find_emulator(environ, root)
    if emulator is None:
        raise InputError(
            "No GPU emulator was found (not in MOATBRIDGE_EMULATOR, not rocjitsu or mirage on PATH, "
            "not under /opt/rocm).",
            WHERE_TO_GET,
        )
    return emulator


def _named(named: str, root: str) -> Emulator:
    shown = printable(named)
    if has_control(named):
        raise InputError(
            f"MOATBRIDGE_EMULATOR={shown} holds a control character.", "set it to /path/to/bin/rocjitsu"
        )
    if not os.path.isabs(named):
        raise InputError(
            f"MOATBRIDGE_EMULATOR={shown} is not an absolute path.", "set it to /path/to/bin/rocjitsu"
        )
    path = os.path.join(root, named.lstrip("/"))
    if os.path.isdir(path):
        clis = [os.path.join(path, "bin", name) for name in CLI_NAMES]
        path = next((c for c in clis if os.path.isfile(c)), clis[0])
    emulator = _at(path, "MOATBRIDGE_EMULATOR") if os.path.isfile(path) and os.access(path, os.X_OK) else None
    if emulator is None:
        why = (
            "is not an executable file"
            if not (os.path.isfile(path) and os.access(path, os.X_OK))
            else "has no librocjitsu.so beside it (../lib, ../lib64 or a build tree's root)"
        )
        raise InputError(f"MOATBRIDGE_EMULATOR={shown} {why}.", WHERE_TO_GET)
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


def _given_profile(given: str) -> Profile:
    shown = printable(given)
    if not os.path.isabs(given) or has_control(given):
        raise InputError(
            f"MOATBRIDGE_EMULATOR_PROFILE={shown} is not an absolute path.", "set it to /path/to/gpu.json"
        )
    try:
        parsed = parse_profile(read_limited(given, PROFILE_LIMIT).decode("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "it is not UTF-8 text"
        raise InputError(
            f"The emulator profile {shown} cannot be read: {why}.", "pass a rocjitsu GPU profile (JSON)"
        ) from None
    if parsed is None:
        raise InputError(
            f"The emulator profile {shown} does not describe a GPU (no vm.gpu.device.gfx_target_version).",
            "pass one of rocjitsu's GPU profiles (its configs/*.json) or one written like them",
        )
    return Profile(path=os.path.realpath(given), gfx=parsed[0], device=parsed[1])


def _version(cli: str) -> str | None:
    """What `CLI --version` says; None when it cannot run here (it may need the image's libraries)."""
    try:
        done = run_captured([cli, "--version"], timeout=VERSION_TIMEOUT_S)
    except (OSError, CommandFailed):
        return None
    return parse_version(done.stdout + done.stderr)


def look_for_emulator(environ: Mapping[str, str]) -> tuple[Emulator | None, str | None]:
    """For status and doctor: the emulator, or why the one named cannot be used."""
    try:
        return find_emulator(environ), None
    except InputError as error:
        return None, error.message
