"""Credentials out of everything moatbridge shows, logs or records (pure).

Secrets travel in these shapes: a URL's userinfo (``https://user:pass@host``) or
query (``?token=...``, signed URLs), a ``NAME=value`` pair whose name says it is
a secret (``API_KEY=...``, ``--password=...``), the word after an option whose
name says so (``--token abc``), and a value whose own shape says so whatever its
name: a token with a vendor's prefix (``ghp_...``, ``glpat-...``, ``AKIA...``), a
JWT, an HTTP authorization value, or a random-looking value under a name that
hints at one (``GH_PAT=...``). ``redact_text`` and ``redact_argv`` replace the
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
# Tokens that say what they are by their prefix, as their issuers document them: GitHub
# (classic, OAuth, user-to-server, server-to-server, refresh; fine-grained), GitLab, Slack,
# AWS access key IDs, OpenAI/Anthropic-style "sk-" keys, Hugging Face, npm, PyPI; and JWTs.
_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}"
    r"|xox[abprs]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[A-Z0-9]{16}|sk-[A-Za-z0-9_-]{20,}"
    r"|hf_[A-Za-z0-9]{20,}|npm_[A-Za-z0-9]{20,}|pypi-[A-Za-z0-9_-]{16,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"
    r")(?![A-Za-z0-9_-])",
    re.ASCII,
)
# A password in a URL's userinfo: scheme://user:password@host.
_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s/@:]*:[^\s/@]+@", re.ASCII)
# Name parts that hint at a secret without saying so (GH_PAT, DB_PWD, SESSION_ID): a value
# under one is a secret when it looks random. Whole parts only: PATH is no PAT.
_HINT_PARTS = frozenset(
    ("PAT", "PWD", "PASSPHRASE", "PRIVATE", "SIG", "SIGNATURE", "SESSION", "COOKIE", "CERT", "DSN",
     "WEBHOOK", "SALT", "HMAC", "OTP", "NONCE", "JWT", "BEARER", "APIKEY")
)  # fmt: skip
_NAME_PARTS = re.compile(r"[A-Z0-9]+")
_RANDOM_MIN_LENGTH = 16
_RANDOM_MIN_BITS = 3.0  # Shannon entropy per character: hex is 4, English words about 2.5-3


def is_secret_name(name: str) -> bool:
    """Whether a variable, option or parameter named ``name`` carries a secret."""
    upper = name.upper().lstrip("-").replace("-", "_")
    if not any(word in upper for word in SECRET_WORDS):
        return False
    return not upper.endswith(_REFERENCE_SUFFIXES)


def looks_random(value: str) -> bool:
    """A value long, varied and unspaced enough to be a generated key rather than a word."""
    import math

    if len(value) < _RANDOM_MIN_LENGTH or any(c.isspace() for c in value):
        return False
    counts = [value.count(c) for c in set(value)]
    bits = -sum(n / len(value) * math.log2(n / len(value)) for n in counts)
    return bits >= _RANDOM_MIN_BITS and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


# The shell's own working-directory variables: a path, however random its directory names.
_SHELL_DIRECTORIES = frozenset(("PWD", "OLDPWD"))


def hints_at_secret(name: str) -> bool:
    """Whether ``name`` has a part that hints at a secret (``GH_PAT``, ``db-pwd``)."""
    upper = name.upper()
    return upper not in _SHELL_DIRECTORIES and bool(_HINT_PARTS.intersection(_NAME_PARTS.findall(upper)))


def secret_in_value(value: str) -> bool:
    """Whether ``value`` holds a secret by its own shape: a prefixed token, a JWT, an HTTP
    authorization value, or a URL with a password."""
    return bool(_TOKEN.search(value) or _AUTH_SCHEME.search(value) or _URL_PASSWORD.search(value))


def is_secret(name: str, value: str) -> bool:
    """Whether ``NAME=value`` carries a secret: by its name, by its value's shape, or by a
    random-looking value under a name that hints at one."""
    if is_secret_name(name) or secret_in_value(value):
        return True
    return hints_at_secret(name) and looks_random(value)


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
        if match.start() < done:
            continue
        if ":" in sep and name.endswith(("Error", "Exception", "Warning")):
            continue  # "KeyError: 'username'" names a key, it is no assignment
        value = _VALUE.match(text, match.end())
        if value is None or value.group(0) == MASK:
            continue
        if not (is_secret_name(name) or (hints_at_secret(name) and looks_random(value.group(0)))):
            continue
        pieces += [text[done : match.end()], MASK]
        done = value.end()
    pieces.append(text[done:])
    return "".join(pieces)


def redact_text(text: str) -> str:
    """``text`` with every URL's secrets and every ``SECRET_NAME=value`` masked."""
    text = _URL.sub(lambda match: redact_url(match.group(0)), text)
    text = _AUTH_SCHEME.sub(lambda match: f"{match.group(1)}{match.group(2)}{MASK}", text)
    text = _TOKEN.sub(MASK, text)
    return _redact_assignments(text)


def redact_argv(argv: Iterable[str]) -> list[str]:
    """A command line safe to show: URLs, tokens and secret assignments masked, the value
    after a secret-named option (``--password VALUE``) replaced, and a random-looking one
    after an option whose name hints at a secret (``--pat VALUE``)."""
    redacted: list[str] = []
    option = ""  # the option the previous word was, if it takes a value to judge
    for word in argv:
        if option and (is_secret_name(option) or looks_random(word)):
            redacted.append(MASK)
            option = ""
            continue
        secretish = word.startswith("-") and "=" not in word
        option = word if secretish and (is_secret_name(word) or hints_at_secret(word)) else ""
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
