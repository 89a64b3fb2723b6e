"""A local STAND-IN for SCALE's apt repository, to test moatbridge's SCALE image recipes.

We cannot reach Spectral Compute's servers, so the recipe mechanics (scale-repos.deb,
apt source rewriting, the licence gate in the package and the image, credentials
through the loopback proxy) are tested against packages built here with the same
names and layout as the real ones. Nothing here is SCALE: the ``scale`` package
holds a few shell stubs and a LICENSE.txt that says it is a test stand-in.

Needs ``dpkg-deb`` (dpkg) and ``apt-ftparchive`` (Debian package ``apt-utils``).

Also holds ``build_image``, a thin wrapper around the Docker SDK's low-level build
API that the recipe tests use until moatbridge has its own build engine.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
import textwrap
import threading
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

STANDIN_VERSION = "1.7.2-standin"
REPOS_VERSION = "1.0-standin"
# Where the stand-in scale-repos.deb points apt: a name that can never resolve, so a
# build that forgets to rewrite the source fails instead of reaching anything real.
STANDIN_PUBLIC_URL = "http://scale-standin.invalid/deb"
TARGET = "gfx1030"
REQUIRED_TOOLS = {"dpkg-deb": "dpkg", "apt-ftparchive": "apt-utils"}

LICENSE_TEXT = """\
TEST STAND-IN -- NOT SPECTRAL COMPUTE'S LICENCE

This file belongs to a stand-in package named "scale" that moatbridge's test
suite builds to exercise its image recipes. It is not SCALE, contains no part of
SCALE, and this text is not the SCALE licence. The real licence is at
https://docs.scale-lang.com/stable/licensing/ and in /opt/scale/LICENSE.txt of a
real SCALE installation.
"""

NOTICES_TEXT = """\
TEST STAND-IN -- third-party notices placeholder for moatbridge's recipe tests.
The stand-in package contains only shell scripts written for those tests.
"""

SCALEENV = """\
# scaleenv -- TEST STAND-IN for SCALE's environment script (moatbridge recipe tests).
# Usage: . /opt/scale/bin/scaleenv <target>    e.g. gfx1030;  `deactivate` undoes it.
# Sets the variables the real one is known to set (see docs/ and the anchors).
_scale_target="${1:-${SCALE_TARGET:-}}"
if [ -z "$_scale_target" ]; then
    echo "scaleenv (stand-in): usage: . scaleenv <gfxNNNN>" >&2
    return 1 2>/dev/null || exit 1
fi
_scale_dir="/opt/scale/targets/$_scale_target"
if [ ! -d "$_scale_dir" ]; then
    echo "scaleenv (stand-in): unknown target $_scale_target" >&2
    unset _scale_target _scale_dir
    return 1 2>/dev/null || exit 1
fi
_SCALE_OLD_PATH="$PATH"
_SCALE_OLD_LD_LIBRARY_PATH="${LD_LIBRARY_PATH-}"
export SCALE_ENV="$_scale_target"
export CUDA_HOME="$_scale_dir" CUDA_PATH="$_scale_dir" CUDA_DIR="$_scale_dir" CUDA_ROOT="$_scale_dir"
export CUDA_BIN_PATH="$_scale_dir/bin" CUDA_INC_DIR="$_scale_dir/include"
export CUDACXX="$_scale_dir/bin/nvcc" CUDA_CXX="$_scale_dir/bin/nvcc" CUCC="$_scale_dir/bin/nvcc"
export CUDAARCHS=86
export PATH="$_scale_dir/bin:$PATH"
export LD_LIBRARY_PATH="$_scale_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
deactivate() {
    PATH="$_SCALE_OLD_PATH"
    LD_LIBRARY_PATH="$_SCALE_OLD_LD_LIBRARY_PATH"
    unset SCALE_ENV CUDA_HOME CUDA_PATH CUDA_DIR CUDA_ROOT CUDA_BIN_PATH CUDA_INC_DIR \\
        CUDACXX CUDA_CXX CUCC CUDAARCHS _SCALE_OLD_PATH _SCALE_OLD_LD_LIBRARY_PATH
    unset -f deactivate
}
unset _scale_target _scale_dir
"""

SCALEINFO = """\
#!/bin/sh
echo "scaleinfo: TEST STAND-IN for SCALE (moatbridge recipe tests); no GPU is queried."
"""

NVCC = """\
#!/bin/sh
case "${1-}" in
    --version | -V)
        echo "nvcc: TEST STAND-IN for SCALE's nvcc (moatbridge recipe tests)"
        echo "Cuda compilation tools, release ${SCALE_CUDA_VERSION:-unknown}"
        exit 0 ;;
esac
# "Compiles" by writing a stub program to the -o target, so install checks that
# build a sample succeed; it never translates any CUDA.
out=
while [ "$#" -gt 0 ]; do
    if [ "$1" = -o ]; then out=${2-}; shift; fi
    shift
done
if [ -z "$out" ]; then
    echo "nvcc (stand-in): cannot compile anything; this is not SCALE" >&2
    exit 1
fi
printf '#!/bin/sh\necho "stand-in program built by the stand-in nvcc"\n' > "$out"
chmod +x "$out"
echo "nvcc (stand-in): wrote a stub $out; this is not SCALE" >&2
"""

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


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    path.write_text(text)
    path.chmod(mode)


def _dpkg_deb(tree: Path, output: Path) -> Path:
    for directory in [tree, *(p for p in tree.rglob("*") if p.is_dir())]:
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
    """The stand-in ``scale`` package, with the real one's layout under /opt/scale."""
    tree = workdir / "scale-tree"
    opt = tree / "opt" / "scale"
    _write(opt / "bin" / "scaleenv", SCALEENV, 0o755)
    _write(opt / "bin" / "scaleinfo", SCALEINFO, 0o755)
    _write(opt / "targets" / TARGET / "bin" / "nvcc", NVCC, 0o755)
    (opt / "targets" / TARGET / "lib").mkdir(parents=True)
    (opt / "targets" / TARGET / "include").mkdir(parents=True)
    _write(opt / "LICENSE.txt", LICENSE_TEXT)
    _write(opt / "NOTICES.txt", NOTICES_TEXT)
    _write(tree / "DEBIAN" / "control", _control("scale", version, arch, "SCALE (test stand-in)"))
    _write(tree / "DEBIAN" / "preinst", PREINST, 0o755)
    return _dpkg_deb(tree, workdir / f"scale_{version}_{arch}.deb")


def build_scale_repos_deb(workdir: Path, codename: str, public_url: str = STANDIN_PUBLIC_URL) -> Path:
    """The stand-in ``scale-repos`` package: it installs /etc/apt/sources.list.d/scale.list."""
    tree = workdir / "scale-repos-tree"
    # [trusted=yes]: the stand-in repository is unsigned. Acceptable for a test
    # stand-in only; the real scale-repos.deb ships Spectral's signing key instead.
    _write(
        tree / "etc" / "apt" / "sources.list.d" / "scale.list",
        f"deb [trusted=yes] {public_url} {codename} main\n",
    )
    _write(
        tree / "DEBIAN" / "control",
        _control("scale-repos", REPOS_VERSION, "all", "SCALE apt source (test stand-in)"),
    )
    _write(tree / "DEBIAN" / "conffiles", "/etc/apt/sources.list.d/scale.list\n")
    return _dpkg_deb(tree, workdir / f"scale-repos_{REPOS_VERSION}_all.deb")


@dataclass(frozen=True)
class StandinRepo:
    root: Path
    codename: str
    arch: str
    scale_version: str
    public_url: str
    repos_list_line: str

    @property
    def license_text(self) -> str:
        return LICENSE_TEXT


def build_standin_repo(workdir: Path, codename: str = "noble", arch: str | None = None) -> StandinRepo:
    """Lay out an apt repository the way pkgs.scale-lang.com/deb is laid out.

    ``dists/<codename>/main/binary-<arch>/Packages(.gz)``, ``dists/<codename>/Release``,
    ``pool/main/s/...`` and ``dists/<codename>/main/binary-all/scale-repos.deb``.
    """
    arch = arch or host_architecture()
    root = workdir / "repo"
    build = workdir / "build"
    scale = build_scale_deb(build, arch)
    repos = build_scale_repos_deb(build, codename)
    pool = root / "pool" / "main" / "s"
    (pool / "scale").mkdir(parents=True)
    (pool / "scale-repos").mkdir(parents=True)
    shutil.copy2(scale, pool / "scale" / scale.name)
    shutil.copy2(repos, pool / "scale-repos" / repos.name)
    dist = root / "dists" / codename
    binary = dist / "main" / f"binary-{arch}"
    binary.mkdir(parents=True)
    (dist / "main" / "binary-all").mkdir()
    shutil.copy2(repos, dist / "main" / "binary-all" / "scale-repos.deb")

    packages = subprocess.run(
        ["apt-ftparchive", "packages", "pool/main"], cwd=root, check=True, capture_output=True
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
    for key, value in options.items():
        argv += ["-o", f"APT::FTPArchive::Release::{key}={value}"]
    release = subprocess.run([*argv, "release", "."], cwd=dist, check=True, capture_output=True).stdout
    (dist / "Release").write_bytes(release)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return StandinRepo(
        root=root, codename=codename, arch=arch, scale_version=STANDIN_VERSION,
        public_url=STANDIN_PUBLIC_URL, repos_list_line=f"deb [trusted=yes] {STANDIN_PUBLIC_URL} {codename} main",
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


# --- image builds (until moatbridge's own build engine takes over) --------------------------------


class ImageBuildError(RuntimeError):
    """The engine reported an in-band error while building."""

    def __init__(self, message: str, log: str, layer_ids: list[str]) -> None:
        super().__init__(message)
        self.log = log
        self.layer_ids = layer_ids


@dataclass(frozen=True)
class ImageBuild:
    image_id: str
    log: str  # everything the engine streamed back, as text
    layer_ids: list[str]  # intermediate images named in the stream (" ---> <id>")
