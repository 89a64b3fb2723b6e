"""Credentials out of everything moatbridge shows, logs or records (pure).

Secrets travel in three shapes: a URL's userinfo (``https://user:pass@host``) or
query (``?token=...``, signed URLs), a ``NAME=value`` pair whose name says it is
a secret (``API_KEY=...``, ``--password=...``), and the word after an option whose
name says so (``--token abc``). ``redact_text`` and ``redact_argv`` replace the
secret parts with ``***`` and keep the rest readable (scheme, host, path, option
and parameter names), so a crash report or a log line still says what was used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit, urlunsplit

MASK = "***"

# A name containing any of these (case-insensitive) holds a secret: build args,
# environment variables, option names, query parameters.
SECRET_WORDS = ("KEY", "PASS", "TOKEN", "SECRET", "CREDENTIAL", "AUTH")
# ... unless it names where a secret is kept, not the secret itself.
_REFERENCE_SUFFIXES = ("FILE", "PATH", "DIR")

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>`]+")
# NAME=value or NAME: value, where NAME may start with dashes (--api-key=...). The value
# runs to whitespace or a quote: better a closing bracket masked than half a password shown.
_ASSIGNMENT = re.compile(r"(?<![\w-])(-{0,2}[A-Za-z_][\w.-]*)(\s*[=:]\s*)")
_VALUE = re.compile(r"[^\s'\"]+")
# An HTTP authorization value, wherever it shows up.
_AUTH_SCHEME = re.compile(r"\b(Basic|Bearer|Token)(\s+)[A-Za-z0-9+/=._~-]{8,}")


def is_secret_name(name: str) -> bool:
    """Whether a variable, option or parameter named ``name`` carries a secret."""
    upper = name.upper().lstrip("-").replace("-", "_")
    if not any(word in upper for word in SECRET_WORDS):
        return False
    return not upper.endswith(_REFERENCE_SUFFIXES)


def has_secret(url: str) -> bool:
    """Whether ``url`` carries userinfo, a query or a fragment (all may hold a credential)."""
    return redact_url(url) != url


def strip_secrets(url: str) -> str:
    """``url`` without userinfo, query and fragment: the part that is safe to store."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def _redact_query(query: str) -> str:
    fields = []
    for field in query.split("&"):
        name, sep, value = field.partition("=")
        fields.append(f"{name}={MASK}" if sep and value else (MASK if not sep and name else field))
    return "&".join(fields)


def redact_url(url: str) -> str:
    """Userinfo replaced by ``***``, every query value and any fragment masked."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK  # unparseable (e.g. a broken IPv6 host): show nothing of it
    if not parts.scheme or not parts.netloc:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{MASK}@{netloc.rpartition('@')[2]}"
    query = _redact_query(parts.query) if parts.query else ""
    fragment = MASK if parts.fragment else ""
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


def _redact_assignments(text: str) -> str:
    pieces: list[str] = []
    done = 0
    # Names only, so "was: token=x" still finds "token" after the harmless "was".
    for match in _ASSIGNMENT.finditer(text):
        name, sep = match.group(1), match.group(2)
        if match.start() < done or not is_secret_name(name):
            continue
        if ":" in sep and name.endswith(("Error", "Exception", "Warning")):
            continue  # "KeyError: 'username'" names a key, it is no assignment
        value = _VALUE.match(text, match.end())
        if value is None or value.group(0) == MASK:
            continue
        pieces += [text[done : match.end()], MASK]
        done = value.end()
    pieces.append(text[done:])
    return "".join(pieces)


def redact_text(text: str) -> str:
    """``text`` with every URL's secrets and every ``SECRET_NAME=value`` masked."""
    text = _URL.sub(lambda match: redact_url(match.group(0)), text)
    text = _AUTH_SCHEME.sub(lambda match: f"{match.group(1)}{match.group(2)}{MASK}", text)
    return _redact_assignments(text)


def redact_argv(argv: Iterable[str]) -> list[str]:
    """A command line safe to show: URLs and secret assignments masked, and the value
    after a secret-named option (``--password VALUE``) replaced."""
    redacted: list[str] = []
    mask_next = False
    for word in argv:
        if mask_next:
            redacted.append(MASK)
            mask_next = False
            continue
        if word.startswith("-") and "=" not in word and is_secret_name(word):
            mask_next = True
        redacted.append(redact_text(word))
    return redacted


def split_userinfo(url: str) -> tuple[str, str | None, str | None]:
    """``(url without userinfo, username, password)``; percent-escapes in both are decoded."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None, None
    userinfo, _, host = parts.netloc.rpartition("@")
    username, _, password = userinfo.partition(":")
    bare = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    return bare, unquote(username), unquote(password)
