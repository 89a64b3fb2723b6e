"""A client for the engine the docker CLI would use (engine_endpoint picks the address).

One place builds SDK clients: `connect` for commands (a clear error when the engine is not
there), `client_for` for probes that classify the SDK's own errors. The SDK is imported
lazily so that light commands never load it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from moatbridge.adapters.engine_endpoint import Tls, resolve_endpoint
from moatbridge.errors import EngineUnavailable, InputError

DEFAULT_TIMEOUT_S = 120


def client_for(base_url: str, timeout: int = DEFAULT_TIMEOUT_S, tls: Tls | None = None) -> Any:
    """A low-level client for one endpoint; raises the SDK's own errors (probes classify them)."""
    import docker

    # ssh:// through the ssh command, as the docker CLI connects (keys, agent, ~/.ssh/config),
    # not through paramiko, which is not installed with moatbridge.
    ssh = base_url.startswith("ssh://")
    kind = docker.APIClient if tls is None else _tls_client_class()
    return kind(base_url=base_url, timeout=timeout, version="auto", use_ssh_client=ssh, tls=tls_config(tls))


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
        hint = (
            "add yourself to the docker group (sudo usermod -aG docker $USER) and log in again"
            if "Permission denied" in text
            else "start the engine (sudo systemctl start docker), or choose another with DOCKER_HOST "
            "or 'docker context use NAME'; see 'moatbridge doctor'"
        )
        where = f" ({endpoint.source})" if endpoint.chosen else ""
        raise EngineUnavailable(f"Cannot talk to the container engine at {base_url}{where}.", hint) from None
    except (ValueError, TypeError) as exc:  # an address urllib cannot parse (bad port, bracket)
        named = f"{base_url!r} ({endpoint.source})" if endpoint.context else f"DOCKER_HOST={base_url!r}"
        raise InputError(
            f"{named} is not an engine address ({exc}).",
            "set it like unix:///var/run/docker.sock or tcp://host:2375, or unset it",
        ) from None
    return client
