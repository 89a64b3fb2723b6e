"""`moatbridge emulator set|unset|show [-t NAME]`: the GPU emulator (and profile) a toolchain's
`run --emulate` uses. The use cases are services/emulator_config.py; this module prints."""

from __future__ import annotations

import os
import posixpath
from argparse import Namespace

from moatbridge.adapters.console import print_json, safe
from moatbridge.paths import Paths
from moatbridge.services.emulator_config import SetRequest, forget, remember, report


def run(args: Namespace) -> int:
    paths = Paths.from_environ(os.environ)
    if args.emulator_command == "set":
        return _set(paths, args)
    if args.emulator_command == "unset":
        return _unset(paths, args)
    return _show(paths, args)


def _set(paths: Paths, args: Namespace) -> int:
    request = SetRequest(args.toolchain, args.path, args.profile, args.dry_run)
    done = remember(paths, request, os.environ)
    setting, emulator = done.setting, done.emulator
    version = f" {emulator.version}" if emulator.version else ""
    what = f"emulator {setting.emulator} ({posixpath.basename(emulator.cli)}{version})"
    if setting.profile is not None:
        what += f", profile {setting.profile} ({emulator.profiles[0].gfx})"
    verb = "Would remember" if args.dry_run else "Remembered"
    print(safe(f"{verb} for toolchain {setting.toolchain}: {what}."))
    if done.uncovered:
        print(
            f"note: the emulator has no GPU profile for {', '.join(done.uncovered)} (its profiles: "
            f"{', '.join(emulator.targets) or 'none'}); give one with --profile FILE"
        )
    for variable in done.overridden:
        print(f"note: {variable} is set here, and comes before the toolchain's setting")
    return 0


def _unset(paths: Paths, args: Namespace) -> int:
    toolchain, setting = forget(paths, args.toolchain, args.dry_run, os.environ)
    if setting is None:
        print(f"Toolchain {toolchain.name} has no emulator setting; nothing to forget.")
        return 0
    verb = "Would forget" if args.dry_run else "Forgot"
    print(safe(f"{verb} the emulator setting of toolchain {toolchain.name} ({setting.emulator})."))
    return 0


def _show(paths: Paths, args: Namespace) -> int:
    found = report(paths, args.toolchain, os.environ)
    if args.json:
        print_json(found.to_json())
        return 0
    for line in found.lines():  # printable already: paths and names from outside are escaped
        print(line)
    return 0
