"""Which engine address the docker CLI would use: the one seam every SDK connection asks.

The shims and `moatbridge run` exec the docker CLI, which honours `docker context use` and
DOCKER_CONTEXT; an SDK client that knew only DOCKER_HOST would build an image on one engine
and the CLI would run it on another (rootless Docker, a remote context). So the CLI's order:
DOCKER_HOST; else DOCKER_CONTEXT; else `currentContext` in $DOCKER_CONFIG/config.json
(~/.docker by default); a context's address is Endpoints.docker.Host in
contexts/meta/<sha256 of its name>/meta.json, and the context "default" (or a context with
no Host, which the CLI treats the same) is the default socket.

Everything read here is the user's file and may be anything: a broken one is an InputError
naming it (one sentence and a hint), never a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def resolve_endpoint(environ: Mapping[str, str] = os.environ) -> Endpoint:
    """The engine address the docker CLI would use with this environment."""
    if environ.get("DOCKER_HOST"):
        return Endpoint(environ["DOCKER_HOST"], None)
    directory = config_dir(environ)
    config = directory / "config.json"
    context = environ.get("DOCKER_CONTEXT") or _current_context(config)
    if not context or context == DEFAULT_CONTEXT:
        return Endpoint(DEFAULT_SOCKET, DEFAULT_CONTEXT)
    how = "DOCKER_CONTEXT" if environ.get("DOCKER_CONTEXT") else f"currentContext in {config}"
    meta = meta_path(directory, context)
    host, skip_verify = _context_host(meta, context, how)
    return Endpoint(host, context, _tls(tls_dir(directory, context), skip_verify, meta, context))


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
            "recreate it: docker context create NAME --docker host=...,cert=CERT.pem,key=KEY.pem",
        )
    return Tls(found.get("ca"), found.get("cert"), found.get("key"), not skip_verify)


def _load_json(path: Path, what: str, hint: str) -> Any:
    """A JSON file's value; None when it does not exist."""
    try:
        if not path.is_file():
            if path.exists():
                raise InputError(f"The {what} {path} is not a regular file.", hint)
            return None
        with path.open("rb") as stream:
            data = stream.read(_LIMIT + 1)
    except OSError as exc:
        raise InputError(f"The {what} {path} cannot be read ({exc.strerror or exc}).", hint) from None
    if len(data) > _LIMIT:
        raise InputError(f"The {what} {path} is larger than 1 MiB, so it is not docker's.", hint)
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"The {what} {path} is not valid JSON ({exc}).", hint) from None


def _current_context(config: Path) -> str | None:
    hint = "fix it, or run 'docker context use default' (set DOCKER_HOST to bypass it)"
    data = _load_json(config, "docker configuration", hint)
    if data is None:
        return None
    if not isinstance(data, dict):
        raise InputError(f"The docker configuration {config} is not a JSON object.", hint)
    current = data.get("currentContext")
    if current is not None and not isinstance(current, str):
        raise InputError(f"The docker configuration {config} has a currentContext that is not a name.", hint)
    return current or None


def _context_host(meta: Path, context: str, how: str) -> tuple[str, bool]:
    """The context's engine address, and whether it skips TLS verification."""
    hint = "choose a working one ('docker context ls', then 'docker context use NAME'), or set DOCKER_HOST"
    data = _load_json(meta, f"metadata of docker context {context!r} ({how})", hint)
    if data is None:
        raise InputError(f"The docker context {context!r} ({how}) does not exist: there is no {meta}.", hint)
    unusable = InputError(
        f"The metadata of docker context {context!r} ({meta}) has no usable Endpoints.docker.Host.", hint
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
            f"The docker context {context!r} ({meta}) names the engine address {host!r}, which is not "
            "unix://, tcp:// or ssh://.",
            hint,
        )
    return host, skip_verify
