"""A local STAND-IN for SCALE's apt repository, to test moatbridge's SCALE image recipes.

We cannot reach Spectral Compute's servers, so the recipe mechanics (scale-repos.deb,
the narrow rewrite of the vendor's apt entries, signed-by keys, version pins, the
licence gate in the package and the image, credentials through the loopback proxy,
dkms clean-up) are tested against packages built here with the same names and layout
as the real ones. Nothing here is SCALE: the ``scale`` package holds stubs (the tree
comes from scale_standin_layout.py, shared with the rpm and tarball stand-ins) and a
LICENSE.txt that says it is a test stand-in.

The repository is signed with a throwaway key generated per build_standin_repo() call
(gpg --batch, no passphrase, a temporary GNUPGHOME that is deleted afterwards); the
stand-in scale-repos installs its public key and names it with ``signed-by=``.

Needs ``dpkg-deb`` (dpkg), ``apt-ftparchive`` (apt-utils) and ``gpg``; gcc optionally
(real shared objects, see scale_standin_layout).
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import tempfile
import textwrap
import threading
from dataclasses import dataclass, field
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from support.scale_standin_layout import LICENSE_TEXT as LICENSE_TEXT  # re-exported
from support.scale_standin_layout import NOTICES_TEXT as NOTICES_TEXT  # re-exported
from support.scale_standin_layout import write_dkms_leftovers, write_scale_tree

STANDIN_VERSION = "1.7.2"  # the version the catalog pins
NEWER_VERSION = "1.7.3"  # also published, so an unpinned build gets something else
REPOS_VERSION = "1.0-standin"
# Where the stand-in scale-repos.deb points apt: a name that can never resolve, so a
# build that forgets to rewrite the source fails instead of reaching anything real.
STANDIN_VENDOR_HOST = "scale-standin.invalid"
STANDIN_PUBLIC_URL = f"http://{STANDIN_VENDOR_HOST}/deb"
# A second, unrelated repository in scale-repos' source files (the real package's
# amdgpu-dkms dependency comes from AMD's). The build must leave its entries alone. It is
# not served: apt-get update only warns about a host it cannot resolve, and nothing is
# installed from it.
AMDGPU_URL = "http://amdgpu-standin.invalid/amdgpu/30.10/ubuntu"
ROCM_URL = "http://amdgpu-standin.invalid/rocm/apt/6.4"
KEYRING = "/usr/share/keyrings/scale-standin.gpg"
AMDGPU_KEYRING = "/usr/share/keyrings/amdgpu-standin.gpg"
TARGET = "gfx1030"
REQUIRED_TOOLS = {"dpkg-deb": "dpkg", "apt-ftparchive": "apt-utils", "gpg": "gpg"}

# Mirrors the vendor gate: the real package refuses to install without acceptance.
PREINST = """\
#!/bin/sh
set -e
case "${SCALE_LICENSE_ACCEPT:-}" in
    1 | y | Y | yes | Yes) ;;
    *)
        echo "scale (TEST STAND-IN): set SCALE_LICENSE_ACCEPT=1 to accept the licence" >&2
        exit 1 ;;
esac
"""


def missing_tools() -> list[str]:
    """The Debian packages to install for the tools this module runs, if any are missing."""
    return sorted({package for tool, package in REQUIRED_TOOLS.items() if shutil.which(tool) is None})


def host_architecture() -> str:
    result = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True)
    return result.stdout.strip()


def _write(path: Path, data: str | bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    path.chmod(mode)


def _dpkg_deb(tree: Path, output: Path) -> Path:
    for directory in [tree, *(p for p in tree.rglob("*") if p.is_dir() and not p.is_symlink())]:
        directory.chmod(0o755)
    output.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(tree), str(output)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return output


def _control(package: str, version: str, arch: str, description: str) -> str:
    return textwrap.dedent(f"""\
        Package: {package}
        Version: {version}
        Architecture: {arch}
        Maintainer: moatbridge test suite <tests@moatbridge.invalid>
        Section: devel
        Priority: optional
        Description: {description}
         TEST STAND-IN built by moatbridge's tests; not Spectral Compute's software.
        """)


def build_scale_deb(workdir: Path, arch: str, version: str = STANDIN_VERSION) -> Path:
    """The stand-in ``scale`` package: the vendor's /opt/scale and /opt/rocm-scale layout, and
    the files amdgpu-dkms (a dependency of the real one) leaves under /usr/src, /var/lib/dkms
    and /boot, which the recipe must clean up."""
    tree = workdir / f"scale-{version}-tree"
    write_scale_tree(tree, version)
    write_dkms_leftovers(tree)
    _write(tree / "DEBIAN" / "control", _control("scale", version, arch, "SCALE (test stand-in)"))
    _write(tree / "DEBIAN" / "preinst", PREINST, 0o755)
    return _dpkg_deb(tree, workdir / f"scale_{version}_{arch}.deb")


def sources_files(codename: str, public_url: str = STANDIN_PUBLIC_URL) -> dict[str, str]:
    """The apt source files the stand-in scale-repos installs: the vendor's entries (signed-by
    the stand-in key) next to unrelated AMD ones, in both formats apt reads."""
    return {
        "/etc/apt/sources.list.d/scale.list": (
            f"# TEST STAND-IN for SCALE's apt source (moatbridge tests)\n"
            f"deb [signed-by={KEYRING}] {public_url} {codename} main\n"
            f"deb [arch=amd64 signed-by={AMDGPU_KEYRING}] {AMDGPU_URL} {codename} main\n"
        ),
        "/etc/apt/sources.list.d/scale-extra.sources": textwrap.dedent(f"""\
            # TEST STAND-IN: deb822 entries, so that the recipe's URIs: handling is exercised
            Types: deb
            URIs: {public_url}
            Suites: {codename}-extra
            Components: main
            Signed-By: {KEYRING}

            Types: deb
            URIs: {ROCM_URL}
            Suites: {codename}
            Components: main
            Signed-By: {AMDGPU_KEYRING}
            """),
    }


def build_scale_repos_deb(
    workdir: Path, codename: str, keyring: bytes, public_url: str = STANDIN_PUBLIC_URL
) -> Path:
    """The stand-in ``scale-repos`` package: its apt sources and the repository's signing key."""
    tree = workdir / "scale-repos-tree"
    files = sources_files(codename, public_url)
    for path, text in files.items():
        _write(tree / path.lstrip("/"), text)
    # The stand-in key, dearmored. The AMD entries name their own keyring (the same
    # throwaway key: nothing is ever fetched from that repository).
    _write(tree / KEYRING.lstrip("/"), keyring)
    _write(tree / AMDGPU_KEYRING.lstrip("/"), keyring)
    _write(
        tree / "DEBIAN" / "control",
        _control("scale-repos", REPOS_VERSION, "all", "SCALE apt source (test stand-in)"),
    )
    _write(tree / "DEBIAN" / "conffiles", "".join(f"{path}\n" for path in files))
    return _dpkg_deb(tree, workdir / f"scale-repos_{REPOS_VERSION}_all.deb")


class SigningKey:
    """A throwaway OpenPGP key in a temporary GNUPGHOME (no passphrase); ``close()`` removes it."""

    def __init__(self) -> None:
        # A short path under /tmp: gpg-agent's socket path must fit in sun_path.
        self.home = Path(tempfile.mkdtemp(prefix="mb-gpg-"))
        self._gpg("--quick-generate-key", "moatbridge SCALE stand-in <standin@moatbridge.invalid>",
                  "ed25519", "sign", "never")  # fmt: skip
        self.public = self._gpg("--export").stdout

    def _gpg(self, *argv: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            ["gpg", "--homedir", str(self.home), "--batch", "--quiet", "--pinentry-mode", "loopback",
             "--passphrase", "", "--digest-algo", "SHA512", *argv],
            check=True, capture_output=True,
        )  # fmt: skip

    def sign_release(self, dist: Path) -> None:
        """InRelease (clear-signed) and Release.gpg (detached) next to ``dist``/Release."""
        self._gpg("--clearsign", "-o", str(dist / "InRelease"), str(dist / "Release"))
        self._gpg("--armor", "--detach-sign", "-o", str(dist / "Release.gpg"), str(dist / "Release"))

    def close(self) -> None:
        subprocess.run(["gpgconf", "--homedir", str(self.home), "--kill", "all"], capture_output=True)
        shutil.rmtree(self.home, ignore_errors=True)


@dataclass(frozen=True)
class StandinRepo:
    root: Path
    codename: str
    arch: str
    scale_version: str  # the pinned version (the catalog's)
    newest_version: str
    public_url: str
    repos_list_line: str  # the vendor's line in scale.list, as installed
    sources: tuple[tuple[str, str], ...]  # (path, text) of every source file scale-repos installs
    keyring: bytes = field(repr=False)  # the repository's public key, dearmored, as installed at KEYRING
    vendor_host: str = STANDIN_VENDOR_HOST

    @property
    def license_text(self) -> str:
        return LICENSE_TEXT


def _index_dist(root: Path, dist: Path, codename: str, arch: str, pool: str | None, key: SigningKey) -> None:
    binary = dist / "main" / f"binary-{arch}"
    binary.mkdir(parents=True, exist_ok=True)
    packages = b""
    if pool is not None:
        packages = subprocess.run(
            ["apt-ftparchive", "packages", pool], cwd=root, check=True, capture_output=True
        ).stdout
    (binary / "Packages").write_bytes(packages)
    subprocess.run(["gzip", "-9kn", str(binary / "Packages")], check=True)
    options = {
        "Origin": "moatbridge-test-standin",
        "Label": "SCALE stand-in (tests)",
        "Suite": codename,
        "Codename": codename,
        "Architectures": arch,
        "Components": "main",
        "Description": "TEST STAND-IN for SCALE's apt repository",
    }
    argv = ["apt-ftparchive"]
    for name, value in options.items():
        argv += ["-o", f"APT::FTPArchive::Release::{name}={value}"]
    release = subprocess.run([*argv, "release", "."], cwd=dist, check=True, capture_output=True).stdout
    (dist / "Release").write_bytes(release)
    key.sign_release(dist)


def build_standin_repo(workdir: Path, codename: str = "noble", arch: str | None = None) -> StandinRepo:
    """Lay out a signed apt repository the way pkgs.scale-lang.com/deb is laid out.

    ``dists/<codename>/{InRelease,Release,Release.gpg}``, ``dists/<codename>/main/binary-<arch>/
    Packages(.gz)`` (scale STANDIN_VERSION and NEWER_VERSION, scale-repos), ``pool/main/s/...``,
    ``dists/<codename>/main/binary-all/scale-repos.deb``, and an empty signed
    ``dists/<codename>-extra`` (the suite of the deb822 entry in scale-repos).
    """
    arch = arch or host_architecture()
    root = workdir / "repo"
    build = workdir / "build"
    key = SigningKey()
    try:
        debs = [build_scale_deb(build, arch, version) for version in (STANDIN_VERSION, NEWER_VERSION)]
        repos = build_scale_repos_deb(build, codename, key.public)
        for deb in [*debs, repos]:
            package = deb.name.split("_")[0]
            (root / "pool" / "main" / "s" / package).mkdir(parents=True, exist_ok=True)
            shutil.copy2(deb, root / "pool" / "main" / "s" / package / deb.name)
        dist = root / "dists" / codename
        (dist / "main" / "binary-all").mkdir(parents=True)
        shutil.copy2(repos, dist / "main" / "binary-all" / "scale-repos.deb")
        _index_dist(root, dist, codename, arch, "pool/main", key)
        _index_dist(root, root / "dists" / f"{codename}-extra", f"{codename}-extra", arch, None, key)
    finally:
        key.close()
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    files = sources_files(codename)
    return StandinRepo(
        root=root, codename=codename, arch=arch, scale_version=STANDIN_VERSION, newest_version=NEWER_VERSION,
        public_url=STANDIN_PUBLIC_URL, repos_list_line=f"deb [signed-by={KEYRING}] {STANDIN_PUBLIC_URL} {codename} main",
        sources=tuple(files.items()), keyring=key.public,
    )  # fmt: skip


@dataclass(frozen=True)
class SeenRequest:
    method: str
    path: str
    status: int
    authorization: str | None


class StandinRepoServer:
    """Serves a stand-in repository on 127.0.0.1 (random port), threaded.

    With ``username``/``password`` it demands HTTP basic auth like the commercial
    repository (401 otherwise); with ``query``, those query fields (a URL token) in
    every request (403 otherwise). Every request's path, status and Authorization
    header are recorded in ``requests`` so tests can assert what a build sent.
    """

    def __init__(
        self, root: Path, username: str | None = None, password: str | None = None, query: str | None = None
    ) -> None:
        self.root = root
        self._query = query  # when set, every request's query must hold these fields (a URL token)
        self._expected = (
            "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
            if username is not None and password is not None
            else None
        )
        self._lock = threading.Lock()
        self._requests: list[SeenRequest] = []
        self._server = ThreadingHTTPServer(
            ("127.0.0.1", 0), partial(self._handler_class(), directory=str(root))
        )
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="standin-repo", daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[SeenRequest]:
        with self._lock:
            return list(self._requests)

    def _record(self, request: SeenRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _handler_class(self) -> type[SimpleHTTPRequestHandler]:
        owner = self

        class Handler(SimpleHTTPRequestHandler):
            timeout = 30

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def send_response(self, code: int, message: str | None = None) -> None:
                self._status = code
                super().send_response(code, message)

            def _authorised(self) -> bool:
                fields = self.path.partition("?")[2].split("&")
                if owner._query is not None and not set(owner._query.split("&")) <= set(fields):
                    self.send_error(403, "a missing or wrong token (stand-in repository)")
                    return False
                if owner._expected is None or self.headers.get("Authorization") == owner._expected:
                    return True
                body = b"401 authentication required (stand-in repository)\n"
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="SCALE stand-in"')
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                return False

            def _serve(self, serve: Any) -> None:
                self._status = 0
                try:
                    if self._authorised():
                        serve()
                finally:
                    owner._record(
                        SeenRequest(self.command, self.path, self._status, self.headers.get("Authorization"))
                    )

            def do_GET(self) -> None:
                self._serve(super().do_GET)

            def do_HEAD(self) -> None:
                self._serve(super().do_HEAD)

        return Handler

    def __enter__(self) -> StandinRepoServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)
