"""What doctor and detect read beside the host: the catalog's stacks and SCALE's targets,
and the installed toolchains; each unreadable record costs only its own advice."""

from __future__ import annotations

import os

from moatbridge.adapters.records import load_catalog
from moatbridge.core.catalog import Flavour
from moatbridge.core.toolchains import Toolchain
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.toolchains import state_store


def open_flavour() -> Flavour | None:
    """The open flavour's stacks, for per-GPU advice; a broken catalog only loses that."""
    try:
        return load_catalog().flavour("open")
    except MoatbridgeError:
        return None


def scale_targets() -> frozenset[str]:
    """The AMD targets SCALE supports natively (the catalog's list); empty if it is unreadable."""
    try:
        return frozenset(load_catalog().flavour("scale").compiler_targets)
    except MoatbridgeError:
        return frozenset()


def installed_toolchains() -> tuple[Toolchain, ...]:
    try:
        return state_store(Paths.from_environ(os.environ)).read().toolchains
    except MoatbridgeError:
        return ()  # a damaged state file is another command's error; doctor checks the machine
