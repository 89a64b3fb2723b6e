"""`moatbridge run --emulate[=GFX]`: which emulator and GPU profile a toolchain's command
runs under, and what the shims' runner is told (core/emulator.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass

from moatbridge.adapters.emulator_files import require_emulator
from moatbridge.core.emulator import (
    EMULATOR_MOUNT,
    PROFILE_MOUNT,
    UNSET_UNDER_EMULATION,
    Emulator,
    Profile,
    announcement,
    choose_profile,
    container_profile,
    emulated_gfx,
)
from moatbridge.core.toolchains import Toolchain
from moatbridge.paths import Paths
from moatbridge.services.emulator_config import setting_for


@dataclass(frozen=True)
class Emulation:
    emulator: Emulator
    profile: Profile

    @property
    def announcement(self) -> str:
        return announcement(self.emulator, self.profile)

    def runner_environment(self) -> dict[str, str]:
        """What the runner reads (core/shims.render_runner): the mounts, the CLI and profile
        as the container sees them, and the target the activation selects."""
        given = os.path.isabs(self.profile.path)
        return {
            "MOATBRIDGE_EMULATE_MOUNT": _bind(self.emulator.prefix, EMULATOR_MOUNT),
            "MOATBRIDGE_EMULATE_PROFILE_MOUNT": _bind(self.profile.path, PROFILE_MOUNT) if given else "",
            "MOATBRIDGE_EMULATE_CLI": self.emulator.container_cli,
            "MOATBRIDGE_EMULATE_PROFILE": container_profile(self.emulator, self.profile),
            "MOATBRIDGE_EMULATE_TARGET": self.profile.gfx,
        }


def _bind(source: str, target: str) -> str:
    """A --mount value: CSV fields, quoted, so a ',' or '"' in a path stays part of it."""
    return f'type=bind,"source={source.replace(chr(34), chr(34) * 2)}",target={target},readonly'


def emulation_for(
    paths: Paths, toolchain: Toolchain, asked: str | None, environ: Mapping[str, str]
) -> Emulation:
    """The emulator and profile for running ``toolchain``'s programs (its setting, if it has
    one, after MOATBRIDGE_EMULATOR); InputError when there is no emulator, the setting's or
    the settings file cannot be used, there is no profile for the GPU, or the toolchain
    builds for NVIDIA GPUs."""
    gfx = emulated_gfx(asked, toolchain.targets, toolchain.name)
    emulator = require_emulator(environ, setting=setting_for(paths, toolchain.name))
    return Emulation(emulator, choose_profile(emulator, gfx, toolchain.name))


def hand_over(emulation: Emulation, environ: MutableMapping[str, str]) -> None:
    """Set what the runner reads, and unset what would give the runtime another GPU."""
    for name in UNSET_UNDER_EMULATION:
        environ.pop(name, None)
    environ.update(emulation.runner_environment())
