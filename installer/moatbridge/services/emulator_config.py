"""`moatbridge emulator set|unset|show`: the GPU emulator each toolchain's `run --emulate`
uses, remembered per toolchain, and which one a run would take and why.

The emulator is looked for in this order: MOATBRIDGE_EMULATOR, the toolchain's setting,
PATH, AMD's install directories (adapters/emulator_files.py); its profile:
MOATBRIDGE_EMULATOR_PROFILE, the setting's, the emulator's own. A setting whose emulator or
profile has gone or broken since is refused with the words of the setting, never passed
over for another emulator. Everything is checked before the state lock is taken, so a
refusal leaves no file behind; the settings file is changed under that lock.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from moatbridge.adapters.emulator_files import (
    find_emulator,
    from_argument,
    given_profile,
    look_for_emulator,
    named_emulator,
)
from moatbridge.adapters.emulator_settings import EmulatorSettingsFile, SettingsUnusable
from moatbridge.core.emulator import (
    FOUND_BY_SETTING,
    PROFILE_BY_ENVIRONMENT,
    PROFILE_OWN,
    Emulator,
    EmulatorReport,
    ProfileChoice,
    amd_targets,
    choose_profile,
    require_profile_target,
)
from moatbridge.core.emulator_settings import EmulatorSetting
from moatbridge.core.toolchains import State, Toolchain
from moatbridge.errors import InputError, MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.toolchains import active_here, resolve_toolchain, state_store


def settings_file(paths: Paths) -> EmulatorSettingsFile:
    return EmulatorSettingsFile(paths.emulator_settings)


def setting_for(paths: Paths, toolchain: str) -> EmulatorSetting | None:
    """The toolchain's setting, or None; SettingsUnusable when the file is damaged (a run
    cannot know which emulator its toolchain was given)."""
    return settings_file(paths).load().get(toolchain)


@dataclass(frozen=True)
class SetRequest:
    toolchain: str | None  # -t NAME; None: as `run` resolves it (pin, env, default)
    path: str  # the emulator's CLI or prefix
    profile: str | None  # --profile FILE
    dry_run: bool


@dataclass(frozen=True)
class Remembered:
    setting: EmulatorSetting
    emulator: Emulator  # as the setting finds it (its profile first)
    uncovered: tuple[str, ...]  # the toolchain's AMD targets no profile describes
    overridden: tuple[str, ...]  # variables set here that come before the setting


def remember(paths: Paths, request: SetRequest, environ: Mapping[str, str]) -> Remembered:
    store = state_store(paths)
    toolchain = resolve_toolchain(store.read_required(), request.toolchain, environ)
    targets = amd_targets(toolchain.targets, toolchain.name)
    emulator = named_emulator(from_argument(request.path))
    profile = None
    if request.profile is not None:
        profile = given_profile(from_argument(request.profile, profile=True))
        require_profile_target(profile, targets, toolchain.name)
        emulator = replace(emulator, profiles=(profile, *emulator.profiles))
    setting = EmulatorSetting(toolchain.name, emulator.cli, profile.path if profile else None)
    file = settings_file(paths)
    file.load()  # a damaged file: refused before the lock file is made
    if not request.dry_run:
        with store.locked():
            state = store.read_required()
            state.toolchain(toolchain.name)  # uninstalled meanwhile
            file.save(file.load().with_setting(setting).kept(t.name for t in state.toolchains))
    overridden = tuple(
        name
        for name in ("MOATBRIDGE_EMULATOR", *((PROFILE_BY_ENVIRONMENT,) if profile else ()))
        if environ.get(name)
    )
    uncovered = tuple(t for t in targets if t not in emulator.targets)
    return Remembered(setting, emulator, uncovered, overridden)


def forget(
    paths: Paths, toolchain_name: str | None, dry_run: bool, environ: Mapping[str, str]
) -> tuple[Toolchain, EmulatorSetting | None]:
    """Drop the toolchain's setting; returns it (None: there was none, nothing changed)."""
    store = state_store(paths)
    toolchain = resolve_toolchain(store.read_required(), toolchain_name, environ)
    file = settings_file(paths)
    setting = file.load().get(toolchain.name)
    if setting is None or dry_run:
        return toolchain, setting
    with store.locked():
        state = store.read_required()
        file.save(file.load().without(toolchain.name).kept(t.name for t in state.toolchains))
    return toolchain, setting


def report(paths: Paths, toolchain_name: str | None, environ: Mapping[str, str]) -> EmulatorReport:
    """Which emulator and profiles `run --emulate` of the toolchain would take, and why;
    the refusal that run would give for a setting that cannot be used."""
    toolchain = resolve_toolchain(state_store(paths).read_required(), toolchain_name, environ)
    targets = amd_targets(toolchain.targets, toolchain.name)
    setting = setting_for(paths, toolchain.name)
    emulator = find_emulator(environ, setting=setting)
    choices = []
    for target in targets:
        if emulator is None:
            choices.append(ProfileChoice(target, None, None))
            continue
        try:
            profile = choose_profile(emulator, target, toolchain.name)
        except InputError:
            choices.append(ProfileChoice(target, None, None))
            continue
        if not os.path.isabs(profile.path):
            source = PROFILE_OWN
        else:
            source = PROFILE_BY_ENVIRONMENT if environ.get(PROFILE_BY_ENVIRONMENT) else FOUND_BY_SETTING
        choices.append(ProfileChoice(target, profile, source))
    return EmulatorReport(toolchain.name, targets, setting, emulator, tuple(choices))


@dataclass(frozen=True)
class EmulatorLook:
    """For status and doctor: the emulator `run --emulate` of the active toolchain takes."""

    emulator: Emulator | None
    # Why the one named (a variable, the setting, the settings file) cannot be used, and the fix.
    problem: InputError | None
    toolchain: str | None  # the active toolchain, when installed
    setting: EmulatorSetting | None  # its setting


def look_here(paths: Paths, state: State, active: str | None, environ: Mapping[str, str]) -> EmulatorLook:
    """The emulator as `run --emulate` here would find it; a damaged settings file is said,
    and the emulator looked for without it."""
    installed = {t.name for t in state.toolchains}
    toolchain = active if active in installed else None
    damaged: InputError | None = None
    try:
        setting = settings_file(paths).load().get(toolchain) if toolchain else None
    except SettingsUnusable as error:
        setting, damaged = None, error
    emulator, problem = look_for_emulator(environ, setting)
    return EmulatorLook(emulator, damaged or problem, toolchain, setting)


def look_active(environ: Mapping[str, str]) -> EmulatorLook:
    """look_here for the toolchain active here, the state read quietly (doctor checks the
    machine: no home, or a damaged state, is another command's error)."""
    try:
        paths = Paths.from_environ(environ)
    except MoatbridgeError:
        emulator, problem = look_for_emulator(environ)
        return EmulatorLook(emulator, problem, None, None)
    state = state_store(paths).load_quietly() or State()
    active = active_here(state, [])
    return look_here(paths, state, active[0] if active else None, environ)


def drop_settings(
    paths: Paths, remaining: Iterable[str], dry_run: bool, removed: list[str], problems: list[str]
) -> None:
    """Uninstall's part (under the state lock): only the settings of the toolchains that
    remain are kept; a damaged settings file is left as it is, and said."""
    file = settings_file(paths)
    try:
        settings = file.load()
    except SettingsUnusable as error:
        problems.append(error.message)
        return
    kept = settings.kept(remaining)
    if kept == settings:
        return
    if not dry_run:
        file.save(kept)
    removed += [f"emulator setting of {s.toolchain}" for s in settings.settings if s not in kept.settings]
