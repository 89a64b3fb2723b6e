"""A real CNCF distribution registry (Debian's docker-registry) on loopback, and a
misbehaving proxy in front of it that answers 5xx or stalls, for retry tests."""

from __future__ import annotations

import http.client
import shutil
import socket
import struct
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(url: str, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer within {seconds} s")


@contextmanager
def run_registry(workdir: Path) -> Iterator[str]:
    """Start `docker-registry serve` on 127.0.0.1:<free port>; yields "127.0.0.1:PORT"."""
    binary = shutil.which("docker-registry")
    if binary is None:
        raise RuntimeError("docker-registry is not installed (Debian package docker-registry)")
    port = free_port()
    storage = workdir / "registry-data"
    storage.mkdir(parents=True, exist_ok=True)
    config = workdir / "registry.yml"
    config.write_text(
        "version: 0.1\n"
        "log:\n  level: warn\n"
        f"storage:\n  filesystem:\n    rootdirectory: {storage}\n  delete:\n    enabled: true\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
    )
    log = (workdir / "registry.log").open("w")
    process = subprocess.Popen([binary, "serve", str(config)], stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_for(f"http://127.0.0.1:{port}/v2/")
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()


@dataclass
class Misbehaviour:
    """What the proxy does wrong. Mutable so a test can change it between pulls."""

    fail_manifests: int = 0  # answer 503 to this many manifest requests first
    stall_blobs_s: float = 0.0  # hold every blob GET this long before answering
    reset_manifests: int = 0  # reset the connection (RST, no answer) on this many manifest requests
    reset_blobs: int = 0  # ... and on this many blob GETs
    seen: list[str] = field(default_factory=list)


@contextmanager
def misbehaving_proxy(upstream: str, behaviour: Misbehaviour) -> Iterator[str]:
    """An HTTP proxy on loopback in front of ``upstream`` ("127.0.0.1:PORT")."""
    lock = threading.Lock()
    host, port_text = upstream.split(":")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            return None

        def _forward(self) -> None:
            with lock:
                behaviour.seen.append(f"{self.command} {self.path}")
                fail = "/manifests/" in self.path and behaviour.fail_manifests > 0
                if fail:
                    behaviour.fail_manifests -= 1
                reset = False
                if "/manifests/" in self.path and behaviour.reset_manifests > 0:
                    behaviour.reset_manifests -= 1
                    reset = True
                elif "/blobs/" in self.path and self.command == "GET" and behaviour.reset_blobs > 0:
                    behaviour.reset_blobs -= 1
                    reset = True
            if reset:
                # SO_LINGER 0: close() sends RST, as a dropped connection or a crashed proxy does.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
                return
            if fail:
                body = b'{"errors":[{"code":"UNAVAILABLE","message":"test proxy: service unavailable"}]}'
                self.send_response(503)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if "/blobs/" in self.path and self.command == "GET" and behaviour.stall_blobs_s:
                time.sleep(behaviour.stall_blobs_s)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            connection = http.client.HTTPConnection(host, int(port_text), timeout=60)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
            connection.request(self.command, self.path, body=body, headers=headers)
            response = connection.getresponse()
            self.send_response(response.status)
            for key, value in response.getheaders():
                if key.lower() not in ("connection", "transfer-encoding"):
                    self.send_header(key, value)
            payload = response.read()
            if response.getheader("Content-Length") is None:
                self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
            connection.close()

        do_GET = do_HEAD = do_PUT = do_POST = do_PATCH = do_DELETE = _forward

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
