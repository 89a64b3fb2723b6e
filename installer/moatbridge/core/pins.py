"""The pin file (`.moatbridge-toolchain`): which toolchain a project's directory uses (pure).

One rule, written here once for its two readers: the Python commands (``find_pin`` with
adapters.pin_file.read_pin) and the shims' sh runner (``SH_PIN``, pasted into
core.shims.render_runner). A pin means the same toolchain, or is refused with the same
sentence, whichever of them reads it:

* the pin is the first PIN_FILE found walking up from the working directory, as the shell
  spells it ($PWD); a broken link there is refused, not skipped;
* it must be a regular file this account can read, of at most PIN_LIMIT bytes: a FIFO, a
  device such as /dev/zero or a directory is refused before it is opened for reading (one
  planted in a shared project tree would otherwise stop every shim), and the read itself
  never waits, should one be swapped in after that check;
* it names its toolchain on its first non-blank line (lines end at LF; spaces, tabs and CRs
  around the name are trimmed; a NUL reads as byte 0x01, as no sh value can hold a NUL);
* a pin that names nothing, or no usable name, is an error, never a fall-back to the default;
* a refusal shows the path and the name escaped (core.sh_bytes, the rule of
  core.textsafe.printable): a pin's OSC 52 clipboard write is shown, never sent to the
  terminal, while a directory named "café" reads as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from moatbridge.core.sh_bytes import BYTE, shown_bytes
from moatbridge.core.toolchains import NAME_HINT, is_name
from moatbridge.errors import InputError

PIN_FILE = ".moatbridge-toolchain"
PIN_LIMIT = 4096  # a name is at most 63 bytes; this leaves room for comments and blank lines

# Why a pin cannot be read: the same words from both readers.
BROKEN = "it is a broken link"
DIRECTORY = "it is a directory"
SPECIAL = "it is not a regular file"
DENIED = "permission denied"
LARGE = f"it is larger than {PIN_LIMIT} bytes"
FAILED = "reading it failed"

# The sentences, as templates: plain text with no sh quoting characters, so the runner can
# put them in double quotes with "$1" and "$name" in place of {where} and {name}.
UNREADABLE = "The pin file {where} cannot be read ({reason})."
UNREADABLE_HINT = "make it a small regular file you can read, holding one toolchain name (e.g. open-gfx1030)"
NAMES_NOTHING = "The pin file {where} names no toolchain."
NAMES_NOTHING_HINT = "write one toolchain name in it, e.g. open-gfx1030"
BAD_NAME = "The pin file {where} names '{name}', which is not a usable toolchain name."


def _shown(path: str) -> str:
    return shown_bytes(path.encode("utf-8", "surrogateescape"))


def unreadable(where: str, reason: str) -> InputError:
    return InputError(UNREADABLE.format(where=_shown(where), reason=reason), UNREADABLE_HINT)


def pin_name(data: bytes, where: str) -> str:
    """The toolchain the pin file ``where`` (its bytes: ``data``) names; InputError otherwise."""
    for line in data.replace(b"\0", b"\x01").split(b"\n"):
        name = line.strip(b" \t\r")
        if name:
            if name.isascii() and is_name(name.decode("ascii")):
                return name.decode("ascii")
            raise InputError(BAD_NAME.format(where=_shown(where), name=shown_bytes(name)), NAME_HINT)
    raise InputError(NAMES_NOTHING.format(where=_shown(where)), NAMES_NOTHING_HINT)


def find_pin(
    start: str, present: Callable[[str], bool], read: Callable[[str], bytes]
) -> tuple[str, str] | None:
    """Walk up from ``start`` (absolute, as $PWD spells it) to the first pin file; returns
    (path, toolchain name). ``present`` is true for any directory entry, a broken link too
    (os.path.lexists); ``read`` returns the file's bytes or raises ``unreadable``."""
    import posixpath

    directory = posixpath.normpath(start)
    while True:
        candidate = posixpath.join(directory, PIN_FILE)
        if present(candidate):
            return candidate, pin_name(read(candidate), candidate)
        parent = posixpath.dirname(directory)
        if parent == directory:
            return None
        directory = parent


_FIRST = "abcdefghijklmnopqrstuvwxyz0123456789"


def _sh(template: str, **values: str) -> str:
    return '"' + template.format(**values) + '"'


# sh text for the runner. It needs `fail SENTENCE HINT` (which escapes what it prints).
# `[ -f ]` and `[ -r ]` are asked before the file is opened, so a FIFO or a device planted
# as a pin is refused unread. A FIFO swapped in between that check and the read must not
# stop the shim either, and sh has no non-blocking open: the read is GNU dd's
# `iflag=nonblock` (O_NONBLOCK: opening a FIFO returns at once, and so does reading one with
# no data). Opening read-write (`<>`), which never blocks on a FIFO on Linux, needs write
# permission a read-only checkout's pin does not give, and reading that FIFO would then
# wait. After the read the pin is checked again, so a FIFO read is refused as one. A dd
# without the flag (BusyBox's) falls back to a plain read just after the check. dd, od and
# awk, only when there is a pin: measured a few ms faster than the wc, head, tr and read
# loop they replace.
_READ = PIN_LIMIT + 1
SH_PIN = f"""# mb_usable NAME: the name rule of core.toolchains.is_name, spelled out (no locale ranges).
mb_usable() {{
    case $1 in
        ''|*..*|[!{_FIRST}]*|*[!{_FIRST}_.-]*) return 1 ;;
    esac
    [ ${{#1}} -le 63 ]
}}
mb_unreadable() {{ fail {_sh(UNREADABLE, where="$1", reason="$2")} {_sh(UNREADABLE_HINT)}; }}
# mb_pin_kind FILE: fails unless FILE is a regular file this account may read.
mb_pin_kind() {{
    if [ ! -e "$1" ]; then mb_unreadable "$1" '{BROKEN}'; fi
    if [ -d "$1" ]; then mb_unreadable "$1" '{DIRECTORY}'; fi
    if [ ! -f "$1" ]; then mb_unreadable "$1" '{SPECIAL}'; fi
    if [ ! -r "$1" ]; then mb_unreadable "$1" '{DENIED}'; fi
}}
# mb_pin_bytes FILE: at most {_READ} bytes of FILE, without waiting on a FIFO or a device.
mb_pin_bytes() {{
    dd if="$1" bs={_READ} count=1 iflag=nonblock 2>/dev/null && return 0
    if dd if=/dev/null count=0 iflag=nonblock 2>/dev/null; then return 1; fi
    head -c {_READ} < "$1"
}}
# mb_pin_line FILE: 'N' and FILE's first non-blank line (spaces, tabs and CRs trimmed, a NUL
# as 0x01), 'L' when FILE holds more than {PIN_LIMIT} bytes, 'F' when reading it failed.
# od carries every byte (a NUL too) and an 'F' line (never od's) says that the read failed.
mb_pin_line() {{
    {{ {{ mb_pin_bytes "$1" || echo F >&3; }} | od -An -v -tx1; }} 3>&1 | LC_ALL=C awk '
        function trim() {{ sub(/^[ \\t\\r]+/, "", line); sub(/[ \\t\\r]+$/, "", line) }}
        BEGIN {{ x = "0123456789abcdef"; n = 0; found = 0; failed = 0; line = "" }}
        $0 == "F" {{ failed = 1; next }}
        {{ for (i = 1; i <= NF; i++) {{ {BYTE}; n++
            if (found) continue
            if (d == 10) {{ trim(); if (line != "") found = 1; continue }}
            line = line sprintf("%c", d == 0 ? 1 : d) }} }}
        END {{
            if (failed) print "F"; else if (n > {PIN_LIMIT}) print "L"; else {{ trim(); print "N" line }}
        }}'
}}
# mb_pin FILE: sets $name to the toolchain the pin file FILE names, or fails (the rule of core.pins).
mb_pin() {{
    mb_pin_kind "$1"
    line=$(mb_pin_line "$1")
    mb_pin_kind "$1"  # what was read may not be what was checked (swapped in between)
    case $line in
        F*) mb_unreadable "$1" '{FAILED}' ;;
        L*) mb_unreadable "$1" '{LARGE}' ;;
    esac
    name=${{line#N}}
    if [ -z "$name" ]; then fail {_sh(NAMES_NOTHING, where="$1")} {_sh(NAMES_NOTHING_HINT)}; fi
    if ! mb_usable "$name"; then fail {_sh(BAD_NAME, where="$1", name="$name")} {_sh(NAME_HINT)}; fi
}}
"""
