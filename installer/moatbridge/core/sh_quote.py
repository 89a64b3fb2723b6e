"""Quoting for the POSIX sh text moatbridge writes (shims, runner, launcher, env files). Pure."""

from __future__ import annotations


def sh_quote(value: str) -> str:
    """POSIX sh single quotes: any byte but NUL stays literal (spaces, $, `, newlines).

    Always quoted, even a plain word, so the generated files read the same for every value."""
    return "'" + value.replace("'", "'\"'\"'") + "'"
