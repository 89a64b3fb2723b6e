"""The part both build-time servers share (adapters/file_server.py, adapters/repo_proxy.py):
an HTTP/1.1 server bound to 127.0.0.1 on a free port, for the length of one build.

* every connection gets the I/O timeout; nothing is logged unless a handler says so (the
  URLs carry capability tokens);
* leaving ``serving`` stops accepting, cuts every open connection (``abort``) and joins
  the handler threads within a bounded grace: the URL is dead afterwards;
* no reverse DNS at bind time, and a failing handler costs one log line, not a traceback
  on the user's terminal.
"""

from __future__ import annotations

import logging
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

log = logging.getLogger(__name__)

SHUTDOWN_GRACE_S = 5.0


class LoopbackHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    sys_version = ""
    server: LoopbackServer

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.io_timeout)
        self.server.register(self)

    def finish(self) -> None:
        try:
            with suppress(OSError):
                super().finish()
        finally:
            self.server.unregister(self)

    def log_message(self, format: str, *args: object) -> None:
        pass  # paths hold capability tokens: subclasses log only what is safe

    def abort(self) -> None:
        """Called from the shutting-down thread: unblock any read or write on this connection."""
        with suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class LoopbackServer(ThreadingHTTPServer):
    label = "loopback server"  # how log lines name it
    daemon_threads = True
    block_on_close = False  # joined in stop(), with a deadline

    def __init__(self, handler: type[LoopbackHandler], io_timeout: float) -> None:
        self.io_timeout = io_timeout
        self._lock = threading.Lock()
        self._handlers: dict[LoopbackHandler, threading.Thread] = {}
        self._closing = False
        super().__init__(("127.0.0.1", 0), handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def server_bind(self) -> None:
        # HTTPServer.server_bind does a reverse DNS lookup (getfqdn); not needed here.
        socketserver.TCPServer.server_bind(self)
        self.server_name = "127.0.0.1"
        self.server_port = self.port

    def handle_error(self, request: object, client_address: object) -> None:
        # The default prints a traceback to stderr; keep it to one line.
        log.warning("%s: request handler failed", self.label, exc_info=False)

    def register(self, handler: LoopbackHandler) -> None:
        with self._lock:
            closing = self._closing
            if not closing:
                self._handlers[handler] = threading.current_thread()
        if closing:
            # Accepted just before stop() but scheduled after it: never served.
            handler.abort()

    def unregister(self, handler: LoopbackHandler) -> None:
        with self._lock:
            self._handlers.pop(handler, None)

    def stop(self, grace: float) -> None:
        with self._lock:
            self._closing = True  # a handler registering from now on is cut at once
        self.shutdown()  # stop accepting
        self.server_close()
        with self._lock:
            active = dict(self._handlers)
        for handler in active:
            handler.abort()
        deadline = time.monotonic() + grace
        for thread in active.values():
            thread.join(max(0.0, deadline - time.monotonic()))
        stuck = sum(thread.is_alive() for thread in active.values())
        if stuck:
            log.warning("%s: %d connection(s) did not close in time", self.label, stuck)


@contextmanager
def serving(server: LoopbackServer, name: str, grace: float = SHUTDOWN_GRACE_S) -> Iterator[int]:
    """Run ``server`` in a thread while the context lasts; yields its port."""
    serve = server.serve_forever
    thread = threading.Thread(target=serve, kwargs={"poll_interval": 0.2}, name=name, daemon=True)
    thread.start()
    try:
        yield server.port
    finally:
        server.stop(grace)
        thread.join(grace)
