"""Which engine moatbridge's SDK connections use: the docker CLI's choice (adapters/engine_endpoint.py).

The real docker CLI is the oracle: it writes the contexts and config.json these tests read
(in a temporary DOCKER_CONFIG), and `docker context show` / `inspect` say which context and
which address it would use. Broken files, and the advice when an engine does not answer,
are tested in test_engine_config_errors.py.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.engine_client import tls_config
from moatbridge.adapters.engine_endpoint import (
    DEFAULT_SOCKET,
    Endpoint,
    Tls,
    meta_path,
    resolve_endpoint,
    tls_dir,
)

from support.docker_config_files import (
    DOCKER,
    config_env,
    docker_cli,
    moatbridge_cli,
    needs_cli,
    resolution_error,
)

needs_openssl = pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")


def _certificate(directory: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key (it is its own CA)."""
    cert, key = directory / f"{name}-cert.pem", directory / f"{name}-key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


def _docker(config: Path, *args: str, **env: str) -> str:
    """The real docker CLI with its configuration in ``config``: its output, having succeeded."""
    result = docker_cli(config, *args, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


# --- where the docker CLI writes things, and what it chooses (the CLI as the oracle) --------------


@needs_cli
def test_a_context_the_cli_created_is_found_where_the_cli_put_it(tmp_path: Path) -> None:
    _docker(tmp_path, "context", "create", "mb-remote", "--docker", "host=unix:///some/path")
    stored = _docker(tmp_path, "context", "inspect", "mb-remote", "--format", "{{.Storage.MetadataPath}}")
    assert meta_path(tmp_path, "mb-remote") == Path(stored) / "meta.json"
    assert (Path(stored) / "meta.json").is_file()
    assert resolve_endpoint(config_env(tmp_path, DOCKER_CONTEXT="mb-remote")) == Endpoint(
        "unix:///some/path", "mb-remote"
    )


@needs_cli
@pytest.mark.parametrize(
    "host", ["unix:///run/user/1000/docker.sock", "tcp://build-box:2376", "ssh://me@build-box"]
)
def test_the_address_is_the_one_the_cli_reports(tmp_path: Path, host: str) -> None:
    _docker(tmp_path, "context", "create", "mb-x", "--docker", f"host={host}")
    reported = _docker(tmp_path, "context", "inspect", "mb-x", "--format", "{{.Endpoints.docker.Host}}")
    assert resolve_endpoint(config_env(tmp_path, DOCKER_CONTEXT="mb-x")).host == reported == host


@needs_cli
def test_the_order_is_the_clis(tmp_path: Path) -> None:
    """DOCKER_HOST, then DOCKER_CONTEXT, then `docker context use`, then the default:
    in each case the context `docker context show` names is the one chosen."""
    _docker(tmp_path, "context", "create", "mb-used", "--docker", "host=tcp://used:2375")
    _docker(tmp_path, "context", "create", "mb-env", "--docker", "host=tcp://env:2375")
    assert _docker(tmp_path, "context", "show") == "default"  # created, not used: no currentContext
    assert resolve_endpoint(config_env(tmp_path)) == Endpoint(DEFAULT_SOCKET, "default")
    _docker(tmp_path, "context", "use", "mb-used")
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["currentContext"] == "mb-used"  # what `docker context use` writes
    cases: list[tuple[dict[str, str], str, Endpoint]] = [
        ({}, "mb-used", Endpoint("tcp://used:2375", "mb-used")),
        ({"DOCKER_CONTEXT": "mb-env"}, "mb-env", Endpoint("tcp://env:2375", "mb-env")),
        ({"DOCKER_CONTEXT": "default"}, "default", Endpoint(DEFAULT_SOCKET, "default")),
        (
            {"DOCKER_HOST": "tcp://host:1", "DOCKER_CONTEXT": "mb-env"},
            "default",
            Endpoint("tcp://host:1", None),
        ),
    ]
    for extra, shown, expected in cases:
        assert _docker(tmp_path, "context", "show", **extra) == shown, extra
        assert resolve_endpoint(config_env(tmp_path, **extra)) == expected, extra
    _docker(tmp_path, "context", "use", "default")
    assert "currentContext" not in json.loads((tmp_path / "config.json").read_text())
    assert resolve_endpoint(config_env(tmp_path)) == Endpoint(DEFAULT_SOCKET, "default")


@needs_cli
def test_a_context_without_a_host_is_the_default_socket_as_for_the_cli(tmp_path: Path) -> None:
    _docker(tmp_path, "context", "create", "mb-empty", "--docker", "host=")
    assert _docker(tmp_path, "context", "inspect", "mb-empty", "--format", "{{.Endpoints.docker.Host}}") in (
        "",
        "<no value>",
    )
    assert resolve_endpoint(config_env(tmp_path, DOCKER_CONTEXT="mb-empty")) == Endpoint(
        DEFAULT_SOCKET, "mb-empty"
    )


def test_docker_config_defaults_to_home(tmp_path: Path) -> None:
    meta = meta_path(tmp_path / ".docker", "work")
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"Name": "work", "Endpoints": {"docker": {"Host": "tcp://w:2375"}}}))
    (tmp_path / ".docker" / "config.json").write_text('{"currentContext": "work"}')
    chosen = resolve_endpoint({"HOME": str(tmp_path)})
    assert chosen == Endpoint("tcp://w:2375", "work") and chosen.source == "docker context 'work'"
    assert resolve_endpoint({"HOME": str(tmp_path / "elsewhere")}) == Endpoint(DEFAULT_SOCKET, "default")


def test_sources_say_what_chose_the_address() -> None:
    assert Endpoint("tcp://h:1", None).source == "DOCKER_HOST"
    assert Endpoint(DEFAULT_SOCKET, "default").source == "the default socket"
    assert not Endpoint(DEFAULT_SOCKET, "default").chosen and Endpoint("tcp://h:1", "x").chosen


@needs_cli
@needs_openssl
def test_tls_material_is_used_where_the_cli_stored_it(tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path, "client")
    config = tmp_path / "config"
    _docker(
        config,
        "context",
        "create",
        "mb-tls",
        "--docker",
        f"host=tcp://h:2376,ca={cert},cert={cert},key={key}",
    )
    stored = (
        Path(_docker(config, "context", "inspect", "mb-tls", "--format", "{{.Storage.TLSPath}}")) / "docker"
    )
    assert stored == tls_dir(config, "mb-tls")
    chosen = resolve_endpoint(config_env(config, DOCKER_CONTEXT="mb-tls"))
    ca, client = str(stored / "ca.pem"), (str(stored / "cert.pem"), str(stored / "key.pem"))
    assert chosen == Endpoint("tcp://h:2376", "mb-tls", Tls(ca, *client, verify=True))
    sdk = tls_config(chosen.tls)
    assert sdk.verify == ca and sdk.cert == client
    _docker(config, "context", "create", "mb-skip", "--docker", "host=tcp://h:2376,skip-tls-verify=true")
    skipping = resolve_endpoint(config_env(config, DOCKER_CONTEXT="mb-skip"))
    assert skipping.tls == Tls(None, None, None, verify=False) and tls_config(skipping.tls).verify is False
    _docker(config, "context", "create", "mb-plain", "--docker", "host=tcp://h:2375")
    assert resolve_endpoint(config_env(config, DOCKER_CONTEXT="mb-plain")).tls is None
    assert tls_config(None) is False
    (stored / "key.pem").unlink()  # a certificate without its key: said, not half-used
    error = resolution_error(config_env(config, DOCKER_CONTEXT="mb-tls"))
    assert "client certificate without its key" in error.message and str(stored) in error.message


# --- against the live engine -----------------------------------------------------------------------


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A directory with a short path: a unix socket's path has at most 107 bytes."""
    path = Path(tempfile.mkdtemp(prefix="mb-ctx-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _reports(env: dict[str, str]) -> tuple[dict[str, Any], str, dict[str, dict[str, Any]]]:
    """What `status --json`, `status` and `doctor --json` say with this environment."""
    status, text, doctor = (
        moatbridge_cli(*args, env=env) for args in (("status", "--json"), ("status",), ("doctor", "--json"))
    )
    assert status.returncode == 0 and text.returncode == 0, status.stderr + text.stderr
    assert "Traceback" not in status.stderr + text.stderr + doctor.stderr
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    return json.loads(status.stdout)["engine"], text.stdout, checks


@pytest.mark.engine
@needs_cli
def test_status_and_doctor_reach_the_engine_through_the_context(
    engine_version: str, tmp_path: Path, short_dir: Path
) -> None:
    """The engine's socket under another name, known only to a docker context: with DOCKER_HOST
    unset, status and doctor reach the engine there (as the docker CLI does) and say so."""
    live = Path("/var/run/docker.sock")
    assert live.is_socket(), "the live engine's socket is expected at /var/run/docker.sock"
    (short_dir / "docker.sock").symlink_to(live)
    host = f"unix://{short_dir}/docker.sock"
    _docker(tmp_path, "context", "create", "mb-linked", "--docker", f"host={host}")
    _docker(tmp_path, "context", "use", "mb-linked")
    assert _docker(tmp_path, "version", "--format", "{{.Server.Version}}") == engine_version  # the CLI agrees
    engine, text, checks = _reports({"DOCKER_CONFIG": str(tmp_path)})
    assert engine == {
        "endpoint": host,
        "running": True,
        "problem": None,
        "from": "docker context 'mb-linked'",
    }
    assert f"Engine: running ({host}) from docker context 'mb-linked'" in text, text
    assert checks["engine-daemon"]["status"] == "pass"
    assert f"at {host} (docker context 'mb-linked')" in checks["engine-daemon"]["detail"]
    assert engine_version in checks["engine-version"]["detail"]


@pytest.mark.engine
@needs_cli
def test_a_context_at_a_dead_socket_is_not_running(
    engine_version: str, tmp_path: Path, short_dir: Path
) -> None:
    dead = short_dir / "dead.sock"
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(dead))  # bound, never listening: what a stopped engine leaves behind
    sock.close()
    _docker(tmp_path, "context", "create", "mb-dead", "--docker", f"host=unix://{dead}")
    engine, text, checks = _reports({"DOCKER_CONFIG": str(tmp_path), "DOCKER_CONTEXT": "mb-dead"})
    assert engine == {"endpoint": f"unix://{dead}", "running": False, "problem": "not running",
                      "from": "docker context 'mb-dead'"}  # fmt: skip
    assert f"Engine: not running (unix://{dead}) from docker context 'mb-dead'" in text, text
    assert checks["engine-daemon"]["status"] == "fail"
    assert f"unix://{dead} (docker context 'mb-dead')" in checks["engine-daemon"]["detail"]


class _TlsProxy:
    """A TLS endpoint in front of the live engine's socket: what a remote engine with
    `dockerd --tlsverify` looks like to a client, without reconfiguring the engine."""

    def __init__(self, cert: Path, key: Path, engine: str) -> None:
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(str(cert), str(key))
        self.engine = engine
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:  # closed: the test is over
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        # One thread a connection, reading whichever side is ready: an SSL socket must not
        # be read and written from two threads at once.
        upstream = socket.socket(socket.AF_UNIX)
        try:
            tls = self.context.wrap_socket(conn, server_side=True)
            upstream.connect(self.engine)
            while True:
                ready = [tls] if tls.pending() else select.select([tls, upstream], [], [], 30)[0]
                if not ready:
                    return
                for side in ready:
                    data = side.recv(65536)
                    if not data:
                        return
                    (upstream if side is tls else tls).sendall(data)
        except OSError:  # ssl.SSLError too: a client that gave up
            return
        finally:
            upstream.close()
            conn.close()

    def close(self) -> None:
        self.listener.close()


@pytest.mark.engine
@needs_cli
@needs_openssl
def test_a_tls_context_reaches_the_engine_over_https(engine_version: str, tmp_path: Path) -> None:
    cert, key = _certificate(tmp_path, "engine")
    proxy = _TlsProxy(cert, key, "/var/run/docker.sock")
    try:
        host = f"tcp://127.0.0.1:{proxy.port}"
        config = tmp_path / "config"
        _docker(config, "context", "create", "mb-tls", "--docker", f"host={host},ca={cert}")
        # A CA bundle for everything else, as many machines set: the context's CA still decides.
        other, _ = _certificate(tmp_path, "other")
        env = {"DOCKER_CONFIG": str(config), "DOCKER_CONTEXT": "mb-tls", "REQUESTS_CA_BUNDLE": str(other)}
        # The docker CLI reaches the engine there (with TLS: plain HTTP would get no answer).
        assert (
            _docker(config, "version", "--format", "{{.Server.Version}}", DOCKER_CONTEXT="mb-tls")
            == engine_version
        )
        status = moatbridge_cli("status", "--json", env=env)
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["engine"] == {
            "endpoint": host, "running": True, "problem": None, "from": "docker context 'mb-tls'",
        }  # fmt: skip
    finally:
        proxy.close()


@pytest.mark.parametrize(
    ("host", "tls", "expected"),
    [
        ("tcp://127.0.0.1", False, "tcp://127.0.0.1:2375"),  # the docker CLI's default ports
        ("tcp://127.0.0.1", True, "tcp://127.0.0.1:2376"),
        ("tcp://[::1]", False, "tcp://[::1]:2375"),
        ("tcp://h:1234", False, "tcp://h:1234"),
        ("tcp://h:x", False, "tcp://h:x"),  # not a port: left for the SDK's own refusal
        ("tcp://[::1", False, "tcp://[::1"),  # an unclosed bracket: likewise
        ("unix:///var/run/docker.sock", False, "unix:///var/run/docker.sock"),
        ("ssh://u@h", False, "ssh://u@h"),
    ],
)
def test_a_tcp_address_without_a_port_gets_the_clis_default(host: str, tls: bool, expected: str) -> None:
    from moatbridge.adapters.engine_client import sdk_address

    assert sdk_address(host, tls) == expected


def test_status_reads_tcp_without_a_port_as_the_cli_does() -> None:
    """Nothing listens on 127.0.0.1:2375 here: 'not running', as `docker version` says (it
    tries :2375), not the SDK's 'port is required'."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DOCKER_")}
    env["DOCKER_HOST"] = "tcp://127.0.0.1"
    status = subprocess.run([sys.executable, "-m", "moatbridge", "status"], env=env, capture_output=True,
                            text=True, timeout=60)  # fmt: skip
    assert status.returncode == 0, status.stderr
    assert "Engine: not running (tcp://127.0.0.1) from DOCKER_HOST" in status.stdout, status.stdout
    if DOCKER is not None:
        cli = subprocess.run([DOCKER, "version"], env=env, capture_output=True, text=True, timeout=60)
        assert "tcp://127.0.0.1:2375" in cli.stderr  # the oracle's own reading of the address


@pytest.mark.parametrize("api_version", ["1.43\x1b[2J", 1.43], ids=["controls", "a-number"])
def test_a_service_that_is_not_an_engine_is_said_not_a_crash(api_version: object) -> None:
    """DOCKER_HOST at a service that answers /version with JSON the SDK cannot read as a
    version: one sentence naming it (exit 3, its controls escaped), not the SDK's ValueError
    or AttributeError from inside APIClient as an internal error."""
    import http.server

    class NotAnEngine(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"ApiVersion": api_version, "Version": "24"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotAnEngine)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {**os.environ, "DOCKER_HOST": f"tcp://127.0.0.1:{server.server_address[1]}"}
        result = subprocess.run([sys.executable, "-m", "moatbridge", "image", "list"], capture_output=True,
                                text=True, env=env, timeout=60)  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert result.returncode == 3, result.stderr
    assert len(result.stderr.splitlines()) == 2 and "internal error" not in result.stderr
    assert "\x1b" not in result.stderr and result.stderr.startswith("moatbridge: "), result.stderr
    if isinstance(api_version, str):  # the SDK's ValueError from inside APIClient
        assert "does not answer as a container engine (invalid literal" in result.stderr, result.stderr
