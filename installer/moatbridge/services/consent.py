"""The consent rule as every path applies it: one function per question, one rule behind.

Every path that runs a toolchain or hands it elsewhere (run, shell, warm, upgrade,
slurm, k8s, devcontainer, ci, export, bundle save, bundle load) asks `require_for`;
the shims' runner checks the same consent file against the same terms hash (core.shims).
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from moatbridge.adapters.clock import now_stamp
from moatbridge.adapters.consents import ConsentFiles
from moatbridge.adapters.records import load_licences
from moatbridge.core.catalog import Flavour
from moatbridge.core.image_spec import ImageSpec
from moatbridge.core.licences import Consent, Licence, LicenceNote, licence_of, require_consent
from moatbridge.core.scale_recipes import is_commercial
from moatbridge.core.toolchains import Toolchain
from moatbridge.core.toolkit_env import LICENCE_ENV
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
    return Consent(licence.id, licence.terms_hash(), use, now_stamp(), current_user())


def current_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a uid without a passwd entry (containers, LDAP gaps)
        return f"uid {os.getuid()}"


def licence_note(toolchain: Toolchain, what: str) -> LicenceNote | None:
    """What generated files (devcontainer, k8s, CI, Apptainer, Slurm) write in about the
    toolchain's licence. They are generated only once its consent holds (the one rule):
    without it this raises, naming `what` was refused."""
    paths = Paths.from_environ(os.environ)
    licence = require_for(paths, toolchain, what)
    if not licence.acceptance_required:
        return None
    consent = consents(paths).read(licence.id)
    assert consent is not None  # require_for just checked it
    return LicenceNote(licence.id, licence.name, licence.url, LICENCE_ENV.get(toolchain.flavour, ()),
                       consent.use, f"{consent.user} at {consent.at}")  # fmt: skip


def require_for_build(flavour: Flavour, spec: ImageSpec) -> None:
    """Installing SCALE accepts its licence (the recipe sets SCALE_LICENSE_ACCEPT=1 for the
    vendor's package), so the user's acceptance must be on record first, as for every other
    path to a licence-gated toolchain."""
    commercial = is_commercial(spec)
    licence_id = (flavour.commercial_licence or flavour.licence) if commercial else flavour.licence
    licence = load_licences()[licence_id]
    if licence.acceptance_required:
        paths = Paths.from_environ(os.environ)
        require_consent(licence, consents(paths).read(licence.id), f"Building a {flavour.name} image")
