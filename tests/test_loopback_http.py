"""The build-time servers' shared base (adapters/loopback_http.py): once its context is left,
nothing more is served, not even a request accepted just before (its handler thread only
scheduled afterwards). Checked on both servers built on it, over real sockets."""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from moatbridge.adapters import loopback_http
from moatbridge.adapters.file_server import serve_file
from moatbridge.adapters.repo_proxy import serve_repo_proxy

DELAY_S = 0.6  # how late the accepted request's handler thread gets to run


def _late_handlers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every handler thread starts DELAY_S late: the scheduling a busy machine may give it."""
    original = loopback_http.LoopbackHandler.setup

    def late_setup(self: loopback_http.LoopbackHandler) -> None:
        time.sleep(DELAY_S)
        original(self)

    monkeypatch.setattr(loopback_http.LoopbackHandler, "setup", late_setup)


def _request_then_leave(serving: AbstractContextManager[str]) -> list[object]:
    """GET the served URL, leave the context while the handler has not run yet; what came back."""
    outcome: list[object] = []

    def fetch(url: str) -> None:
        host_port, path = url[len("http://") :].split("/", 1)
        client = http.client.HTTPConnection(host_port, timeout=10)
        try:
            client.request("GET", "/" + path)
            response = client.getresponse()
            outcome.append((response.status, response.read()))
        except (OSError, http.client.HTTPException) as exc:
            outcome.append(exc)
        finally:
            client.close()

    with serving as url:
        thread = threading.Thread(target=fetch, args=(url,))
        thread.start()
        time.sleep(DELAY_S / 3)  # accepted by now; its handler still asleep
    thread.join(15)
    return outcome


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[str]:
    """A plain repository for the proxy to forward to (served by the file server itself)."""
    file = tmp_path / "Release"
    file.write_bytes(b"Origin: stand-in\n")
    with serve_file(file) as url:
        yield url.rsplit("/", 1)[0]


@pytest.mark.parametrize("which", ["file server", "repo proxy"])
def test_a_request_accepted_before_the_end_is_never_served_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upstream: str, which: str
) -> None:
    file = tmp_path / "scale-1.7.2-amd64.tar.xz"
    file.write_bytes(b"x" * 100_000)
    starts: dict[str, Callable[[], AbstractContextManager[str]]] = {
        "file server": lambda: serve_file(file),
        "repo proxy": lambda: _proxied(upstream),
    }
    _late_handlers(monkeypatch)
    outcome = _request_then_leave(starts[which]())
    assert len(outcome) == 1
    served = outcome[0]
    assert not (isinstance(served, tuple) and served[0] == 200), f"{which} served after its end: {served!r}"


class _proxied(AbstractContextManager[str]):
    """The proxy's URL for the upstream's Release file, as a context like serve_file's."""

    def __init__(self, upstream: str) -> None:
        self._context = serve_repo_proxy(upstream, None)

    def __enter__(self) -> str:
        return self._context.__enter__() + "/Release"

    def __exit__(self, *exc: object) -> None:
        self._context.__exit__(None, None, None)


def test_without_the_delay_both_serve(tmp_path: Path, upstream: str) -> None:
    """The same request, handled in time, is served: the test above can tell the difference."""
    file = tmp_path / "scale-1.7.2-amd64.tar.xz"
    file.write_bytes(b"x" * 100_000)
    for start in (lambda: serve_file(file), lambda: _proxied(upstream)):
        with start() as url:
            host_port, path = url[len("http://") :].split("/", 1)
            client = http.client.HTTPConnection(host_port, timeout=10)
            client.request("GET", "/" + path)
            response = client.getresponse()
            assert response.status == 200 and response.read()
            client.close()
