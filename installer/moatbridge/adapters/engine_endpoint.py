"""Which engine address the docker CLI would use: the one seam every SDK connection asks.

The shims and `moatbridge run` exec the docker CLI, which honours `docker context use` and
DOCKER_CONTEXT; an SDK client that knew only DOCKER_HOST would build an image on one engine
and the CLI would run it on another (rootless Docker, a remote context). So the CLI's order:
DOCKER_HOST; else DOCKER_CONTEXT; else `currentContext` in $DOCKER_CONFIG/config.json
(~/.docker by default); a context's address is Endpoints.docker.Host in
contexts/meta/<sha256 of its name>/meta.json, and the context "default" (or a context with
no Host, which the CLI treats the same) is the default socket.

Everything read here is the user's file and may be anything. As the CLI does, a config.json
it cannot use is a warning (one sentence naming it) and the default engine; a named context
that does not exist or whose meta.json is broken is an InputError naming the file (one
sentence and a hint that works for where the name came from), never a traceback.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moatbridge.core.textsafe import printable
from moatbridge.errors import InputError

DEFAULT_SOCKET = "unix:///var/run/docker.sock"
DEFAULT_CONTEXT = "default"
SCHEMES = ("unix", "tcp", "ssh")  # what a Linux docker CLI can reach (no npipe, fd is the daemon's)
_LIMIT = 1 << 20  # config.json and meta.json are small; a bigger "file" is not one of docker's


@dataclass(frozen=True)
class Tls:
    """A context's TLS material, as `docker context create --docker ca=,cert=,key=` stored it."""

    ca: str | None  # the CA that signed the engine's certificate; None: the system's CAs
    cert: str | None  # the client certificate and its key (both or neither)
    key: str | None
    verify: bool  # False: the context says SkipTLSVerify


@dataclass(frozen=True)
class Endpoint:
    """An engine address and what chose it."""

    host: str  # e.g. unix:///var/run/docker.sock, tcp://host:2376, ssh://user@host
    context: str | None  # the docker context that named it; None: DOCKER_HOST or no context
    tls: Tls | None = None  # a context's TLS material (None: plain, as without a context)
    # What in config.json moatbridge could not use (the whole file, so the default engine; or a
    # login or credential helper), one sentence; None: nothing.
    warning: str | None = None

    @property
    def source(self) -> str:
        """Where the address came from, for output: 'DOCKER_HOST', "docker context 'x'", ..."""
        if self.context is None:
            return "DOCKER_HOST"
        if self.context == DEFAULT_CONTEXT:
            return "the default socket"
        return f"docker context {self.context!r}"

    @property
    def chosen(self) -> bool:
        """Whether the user chose it (DOCKER_HOST or a context) rather than the default."""
        return self.context != DEFAULT_CONTEXT


def config_dir(environ: Mapping[str, str]) -> Path:
    """$DOCKER_CONFIG, else ~/.docker (from $HOME, as the CLI reads it)."""
    if environ.get("DOCKER_CONFIG"):
        return Path(environ["DOCKER_CONFIG"])
    home = environ.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".docker"


def _digest(context: str) -> str:
    return hashlib.sha256(context.encode("utf-8", "surrogateescape")).hexdigest()


def meta_path(directory: Path, context: str) -> Path:
    """Where the docker CLI keeps a context's metadata (the directory is named by a hash)."""
    return directory / "contexts" / "meta" / _digest(context) / "meta.json"


def tls_dir(directory: Path, context: str) -> Path:
    """Where the docker CLI keeps a context's ca.pem, cert.pem and key.pem for its engine."""
    return directory / "contexts" / "tls" / _digest(context) / "docker"


def resolve_endpoint(environ: Mapping[str, str] = os.environ, warn: bool = True) -> Endpoint:
    """The engine address the docker CLI would use with this environment. A config.json it
    cannot use is written to stderr once per process (unless `warn` is False: the caller
    shows Endpoint.warning itself)."""
    directory = config_dir(environ)
    config = directory / "config.json"
    if environ.get("DOCKER_HOST"):
        # The CLI reads config.json for logins even then, and warns about one it cannot decode.
        endpoint = Endpoint(environ["DOCKER_HOST"], None, warning=_login_warning(config))
        return _warned_of(endpoint, warn)
    warning = None
    if environ.get("DOCKER_CONTEXT"):
        context: str | None = environ["DOCKER_CONTEXT"]
        how, hint = "DOCKER_CONTEXT", "unset DOCKER_CONTEXT, or set it to a context 'docker context ls' lists"
        warning = _login_warning(config)
    else:
        context, warning = _current_context(config)
        how = f"currentContext in {config}"
        hint = "run 'docker context use default' (or 'docker context use' one that 'docker context ls' lists)"
    if not context or context == DEFAULT_CONTEXT:
        return _warned_of(Endpoint(DEFAULT_SOCKET, DEFAULT_CONTEXT, warning=warning), warn)
    meta = meta_path(directory, context)
    host, skip_verify = _context_host(meta, context, how, hint)
    tls = _tls(tls_dir(directory, context), skip_verify, meta, context)
    return _warned_of(Endpoint(host, context, tls, warning), warn)


def _warned_of(endpoint: Endpoint, warn: bool) -> Endpoint:
    if endpoint.warning is not None and warn:
        warn_once(endpoint.warning)
    return endpoint


# The warnings already written. Module state on purpose: one process resolves several times
# from independent places (doctor's probe, then each command's connect), and each must not
# repeat what an earlier one said.
_warned: set[str] = set()


def warn_once(warning: str) -> None:
    if warning not in _warned:
        _warned.add(warning)
        sys.stderr.write(f"moatbridge: warning: {printable(warning, newlines=False)}\n")


def _tls(where: Path, skip_verify: bool, meta: Path, context: str) -> Tls | None:
    """TLS as the CLI uses it: when the context has TLS material or skips verification."""
    found = {
        name: str(where / f"{name}.pem")
        for name in ("ca", "cert", "key")
        if (where / f"{name}.pem").is_file()
    }
    if not found and not skip_verify:
        return None
    if ("cert" in found) != ("key" in found):
        raise InputError(
            f"The docker context {context!r} ({meta}) has a client certificate without its key, or a key "
            f"without its certificate, in {where}.",
            f"recreate it: docker context rm -f {shlex.quote(context)}; "
            f"docker context create {shlex.quote(context)} --docker host=...,cert=CERT.pem,key=KEY.pem",
        )
    return Tls(found.get("ca"), found.get("cert"), found.get("key"), not skip_verify)


class _Unusable(Exception):
    """Why a docker file cannot be used, in a few words ("is not valid JSON (...)")."""


def _load_json(path: Path) -> Any:
    """A JSON file's value; None when it does not exist; _Unusable when it cannot be used."""
    try:
        if not path.is_file():
            if path.exists():
                raise _Unusable("is not a regular file")
            return None
        with path.open("rb") as stream:
            data = stream.read(_LIMIT + 1)
    except OSError as exc:
        raise _Unusable(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > _LIMIT:
        raise _Unusable("is larger than 1 MiB, so it is not docker's")
    try:
        return json.loads(data.decode("utf-8"), parse_int=_json_int)
    except RecursionError:  # '[[[[...': the parser recurses once per level, Go's up to 10000
        if _depth(data) > _GO_MAX_DEPTH:
            too_deep = f"is not valid JSON (it is nested more than {_GO_MAX_DEPTH} levels deep)"
            raise _Unusable(too_deep) from None
        raise _Unusable(
            "is nested more deeply than moatbridge can read (the docker CLI reads up to "
            f"{_GO_MAX_DEPTH} levels, so it may use another engine)"
        ) from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise _Unusable(f"is not valid JSON ({exc})") from None


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


def _current_context(config: Path) -> tuple[str | None, str | None]:
    """config.json's currentContext, and why config.json was not used (then no context)."""
    try:
        data = _load_json(config)
        if data is None:
            return None, None
        if not isinstance(data, dict):
            raise _Unusable("is not a JSON object")
        current = data.get("currentContext")
        if current is not None and not isinstance(current, str):
            raise _Unusable("has a currentContext that is not a name")
    except _Unusable as problem:
        as_the_cli = "" if "moatbridge" in str(problem) else " (as the docker CLI does)"
        return (
            None,
            f"the docker configuration {config} {problem}, so the default engine is used{as_the_cli}.",
        )
    return current or None, _login_problem(config, data)


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
        data = _load_json(config)
    except _Unusable:
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


def _login_problem(config: Path, data: dict[str, Any]) -> str | None:
    """A warning about the parts of config.json moatbridge drops (one sentence), or None."""
    dropped = _usable_fields(data)[1]
    if not dropped:
        return None
    names = ", ".join(sorted(set(dropped)))
    return (
        f"the docker configuration {config} has entries that are not of docker's form in {names}, so "
        "moatbridge does not use them (the docker CLI warns about them too)."
    )


def _login_warning(config: Path) -> str | None:
    """The warning about config.json's logins and helpers when the engine is chosen elsewhere."""
    try:
        data = _load_json(config)
    except _Unusable:
        return None  # unused whole: the SDK gets {}; the engine does not depend on it here
    return _login_problem(config, data) if isinstance(data, dict) else None


def _context_host(meta: Path, context: str, how: str, hint: str) -> tuple[str, bool]:
    """The context's engine address, and whether it skips TLS verification."""
    try:
        data = _load_json(meta)
    except _Unusable as problem:
        raise InputError(
            f"The metadata of docker context {context!r} ({how}), {meta}, {problem}.",
            f"{hint}; or remove the broken context: docker context rm -f {shlex.quote(context)}",
        ) from None
    if data is None:
        raise InputError(f"The docker context {context!r} ({how}) does not exist: there is no {meta}.", hint)
    unusable = InputError(
        f"The metadata of docker context {context!r} ({how}), {meta}, has no usable Endpoints.docker.Host.",
        hint,
    )
    endpoints = data.get("Endpoints") if isinstance(data, dict) else None
    docker = endpoints.get("docker") if isinstance(endpoints, dict) else None
    if not isinstance(data, dict) or not isinstance(endpoints, (dict, type(None))):
        raise unusable
    if not isinstance(docker, (dict, type(None))):
        raise unusable
    host = (docker or {}).get("Host")
    skip_verify = (docker or {}).get("SkipTLSVerify") is True
    if host is None or host == "":  # no docker endpoint or no Host: the CLI uses the default socket
        return DEFAULT_SOCKET, skip_verify
    if not isinstance(host, str):
        raise unusable
    scheme = host.partition("://")[0] if "://" in host else ""
    if scheme not in SCHEMES:
        raise InputError(
            f"The docker context {context!r} ({how}, {meta}) names the engine address {host!r}, which is not "
            "unix://, tcp:// or ssh://.",
            hint,
        )
    return host, skip_verify


_ROOTLESS = re.compile(r"unix:///run/user/\d+/docker\.sock")


def socket_path(host: str) -> str | None:
    """The socket file of a unix:// address ("unix://" alone is the default socket, as for the
    SDK and the CLI); None for other schemes."""
    if not host.startswith("unix://"):
        return None
    return host[len("unix://") :] or DEFAULT_SOCKET[len("unix://") :]


def start_advice(endpoint: Endpoint) -> tuple[str, str]:
    """What to run when the engine at `endpoint` does not answer, and why, for where the address
    came from: the system daemon only when nothing chose another engine."""
    host = endpoint.host
    if _ROOTLESS.fullmatch(host):
        if endpoint.context is None:
            also = "; or unset DOCKER_HOST for the default engine"
        elif endpoint.chosen:
            also = f" ({endpoint.source}); or use the default engine: docker context use default"
        else:
            also = ""
        return "systemctl --user start docker", f"rootless Docker at {host} is not running{also}"
    if endpoint.context is None:
        return (
            "unset DOCKER_HOST",
            f"DOCKER_HOST names {host}, which does not answer: check it, or unset it for the default engine",
        )
    if endpoint.chosen:
        return (
            f"docker context inspect {shlex.quote(endpoint.context)}",
            f"the engine of {endpoint.source} ({host}) does not answer: check it, or use the default "
            "engine (docker context use default, or unset DOCKER_CONTEXT)",
        )
    return "sudo systemctl start docker", "the engine is not running; moatbridge doctor says more"
