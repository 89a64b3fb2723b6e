"""A client for the engine the docker CLI would use (engine_endpoint picks the address).

One place builds SDK clients: `connect` for commands (a clear error when the engine is not
there), `client_for` for probes that classify the SDK's own errors. The SDK is imported
lazily so that light commands never load it, and only through `docker_sdk`, the one seam that
changes it (see there).
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

from moatbridge.adapters.docker_config import sdk_config
from moatbridge.adapters.engine_endpoint import (
    Endpoint,
    Tls,
    resolve_endpoint,
    start_advice,
    warn_once,
)
from moatbridge.adapters.engine_failures import failed_helper
from moatbridge.errors import EngineUnavailable, InputError

DEFAULT_TIMEOUT_S = 120
# The first exchange (the API version) of every client: an engine that accepts the connection
# and never answers is given this long, once, whatever the client's timeout for its calls (a
# save or load may rightly take minutes; the version answer takes milliseconds).
HANDSHAKE_S = 10


def docker_sdk() -> ModuleType:
    """The docker SDK, its config.json readers replaced by engine_endpoint's.

    Every SDK client reads config.json (proxies, registry logins) and raises on one the docker
    CLI only warns about (RecursionError when nested deeply, AttributeError on a list,
    ValueError on a login that is not base64 of user:password, TypeError on a credential
    helper that is not a name; a FIFO blocks it). The SDK reads it from inside APIClient
    (construction, build, login) through two module functions, so they are replaced here, for
    the whole process, the first time moatbridge imports the SDK; every import of it in this
    module goes through here. For a well-formed file the SDK's own AuthConfig does the rest
    (logins, credsStore, credHelpers, identity tokens), as before, except that a credential
    helper that cannot run is a warning and no logins from it, as the docker CLI goes on
    (the SDK raised, so every build, pull and push failed: `_HelperTolerantAuth`).
    """
    import docker
    import docker.auth as sdk_auth
    import docker.utils.config as sdk_config_module

    if getattr(sdk_config_module.load_general_config, "moatbridge", False):
        return docker

    def read(config_path: Any) -> dict[str, Any]:
        found = sdk_config_module.find_config_file(config_path)
        return sdk_config(Path(str(found))) if found else {}

    def load_general_config(config_path: Any = None) -> dict[str, Any]:
        return read(config_path)

    def load_config(config_path: Any = None, config_dict: Any = None, credstore_env: Any = None) -> Any:
        # Only the logins and helpers: the SDK's own load_config would take a file without them
        # for a legacy login-only file and decode its other objects as logins.
        config_dict = config_dict or read(config_path)
        fields = {"auths": sdk_auth.parse_auth(config_dict.get("auths") or {}, raise_on_error=True)}
        for name in ("credsStore", "credHelpers"):
            if config_dict.get(name):
                fields[name] = config_dict[name]
        return _helper_tolerant_auth(sdk_auth)(fields, credstore_env)

    load_general_config.moatbridge = True  # type: ignore[attr-defined]
    sdk_config_module.load_general_config = load_general_config
    sdk_auth.load_config = load_config
    _ssh_as_the_cli(docker)
    return docker


def _ssh_as_the_cli(docker: ModuleType) -> None:
    """ssh:// with the options the docker CLI gives ssh (cli/connhelper: `-o ConnectTimeout=30
    -T`). The SDK gives none, so a host that does not answer (off, behind a VPN that is down)
    held every command, `status` with its 3-second promise too, for the system's TCP timeout
    (minutes). The timeout is the client's when shorter (status and doctor ask with a few
    seconds); the SDK's own connect is otherwise kept: same ssh, user, port and command.

    As the CLI's commandconn, ssh runs in a session of its own (terminal Ctrl-C is for
    moatbridge), and ssh with what it started (a ProxyCommand) ends when the connection closes
    and when moatbridge exits: a proxy that outlives ssh would otherwise hold the caller's
    stderr open, and `moatbridge status | cat` would wait for it."""
    sshconn = getattr(docker.transport, "sshconn", None)  # absent without paramiko: no ssh at all
    if sshconn is None or getattr(sshconn.SSHSocket, "moatbridge", False):
        return
    import atexit
    import math
    import subprocess

    sdk_socket: Any = sshconn.SSHSocket
    started: list[subprocess.Popen[bytes]] = []

    def end_all() -> None:
        for proc in started:
            _end_process_group(proc)

    atexit.register(end_all)

    class CliSshSocket(sdk_socket):  # type: ignore[misc]
        moatbridge = True

        def connect(self, **kwargs: Any) -> None:
            timeout = self.gettimeout()
            seconds = 30 if timeout is None else max(1, min(30, math.ceil(timeout)))
            args = ["ssh", "-o", f"ConnectTimeout={seconds}", "-T"]
            args += ["-l", self.user] if self.user else []
            args += ["-p", self.port] if self.port else []
            env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "SSL_CERT_FILE")}
            self.proc = subprocess.Popen(
                [*args, "--", self.host, "docker system dial-stdio"],
                env=env, stdout=subprocess.PIPE, stdin=subprocess.PIPE, start_new_session=True,
            )  # fmt: skip
            started.append(self.proc)

        def close(self) -> None:
            super().close()
            if self.proc is not None:
                _end_process_group(self.proc)

    sshconn.SSHSocket = CliSshSocket


def _end_process_group(proc: Any) -> None:
    """SIGTERM to the process group a `start_new_session` child leads. Only while the child is
    not reaped (returncode None): until then its pid, the group's id, cannot name another
    process."""
    import signal

    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)


def _helper_tolerant_auth(sdk_auth: Any) -> Any:
    """The SDK's AuthConfig, but a credential helper that cannot run (credsStore "desktop" copied
    from Docker Desktop without docker-credential-desktop) gives no logins and one warning, as
    the docker CLI builds, pulls and pushes without them."""
    from docker.credentials.errors import StoreError
    from docker.errors import DockerException

    class HelperTolerantAuth(sdk_auth.AuthConfig):  # type: ignore[misc]
        def _resolve_authconfig_credstore(self, registry: Any, credstore_name: Any) -> Any:
            try:
                return super()._resolve_authconfig_credstore(registry, credstore_name)
            # The SDK wraps the helper's StoreError in a DockerException ("Credentials store error").
            except (StoreError, DockerException) as exc:
                return _no_logins_from(exc)

        def get_all_credentials(self) -> Any:
            try:
                return super().get_all_credentials()
            except StoreError as exc:  # the store's `list`: go on with the rest, as the SDK would
                _no_logins_from(exc)
                found = dict(self.auths)
                for registry, helper in self.cred_helpers.items():
                    found[registry] = self._resolve_authconfig_credstore(registry, helper)
                    found[sdk_auth.convert_to_hostname(registry)] = found[registry]
                return found

    return HelperTolerantAuth


def _no_logins_from(exc: Exception) -> None:
    """Warn (once) that a credential helper could not be used; None: no logins from it."""
    # The helper's own words, not the SDK's wrapping of them.
    named, first_line, config = failed_helper(str(exc.__cause__ or exc))
    helper = named or "a docker credential helper"
    reason = first_line[:200]
    warn_once(
        f"the credential helper {helper} that {config} names (credsStore or credHelpers) cannot be used "
        f"({reason}), so no logins come from it, as with the docker CLI; install it, or remove "
        "credsStore and credHelpers from that file."
    )
    return None


def sdk_address(host: str, tls: bool) -> str:
    """``host`` as the SDK takes it: the docker CLI reads tcp://HOST without a port as its
    default port (2375, or 2376 with TLS), which the SDK refuses ("port is required")."""
    try:
        parts = urlsplit(host)
        port = parts.port
    except ValueError:  # an unclosed bracket, a port that is not a number: the SDK's check says so
        return host
    if parts.scheme == "tcp" and parts.hostname and port is None and not parts.path.strip("/"):
        return f"tcp://{parts.netloc}:{2376 if tls else 2375}"
    return host


def client_for(base_url: str, timeout: int = DEFAULT_TIMEOUT_S, tls: Tls | None = None) -> Any:
    """A low-level client for one endpoint; raises the SDK's own errors (probes classify them)."""
    docker = docker_sdk()
    base_url = sdk_address(base_url, tls is not None)
    # ssh:// through the ssh command, as the docker CLI connects (keys, agent, ~/.ssh/config),
    # not through paramiko. The SDK still imports paramiko for any ssh:// (its transport module
    # does so at the top), so moatbridge depends on docker[ssh].
    ssh = base_url.startswith("ssh://")
    kind = docker.APIClient if tls is None else _tls_client_class()
    handshake = min(timeout, HANDSHAKE_S)
    client = kind(
        base_url=base_url, timeout=handshake, version="auto", use_ssh_client=ssh, tls=tls_config(tls)
    )
    client.timeout = timeout  # every later request is given the caller's timeout (requests reads it per call)
    return client


def _tls_client_class() -> Any:
    """An APIClient whose TLS settings are its own: requests lets REQUESTS_CA_BUNDLE (or
    CURL_CA_BUNDLE) replace the CA a context names when a request does not repeat it
    (psf/requests#3829), so a context's engine would fail verification on such a machine."""
    docker_sdk()
    from docker import APIClient  # as docker_sdk left it

    class ContextTlsClient(APIClient):
        def merge_environment_settings(
            self, url: Any, proxies: Any, stream: Any, verify: Any, cert: Any
        ) -> Any:
            return super().merge_environment_settings(
                url, proxies, stream, self.verify if verify is None else verify, cert
            )

    return ContextTlsClient


def tls_config(tls: Tls | None) -> Any:
    """The SDK's TLS settings for a docker context's material (tcp:// then means https)."""
    if tls is None:
        return False
    docker = docker_sdk()
    return docker.tls.TLSConfig(
        client_cert=(tls.cert, tls.key) if tls.cert and tls.key else None,
        ca_cert=tls.ca,
        verify=(tls.ca or True) if tls.verify else False,
    )


def connect(environ: Mapping[str, str] = os.environ, timeout: int = DEFAULT_TIMEOUT_S) -> Any:
    """An APIClient for the engine the docker CLI would use (DOCKER_HOST, the docker context,
    or the default socket: engine_endpoint); a clear error when unreachable."""
    docker = docker_sdk()

    endpoint = resolve_endpoint(environ)
    base_url = sdk_address(endpoint.host, endpoint.tls is not None)
    try:  # the address alone first: the SDK's ValueErrors from a client have other causes too
        docker.utils.parse_host(base_url, False, tls=endpoint.tls is not None)
    except (ValueError, TypeError, docker.errors.DockerException) as exc:  # bad port, bracket, no port
        raise _bad_address(endpoint, exc) from None
    try:
        client = client_for(base_url, timeout, endpoint.tls)
    except (ValueError, TypeError, AttributeError) as exc:  # the SDK parsing a /version it did not expect
        where = f" ({endpoint.source})" if endpoint.chosen else ""
        raise EngineUnavailable(
            f"The service at {base_url}{where} does not answer as a container engine ({exc}).",
            "point DOCKER_HOST or the docker context at a Docker engine",
        ) from None
    except docker.errors.DockerException as exc:
        text = str(exc)
        where = f" ({endpoint.source})" if endpoint.chosen else ""
        if "paramiko" in text:  # installed without its dependencies (pip --no-deps)
            raise EngineUnavailable(
                f"The engine at {base_url}{where} is reached over ssh, which needs paramiko, and it is "
                "not installed with this moatbridge.",
                "install moatbridge with its dependencies (pip install 'docker[ssh]' in its environment)",
            ) from None
        if "Permission denied" in text:
            hint = "add yourself to the docker group (sudo usermod -aG docker $USER) and log in again"
        elif "timed out" in text.lower():
            command, why = start_advice(endpoint)
            raise EngineUnavailable(
                f"The container engine at {base_url}{where} does not answer (no reply within "
                f"{min(timeout, HANDSHAKE_S)} s).",
                f"run '{command}' ({why})",
            ) from None
        else:
            command, why = start_advice(endpoint)
            hint = f"run '{command}' ({why})"
        raise EngineUnavailable(f"Cannot talk to the container engine at {base_url}{where}.", hint) from None
    _sweep(client)
    return client


def _sweep(client: Any) -> None:
    """Every command that reaches the engine first removes the transient containers a killed
    moatbridge left (core/build_plan.TRANSIENT_LABEL); best effort, never its failure."""
    from moatbridge.adapters.containers import sweep_transient

    try:
        sweep_transient(client)
    except Exception:  # noqa: BLE001 - the SDK raises many types; the command itself goes on
        return


def _bad_address(endpoint: Endpoint, exc: Exception) -> InputError:
    """An address the SDK cannot parse, with a hint for where it came from."""
    if endpoint.context is None:
        return InputError(
            f"DOCKER_HOST={endpoint.host!r} is not an engine address ({exc}).",
            "set it like unix:///var/run/docker.sock or tcp://host:2375, or unset it",
        )
    return InputError(
        f"{endpoint.host!r} ({endpoint.source}) is not an engine address ({exc}).",
        f"fix it (docker context update {shlex.quote(endpoint.context)} --docker host=tcp://host:2375), "
        "or use the default engine: docker context use default",
    )
