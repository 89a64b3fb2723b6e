"""Serving ONE local file on 127.0.0.1 for the length of an image build (a carried-in SCALE tarball).

An air-gapped site has the vendor's tarball on disk, and the classic builder can only
fetch over the network (a multi-gigabyte file in the build context would be copied into
the daemon and, with COPY, into a layer). So the build (host networking) downloads it
from ``http://127.0.0.1:PORT/<token>/<name>``:

* only 127.0.0.1 is bound, on a free port, and only the exact path under a random
  per-session token answers (404 otherwise), so another local process cannot guess it;
* GET and HEAD only; the file is streamed (``socket.sendfile``) with its Content-Length;
* every socket has a timeout; leaving the context stops the server, closes open
  connections and joins its threads within a bounded time: the URL is dead afterwards;
* nothing is logged (the URL is a capability while it lives).

Also the local checks made before a build: the file exists and is an xz stream holding a
tar archive (read from its first bytes only), and its SHA-256, memoised per file identity
(device, inode, size, mtime) so one process hashes a 4 GB file once (setup plans twice).
Measured here: ~1 s/GB for hashlib's SHA-256 warm, ~1.3 s/GB cold.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import secrets
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from moatbridge.adapters.loopback_http import LoopbackHandler, LoopbackServer, serving
from moatbridge.errors import InputError

DEFAULT_TIMEOUT_S = 60.0
SHUTDOWN_GRACE_S = 5.0
CHUNK_BYTES = 1 << 20
XZ_MAGIC = b"\xfd7zXZ\x00"

_HINT = "pass the vendor's scale-<version>-amd64.tar.xz as it was downloaded"


class _Handler(LoopbackHandler):
    server_version = "moatbridge-file-server"
    server: _FileServer

    def do_HEAD(self) -> None:
        self._serve(body=False)

    def do_GET(self) -> None:
        self._serve(body=True)

    def _serve(self, body: bool) -> None:
        if self.path != self.server.url_path:
            self.send_error(404)
            return
        try:
            handle = open(self.server.file, "rb")  # noqa: SIM115 - closed below
        except OSError:
            self.send_error(404)
            return
        with handle:
            size = os.fstat(handle.fileno()).st_size
            self.send_response(200)
            self.send_header("Content-Type", "application/x-xz")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            if body:
                with suppress(OSError):  # the client went away: nothing to tell it
                    self.wfile.flush()
                    self.connection.sendfile(handle)


class _FileServer(LoopbackServer):
    label = "file server"

    def __init__(self, file: Path, url_path: str, io_timeout: float) -> None:
        self.file = file
        self.url_path = url_path
        super().__init__(_Handler, io_timeout)


@contextmanager
def serve_file(file: Path, io_timeout: float = DEFAULT_TIMEOUT_S) -> Iterator[str]:
    """Serve ``file`` at a random loopback URL while the context lasts; yields the URL."""
    url_path = f"/{secrets.token_urlsafe(24)}/{quote(file.name)}"
    server = _FileServer(file.resolve(), url_path, io_timeout)
    with serving(server, "moatbridge-file-server", SHUTDOWN_GRACE_S) as port:
        yield f"http://127.0.0.1:{port}{url_path}"


_hashes: dict[tuple[int, int, int, int], str] = {}


def file_sha256(file: Path) -> str:
    """The file's SHA-256, computed once per file identity in this process."""
    info = file.stat()
    key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    if key not in _hashes:
        digest = hashlib.sha256()
        with open(file, "rb") as handle:
            while chunk := handle.read(CHUNK_BYTES):
                digest.update(chunk)
        _hashes[key] = digest.hexdigest()
    return _hashes[key]


def check_tarball(file: Path) -> str:
    """Check a local tarball from its first bytes; returns the top directory of its first
    member (``scale-1.7.2-Linux``). Raises InputError (exit 2) with one sentence."""
    if not file.exists():
        raise InputError(
            f"The tarball {str(file)!r} does not exist.", "check the path (--tarball FILE or URL)"
        )
    if not file.is_file():
        raise InputError(f"The tarball {str(file)!r} is not a file.", "pass the .tar.xz file itself")
    try:
        with open(file, "rb") as handle:
            magic = handle.read(len(XZ_MAGIC))
            if magic != XZ_MAGIC:
                raise InputError(f"{file.name!r} is not an xz-compressed tarball.", _HINT)
            handle.seek(0)
            # Stream mode reads only as much as the first member needs.
            with tarfile.open(fileobj=handle, mode="r|xz") as archive:
                first = archive.next()
    except PermissionError:
        raise InputError(f"The tarball {str(file)!r} cannot be read (permission denied).",
                         "make it readable by your user") from None  # fmt: skip
    except (tarfile.TarError, lzma.LZMAError, EOFError, OSError):
        raise InputError(
            f"{file.name!r} is not an xz-compressed tar archive (or it is damaged).", _HINT
        ) from None
    if first is None:
        raise InputError(f"The tarball {file.name!r} is empty.", _HINT)
    parts = [part for part in PurePosixPath(first.name).parts if part not in (".", "/")]
    return parts[0] if parts else ""
