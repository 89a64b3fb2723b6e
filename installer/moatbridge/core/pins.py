"""The pin file (`.moatbridge-toolchain`): which toolchain a project's directory uses (pure).

One rule, written here once for its two readers: the Python commands (``find_pin`` with
adapters.pin_file.read_pin) and the shims' sh runner (``SH_PIN``, pasted into
core.shims.render_runner). A pin means the same toolchain, or is refused with the same
sentence, whichever of them reads it:

* the pin is the first PIN_FILE found walking up from the working directory, as the shell
  spells it ($PWD); a broken link there is refused, not skipped;
* it must be a regular file this account can read, of at most PIN_LIMIT bytes: a FIFO, a
  device such as /dev/zero or a directory is refused before it is opened for reading (one
  planted in a shared project tree would otherwise stop every shim);
* it names its toolchain on its first non-blank line (lines end at LF; spaces, tabs and CRs
  around the name are trimmed; a NUL reads as byte 0x01, as no sh value can hold a NUL);
* a pin that names nothing, or no usable name, is an error, never a fall-back to the default;
* a refusal shows the path and the name escaped (core.sh_bytes, the rule of
  core.textsafe.printable): a pin's OSC 52 clipboard write is shown, never sent to the
  terminal, while a directory named "café" reads as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from moatbridge.core.sh_bytes import shown_bytes
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


# sh text for the runner. It needs `fail SENTENCE HINT` (which escapes what it prints) and
# `blank` (a space, a tab and a CR). `[ -f ]` and `[ -r ]` are asked before the file is
# opened, so a FIFO or a device is never read; the size is bounded before the text is.
SH_PIN = f"""# mb_usable NAME: the name rule of core.toolchains.is_name, spelled out (no locale ranges).
mb_usable() {{
    case $1 in
        ''|*..*|[!{_FIRST}]*|*[!{_FIRST}_.-]*) return 1 ;;
    esac
    [ ${{#1}} -le 63 ]
}}
mb_unreadable() {{ fail {_sh(UNREADABLE, where="$1", reason="$2")} {_sh(UNREADABLE_HINT)}; }}
# mb_pin FILE: sets $name to the toolchain the pin file FILE names, or fails (the rule of core.pins).
mb_pin() {{
    if [ ! -e "$1" ]; then mb_unreadable "$1" '{BROKEN}'; fi
    if [ -d "$1" ]; then mb_unreadable "$1" '{DIRECTORY}'; fi
    if [ ! -f "$1" ]; then mb_unreadable "$1" '{SPECIAL}'; fi
    if [ ! -r "$1" ]; then mb_unreadable "$1" '{DENIED}'; fi
    size=$(wc -c < "$1") || size=
    case $size in *[0-9]*) ;; *) mb_unreadable "$1" '{FAILED}' ;; esac
    if [ "$size" -gt {PIN_LIMIT} ]; then mb_unreadable "$1" '{LARGE}'; fi
    name=$(head -c {PIN_LIMIT} < "$1" | tr '\\000' '\\001' | {{
        while IFS= read -r line || [ -n "$line" ]; do
            while :; do case $line in ["$blank"]*) line=${{line#?}} ;; *) break ;; esac; done
            while :; do case $line in *["$blank"]) line=${{line%?}} ;; *) break ;; esac; done
            if [ -n "$line" ]; then printf '%s' "$line"; break; fi
        done
    }})
    if [ -z "$name" ]; then fail {_sh(NAMES_NOTHING, where="$1")} {_sh(NAMES_NOTHING_HINT)}; fi
    if ! mb_usable "$name"; then fail {_sh(BAD_NAME, where="$1", name="$name")} {_sh(NAME_HINT)}; fi
}}
"""
