"""SCALE's environment, measured: what `scaleenv <target>` changed in a real image. Pure.

The vendor's scaleenv is not public. When the toolchain's image is here, an adapter runs it
once (`env -0` before and after `. /opt/scale/bin/scaleenv <target>`) and this module turns
the two dumps into the ToolkitEnv the generated files spell out. Everything in the dumps is
checked: names must be shell names, values printable text; anything else is refused, never
copied into a file other tools read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from moatbridge.core.textsafe import printable
from moatbridge.core.toolkit_env import REQUIRE_SCALE, SCALE_TOOLS_DIR, ToolkitEnv
from moatbridge.errors import MoatbridgeError

SEPARATOR = b"MOATBRIDGE-SCALEENV-MEASURED"  # between the dumps: no '=', so never an entry
# Written by the shell itself, not by scaleenv: they differ between any two commands.
_SHELL_OWN = frozenset({"_", "SHLVL", "PWD", "OLDPWD", "PS1", "PS2", "PS4", "BASH_ENV"})
_LIBRARY_PATHS = ("LIBRARY_PATH", "LD_LIBRARY_PATH")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_FUNCTION = re.compile(r"BASH_FUNC_[A-Za-z0-9_.:-]+%%", re.ASCII)  # exported shell functions
_MAX_DUMP = 1 << 20


class MeasurementRefused(MoatbridgeError):
    """The dump holds something moatbridge will not copy into generated files."""


def _refused(image: str, what: str) -> MeasurementRefused:
    return MeasurementRefused(
        f"scaleenv in {printable(image, newlines=False)} set {what}, which moatbridge does not copy "
        "into generated files.",
        "check the image's /opt/scale/bin/scaleenv (is it SCALE's?), or report it to moatbridge",
    )


def parse_env0(data: bytes, image: str) -> dict[str, str]:
    """An `env -0` dump as a dict. Exported shell functions are left out (no generated file
    can hold one); a name that is not a shell name or a value that is not printable text
    refuses the whole dump."""
    if len(data) > _MAX_DUMP:
        raise _refused(image, "an environment of more than 1 MiB")
    variables: dict[str, str] = {}
    for entry in data.split(b"\0"):
        if not entry:
            continue
        raw_name, equals, raw_value = entry.partition(b"=")
        if _FUNCTION.fullmatch(raw_name.decode("ascii", "replace")):
            continue
        try:
            name, value = raw_name.decode("ascii"), raw_value.decode("utf-8")
        except UnicodeDecodeError:
            raise _refused(
                image, f"a variable that is not UTF-8 text ({printable(repr(raw_name[:80]))})"
            ) from None
        if not equals or not _NAME.fullmatch(name):
            raise _refused(image, f"a variable named {printable(name, newlines=False)!r}")
        if printable(value, newlines=False) != value:  # controls, tab, newline, bidi
            raise _refused(
                image, f"{name} to a value with control characters ({printable(value[:80], newlines=False)})"
            )
        variables[name] = value
    return variables


def split_dumps(output: bytes, image: str) -> tuple[dict[str, str], dict[str, str]]:
    """The probe's output (before, SEPARATOR, after) as two environments."""
    before, found, after = output.partition(b"\0" + SEPARATOR + b"\0")
    if not found:
        raise _refused(image, "no environment moatbridge could read (the probe's output was cut short)")
    return parse_env0(before, image), parse_env0(after, image)


def _entries(value: str | None) -> tuple[str, ...]:
    return tuple(entry for entry in (value or "").split(":") if entry)


def difference(before: Mapping[str, str], after: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The variables scaleenv set or changed, in the order of the after dump (the shell's own
    bookkeeping left out). Variables it removed are not listed: no generated file unsets."""
    return tuple(
        (name, value) for name, value in after.items() if name not in _SHELL_OWN and before.get(name) != value
    )


def measured_env(before: Mapping[str, str], after: Mapping[str, str], image: str) -> ToolkitEnv:
    """The ToolkitEnv of a measured scaleenv.

    PATH: the entries scaleenv added, in order, then /opt/scale/bin (scaleinfo, scalediag)
    unless it is already on it; the image's own PATH follows in each generated file.
    LIBRARY_PATH / LD_LIBRARY_PATH: their whole value after scaleenv (it may keep what the
    image set), empty entries dropped. Every other set or changed variable is copied as is.
    """
    changed = dict(difference(before, after))
    for name, value in changed.items():
        # Devcontainers substitute ${...}, Kubernetes $(...), CI files both: a measured value
        # is a plain path or word, so one holding either is not copied.
        if any(mark in value for mark in ("$", "`")):
            raise _refused(
                image, f"{name} to a value with '$' or '`' in it ({printable(value[:80], newlines=False)})"
            )
    old_path = set(_entries(before.get("PATH")))
    path = tuple(entry for entry in _entries(changed.pop("PATH", None)) if entry not in old_path)
    if SCALE_TOOLS_DIR not in _entries(after.get("PATH")):
        path += (SCALE_TOOLS_DIR,)
    libraries = {name: _entries(changed.pop(name, None)) for name in _LIBRARY_PATHS}
    # An accidental NVIDIA nvcc fails (toolkit_env.REQUIRE_SCALE), also after flags scaleenv set.
    name, flag = REQUIRE_SCALE
    flags = changed.get(name, "").split()
    if flag not in flags:
        changed[name] = " ".join((*flags, flag))
    variables = tuple(changed.items())
    return ToolkitEnv(
        variables,
        path,
        libraries["LIBRARY_PATH"],
        libraries["LD_LIBRARY_PATH"],
        f"measured in {printable(image, newlines=False)}",
    )
