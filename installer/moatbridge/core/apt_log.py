"""Recognising why apt failed inside an image build, from its output (pure).

apt's messages are stable English text (the recipe runs it without a locale). Only causes a
user can act on are recognised; anything else keeps the build's own error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from moatbridge.core.textsafe import printable

# E: Release file for http://deb.debian.org/debian/dists/sid/InRelease is expired
#    (invalid since 24d 18h 30min 55s). Updates for this repository will not be applied.
# The engine's build stream splits apt's stderr into pieces wrapped in colour codes
# ("\x1b[91mE:\x1b[0m", "\x1b[91mRelease file for ..."): matched after removing them.
_EXPIRED = re.compile(
    r"Release file for (?P<url>\S+?)/dists/(?P<suite>[A-Za-z0-9._-]+)/\S*Release "
    r"is expired \(invalid since (?P<since>[0-9a-z ]{1,40})\)"
)
_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


@dataclass(frozen=True)
class ExpiredRelease:
    mirror: str
    suite: str
    since: str


def expired_release(lines: tuple[str, ...] | list[str]) -> ExpiredRelease | None:
    """The first Release file apt refused for being past its Valid-Until date, if any."""
    for line in lines:
        match = _EXPIRED.search(_COLOUR.sub("", line))
        if match:
            return ExpiredRelease(printable(match["url"]), match["suite"], match["since"].strip())
    return None
