"""A client for the engine the docker CLI would use (engine_endpoint picks the address).

One place builds SDK clients: `connect` for commands (a clear error when the engine is not
there), `client_for` for probes that classify the SDK's own errors. The SDK is imported
lazily so that light commands never load it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from moatbridge.adapters.engine_endpoint import Endpoint, Tls, resolve_endpoint, sdk_config, start_advice
from moatbridge.errors import EngineUnavailable, InputError

DEFAULT_TIMEOUT_S = 120


def client_for(base_url: str, timeout: int = DEFAULT_TIMEOUT_S, tls: Tls | None = None) -> Any:
    """A low-level client for one endpoint; raises the SDK's own errors (probes classify them)."""
    import docker

    _read_config_as_the_cli_does()
    # ssh:// through the ssh command, as the docker CLI connects (keys, agent, ~/.ssh/config),
    # not through paramiko. The SDK still imports paramiko for any ssh:// (its transport module
    # does so at the top), so moatbridge depends on docker[ssh].
    ssh = base_url.startswith("ssh://")
    kind = docker.APIClient if tls is None else _tls_client_class()
    return kind(base_url=base_url, timeout=timeout, version="auto", use_ssh_client=ssh, tls=tls_config(tls))


def _read_config_as_the_cli_does() -> None:
    """Every SDK client reads config.json (proxies, registry logins) and raises on one the docker
    CLI only warns about (RecursionError when nested deeply, AttributeError on a list; a FIFO
    blocks it). Its two readers are replaced by engine_endpoint's, once per process; an empty
    result must not reach the SDK's login reader, which then reads the file itself."""
    import docker.auth as sdk_auth
    import docker.utils.config as sdk

    if getattr(sdk.load_general_config, "moatbridge", False):
        return

    def read(config_path: Any) -> dict[str, Any]:
        found = sdk.find_config_file(config_path)
        return sdk_config(Path(str(found))) if found else {}

    def load_general_config(config_path: Any = None) -> dict[str, Any]:
        return read(config_path)

    def load_config(config_path: Any = None, config_dict: Any = None, credstore_env: Any = None) -> Any:
        config_dict = config_dict or read(config_path)
        if not config_dict:
            return sdk_auth.AuthConfig({}, credstore_env)
        return sdk_auth.AuthConfig.load_config(config_path, config_dict, credstore_env)

    load_general_config.moatbridge = True  # type: ignore[attr-defined]
    sdk.load_general_config = load_general_config
    sdk_auth.load_config = load_config


def _tls_client_class() -> Any:
    """An APIClient whose TLS settings are its own: requests lets REQUESTS_CA_BUNDLE (or
    CURL_CA_BUNDLE) replace the CA a context names when a request does not repeat it
    (psf/requests#3829), so a context's engine would fail verification on such a machine."""
    import docker

    class ContextTlsClient(docker.APIClient):
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
    import docker

    return docker.tls.TLSConfig(
        client_cert=(tls.cert, tls.key) if tls.cert and tls.key else None,
        ca_cert=tls.ca,
        verify=(tls.ca or True) if tls.verify else False,
    )


def connect(environ: Mapping[str, str] = os.environ, timeout: int = DEFAULT_TIMEOUT_S) -> Any:
    """An APIClient for the engine the docker CLI would use (DOCKER_HOST, the docker context,
    or the default socket: engine_endpoint); a clear error when unreachable."""
    import docker

    endpoint = resolve_endpoint(environ)
    base_url = endpoint.host
    try:
        client = client_for(base_url, timeout, endpoint.tls)
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
        else:
            command, why = start_advice(endpoint)
            hint = f"run '{command}' ({why})"
        raise EngineUnavailable(f"Cannot talk to the container engine at {base_url}{where}.", hint) from None
    except (ValueError, TypeError) as exc:  # an address urllib cannot parse (bad port, bracket)
        raise _bad_address(endpoint, exc) from None
    return client


def _bad_address(endpoint: Endpoint, exc: Exception) -> InputError:
    """An address the SDK cannot parse, with a hint for where it came from."""
    if endpoint.context is None:
        return InputError(
            f"DOCKER_HOST={endpoint.host!r} is not an engine address ({exc}).",
            "set it like unix:///var/run/docker.sock or tcp://host:2375, or unset it",
        )
    return InputError(
        f"{endpoint.host!r} ({endpoint.source}) is not an engine address ({exc}).",
        f"fix it (docker context update {endpoint.context} --docker host=tcp://host:2375), "
        "or use the default engine: docker context use default",
    )
