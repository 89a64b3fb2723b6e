"""Credentials files: private, well-formed, and never echoed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moatbridge.adapters.credentials import load_credentials
from moatbridge.errors import InputError


def _write(path: Path, data: object, mode: int = 0o600) -> Path:
    path.write_text(json.dumps(data))
    path.chmod(mode)
    return path


def test_good_file(tmp_path: Path) -> None:
    creds = load_credentials(_write(tmp_path / "c.json", {"username": "acme", "password": "s3cret-value"}))
    assert (creds.username, creds.password) == ("acme", "s3cret-value")
    assert "s3cret-value" not in repr(creds)


@pytest.mark.parametrize(
    ("data", "mode", "message"),
    [
        ({"username": "a", "password": "b"}, 0o644, "is readable by others"),
        ({"username": "a"}, 0o600, "is not JSON with a username and a password"),
        ("not an object", 0o600, "is not JSON with a username and a password"),
        ({"username": "", "password": "b"}, 0o600, "has an empty username or password"),
        ({"username": "a:b", "password": "c"}, 0o600, "are unusable"),
    ],
)
def test_bad_files(tmp_path: Path, data: object, mode: int, message: str) -> None:
    path = _write(tmp_path / "c.json", data, mode)
    with pytest.raises(InputError) as caught:
        load_credentials(path)
    assert message in caught.value.message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        load_credentials(tmp_path / "nope.json")
