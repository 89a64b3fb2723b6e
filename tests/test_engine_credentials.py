"""Registry logins and credential helpers in config.json, as the docker CLI treats them.

The real docker CLI is the oracle (`docker --config DIR context show` reads config.json
without the daemon): where it only warns about a login it cannot decode or a credential
helper that is not a name, moatbridge warns once and leaves that entry out, instead of the
SDK raising from inside APIClient (which was misreported as a bad engine address) or from
a build. A credential helper that cannot run (a credsStore "desktop" copied from Docker
Desktop) stops a build, pull or push with one sentence naming it and a hint.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import requests

from moatbridge.adapters import docker_api, engine_failures
from moatbridge.adapters.docker_config import sdk_config
from moatbridge.adapters.engine_client import connect, docker_sdk
from moatbridge.adapters.engine_endpoint import DEFAULT_SOCKET, resolve_endpoint
from moatbridge.errors import EngineUnavailable, InputError

from support.docker_config_files import config_env, docker_cli, needs_cli

DEAD = "unix:///nonexistent/moatbridge-test.sock"  # nothing listens: the SDK fails only when it asks


def _write(config: Path, data: object) -> None:
    (config / "config.json").write_text(json.dumps(data))


def _offline_client(monkeypatch: pytest.MonkeyPatch, config: Path) -> Any:
    """An APIClient that reads config.json in `config` as every moatbridge client does, without
    asking an engine (an explicit API version: no version request)."""
    monkeypatch.setenv("DOCKER_CONFIG", str(config))
    return docker_sdk().APIClient(base_url=DEAD, version="1.41")


GOOD = base64.b64encode(b"user:secret").decode()
BAD_LOGINS = [
    ("bm9jb2xvbg==", "Invalid auth configuration file"),  # "nocolon": no user:password
    (5, "cannot unmarshal number"),
    ("é", "illegal base64 data"),
    (base64.b64encode(b":secret").decode(), "Invalid auth configuration file"),  # no user
]


# --- logins (auths) -----------------------------------------------------------------------------


@needs_cli
def test_an_empty_login_is_no_login_and_no_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path, {"auths": {"r.example": {"auth": ""}, "good.example": {"auth": GOOD}}})
    shown = docker_cli(tmp_path, "context", "show")
    assert shown.returncode == 0 and "WARNING" not in shown.stderr  # the oracle: fine
    assert resolve_endpoint(config_env(tmp_path), warn=False).warning is None
    client = _offline_client(
        monkeypatch, tmp_path
    )  # before: ValueError (not enough values to unpack) from the SDK
    logins = client._auth_configs.auths
    assert logins["r.example"] == {} and logins["good.example"]["username"] == "user"


@needs_cli
@pytest.mark.parametrize(("auth", "cli_says"), BAD_LOGINS)
def test_a_login_the_cli_cannot_decode_is_left_out_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, auth: object, cli_says: str
) -> None:
    _write(tmp_path, {"auths": {"r.example": {"auth": auth}, "good.example": {"auth": GOOD}}})
    shown = docker_cli(tmp_path, "context", "show")
    assert shown.returncode == 0 and cli_says in shown.stderr  # the oracle: a warning, and it goes on
    for env in (
        config_env(tmp_path),
        config_env(tmp_path, DOCKER_HOST=DEAD),
        config_env(tmp_path, DOCKER_CONTEXT="default"),
    ):
        warning = resolve_endpoint(env, warn=False).warning or ""
        assert str(tmp_path / "config.json") in warning and "auths" in warning and "\n" not in warning
        assert "default engine" not in warning  # the engine is not what changes
    kept = sdk_config(tmp_path / "config.json")["auths"]
    assert "auth" not in kept["r.example"] and kept["good.example"] == {"auth": GOOD}
    client = _offline_client(monkeypatch, tmp_path)  # before: ValueError, TypeError or UnicodeEncodeError
    assert client._auth_configs.auths["good.example"]["password"] == "secret"


def test_connect_no_longer_calls_a_bad_login_a_bad_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, {"auths": {"r.example": {"auth": "bm9jb2xvbg=="}}})
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path))  # where the SDK reads it
    with pytest.raises(EngineUnavailable) as caught:  # before: InputError "not an engine address"
        connect(config_env(tmp_path, DOCKER_HOST=DEAD), timeout=5)
    assert "Cannot talk to the container engine" in caught.value.message


def test_the_login_warning_is_written_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path, {"auths": {"r.example": {"auth": 5}}, "credHelpers": {"r.example": 5}})
    for _ in range(3):
        resolve_endpoint(config_env(tmp_path))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "auths, credHelpers" in lines[0], lines


def test_a_login_file_without_logins_is_not_read_as_logins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK's own reader took a config.json without auths for a legacy login-only file and
    # decoded its objects as logins: {"x": {"auth": "nocolon"}} raised. The CLI ignores "x".
    _write(tmp_path, {"x": {"auth": "bm9jb2xvbg=="}})
    assert _offline_client(monkeypatch, tmp_path)._auth_configs.auths == {}


# --- credential helpers -------------------------------------------------------------------------


@needs_cli
def test_a_credential_helper_that_is_not_a_name_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, {"credHelpers": {"r.example": 5}})
    shown = docker_cli(tmp_path, "context", "show")
    assert shown.returncode == 0 and "cannot unmarshal number" in shown.stderr  # the oracle warns
    assert "credHelpers" in (resolve_endpoint(config_env(tmp_path), warn=False).warning or "")
    # Before: TypeError from the SDK's auth headers (exit 70). Now the build gets as far as the
    # engine, which is not there.
    _build_reaches_no_engine(_offline_client(monkeypatch, tmp_path), tmp_path)


def _build_reaches_no_engine(client: Any, tmp_path: Path) -> None:
    """A FROM-scratch build with ``client``: past the SDK's auth headers, it fails only for the
    engine that is not there."""
    context = tmp_path / "context"
    context.mkdir()
    (context / "Dockerfile").write_text("FROM scratch\n")
    with pytest.raises(docker_api.ImageBuildFailed, match="connection to the engine broke"):
        docker_api.build(client, context=str(context), dockerfile="Dockerfile", tag="moatbridge-test/x:1",
                         target=None, buildargs={}, labels={})  # fmt: skip


def _missing_helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: dict[str, object]) -> None:
    _write(tmp_path, config)
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no docker-credential-* here
    assert shutil.which("docker-credential-desktop") is None


def _assert_warned_of_the_helper(err: str, config: Path, helper: str) -> None:
    lines = [line for line in err.splitlines() if f"docker-credential-{helper}" in line]
    assert len(lines) == 1 and lines[0].startswith("moatbridge: warning: the credential helper"), err
    assert str(config / "config.json") in lines[0] and "remove credsStore and credHelpers" in lines[0]


@needs_cli
@pytest.mark.parametrize(
    ("config", "helper"),
    [({"credsStore": "desktop"}, "desktop"), ({"credHelpers": {"127.0.0.1:9": "gone"}}, "gone")],
)
def test_a_missing_credential_helper_is_a_warning_and_no_logins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    config: dict[str, object], helper: str,
) -> None:  # fmt: skip
    # The oracle (test below, on the engine): the docker CLI builds, pulls and pushes without
    # the helper's logins. Before: StoreError or DockerException from the SDK (exit 70).
    _missing_helper(tmp_path, monkeypatch, config)
    client = _offline_client(monkeypatch, tmp_path)
    _build_reaches_no_engine(client, tmp_path)
    for transfer in (docker_api.pull, docker_api.push):
        with pytest.raises(requests.exceptions.ConnectionError):  # no engine there: as far as it gets
            transfer(client, "127.0.0.1:9/moatbridge-test", "1")
    _assert_warned_of_the_helper(capsys.readouterr().err, tmp_path, helper)


def test_a_credential_error_that_escapes_is_one_sentence() -> None:
    from docker.credentials.errors import StoreError
    from docker.errors import APIError, DockerException

    for raised in (StoreError("docker-credential-x not installed or not available in PATH"),
                   DockerException("Credentials store error: StoreError('docker-credential-x exited')")):  # fmt: skip
        with pytest.raises(InputError) as caught, engine_failures.credential_errors():
            raise raised
        assert "The credential helper docker-credential-x that " in caught.value.message
        assert caught.value.exit_code == 2 and "install docker-credential-x" in (caught.value.hint or "")
    for other in (APIError("refused"), DockerException("something else")):  # not ours to word
        with pytest.raises(type(other)), engine_failures.credential_errors():
            raise other


def test_credential_failure_keeps_one_line_of_the_helpers_words() -> None:
    error = engine_failures.credential_failure('Credentials store docker-credential-pass exited with "x\ny".')
    assert "docker-credential-pass" in error.message and "\n" not in error.message
    unnamed = engine_failures.credential_failure("odd")
    assert "the docker credential helper" in unnamed.message


# --- numbers and nesting that Go reads and Python's json does not ---------------------------------


@needs_cli
def test_a_long_integer_does_not_hide_the_current_context(tmp_path: Path) -> None:
    assert docker_cli(tmp_path, "context", "create", "far", "--docker", f"host={DEAD}").returncode == 0
    text = '{"currentContext": "far", "n": ' + "9" * 5000 + "}"
    (tmp_path / "config.json").write_text(text)
    shown = docker_cli(tmp_path, "context", "show")
    assert shown.stdout.strip() == "far" and "WARNING" not in shown.stderr  # the oracle
    chosen = resolve_endpoint(config_env(tmp_path), warn=False)  # before: the default, with a warning
    assert (chosen.host, chosen.context, chosen.warning) == (DEAD, "far", None)


@needs_cli
def test_nesting_python_cannot_read_says_so_without_claiming_the_cli_agrees(tmp_path: Path) -> None:
    depth = sys.getrecursionlimit() + 500  # Go reads up to 10000 levels
    text = '{"currentContext": "far", "n": ' + "[" * depth + "]" * depth + "}"
    (tmp_path / "config.json").write_text(text)
    assert docker_cli(tmp_path, "context", "show").stdout.strip() == "far"  # the CLI reads it
    chosen = resolve_endpoint(config_env(tmp_path), warn=False)
    assert chosen.host == DEFAULT_SOCKET and chosen.warning is not None
    assert "nested more deeply than moatbridge can read" in chosen.warning
    assert "may use another engine" in chosen.warning and "as the docker CLI does" not in chosen.warning


# --- on the real engine -------------------------------------------------------------------------


def _helper(directory: Path, name: str) -> None:
    """A working credential helper that knows no logins (the protocol: list, get on stdin)."""
    directory.mkdir(exist_ok=True)
    script = directory / f"docker-credential-{name}"
    script.write_text(
        "#!/bin/sh\n"
        'case "$1" in\n'
        "  list) echo '{}' ;;\n"
        "  get) echo 'credentials not found in native keychain'; exit 1 ;;\n"
        "  *) exit 1 ;;\n"
        "esac\n"
    )
    script.chmod(0o755)


@pytest.mark.engine
@needs_cli
def test_without_its_helper_the_engine_builds_and_pulls_as_for_the_cli_and_a_working_one_is_used(
    engine_version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config, bin_dir = tmp_path / "config", tmp_path / "bin"
    config.mkdir()
    _helper(bin_dir, "works")
    monkeypatch.setenv("DOCKER_CONFIG", str(config))
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    context = tmp_path / "context"
    context.mkdir()
    (context / "Dockerfile").write_text("FROM scratch\nLABEL io.moatbridge.test=credentials\n")
    tag = "moatbridge-test/credentials:1"

    def build(client: Any) -> str:
        return docker_api.build(client, context=str(context), dockerfile="Dockerfile", tag=tag, target=None,
                                buildargs={}, labels={})  # fmt: skip

    _write(config, {"credsStore": "desktop"})
    cli = docker_cli(
        config, "pull", "127.0.0.1:9/moatbridge-test:1", timeout=120
    )  # the oracle goes on without logins
    assert cli.returncode != 0 and "127.0.0.1:9" in cli.stderr and "credential" not in cli.stderr
    client = connect({"DOCKER_CONFIG": str(config)})
    try:
        built = build(client)  # before: StoreError (exit 70); the CLI builds too
        assert client.inspect_image(tag)["Id"] == built
        client.remove_image(tag)
        with pytest.raises(docker_api.TransferFailed, match=r"127\.0\.0\.1:9"):  # before: DockerException
            docker_api.pull(client, "127.0.0.1:9/moatbridge-test", "1", stall_s=30)
    finally:
        client.close()
    _assert_warned_of_the_helper(capsys.readouterr().err, config.parent / "config", "desktop")
    _write(config, {"credsStore": "works", "credHelpers": {"127.0.0.1:9": "works"}})
    client = connect({"DOCKER_CONFIG": str(config)})  # a helper that runs: the SDK's own path
    try:
        image = build(client)
        assert client.inspect_image(tag)["Id"] == image
        with pytest.raises(docker_api.TransferFailed):  # no registry there: the engine's error
            docker_api.pull(client, "127.0.0.1:9/moatbridge-test", "1", stall_s=30)
    finally:
        subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True, timeout=60)
        client.close()


def test_a_build_stream_cut_by_the_engine_is_one_sentence() -> None:
    # What the CI's fault matrix saw once: the engine stopped mid-build, and urllib3's
    # ProtocolError (not a requests error) escaped as an internal error (exit 70).
    import urllib3

    def cut() -> Any:
        yield {"stream": "Step 1/2 : FROM scratch"}
        raise urllib3.exceptions.ProtocolError("Connection broken: IncompleteRead(0 bytes read)")

    class Client:
        def build(self, **_: Any) -> Any:
            return cut()

    with pytest.raises(docker_api.ImageBuildFailed, match="connection to the engine broke during the build"):
        docker_api.build(Client(), context=".", dockerfile="Dockerfile", tag="t:1", target=None,
                         buildargs={}, labels={})  # fmt: skip
