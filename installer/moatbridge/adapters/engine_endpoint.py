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

import hashlib
import os
import re
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from moatbridge.adapters.docker_config import Unusable, current_context, load_json, login_warning
from moatbridge.core.engine_checks import START_SYSTEM_DAEMON
from moatbridge.core.textsafe import printable
from moatbridge.errors import InputError

DEFAULT_SOCKET = "unix:///var/run/docker.sock"
DEFAULT_CONTEXT = "default"
SCHEMES = ("unix", "tcp", "ssh")  # what a Linux docker CLI can reach (no npipe, fd is the daemon's)


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
        endpoint = Endpoint(environ["DOCKER_HOST"], None, warning=login_warning(config))
        return _warned_of(endpoint, warn)
    warning = None
    if environ.get("DOCKER_CONTEXT"):
        context: str | None = environ["DOCKER_CONTEXT"]
        how, hint = "DOCKER_CONTEXT", "unset DOCKER_CONTEXT, or set it to a context 'docker context ls' lists"
        warning = login_warning(config)
    else:
        context, warning = current_context(config)
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


def _context_host(meta: Path, context: str, how: str, hint: str) -> tuple[str, bool]:
    """The context's engine address, and whether it skips TLS verification."""
    try:
        data = load_json(meta)
    except Unusable as problem:
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
    return START_SYSTEM_DAEMON
