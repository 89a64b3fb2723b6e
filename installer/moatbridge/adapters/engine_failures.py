"""The SDK's failures around an engine call, as one clear error each (docker_api, image_archive).

Two kinds: the engine refused or the connection broke (`engine_errors`), and a credential
helper that config.json names cannot run (`credential_errors`). The SDK is imported lazily.
"""

from __future__ import annotations

import contextlib
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

from moatbridge.adapters.engine_endpoint import config_dir
from moatbridge.errors import InputError, MoatbridgeError


@contextlib.contextmanager
def engine_errors(error: type[MoatbridgeError], refused: str, hint: str, during: str) -> Iterator[None]:
    """The engine's API errors and a broken connection, as one clear `error` each:
    "<refused>: <the engine's reason>." and "The connection to the engine broke <during>: ..."."""
    import docker
    import requests
    import urllib3

    try:
        yield
    except docker.errors.APIError as exc:
        raise error(f"{refused}: {exc.explanation or exc}.", hint) from None
    # urllib3's own errors too: the SDK reads a build's stream from the raw response, so an
    # engine that stops mid-build raises ProtocolError, which requests never wraps there.
    except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError) as exc:
        raise error(f"The connection to the engine broke {during}: {exc}.", "retry") from None


_HELPER = re.compile(r"docker-credential-[\w.@+-]+")


@contextlib.contextmanager
def credential_errors() -> Iterator[None]:
    """A credential helper that config.json names (credsStore, credHelpers) and that cannot run,
    as one InputError naming it: the SDK asks it before a build, pull or push and raises its
    StoreError (build) or a DockerException (pull, push). A credsStore "desktop" copied from
    Docker Desktop is the usual case; the docker CLI fails on it too."""
    import docker
    from docker.credentials.errors import StoreError

    try:
        with warnings.catch_warnings():  # the SDK also warns "... not installed" at Python level
            warnings.filterwarnings("ignore", "docker-credential-", UserWarning)
            yield
    except StoreError as exc:
        raise credential_failure(str(exc)) from None
    except docker.errors.DockerException as exc:
        if isinstance(exc, docker.errors.APIError) or "Credentials store error" not in str(exc):
            raise
        raise credential_failure(str(exc)) from None


def failed_helper(text: str) -> tuple[str | None, str, Path]:
    """What a credential helper's failure `text` says: the helper it names (docker-credential-
    NAME, or None), its first line, and the config.json that names the helper."""
    found = _HELPER.search(text)
    first_line = (text.strip().splitlines() or [""])[0]
    return (found.group() if found else None), first_line, config_dir(os.environ) / "config.json"


def credential_failure(text: str) -> InputError:
    """The sentence and hint for a credential helper that failed with `text`."""
    named, first_line, config = failed_helper(text)
    helper = named or "the docker credential helper"
    reason = first_line[:300]
    return InputError(
        f"The credential helper {helper} that {config} names (credsStore or credHelpers) cannot be used: "
        f"{reason}",
        f"install {helper}, or remove credsStore and credHelpers from {config}",
    )
