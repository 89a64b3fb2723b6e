"""The managed block in a user's rc file, edited byte for byte (pure: bytes in, bytes out).

rc files are the user's: whatever encoding, line endings (LF, CRLF, a lone CR) or final
newline they have comes back unchanged; only whole lines of our block are added or taken
out. The block is recognised by its exact marker lines, and only when it is unambiguous:
one BEGIN line, one END line after it, nothing between them that moatbridge did not
write, and no line that merely looks like a marker. Anything else is refused, with
nothing written, rather than guessed at.
"""

from __future__ import annotations

import re
from collections import Counter

from moatbridge.errors import MoatbridgeError

BEGIN = b"# >>> moatbridge >>>"
END = b"# <<< moatbridge <<<"
# The BEGIN line when the file had no final newline and we added one to append the block:
# removing the block takes that newline back (only if nothing was appended after the block).
BEGIN_ADDED_NEWLINE = BEGIN + b" (after added newline)"
COMMENT = b"# Managed by moatbridge: 'moatbridge uninstall' removes this block."
_OUR_BODY = re.compile(rb"if \[ -r .+ \]; then \. .+; fi|test -r .+; and source .+")
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_MARKERISH = re.compile(rb">>> *moatbridge *>>>|<<< *moatbridge *<<<", re.IGNORECASE)


class AmbiguousBlock(MoatbridgeError):
    """The rc file's moatbridge markers do not delimit exactly one block we wrote."""

    exit_code = 2


def _lines(data: bytes) -> list[bytes]:
    return _LINE.findall(data)


def _content(line: bytes) -> bytes:
    return line.rstrip(b"\r\n")


def _span(lines: list[bytes], where: str) -> tuple[int, int] | None:
    """(first, last) line indexes of our block, None if there is none; raises if ambiguous."""
    begins = [i for i, line in enumerate(lines) if _content(line) in (BEGIN, BEGIN_ADDED_NEWLINE)]
    ends = [i for i, line in enumerate(lines) if _content(line) == END]
    lookalikes = [
        i for i, line in enumerate(lines)
        if _MARKERISH.search(line) and i not in begins and i not in ends
    ]  # fmt: skip
    hint = f"edit {where} by hand so it holds one moatbridge block (or none), then run again"
    if lookalikes:
        raise AmbiguousBlock(
            f"{where} line {lookalikes[0] + 1} looks like a moatbridge marker but is not one.", hint
        )
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise AmbiguousBlock(f"{where} has {len(begins)} moatbridge BEGIN and {len(ends)} END lines.", hint)
    first, last = begins[0], ends[0]
    foreign = [i for i in range(first + 1, last) if not _ours(_content(lines[i]))]
    if foreign:
        raise AmbiguousBlock(
            f"{where} line {foreign[0] + 1}, inside the moatbridge block, was not written by it.", hint
        )
    return first, last


def _ours(content: bytes) -> bool:
    return content == COMMENT or _OUR_BODY.fullmatch(content) is not None


def _newline(lines: list[bytes]) -> bytes:
    """The file's own line ending (the most common one), LF for a file that has none."""
    endings = Counter(line[len(_content(line)) :] for line in lines if line != _content(line))
    return endings.most_common(1)[0][0] if endings else b"\n"


def block_lines(body: str) -> list[bytes]:
    """The lines of our block around one line of shell (`body`), without line endings."""
    return [BEGIN, COMMENT, body.encode("utf-8"), END]


def contains(data: bytes, where: str) -> bool:
    return _span(_lines(data), where) is not None


def insert(data: bytes, block: list[bytes], where: str) -> bytes:
    """The file with our block refreshed where it is, or appended; idempotent."""
    lines = _lines(data)
    span = _span(lines, where)
    newline = _newline(lines)
    if span is not None:
        first, last = span
        added = _content(lines[first]) == BEGIN_ADDED_NEWLINE
        fresh = [(BEGIN_ADDED_NEWLINE if added and i == 0 else line) for i, line in enumerate(block)]
        ending = lines[last][len(_content(lines[last])) :]  # the END line's own ending (or none)
        body = b"".join(line + newline for line in fresh[:-1]) + fresh[-1] + ending
        return b"".join(lines[:first]) + body + b"".join(lines[last + 1 :])
    if data and not data.endswith((b"\n", b"\r")):
        block = [BEGIN_ADDED_NEWLINE, *block[1:]]
        data += newline
    return data + b"".join(line + newline for line in block)


def remove(data: bytes, where: str) -> bytes:
    """The file without our block: exactly the bytes it had before `insert`, whatever the
    user added around the block since (a line appended after it keeps its own line)."""
    lines = _lines(data)
    span = _span(lines, where)
    if span is None:
        return data
    first, last = span
    before, after = b"".join(lines[:first]), b"".join(lines[last + 1 :])
    if _content(lines[first]) == BEGIN_ADDED_NEWLINE and not after:
        before = before[: -len(_newline(lines[first - 1 : first]))] if first else before
    return before + after
