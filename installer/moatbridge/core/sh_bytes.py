"""Untrusted bytes in the shims' sh runner, each rule with its Python twin (pure text).

The runner is POSIX sh, which has no notion of characters, so both rules work on bytes:

* ``shown_bytes`` / ``SH_SHOWN``: text for a message by the rule of core.textsafe.printable:
  printable UTF-8 (a directory named "café") as it is, every control, format character and
  byte that is not UTF-8 escaped (a pin's OSC 52 clipboard write, an ESC in a directory
  name, a lone C1 byte); the Python commands use it where their sentence must read like
  the runner's.
* ``SH_UTF8``: whether a value is UTF-8 as Python (surrogateescape) and the docker CLI
  (Go) decode it: no overlong forms, no surrogates, nothing above U+10FFFF. The engine
  replaces every other byte with U+FFFD, so such a value cannot be passed exactly.

Both use only `od` and `awk` (POSIX), and only on a slow path: a message, or a value that
holds a byte outside ASCII (``SH_ASCII`` finds that without starting a process per value).
"""

from __future__ import annotations

from moatbridge.core.textsafe import printable


def shown_bytes(data: bytes) -> str:
    """``data`` as core.textsafe.printable shows it on one line: printable UTF-8 as it is;
    every control, format character and byte that is not UTF-8 as ``\\xNN``/``\\uNNNN``."""
    return printable(data.decode("utf-8", "surrogateescape"), newlines=False)


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# awk text turning od's hex pair $i into a number d (with x = "0123456789abcdef").
BYTE = "d = (index(x, substr($i, 1, 1)) - 1) * 16 + index(x, substr($i, 2, 1)) - 1"

# The rule of textsafe.printable(newlines=False), byte by byte: a UTF-8 sequence is held
# until it is whole (then printed as it came, or escaped by its code point when printable
# escapes that), and held bytes that turn out not to be UTF-8 are escaped one by one, as
# surrogateescape keeps them. awk runs in the C locale: there `printf "%c"` writes one byte
# (gawk in a UTF-8 locale would write the character of that number instead).
SH_SHOWN = (
    "# mb_shown TEXT: TEXT as core.textsafe.printable shows it on one line (core.sh_bytes).\n"
    "mb_shown() {\n"
    "    printf '%s' \"$1\" | od -An -v -tx1 | LC_ALL=C awk '\n"
    "        function held_out(   j) {\n"
    '            for (j = 1; j <= got; j++) printf "\\\\x%s", hex[j]\n'
    "            got = 0; need = 0\n"
    "        }\n"
    "        function whole(   j) {\n"
    "            if (cp < 160 || (cp >= 8203 && cp <= 8207) || (cp >= 8232 && cp <= 8238) ||\n"
    "                (cp >= 8294 && cp <= 8297) || cp == 65279) {\n"
    '                if (cp < 256) printf "\\\\x%02x", cp; else printf "\\\\u%04x", cp\n'
    '            } else for (j = 1; j <= got; j++) printf "%c", byte[j]\n'
    "            got = 0\n"
    "        }\n"
    '        BEGIN { x = "0123456789abcdef"; got = 0; need = 0 }\n'
    f"        {{ for (i = 1; i <= NF; i++) {{ {BYTE}\n"
    "            if (need > 0) {\n"
    "                if (d >= lo && d <= hi) {\n"
    "                    got++; hex[got] = $i; byte[got] = d; cp = cp * 64 + d - 128\n"
    "                    lo = 128; hi = 191; if (--need == 0) whole()\n"
    "                    continue\n"
    "                }\n"
    "                held_out()\n"
    "            }\n"
    "            if (d < 128) {\n"
    '                if (d >= 32 && d < 127) printf "%c", d; else printf "\\\\x%s", $i\n'
    "                continue\n"
    "            }\n"
    "            lo = 128; hi = 191\n"
    # overlong forms, UTF-16 surrogates and values above U+10FFFF are not UTF-8 (as SH_UTF8)
    "            if (d >= 194 && d <= 223) { need = 1; cp = d - 192 }\n"
    "            else if (d >= 224 && d <= 239) {\n"
    "                need = 2; cp = d - 224; if (d == 224) lo = 160; if (d == 237) hi = 159\n"
    "            }\n"
    "            else if (d >= 240 && d <= 244) {\n"
    "                need = 3; cp = d - 240; if (d == 240) lo = 144; if (d == 244) hi = 143\n"
    "            }\n"
    '            else { printf "\\\\x%s", $i; continue }\n'
    "            got = 1; hex[1] = $i; byte[1] = d } }\n"
    "        END { held_out() }'\n"
    "}\n"
)

SH_UTF8 = (
    "# mb_utf8 TEXT: true when TEXT is UTF-8 as Python and the docker CLI decode it (core.sh_bytes).\n"
    "mb_utf8() {\n"
    '    printf \'%s\' "$1" | od -An -v -tx1 | awk \'BEGIN { x = "0123456789abcdef"; need = 0; bad = 0 }\n'
    f"        {{ for (i = 1; i <= NF; i++) {{ {BYTE}\n"
    "            if (need > 0) {\n"
    "                if (d < lo || d > hi) { bad = 1; exit }\n"
    "                lo = 128; hi = 191; need--; continue\n"
    "            }\n"
    "            if (d < 128) continue\n"
    "            lo = 128; hi = 191\n"
    "            if (d >= 194 && d <= 223) need = 1\n"
    # overlong forms, UTF-16 surrogates and values above U+10FFFF are not UTF-8
    "            else if (d >= 224 && d <= 239) {\n"
    "                need = 2; if (d == 224) lo = 160; if (d == 237) hi = 159\n"
    "            }\n"
    "            else if (d >= 240 && d <= 244) {\n"
    "                need = 3; if (d == 240) lo = 144; if (d == 244) hi = 143\n"
    "            }\n"
    "            else { bad = 1; exit } } }\n"
    "        END { exit (bad || need > 0) }'\n"
    "}\n"
)

# Every byte of ASCII but NUL (which no sh value holds), as octal escapes so the runner stays
# plain text: `case $v in *[!"$mb_ascii"]*)` is then true exactly for a value with a byte
# outside ASCII, in every locale (a quoted bracket list is matched byte for byte).
SH_ASCII = "mb_ascii=$(printf '" + "".join(f"\\{b:03o}" for b in range(1, 128)) + "')\n"
