"""The consent rule as the commands apply it: one function per question, one rule behind.

Every path that runs a toolchain or hands it elsewhere (run, shell, warm, upgrade,
slurm, k8s, devcontainer, ci, export, bundle load) asks `require_for`; the shims'
runner checks the same consent file against the same terms hash (core.shims).
"""

from __future__ import annotations

import getpass
import os
from datetime import datetime, timezone
from pathlib import Path

from moatbridge.adapters.consents import ConsentFiles
from moatbridge.adapters.records import load_licences
from moatbridge.core.licences import Consent, Licence, licence_of, require_consent
from moatbridge.core.toolchains import Toolchain
from moatbridge.paths import Paths


def consents(paths: Paths) -> ConsentFiles:
    return ConsentFiles(Path(paths.home))


def licence_for(toolchain: Toolchain) -> Licence:
    return licence_of(load_licences(), toolchain.licence, toolchain.flavour)


def require_for(paths: Paths, toolchain: Toolchain, what: str) -> Licence:
    """The toolchain's licence, once its consent holds; raises LicenceError (exit 2) otherwise."""
    licence = licence_for(toolchain)
    if licence.acceptance_required:
        require_consent(licence, consents(paths).read(licence.id), what)
    return licence


def new_consent(licence: Licence, use: str) -> Consent:
    return Consent(licence.id, licence.terms_hash(), use, _now(), current_user())


def current_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a uid without a passwd entry (containers, LDAP gaps)
        return f"uid {os.getuid()}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
