"""Repository credentials kept in a private file (never argv, env, images or logs)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from moatbridge.adapters.hostfs import read_user_file
from moatbridge.adapters.repo_proxy import Credentials
from moatbridge.errors import InputError


def load_credentials(path: Path) -> Credentials:
    """Read ``{"username": ..., "password": ...}`` from a file only its owner can read."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InputError(
            f"The credentials file {path} does not exist.",
            'create it with {"username": "...", "password": "..."} and chmod 600 it',
        ) from None
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InputError(f"The credentials file {path} is readable by others.", f"chmod 600 {path}")
    if info.st_uid != os.getuid():
        raise InputError(f"The credentials file {path} belongs to another user.", "use a file you own")
    text = read_user_file(path, "credentials file", limit=64 << 10)  # regular, small, UTF-8
    try:
        data = json.loads(text)
        username, password = data["username"], data["password"]
    except (ValueError, KeyError, TypeError, RecursionError):
        raise InputError(
            f"The credentials file {path} is not JSON with a username and a password.",
            'write it as {"username": "...", "password": "..."}',
        ) from None
    if not isinstance(username, str) or not isinstance(password, str) or not username or not password:
        raise InputError(f"The credentials file {path} has an empty username or password.", "fill both in")
    try:
        return Credentials(username, password)
    except ValueError as exc:
        raise InputError(f"The credentials in {path} are unusable: {exc}.", "fix the file") from None
