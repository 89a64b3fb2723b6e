"""A loopback reverse proxy that adds HTTP basic auth to package-repository requests.

SCALE's commercial repository (``https://nonfree-pkgs.scale-lang.com/<customer>/deb``)
needs HTTP basic auth. With the classic builder there are no build secrets, and
build args, ``ENV``, files in the context, labels and ``RUN`` command lines all end
up in the image or its history. So the credentials never enter the build: this
module serves ``http://127.0.0.1:PORT/<token>`` and forwards GET/HEAD requests
under it to the upstream repository, adding the ``Authorization`` header itself.
The build (host networking) only ever sees the loopback URL.

Properties:

* Credentials live only in this process's memory; ``Credentials`` hides the
  password from ``repr``, and nothing here logs header values.
* Only ``127.0.0.1`` is bound, on a free port, and only paths under a random
  per-session token are forwarded, so another local process cannot guess its way in.
* Responses are streamed (status, headers such as Content-Length, Last-Modified,
  ETag and Content-Range pass through); Range and conditional request headers are
  forwarded.
* Every socket operation has a timeout; leaving the context closes open
  connections and joins the worker threads within a bounded time.
* Redirects are followed here; the credentials are sent only to the upstream's own
  origin (scheme, host, port), never to a host a redirect points at.
* An upstream URL with a query (a token, a signed URL) keeps it here too: the query
  is appended to every request forwarded to that origin, and the build never sees it.

Standard library only.
"""

from __future__ import annotations

import base64
import http.client
import ipaddress
import logging
import secrets
import socket
import ssl
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from urllib.parse import unquote, urljoin, urlsplit

from moatbridge.adapters.loopback_http import LoopbackHandler, LoopbackServer, serving

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 60.0
SHUTDOWN_GRACE_S = 5.0
CHUNK_BYTES = 256 * 1024
MAX_REDIRECTS = 5

# Request headers passed on to the upstream (everything else, notably any
# Authorization the client sends, is dropped).
FORWARDED_REQUEST_HEADERS = (
    "Range", "If-Range", "If-Modified-Since", "If-Unmodified-Since", "If-None-Match", "If-Match",
    "Accept", "Cache-Control", "Pragma", "User-Agent",
)  # fmt: skip
# Response headers that describe one hop, not the resource (RFC 9110 section 7.6.1).
HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
     "te", "trailer", "transfer-encoding", "upgrade"}
)  # fmt: skip
REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, repr=False)
class Credentials:
    """HTTP basic-auth credentials. ``repr`` never shows the password."""

    username: str
    password: str

    def __post_init__(self) -> None:
        # Messages name the problem, never the values.
        if not self.username:
            raise ValueError("the repository username is empty")
        if ":" in self.username:
            raise ValueError("a basic-auth username cannot contain ':'")
        for value in (self.username, self.password):
            if any(ord(char) < 0x20 or ord(char) == 0x7F for char in value):
                raise ValueError("repository credentials cannot contain control characters")

    def __repr__(self) -> str:
        return f"Credentials(username={self.username!r}, password='***')"

    def header_value(self) -> str:
        """The ``Authorization`` header value (``Basic base64(user:password)``)."""
        token = base64.b64encode(f"{self.username}:{self.password}".encode()).decode("ascii")
        return f"Basic {token}"


@dataclass(frozen=True)
class _Origin:
    scheme: str
    host: str
    port: int

    @property
    def netloc(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parse_upstream(upstream: str, credentials: Credentials | None) -> tuple[_Origin, str, str]:
    """Validate the upstream base URL; return its origin, base path (no trailing slash) and query."""
    parts = urlsplit(upstream)
    if parts.scheme not in ("http", "https"):
        raise ValueError("the repository URL must start with https:// (or http://)")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValueError("the repository URL must not carry credentials; pass them as Credentials")
    if not parts.hostname:
        raise ValueError("the repository URL has no host")
    if parts.fragment:
        raise ValueError("the repository URL must not have a fragment")
    if credentials is not None and parts.scheme == "http" and not _is_loopback(parts.hostname):
        raise ValueError("refusing to send repository credentials over plain http:// to a remote host")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return _Origin(parts.scheme, parts.hostname, port), parts.path.rstrip("/"), parts.query


class _Handler(LoopbackHandler):
    server_version = "moatbridge-repo-proxy"
    server: _ProxyServer

    def setup(self) -> None:
        self._upstream: http.client.HTTPConnection | None = None
        super().setup()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self._close_upstream()

    def log_message(self, format: str, *args: object) -> None:
        # Request lines and status codes only: header values are never logged.
        log.debug("repo proxy: " + format, *args)

    def do_GET(self) -> None:
        self._proxy(head=False)

    def do_HEAD(self) -> None:
        self._proxy(head=True)

    # -- helpers -----------------------------------------------------------------

    def _reply_plain(self, status: int, text: str) -> None:
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _upstream_path(self) -> str | None:
        """The request path below the token, or None when it is not ours or unsafe."""
        prefix = f"/{self.server.token}"
        raw = self.path
        if not raw.startswith(prefix):
            return None
        rest = raw[len(prefix) :]
        if rest and not rest.startswith(("/", "?")):
            return None
        path_only = rest.split("?", 1)[0]
        if any(segment in (".", "..") for segment in unquote(path_only).split("/")):
            return None
        if not rest.startswith("/"):
            rest = "/" + rest
        target = self.server.base_path + rest
        if self.server.query:
            target += ("&" if "?" in target else "?") + self.server.query
        return target

    def _forwarded_headers(self) -> dict[str, str]:
        headers = {}
        for name in FORWARDED_REQUEST_HEADERS:
            value = self.headers.get(name)
            if value is not None:
                headers[name] = value
        return headers

    def _close_upstream(self) -> None:
        if self._upstream is not None:
            self._upstream.close()
            self._upstream = None

    def abort(self) -> None:
        """Called from the shutting-down thread: unblock any read or write, both sides."""
        super().abort()
        upstream = self._upstream
        if upstream is not None and upstream.sock is not None:
            with suppress(OSError):
                upstream.sock.shutdown(socket.SHUT_RDWR)

    def _open(self, origin: _Origin) -> http.client.HTTPConnection:
        timeout = self.server.io_timeout
        if origin.scheme == "https":
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(origin.host, origin.port, timeout=timeout, context=context)
        return http.client.HTTPConnection(origin.host, origin.port, timeout=timeout)

    def _fetch(self, target: str) -> http.client.HTTPResponse:
        origin = self.server.origin
        headers = self._forwarded_headers()
        for _ in range(MAX_REDIRECTS + 1):
            self._close_upstream()
            self._upstream = self._open(origin)
            send = dict(headers)
            if self.server.authorization is not None and origin == self.server.origin:
                send["Authorization"] = self.server.authorization
            self._upstream.request(self.command, target, headers=send)
            response = self._upstream.getresponse()
            location = response.getheader("Location")
            if response.status not in REDIRECTS or not location:
                return response
            response.close()
            moved = urlsplit(urljoin(f"{origin.scheme}://{origin.netloc}{target}", location))
            if moved.scheme not in ("http", "https") or not moved.hostname:
                raise http.client.HTTPException("the repository redirected to an unsupported URL")
            port = moved.port or (443 if moved.scheme == "https" else 80)
            origin = _Origin(moved.scheme, moved.hostname, port)
            target = (moved.path or "/") + (f"?{moved.query}" if moved.query else "")
            log.debug("repo proxy: following a redirect to %s://%s", moved.scheme, origin.netloc)
        raise http.client.HTTPException("the repository redirected too many times")

    def _proxy(self, head: bool) -> None:
        target = self._upstream_path()
        if target is None:
            self._reply_plain(404, "not found\n")
            return
        try:
            response = self._fetch(target)
        except (OSError, http.client.HTTPException) as exc:
            # The exception's type and text name the host or the failure, never a header.
            log.warning("repo proxy: upstream request failed: %s: %s", type(exc).__name__, exc)
            self._close_upstream()
            self._reply_plain(502, f"repository unreachable through the proxy: {type(exc).__name__}\n")
            return
        try:
            self._relay(response, head)
        finally:
            self._close_upstream()

    def _relay(self, response: http.client.HTTPResponse, head: bool) -> None:
        status = response.status
        bodyless = head or status in (204, 304) or 100 <= status < 200
        length = response.getheader("Content-Length")
        chunked = not bodyless and length is None and self.request_version == "HTTP/1.1"
        self.log_request(status)
        self.send_response_only(status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif not bodyless and length is None:
            self.send_header("Connection", "close")  # an HTTP/1.0 client: the end of the body is EOF
        self.end_headers()
        if bodyless:
            return
        try:
            while True:
                data = response.read1(CHUNK_BYTES)
                if not data:
                    break
                if chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                else:
                    self.wfile.write(data)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except (OSError, http.client.HTTPException) as exc:
            # Headers are out: the only honest signal left is to cut the connection.
            log.debug("repo proxy: transfer aborted: %s", type(exc).__name__)
            self.close_connection = True


class _ProxyServer(LoopbackServer):
    label = "repo proxy"

    def __init__(
        self, origin: _Origin, base_path: str, query: str, authorization: str | None, io_timeout: float
    ) -> None:
        self.origin = origin
        self.base_path = base_path
        self.query = query
        self.authorization = authorization
        self.token = secrets.token_hex(16)
        super().__init__(_Handler, io_timeout)


@contextmanager
def serve_repo_proxy(
    upstream: str, credentials: Credentials | None, *, timeout: float = DEFAULT_TIMEOUT_S
) -> Iterator[str]:
    """Serve ``upstream`` on loopback with ``credentials`` added; yield the base URL.

    The yielded URL (``http://127.0.0.1:PORT/<token>``, no trailing slash) stands for
    ``upstream``: ``<url>/dists/noble/Release`` fetches ``<upstream>/dists/noble/Release``.
    ``timeout`` bounds every connect, read and write, upstream and downstream.
    """
    origin, base_path, query = _parse_upstream(upstream, credentials)
    authorization = credentials.header_value() if credentials is not None else None
    server = _ProxyServer(origin, base_path, query, authorization, timeout)
    with serving(server, "moatbridge-repo-proxy", SHUTDOWN_GRACE_S) as port:
        log.debug("repo proxy: serving %s://%s on 127.0.0.1:%d", origin.scheme, origin.netloc, port)
        yield f"http://127.0.0.1:{port}/{server.token}"
