"""The loopback repository proxy, against a local upstream on 127.0.0.1 that demands basic auth."""

from __future__ import annotations

import base64
import hashlib
import http.client
import logging
import os
import secrets
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from moatbridge.adapters.repo_proxy import Credentials, serve_repo_proxy

BASE = "/customer-1234/deb"
SMALL = b"Origin: stand-in\nLabel: upstream\n" * 40
BIG_MIB = 48
GATED_FIRST = b"A" * 300_000
GATED_REST = b"B" * 300_000


@dataclass
class Seen:
    method: str
    path: str
    authorization: str | None
    range: str | None


@dataclass
class Upstream:
    """A small repository server: basic auth, ETag/Last-Modified, single byte ranges."""

    username: str
    password: str
    big_file: Path
    url: str = ""
    seen: list[Seen] = field(default_factory=list)
    gate: threading.Event = field(default_factory=threading.Event)
    redirect_to: str = ""
    require_auth: bool = True


def _handler_for(up: Upstream) -> type[BaseHTTPRequestHandler]:
    expected = "Basic " + base64.b64encode(f"{up.username}:{up.password}".encode()).decode()
    last_modified = formatdate(1_700_000_000, usegmt=True)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_HEAD(self) -> None:
            self.do_GET()

        def do_GET(self) -> None:
            up.seen.append(
                Seen(self.command, self.path, self.headers.get("Authorization"), self.headers.get("Range"))
            )
            if up.require_auth and self.headers.get("Authorization") != expected:
                self._plain(401, b"authentication required\n", {"WWW-Authenticate": 'Basic realm="scale"'})
                return
            path = self.path
            if path == f"{BASE}/dists/noble/Release":
                self._resource(SMALL, etag='"small-1"', last_modified=last_modified)
            elif path == f"{BASE}/pool/big.bin":
                self._file(up.big_file)
            elif path == f"{BASE}/chunked":
                self._chunked([b"one,", b"two,", b"three"])
            elif path == f"{BASE}/gated":
                self._gated()
            elif path == f"{BASE}/slow":
                time.sleep(3)
                self._plain(200, b"late\n")
            elif path == f"{BASE}/moved-here":
                self._plain(302, b"", {"Location": f"{BASE}/dists/noble/Release"})
            elif path == f"{BASE}/moved-away":
                self._plain(302, b"", {"Location": f"{up.redirect_to}/landing"})
            elif path == "/landing":
                self._plain(200, b"landed\n")
            else:
                self._plain(404, b"no such file\n")

        def _plain(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _range(self, size: int) -> tuple[int, int] | None:
            header = self.headers.get("Range")
            if not header or not header.startswith("bytes="):
                return None
            first, _, last = header[len("bytes=") :].partition("-")
            start = int(first)
            end = int(last) if last else size - 1
            return start, min(end, size - 1)

        def _resource(self, body: bytes, etag: str, last_modified: str) -> None:
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                self.send_header("ETag", etag)
                self.end_headers()
                return
            span = self._range(len(body))
            status, start, end = (206, *span) if span else (200, 0, len(body) - 1)
            self.send_response(status)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", last_modified)
            self.send_header("Content-Length", str(end - start + 1))
            if span:
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(body)}")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body[start : end + 1])

        def _file(self, path: Path) -> None:
            size = path.stat().st_size
            span = self._range(size)
            status, start, end = (206, *span) if span else (200, 0, size - 1)
            self.send_response(status)
            self.send_header("Content-Length", str(end - start + 1))
            self.send_header("ETag", '"big-1"')
            if span:
                self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
            self.end_headers()
            if self.command == "HEAD":
                return
            with path.open("rb") as handle:
                handle.seek(start)
                remaining = end - start + 1
                while remaining:
                    data = handle.read(min(remaining, 1 << 20))
                    self.wfile.write(data)
                    remaining -= len(data)

        def _chunked(self, parts: list[bytes]) -> None:
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in parts:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")

        def _gated(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(GATED_FIRST) + len(GATED_REST)))
            self.end_headers()
            self.wfile.write(GATED_FIRST)
            self.wfile.flush()
            up.gate.wait(20)
            self.wfile.write(GATED_REST)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True


@pytest.fixture
def serve() -> Iterator[type[_Server]]:
    servers: list[_Server] = []

    class Tracked(_Server):
        def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
            super().__init__(("127.0.0.1", 0), handler)
            servers.append(self)
            threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    yield Tracked
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("upstream") / "big.bin"
    block = os.urandom(1 << 20)
    with path.open("wb") as handle:
        for index in range(BIG_MIB):
            handle.write(index.to_bytes(4, "big") + block[4:])
    return path


@pytest.fixture
def upstream(serve: type[_Server], big_file: Path) -> Upstream:
    up = Upstream(
        username=f"cust-{secrets.token_hex(4)}", password=secrets.token_urlsafe(18), big_file=big_file
    )
    server = serve(_handler_for(up))
    up.url = f"http://127.0.0.1:{server.server_port}"
    return up


def _request(
    base: str, method: str, path: str, headers: dict[str, str] | None = None, timeout: float = 30
) -> tuple[http.client.HTTPResponse, bytes]:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)
    conn.request(method, parts.path + path, headers=headers or {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response, body


def _creds(up: Upstream) -> Credentials:
    return Credentials(up.username, up.password)


def test_upstream_demands_basic_auth(upstream: Upstream) -> None:
    response, _ = _request(upstream.url + BASE, "GET", "/dists/noble/Release")
    assert response.status == 401
    auth = "Basic " + base64.b64encode(f"{upstream.username}:{upstream.password}".encode()).decode()
    response, body = _request(upstream.url + BASE, "GET", "/dists/noble/Release", {"Authorization": auth})
    assert (response.status, body) == (200, SMALL)


def test_proxy_adds_credentials_and_passes_headers_through(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        assert base.startswith("http://127.0.0.1:")
        response, body = _request(base, "GET", "/dists/noble/Release")
    assert (response.status, body) == (200, SMALL)
    assert response.getheader("Content-Length") == str(len(SMALL))
    assert response.getheader("ETag") == '"small-1"'
    assert response.getheader("Last-Modified") == formatdate(1_700_000_000, usegmt=True)
    (seen,) = upstream.seen
    assert seen.path == f"{BASE}/dists/noble/Release"
    assert seen.authorization == _creds(upstream).header_value()


def test_without_or_with_wrong_credentials_the_401_passes_through(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, None) as base:
        response, _ = _request(base, "GET", "/dists/noble/Release")
        assert response.status == 401
        assert response.getheader("WWW-Authenticate") == 'Basic realm="scale"'
    with serve_repo_proxy(upstream.url + BASE, Credentials(upstream.username, "wrong")) as base:
        response, _ = _request(base, "GET", "/dists/noble/Release")
        assert response.status == 401


def test_client_authorization_is_never_forwarded(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, None) as base:
        _request(base, "GET", "/dists/noble/Release", {"Authorization": "Basic Zm9vOmJhcg=="})
    assert [s.authorization for s in upstream.seen] == [None]


def test_head_has_length_and_no_body(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        response, body = _request(base, "HEAD", "/pool/big.bin")
    assert response.status == 200
    assert response.getheader("Content-Length") == str(BIG_MIB << 20)
    assert body == b""
    assert upstream.seen[0].method == "HEAD"


def test_range_requests_are_forwarded(upstream: Upstream, big_file: Path) -> None:
    size = BIG_MIB << 20
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        response, body = _request(base, "GET", "/dists/noble/Release", {"Range": "bytes=100-199"})
        assert response.status == 206
        assert response.getheader("Content-Range") == f"bytes 100-199/{len(SMALL)}"
        assert body == SMALL[100:200]
        start = size - (3 << 20) + 17
        response, body = _request(base, "GET", "/pool/big.bin", {"Range": f"bytes={start}-"})
    assert response.status == 206
    assert response.getheader("Content-Range") == f"bytes {start}-{size - 1}/{size}"
    with big_file.open("rb") as handle:
        handle.seek(start)
        assert body == handle.read()
    assert upstream.seen[-1].range == f"bytes={start}-"


def test_conditional_requests_get_304(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        response, body = _request(base, "GET", "/dists/noble/Release", {"If-None-Match": '"small-1"'})
    assert (response.status, body) == (304, b"")


def test_a_large_file_is_streamed_not_buffered(upstream: Upstream, big_file: Path) -> None:
    expected = hashlib.sha256(big_file.read_bytes()).hexdigest()
    digest = hashlib.sha256()
    tracemalloc.start()
    try:
        with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
            parts = urlsplit(base)
            conn = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=30)
            conn.request("GET", parts.path + "/pool/big.bin")
            response = conn.getresponse()
            assert response.status == 200
            assert response.getheader("Content-Length") == str(BIG_MIB << 20)
            while data := response.read(1 << 20):
                digest.update(data)
            conn.close()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert digest.hexdigest() == expected
    # Upstream, proxy and client share this process: a buffering proxy would peak near 48 MiB.
    assert peak < 12 << 20, f"peak traced memory {peak >> 20} MiB"


def test_first_bytes_arrive_before_the_upstream_finishes(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        parts = urlsplit(base)
        conn = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=10)
        conn.request("GET", parts.path + "/gated")
        response = conn.getresponse()  # a buffering proxy would time out here
        head = response.read(len(GATED_FIRST))
        upstream.gate.set()
        rest = response.read()
        conn.close()
    assert (head, rest) == (GATED_FIRST, GATED_REST)


def test_chunked_upstream_responses_pass_through(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        response, body = _request(base, "GET", "/chunked")
    assert (response.status, body) == (200, b"one,two,three")


def test_not_found_passes_through(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        response, _ = _request(base, "GET", "/dists/nope/Release")
    assert response.status == 404


def test_only_paths_under_the_token_are_forwarded(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        port = urlsplit(base).port
        outside = f"http://127.0.0.1:{port}"
        assert _request(outside, "GET", f"{BASE}/dists/noble/Release")[0].status == 404
        assert _request(outside, "GET", "/")[0].status == 404
        assert _request(base, "GET", "/../other/secret")[0].status == 404
        assert _request(base, "GET", "/dists/%2e%2e/%2e%2e/x")[0].status == 404
        assert _request(base + "x", "GET", "/dists/noble/Release")[0].status == 404
        assert _request(base, "POST", "/dists/noble/Release")[0].status == 501
    assert upstream.seen == []


def test_redirects_keep_credentials_only_on_the_same_origin(upstream: Upstream, serve: type[_Server]) -> None:
    other = Upstream(username="x", password="y", big_file=upstream.big_file, require_auth=False)
    other_server = serve(_handler_for(other))
    upstream.redirect_to = f"http://127.0.0.1:{other_server.server_port}"
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        response, body = _request(base, "GET", "/moved-here")
        assert (response.status, body) == (200, SMALL)
        response, body = _request(base, "GET", "/moved-away")
        assert (response.status, body) == (200, b"landed\n")
    assert [s.path for s in upstream.seen] == [
        f"{BASE}/moved-here",
        f"{BASE}/dists/noble/Release",
        f"{BASE}/moved-away",
    ]
    assert all(s.authorization == _creds(upstream).header_value() for s in upstream.seen)
    assert [(s.path, s.authorization) for s in other.seen] == [("/landing", None)]


def test_a_slow_upstream_times_out_with_502(upstream: Upstream) -> None:
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream), timeout=0.5) as base:
        started = time.monotonic()
        response, body = _request(base, "GET", "/slow")
        elapsed = time.monotonic() - started
    assert response.status == 502
    assert b"unreachable" in body
    assert elapsed < 2.5


def test_an_unreachable_upstream_gives_502() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with serve_repo_proxy(f"http://127.0.0.1:{port}/deb", Credentials("u", "p"), timeout=2) as base:
        response, _ = _request(base, "GET", "/dists/noble/Release")
    assert response.status == 502


def test_credentials_never_reach_the_log(upstream: Upstream, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="moatbridge")
    creds = _creds(upstream)
    with serve_repo_proxy(upstream.url + BASE, creds) as base:
        _request(base, "GET", "/dists/noble/Release")
        _request(base, "GET", "/moved-here")
        _request(base, "GET", "/missing")
    assert "repo proxy" in caplog.text
    token = creds.header_value().split()[1]
    for secret in (creds.password, token, "Authorization"):
        assert secret not in caplog.text


def test_credentials_repr_hides_the_password() -> None:
    creds = Credentials("alice", "s3cret-pa55")
    assert "s3cret-pa55" not in repr(creds)
    assert "s3cret-pa55" not in str(creds)
    assert "alice" in repr(creds)
    assert creds.header_value() == "Basic " + base64.b64encode(b"alice:s3cret-pa55").decode()
    with pytest.raises(ValueError, match="cannot contain ':'"):
        Credentials("al:ice", "x")
    with pytest.raises(ValueError, match="control characters") as info:
        Credentials("alice", "line\r\nInjected: yes")
    assert "Injected" not in str(info.value)


@pytest.mark.parametrize(
    ("upstream_url", "message"),
    [
        ("https://user:pw@nonfree-pkgs.scale-lang.com/c/deb", "must not carry credentials"),
        ("http://nonfree-pkgs.scale-lang.com/c/deb", "plain http://"),
        ("ftp://pkgs.scale-lang.com/deb", "must start with https://"),
        ("https:///deb", "no host"),
    ],
)
def test_unsafe_upstream_urls_are_refused(upstream_url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message), serve_repo_proxy(upstream_url, Credentials("u", "p")):
        pass


def test_shutdown_is_prompt_with_open_connections(upstream: Upstream) -> None:
    before = threading.active_count()
    with serve_repo_proxy(upstream.url + BASE, _creds(upstream)) as base:
        parts = urlsplit(base)
        idle = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=10)
        idle.request("GET", parts.path + "/dists/noble/Release")
        idle.getresponse().read()  # keep-alive: the proxy's handler now waits for the next request
        stalled = http.client.HTTPConnection("127.0.0.1", parts.port, timeout=10)
        stalled.request("GET", parts.path + "/gated")
        stalled.getresponse().read(1000)  # mid-body, upstream waiting on the gate
        started = time.monotonic()
    elapsed = time.monotonic() - started
    upstream.gate.set()
    idle.close()
    stalled.close()
    assert elapsed < 3, f"leaving the proxy took {elapsed:.1f}s"
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", parts.port or 0), timeout=2).close()
    deadline = time.monotonic() + 5
    while threading.active_count() > before + 2 and time.monotonic() < deadline:  # upstream's own threads
        time.sleep(0.05)
    assert threading.active_count() <= before + 2


def test_an_unresolvable_upstream_gives_502() -> None:
    with serve_repo_proxy("https://scale-standin.invalid/deb", Credentials("u", "p"), timeout=3) as base:
        response, _ = _request(base, "GET", "/dists/noble/Release")
    assert response.status == 502
