"""The installed toolchains: the state store, which toolchain a command acts on, and
recording what was written."""

from __future__ import annotations

import os
from typing import Any

from moatbridge.adapters.statestore import StateStore
from moatbridge.adapters.toolchain_files import Written
from moatbridge.core.pins import find_pin
from moatbridge.core.toolchains import State, Toolchain, choose_toolchain
from moatbridge.errors import InputError, MoatbridgeError
from moatbridge.paths import Paths


def state_store(paths: Paths) -> StateStore:
    return StateStore(
        paths.state_file, lock_path=paths.lock_file, on_written=lambda state: _registered(paths, state)
    )


def _registered(paths: Paths, state: State) -> None:
    """Keep the per-account registry of homes in step with this home's toolchains (adapters/
    home_registry: another home's uninstall reads it before removing an image)."""
    from moatbridge.adapters import home_registry

    if state.toolchains:
        home_registry.register(paths.homes_registry, os.path.realpath(paths.home), paths.engine_key)
    else:
        home_registry.unregister(paths.homes_registry, paths.engine_key)


def current_toolchain(explicit: str | None) -> tuple[State, Toolchain]:
    """The state and the toolchain a command acts on (-t NAME, pin, env, default)."""
    state = state_store(Paths.from_environ(os.environ)).read_required()
    return state, resolve_toolchain(state, explicit, os.environ)


def resolve_toolchain(state: State, explicit: str | None, environ: dict[str, str] | Any) -> Toolchain:
    """Explicit -t > a pin file up from the working directory > $MOATBRIDGE_TOOLCHAIN > default."""
    pin = pin_here() if explicit is None else None
    chosen = choose_toolchain(explicit, pin, environ, state.default)
    if chosen is None:
        raise InputError("No toolchain is installed yet.", "run 'moatbridge setup'")
    return state.toolchain(chosen[0])


def active_here(state: State, notes: list[str]) -> tuple[str, str] | None:
    """The toolchain shims would use here, by the rule of resolve_toolchain, and why; what
    keeps a pin file from being read goes into ``notes`` (for status and doctor)."""
    try:
        pin = pin_here()
    except MoatbridgeError as error:  # a pin file that names nothing, or cannot be read
        notes.append(error.message)
        pin = None
    except OSError:  # the working directory was deleted under the shell: no pin to find
        notes.append("The working directory no longer exists, so no pin file was looked for.")
        pin = None
    return choose_toolchain(None, pin, os.environ, state.default)


def pin_here() -> tuple[str, str] | None:
    """The pin file up from the working directory, as (path, toolchain name), or None.
    Raises for a pin that names nothing or cannot be read (OSError: no working directory)."""
    from moatbridge.adapters.pin_file import read_pin, working_directory

    return find_pin(working_directory(), os.path.lexists, read_pin)


def record(state: State, written: list[Written]) -> State:
    for item in written:
        previous = next((f for f in state.files if f["path"] == item.path and f["kind"] == item.kind), None)
        created = item.created if previous is None else bool(previous["created"])
        state = state.without_file(item.path, item.kind).with_file(item.path, item.kind, created)
    return state
