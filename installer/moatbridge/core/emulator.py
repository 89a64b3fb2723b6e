"""Running a toolchain's programs on an emulated AMD GPU (pure).

AMD's emulator, rocjitsu (ROCm/rocm-systems, `emulation/rocjitsu`), runs real GPU code
objects under the unmodified ROCm runtime on the CPU: its CLI, `rocjitsu --config
PROFILE.json -- PROGRAM ARGS`, preloads `librocjitsu.so` (found beside the CLI, from
/proc/self/exe) into PROGRAM, which then sees the GPU the profile describes. AMD's
packages ship `mirage` as that CLI, a drop-in for the same arguments.

moatbridge mounts the emulator's whole install prefix, read-only, at EMULATOR_MOUNT in a
one-shot container of the toolchain, so the CLI finds its library and its profiles by the
same relative paths as on the host, and runs the command under it after the toolchain's
activation. The real GPU's device nodes are not passed: the emulated GPU is the only one.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from moatbridge.core.check import Check
from moatbridge.core.emulator_settings import EmulatorSetting
from moatbridge.core.gfx import decode_gfx_target_version, is_gfx_name, is_nvidia_target
from moatbridge.core.textsafe import printable
from moatbridge.errors import InputError

EMULATOR_MOUNT = "/opt/moatbridge/emulator"
# A profile given by path (MOATBRIDGE_EMULATOR_PROFILE) is mounted on its own, here.
PROFILE_MOUNT = "/opt/moatbridge/emulator-profile.json"
CLI_NAMES = ("rocjitsu", "mirage")
LIBRARY = "librocjitsu.so"
# Where the CLI looks for its library, relative to its own directory, in its order (an
# installed prefix's lib/ or lib64/, or a CMake build tree's root), and the prefix that
# moatbridge mounts for each: the directory holding both.
LIBRARY_PLACES = (("../lib/" + LIBRARY, ".."), ("../lib64/" + LIBRARY, ".."), ("../../" + LIBRARY, "../.."))
# Where an installed emulator keeps its GPU profiles (CMake's DATADIR/rocjitsu/configs), or
# a source or build tree.
PROFILE_DIRS = ("share/rocjitsu/configs", "configs")
WHERE_TO_GET = (
    "AMD's emulator is rocjitsu (github.com/ROCm/rocm-systems, emulation/rocjitsu): install "
    "AMD's amdrocm-emulation package, or build it, then set MOATBRIDGE_EMULATOR=/path/to/bin/rocjitsu "
    "(or, for one toolchain, moatbridge emulator set /path/to/bin/rocjitsu)"
)
# How an emulator was found (Emulator.found_by), besides PATH and the directories searched,
# and where the profile chosen came from.
FOUND_BY_ENVIRONMENT = "MOATBRIDGE_EMULATOR"
FOUND_BY_SETTING = "toolchain setting"
PROFILE_BY_ENVIRONMENT = "MOATBRIDGE_EMULATOR_PROFILE"
PROFILE_OWN = "emulator"
# Variables that would make the runtime take the emulated GPU for another one, or hide it.
UNSET_UNDER_EMULATION = (
    "HSA_OVERRIDE_GFX_VERSION", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
)  # fmt: skip
_VERSION_RE = re.compile(r"(?:rocjitsu|mirage)[ -]v?([0-9]+(?:\.[0-9]+){1,3}[0-9A-Za-z.+~-]{0,40})")
_PROFILE_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,120}\.json")


@dataclass(frozen=True)
class Profile:
    """One GPU the emulator can be: its profile file and the gfx target it describes."""

    path: str  # relative to the emulator's prefix, or absolute (one given by path)
    gfx: str
    device: str  # its marketing name, "" when the profile names none


@dataclass(frozen=True)
class Emulator:
    """An emulator found on this machine."""

    cli: str  # host path of the CLI, resolved
    prefix: str  # host directory mounted at EMULATOR_MOUNT: the CLI is below it
    found_by: str  # how: "MOATBRIDGE_EMULATOR", "toolchain setting", "PATH", or the directory searched
    version: str | None
    profiles: tuple[Profile, ...]

    @property
    def container_cli(self) -> str:
        return posixpath.join(EMULATOR_MOUNT, posixpath.relpath(self.cli, self.prefix))

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(sorted({p.gfx for p in self.profiles}))


def parse_profile(text: str) -> tuple[str, str] | None:
    """The (gfx target, device name) a rocjitsu profile describes, or None for text that is
    not one, and for a translation profile (its guest ISA runs on another GPU's model)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or "guest_isa" in data or "dbt_guest" in data:
        return None
    device = _member(data, "vm", "gpu", "device")
    if not isinstance(device, dict):
        return None
    version = device.get("gfx_target_version")
    if not isinstance(version, int) or isinstance(version, bool):
        return None
    gfx = decode_gfx_target_version(version)
    if gfx is None or not is_gfx_name(gfx):
        return None
    name = device.get("marketing_name")
    return gfx, printable(name)[:80] if isinstance(name, str) else ""


def _member(data: object, *keys: str) -> object:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def is_profile_file_name(name: str) -> bool:
    return bool(_PROFILE_NAME_RE.fullmatch(name))


def parse_version(output: str) -> str | None:
    """The version in the CLI's `--version` output (`rocjitsu 0.2.0`), or None."""
    found = _VERSION_RE.search(output[:4096])
    return found.group(1) if found else None


def prefix_for(cli: str, has_library: Iterable[str]) -> str | None:
    """The prefix of the emulator whose CLI is ``cli`` (a resolved absolute path): that of
    the first of LIBRARY_PLACES, in the CLI's own order, that ``has_library`` holds."""
    found = set(has_library)
    bin_dir = posixpath.dirname(cli)
    for library, prefix in LIBRARY_PLACES:
        if posixpath.normpath(posixpath.join(bin_dir, library)) in found:
            return posixpath.normpath(posixpath.join(bin_dir, prefix))
    return None


def library_candidates(cli: str) -> tuple[str, ...]:
    """The paths ``prefix_for`` asks about, for the CLI ``cli``."""
    bin_dir = posixpath.dirname(cli)
    return tuple(posixpath.normpath(posixpath.join(bin_dir, library)) for library, _ in LIBRARY_PLACES)


def choose_profile(emulator: Emulator, gfx: str, toolchain: str) -> Profile:
    """The profile for ``gfx``: a given one first (an absolute path), else the first of the
    emulator's own by file name. Raises when the emulator has none for it."""
    matching = [p for p in emulator.profiles if p.gfx == gfx]
    if matching:
        return sorted(matching, key=lambda p: (not posixpath.isabs(p.path), p.path))[0]
    others = ", ".join(emulator.targets) or "none"
    raise InputError(
        f"The emulator at {printable(emulator.cli)} has no GPU profile for {gfx}, the target of "
        f"toolchain {toolchain} (its profiles: {others}).",
        "choose one with --emulate=GFX, or give a profile with MOATBRIDGE_EMULATOR_PROFILE=/path/to/gpu.json",
    )


def amd_targets(targets: tuple[str, ...], toolchain: str) -> tuple[str, ...]:
    """The toolchain's targets an emulated AMD GPU can run; refused for one that builds for
    NVIDIA GPUs only."""
    if targets and all(is_nvidia_target(t) for t in targets):
        raise InputError(
            f"Toolchain {toolchain} builds for NVIDIA GPUs ({', '.join(targets)}); "
            "the emulator runs AMD GPU code only.",
            "use a toolchain with an AMD target (gfx1100, gfx1201, gfx942 ...)",
        )
    return tuple(t for t in targets if not is_nvidia_target(t))


def require_profile_target(profile: Profile, targets: tuple[str, ...], toolchain: str) -> None:
    """A profile remembered for a toolchain must describe a GPU the toolchain builds for: its
    programs have code for no other."""
    if profile.gfx not in targets:
        raise InputError(
            f"The emulator profile {printable(profile.path)} describes {profile.gfx}, which toolchain "
            f"{toolchain} does not build for (its targets: {', '.join(targets) or 'none'}).",
            f"give a profile for one of its targets, or set up a toolchain for {profile.gfx}",
        )


def emulated_gfx(asked: str | None, targets: tuple[str, ...], toolchain: str) -> str:
    """Which GPU to emulate: the one asked for (it must be one the toolchain builds for),
    else the toolchain's only AMD target."""
    targets = amd_targets(targets, toolchain)
    if asked is not None:
        if not is_gfx_name(asked):
            raise InputError(
                f"--emulate={printable(asked)} is not a gfx target name.", "write it like --emulate=gfx1100"
            )
        if targets and asked not in targets:
            raise InputError(
                f"Toolchain {toolchain} does not build for {asked} (its targets: {', '.join(targets)}), "
                "so its programs have no code an emulated GPU could run.",
                f"emulate one of its targets (--emulate={targets[0]}), or set up a toolchain for {asked}",
            )
        return asked
    processors = [t for t in targets if is_gfx_name(t)]
    if len(processors) == 1:
        return processors[0]
    raise InputError(
        f"Toolchain {toolchain} builds for {', '.join(targets) or 'no gfx target'}: name the GPU to emulate.",
        f"moatbridge run --emulate={processors[0] if processors else 'gfx1100'} ./prog",
    )


def container_profile(emulator: Emulator, profile: Profile) -> str:
    """Where the CLI reads the profile inside the container."""
    if posixpath.isabs(profile.path):
        return PROFILE_MOUNT
    return posixpath.join(EMULATOR_MOUNT, profile.path)


def emulated_argv(emulator: Emulator, profile: Profile, argv: list[str]) -> list[str]:
    """The command as run in the container: the emulator's CLI, its profile, then ``argv``."""
    return [emulator.container_cli, "--config", container_profile(emulator, profile), "--", *argv]


def announcement(emulator: Emulator, profile: Profile) -> str:
    """The one stderr line that says the GPU is emulated."""
    name = posixpath.basename(emulator.cli)
    version = f" {emulator.version}" if emulator.version else ""
    device = f", {profile.device}" if profile.device else ""
    return (
        f"moatbridge: the GPU is emulated: {profile.gfx}{device} ({name}{version}, profile "
        f"{printable(posixpath.basename(profile.path))}); results are checked, speed is not a GPU's."
    )


def doctor_check(
    emulator: Emulator | None,
    problem: str | None,
    targets: tuple[str, ...],
    toolchain: str | None = None,
    fix: str | None = None,
) -> Check:
    """doctor's line for the emulator: optional, so never a failure. ``targets``: the AMD
    targets the installed toolchains build for; ``toolchain``: the one whose `run --emulate`
    this is (its setting, if it has one, is how the emulator was found); ``fix``: the
    problem's own hint (a setting's: set it again, or unset it)."""
    title = "GPU emulator (moatbridge run --emulate)"
    if problem is not None:
        return Check("emulator", title, "warn", problem, fix or WHERE_TO_GET)
    if emulator is None:
        return Check(
            "emulator", title, "skip", "none found (optional: runs programs without a GPU)", WHERE_TO_GET
        )
    name = posixpath.basename(emulator.cli)
    version = f" {emulator.version}" if emulator.version else ""
    how = found_by(emulator, toolchain)
    detail = f"{name}{version} at {emulator.cli} (found by {how}); GPU profiles: " + (
        ", ".join(emulator.targets) or "none"
    )
    runnable = sorted(set(targets) & set(emulator.targets))
    if targets and not runnable:
        return Check(
            "emulator", title, "warn", detail + f"; none for the toolchains' targets ({', '.join(targets)})",
            "give a profile for one with MOATBRIDGE_EMULATOR_PROFILE=/path/to/gpu.json",
        )  # fmt: skip
    return Check("emulator", title, "pass", detail)


def found_by(emulator: Emulator, toolchain: str | None) -> str:
    """How the emulator was found, in words: a toolchain's setting names the toolchain."""
    if emulator.found_by == FOUND_BY_SETTING and toolchain is not None:
        return f"the toolchain setting of {toolchain}"
    return emulator.found_by


def host_profile(emulator: Emulator, profile: Profile) -> str:
    """Where the profile is on this machine."""
    return profile.path if posixpath.isabs(profile.path) else posixpath.join(emulator.prefix, profile.path)


@dataclass(frozen=True)
class ProfileChoice:
    """The profile `run --emulate` of a toolchain takes for one of its targets (None: none)."""

    target: str
    profile: Profile | None
    source: str | None  # PROFILE_BY_ENVIRONMENT, FOUND_BY_SETTING or PROFILE_OWN; None: none


@dataclass(frozen=True)
class EmulatorReport:
    """`moatbridge emulator show`: which emulator and profiles a toolchain's `run --emulate`
    uses, and why."""

    toolchain: str
    targets: tuple[str, ...]  # its AMD targets
    setting: EmulatorSetting | None
    emulator: Emulator | None
    choices: tuple[ProfileChoice, ...]

    def to_json(self) -> dict[str, Any]:
        emulator = self.emulator
        return {
            "toolchain": self.toolchain,
            "targets": list(self.targets),
            "setting": self.setting.to_json() if self.setting else None,
            "emulator": None if emulator is None else {
                "cli": emulator.cli, "prefix": emulator.prefix, "version": emulator.version,
                "found_by": emulator.found_by, "targets": list(emulator.targets),
            },
            "profiles": [
                {
                    "target": c.target,
                    "path": host_profile(emulator, c.profile) if emulator and c.profile else None,
                    "device": c.profile.device if c.profile else None,
                    "from": c.source,
                }
                for c in self.choices
            ],
            "where_to_get": WHERE_TO_GET if emulator is None else None,
        }  # fmt: skip

    def lines(self) -> list[str]:
        """The report for people; paths and names from outside are shown printable."""
        shown = printable
        out = [f"Toolchain: {self.toolchain} (AMD targets: {', '.join(self.targets)})"]
        if self.setting is None:
            out.append("Setting: none")
        else:
            profile = f", profile {shown(self.setting.profile)}" if self.setting.profile else ""
            out.append(f"Setting: emulator {shown(self.setting.emulator)}{profile}")
        emulator = self.emulator
        if emulator is None:
            out.append(f"Emulator: none. {WHERE_TO_GET}.")
            return out
        version = f" {emulator.version}" if emulator.version else ""
        out.append(
            f"Emulator: {shown(posixpath.basename(emulator.cli))}{version} at {shown(emulator.cli)} "
            f"(found by {shown(found_by(emulator, self.toolchain))})"
        )
        out.append(f"GPU profiles: {', '.join(emulator.targets) or 'none'}")
        for choice in self.choices:
            if choice.profile is None:
                out.append(
                    f"Profile for {choice.target}: none (give one with moatbridge emulator set --profile "
                    "FILE, or MOATBRIDGE_EMULATOR_PROFILE=FILE)"
                )
                continue
            device = f"{shown(choice.profile.device)}; " if choice.profile.device else ""
            source = {PROFILE_OWN: "the emulator's own", FOUND_BY_SETTING: "from the toolchain setting"}.get(
                choice.source or "", f"from {choice.source}"
            )
            where = shown(host_profile(emulator, choice.profile))
            out.append(f"Profile for {choice.target}: {where} ({device}{source})")
        return out
