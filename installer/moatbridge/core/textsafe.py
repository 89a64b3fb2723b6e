"""Untrusted text made safe to show on a terminal (pure).

Names, paths and fields read from bundles, sysfs, state files, the environment or the
command line may carry terminal controls: ESC sequences that clear the screen, OSC 52
clipboard writes, BEL, carriage returns that overwrite a line, bidirectional overrides,
and lone surrogates (undecodable bytes) that make printing itself fail. ``printable``
shows each as a visible escape; everything else is left exactly as it is.
"""

from __future__ import annotations

import re

# C0 (but tab and newline), DEL and C1 controls; zero-width and bidirectional format
# characters; the BOM; lone surrogates (bytes `surrogateescape` could not decode).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")
_INTEGER = re.compile("[0-9]{1,30}", re.ASCII)
_HEX = re.compile("(?:0[xX])?[0-9a-fA-F]{1,30}", re.ASCII)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte, as surrogateescape keeps it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, newlines: bool = True) -> str:
    """``text`` with every terminal control shown as ``\\xNN``/``\\uNNNN``; with
    ``newlines=False`` tab and newline too (a value that must stay on one line)."""
    return (_UNSAFE if newlines else _UNSAFE_LINE).sub(_escape, text)


def has_surrogates(text: str) -> bool:
    """True when ``text`` holds bytes that were not UTF-8 (kept by surrogateescape)."""
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def parse_uint(text: str | None) -> int | None:
    """A decimal integer read from outside (sysfs, /etc/group, a directory name): ASCII
    digits only, surrounding whitespace allowed; ``None`` for anything else. ``int()``
    alone accepts other scripts' digits and ``str.isdigit()`` accepts '²', which
    ``int()`` then rejects."""
    if text is None:
        return None
    stripped = text.strip(" \t\r\n")
    return int(stripped) if _INTEGER.fullmatch(stripped) else None


def parse_hex(text: str | None) -> int | None:
    """A hexadecimal integer read from outside (``0x1002`` or ``1002``), ASCII only."""
    if text is None:
        return None
    stripped = text.strip(" \t\r\n")
    return int(stripped, 16) if _HEX.fullmatch(stripped) else None
