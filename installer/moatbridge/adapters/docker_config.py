"""docker's config.json (and a context's meta.json) read as the docker CLI reads them.

Everything here is the user's file and may be anything: a file that is not JSON, nested
too deeply, of the wrong shape, or a FIFO is `Unusable` with a few words why; the fields
the SDK uses are kept only in the form the CLI accepts (sdk_config), and what is dropped
becomes one warning (login_problem). engine_endpoint decides what each case means.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Any

_LIMIT = 1 << 20  # config.json and meta.json are small; a bigger "file" is not one of docker's


class Unusable(Exception):
    """Why a docker file cannot be used, in a few words ("is not valid JSON (...)")."""


def load_json(path: Path) -> Any:
    """A JSON file's value; None when it does not exist; Unusable when it cannot be used."""
    try:
        if not path.is_file():
            if path.exists():
                raise Unusable("is not a regular file")
            return None
        with path.open("rb") as stream:
            data = stream.read(_LIMIT + 1)
    except OSError as exc:
        raise Unusable(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > _LIMIT:
        raise Unusable("is larger than 1 MiB, so it is not docker's")
    try:
        return json.loads(data.decode("utf-8"), parse_int=_json_int)
    except RecursionError:  # '[[[[...': the parser recurses once per level, Go's up to 10000
        if _depth(data) > _GO_MAX_DEPTH:
            too_deep = f"is not valid JSON (it is nested more than {_GO_MAX_DEPTH} levels deep)"
            raise Unusable(too_deep) from None
        raise Unusable(
            "is nested more deeply than moatbridge can read (the docker CLI reads up to "
            f"{_GO_MAX_DEPTH} levels, so it may use another engine)"
        ) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise Unusable(f"is not valid JSON ({exc})") from None


_GO_MAX_DEPTH = 10000  # encoding/json's limit: deeper, the docker CLI cannot parse the file either


def _depth(data: bytes) -> int:
    """How deeply the JSON text nests arrays and objects (brackets inside strings do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            escaped, in_string = (False, True) if escaped else (byte == 0x5C, byte != 0x22)
        elif byte == 0x22:
            in_string = True
        elif byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        elif byte in b"]}":
            depth -= 1
    return deepest


def _json_int(digits: str) -> int | float:
    """A JSON integer. Python refuses to make an int of more than 4300 digits (ValueError), where
    Go reads the file; no number in config.json is used, so a long one becomes a float."""
    return int(digits) if len(digits) < 4000 else float(digits)


def current_context(config: Path) -> tuple[str | None, str | None]:
    """config.json's currentContext, and why config.json was not used (then no context)."""
    try:
        data = load_json(config)
        if data is None:
            return None, None
        if not isinstance(data, dict):
            raise Unusable("is not a JSON object")
        current = data.get("currentContext")
        if current is not None and not isinstance(current, str):
            raise Unusable("has a currentContext that is not a name")
    except Unusable as problem:
        as_the_cli = "" if "moatbridge" in str(problem) else " (as the docker CLI does)"
        return (
            None,
            f"the docker configuration {config} {problem}, so the default engine is used{as_the_cli}.",
        )
    return current or None, login_problem(config, data)


# config.json fields the SDK uses, and the type the docker CLI requires of each: the CLI drops
# a field of another type (with a warning), where the SDK would raise on it.
_SDK_FIELDS: dict[str, type] = {
    "proxies": dict, "auths": dict, "credHelpers": dict, "HttpHeaders": dict, "credsStore": str,
    "detachKeys": str,
}  # fmt: skip


def sdk_config(config: Path) -> dict[str, Any]:
    """config.json as the SDK may read it: {} when the docker CLI could not parse it (nested too
    deeply, not an object, a FIFO); without fields of the wrong type, logins that do not decode
    (the SDK's APIClient would raise on them) and credential helpers that are not names. Silent:
    resolve_endpoint warns about what is dropped."""
    try:
        data = load_json(config)
    except Unusable:
        return {}
    return _usable_fields(data)[0] if isinstance(data, dict) else {}


def _usable_fields(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The fields the SDK may use, and what was dropped (for the warning), in a few words."""
    dropped = [k for k in _SDK_FIELDS if k in data and not isinstance(data[k], _SDK_FIELDS[k])]
    kept = {k: v for k, v in data.items() if k not in dropped}
    if isinstance(kept.get("proxies"), dict):  # per engine address: each entry an object
        kept["proxies"] = {k: v for k, v in kept["proxies"].items() if isinstance(v, dict)}
    for name in ("credHelpers", "HttpHeaders"):  # names and header values: strings (the CLI's types)
        if isinstance(kept.get(name), dict):
            strings = {k: v for k, v in kept[name].items() if isinstance(v, str)}
            if len(strings) != len(kept[name]):
                dropped.append(name)
            kept[name] = strings
    if isinstance(kept.get("auths"), dict):
        logins = {registry: _login(entry) for registry, entry in kept["auths"].items()}
        if any(login is None or bad for login, bad in logins.values()):
            dropped.append("auths")
        kept["auths"] = {registry: login for registry, (login, _) in logins.items() if login is not None}
    return kept, dropped


def _login(entry: Any) -> tuple[dict[str, Any] | None, bool]:
    """An `auths` entry as the SDK may read it, and whether the docker CLI would warn about it.
    Its "auth", if not empty, must be base64 of user:password (the CLI's decodeAuth: strict
    base64, line breaks ignored, a user before the colon) and its "identitytoken" a string; a
    part that is not is dropped (the SDK's APIClient would raise on it). None: not an object."""
    if not isinstance(entry, dict):
        return None, True
    login, bad = dict(entry), False
    if not isinstance(login.get("identitytoken", ""), str):
        del login["identitytoken"]
        bad = True
    auth = login.pop("auth", "")
    if auth == "":  # no login here (a credential helper may have it): the SDK's {}
        return login, bad
    if _user_and_password(auth):
        return {**login, "auth": auth}, bad
    return login, True


def _user_and_password(auth: object) -> bool:
    """Whether `auth` decodes as the CLI and the SDK decode it (UTF-8 for the SDK's sake)."""
    if not isinstance(auth, str):
        return False
    try:
        text = base64.b64decode(auth.replace("\r", "").replace("\n", ""), validate=True).decode("utf-8")
    except (ValueError, binascii.Error):
        return False
    user, colon, _ = text.partition(":")
    return bool(user and colon)


def login_problem(config: Path, data: dict[str, Any]) -> str | None:
    """A warning about the parts of config.json moatbridge drops (one sentence), or None."""
    dropped = _usable_fields(data)[1]
    if not dropped:
        return None
    names = ", ".join(sorted(set(dropped)))
    return (
        f"the docker configuration {config} has entries that are not of docker's form in {names}, so "
        "moatbridge does not use them (the docker CLI warns about them too)."
    )


def login_warning(config: Path) -> str | None:
    """The warning about config.json's logins and helpers when the engine is chosen elsewhere."""
    try:
        data = load_json(config)
    except Unusable:
        return None  # unused whole: the SDK gets {}; the engine does not depend on it here
    return login_problem(config, data) if isinstance(data, dict) else None
