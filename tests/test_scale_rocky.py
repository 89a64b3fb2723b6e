"""Recipe tests for images/scale/Dockerfile.dnf (Rocky Linux 9), built against STAND-INs.

Neither a Rocky image nor Spectral's servers are reachable here, so (see
tests/support/scale_standin_rpm.py):

* the base is a STAND-IN: moatbridge's debootstrapped Debian with Debian's dnf 4 and
  rpm, plus one stand-in rpm that gives its empty rpm database what Rocky's own packages
  give a real one (/bin/sh, system-release(releasever));
* the repository is a STAND-IN built here with rpmbuild, rpmsign and createrepo_c:
  signed ``scale`` 1.7.2 and 1.7.3 (the %pre refuses without SCALE_LICENSE_ACCEPT=1)
  and ``scale-repos``, whose scale.repo has the vendor's [scale] section (an address
  that never resolves) and an unrelated [amdgpu] section.

Every build goes through `moatbridge image build --flavour scale --distro rocky9`.
Covered: the pin (1.7.2 installed although 1.7.3 is newer), packages.tsv, the %pre
licence gate and the image's, rewriting only the vendor's section (its gpgkey moves
with it), no build-time URL left under /etc/yum.repos.d, dkms leftovers and dnf caches
cleaned, and the commercial path: credentials go only to moatbridge's loopback proxy
and appear nowhere in the image, its history, its metadata or the build output.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.repo_proxy import Credentials

from support.consent import accepting_env
from support.scale_standin import SeenRequest, StandinRepoServer
from support.scale_standin_layout import DKMS_LEFTOVERS, LICENSE_TEXT
from support.scale_standin_rpm import (
    REPO_FILE,
    STANDIN_HOST,
    STANDIN_PUBLIC_URL,
    StandinRpmRepo,
    build_empty_repo,
    build_standin_rpm_repo,
    missing_tools,
    prepare_base_context,
)
from support.secret_scan import scan_saved_image

pytestmark = pytest.mark.engine

ENTRYPOINT = "/usr/local/bin/moatbridge-scale-entrypoint"
ACCEPT = {"SCALE_LICENSE_ACCEPT": "1"}
TARGET = "gfx1030"
# Each build gets its own CUDA version, hence its own tag: a later build never replaces
# (and so never deletes) an image an earlier fixture still holds.
FREE_CUDA = "12.1.0"
COMMERCIAL_CUDA = "11.8.0"
OTHER_CUDA = "11.4.3"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _unavailable(reason: str) -> None:
    if IN_CI:
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def _docker(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)


def _run(image: str, *command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    flags = ["run", "--rm", "--network", "host", "--label", "io.moatbridge.test=1"]
    for key, value in (env or {}).items():
        flags += ["-e", f"{key}={value}"]
    return _docker(*flags, image, *command)


@dataclass
class Janitor:
    """Removes the images the tests built and the intermediate images only they use."""

    images: list[str] = field(default_factory=list)
    layers: list[str] = field(default_factory=list)

    def cleanup(self) -> None:
        for image in reversed(self.images):
            _docker("rmi", "--force", image)
        for layer in reversed(dict.fromkeys(self.layers)):
            tags = _docker("image", "inspect", "--format", "{{len .RepoTags}}", layer).stdout.strip()
            if tags == "0":  # never a tagged image (the base); no force: in use -> left alone
                _docker("rmi", layer)


@pytest.fixture(scope="module")
def el9_base(debian_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The stand-in Rocky 9 base (Debian + dnf), built for this module and removed after it."""
    missing = missing_tools()
    if missing:
        _unavailable(f"the stand-in rpm repository needs these Debian packages: {' '.join(missing)}")
    base_id = _docker("image", "inspect", "--format", "{{.Id}}", debian_base).stdout.strip()
    context, tag = prepare_base_context(tmp_path_factory.mktemp("el9-base"), base_id)
    built = _docker(
        "build", "--network", "host", "--build-arg", f"BASE_IMAGE={debian_base}", "-t", tag, str(context),
        timeout=600,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    yield tag
    _docker("rmi", tag)


@pytest.fixture(scope="module")
def amdgpu(el9_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandinRepoServer]:
    """The unrelated repository scale.repo also names (empty), served for the whole module."""
    with StandinRepoServer(build_empty_repo(tmp_path_factory.mktemp("amdgpu-standin") / "repo")) as server:
        yield server


@pytest.fixture(scope="module")
def standin(amdgpu: StandinRepoServer, tmp_path_factory: pytest.TempPathFactory) -> StandinRpmRepo:
    return build_standin_rpm_repo(tmp_path_factory.mktemp("scale-rpm-standin"), amdgpu.url)


@pytest.fixture(scope="module")
def janitor(el9_base: str) -> Iterator[Janitor]:
    found = Janitor()
    yield found
    found.cleanup()


class BuildFailed(Exception):
    pass


_LAYER = re.compile(r"^\s* ---> ([0-9a-f]{12,64})\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Built:
    image: str
    result: dict[str, Any]  # moatbridge's --json record
    log: str  # its stdout and stderr: the build output
    repo_url: str  # the stand-in repository's (build-time) URL
    requests: list[SeenRequest]  # what the stand-in repository saw
    amdgpu_requests: list[SeenRequest]  # what the unrelated repository saw during the build


def _build(
    janitor: Janitor,
    base: str,
    server: StandinRepoServer,
    amdgpu: StandinRepoServer,
    cuda: str,
    credentials: Credentials | None = None,
    workdir: Path | None = None,
    **args: str,
) -> Built:
    """`moatbridge image build --flavour scale --distro rocky9` against the stand-in."""
    build_args = {
        "SCALE_PREREQS": "",  # the vendor's compilers come from Rocky's repositories: not here
        "SCALE_VENDOR_HOSTS": STANDIN_HOST,
        "SCALE_DEFAULT_REPO_URL": STANDIN_PUBLIC_URL,
        **args,
    }
    argv = [
        sys.executable, "-m", "moatbridge", "image", "build", "--flavour", "scale", "--distro", "rocky9",
        "--base-image", base, "--repo-url", server.url, "--cuda-version", cuda,
        "--no-space-check", "--verbose", "--json",
    ]  # fmt: skip
    for name, value in build_args.items():
        argv += ["--build-arg", f"{name}={value}"]
    if credentials is not None:
        assert workdir is not None
        secret_file = workdir / f"credentials-{secrets.token_hex(4)}.json"
        secret_file.write_text(
            json.dumps({"username": credentials.username, "password": credentials.password})
        )
        secret_file.chmod(0o600)
        argv += ["--credentials-file", str(secret_file)]
    seen = len(amdgpu.requests)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=900, env=accepting_env(argv))
    log = result.stdout + result.stderr
    janitor.layers += _LAYER.findall(log)
    if result.returncode != 0:
        raise BuildFailed(result.stderr.strip()[-4000:])
    record = json.loads(result.stdout)
    janitor.images.append(record["id"])
    return Built(record["id"], record, log, server.url, server.requests, amdgpu.requests[seen:])


# --- the free path ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def free(janitor: Janitor, el9_base: str, standin: StandinRpmRepo, amdgpu: StandinRepoServer) -> Built:
    with StandinRepoServer(standin.root) as server:
        return _build(janitor, el9_base, server, amdgpu, FREE_CUDA)


def test_the_pinned_version_is_installed_not_the_newest(free: Built, standin: StandinRpmRepo) -> None:
    result = _run(free.image, "rpm", "-q", "scale", "scale-repos", env=ACCEPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"scale-{standin.pinned_version}-{standin.release}.x86_64",
        f"scale-repos-1.0-{standin.release}.noarch",
    ]
    fetched = [r.path for r in free.requests if r.status == 200]
    assert "/scale-repos.rpm" in fetched
    assert f"/Packages/scale-{standin.pinned_version}-{standin.release}.x86_64.rpm" in fetched
    assert not any(standin.newer_version in path for path in fetched)
    # The record of what was installed, and moatbridge's check of it against the catalog.
    tsv = _run(free.image, "cat", "/opt/moatbridge/packages.tsv", env=ACCEPT).stdout
    assert tsv == f"scale\t{standin.pinned_version}\nscale-repos\t1.0\n"
    assert (free.result["pinned_checked"], free.result["pinned_drift"]) == (1, [])
    labels = json.loads(_docker("image", "inspect", free.image).stdout)[0]["Config"]["Labels"]
    assert labels["io.moatbridge.scale-version"] == standin.pinned_version


def test_the_vendor_layout_and_scaleenv(free: Built) -> None:
    script = (
        f'cat /opt/scale/LICENSE.txt && . /opt/scale/bin/scaleenv {TARGET} && echo "$CUDA_HOME" '
        "&& nvcc -o /tmp/prog x.cu && /tmp/prog"
    )
    result = _run(free.image, "bash", "-c", script, env=ACCEPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(LICENSE_TEXT)  # the package's file, untouched
    lines = result.stdout[len(LICENSE_TEXT) :].splitlines()
    assert lines[0] == f"/opt/scale/targets/{TARGET}"
    assert lines[1].startswith("stand-in program: libredscale")  # found through LD_LIBRARY_PATH


def test_only_the_vendor_section_was_redirected(free: Built) -> None:
    """dnf read the unrelated [amdgpu] section from its own server during the build (had
    the build pointed it at SCALE_REPO_URL too, that server would have seen nothing)."""
    assert any(r.path == "/repodata/repomd.xml" and r.status == 200 for r in free.amdgpu_requests)
    assert any(r.path == "/repodata/repomd.xml" and r.status == 200 for r in free.requests)


def test_only_the_packaged_repository_file_is_left(free: Built, standin: StandinRpmRepo) -> None:
    script = f"ls -A /etc/yum.repos.d; cat {REPO_FILE}"
    result = _run(free.image, "sh", "-c", script, env=ACCEPT)
    assert result.returncode == 0, result.stderr
    # SCALE_REPO_SOURCE=restore: the file exactly as scale-repos installed it (the vendor's
    # public URL, the unrelated [amdgpu] section untouched), and no build-time URL.
    assert result.stdout == "scale.repo\n" + standin.repo_file_text
    assert free.repo_url not in result.stdout


def test_caches_logs_and_dkms_leftovers_are_cleaned(free: Built) -> None:
    leftovers = " ".join(f"/{path}" for path in DKMS_LEFTOVERS)
    script = (
        f"ls -d {leftovers} /etc/dkms 2>/dev/null; ls -A /usr/src; echo --; ls -A /boot; "
        "find /var/cache/dnf /var/cache/yum -type f 2>/dev/null; "
        f"grep -rls {free.repo_url} /var/log /var/lib/dnf /etc/yum.repos.d; true"
    )
    result = _run(free.image, "sh", "-c", script, env=ACCEPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "--\n"  # /usr/src and /boot empty, nothing else found


@pytest.mark.parametrize("value", [None, "0", "true"])
def test_the_image_gate_refuses_without_acceptance(free: Built, value: str | None) -> None:
    env = {} if value is None else {"SCALE_LICENSE_ACCEPT": value}
    result = _run(free.image, "echo", "must-not-run", env=env)
    assert (result.returncode, result.stdout) == (1, "")
    assert "SCALE_LICENSE_ACCEPT=1" in result.stderr


def test_image_metadata(free: Built) -> None:
    config = json.loads(_docker("image", "inspect", free.image).stdout)[0]["Config"]
    assert config["Entrypoint"] == [ENTRYPOINT]
    assert f"SCALE_CUDA_VERSION={FREE_CUDA}" in config["Env"]
    assert not any(e.startswith("SCALE_LICENSE_ACCEPT") for e in config["Env"])
    assert config["Labels"]["io.moatbridge.flavour"] == "scale"
    assert config["Labels"]["io.moatbridge.licence"] == "scale-free"
    assert config["Labels"]["io.moatbridge.distro"] == "rocky9"


def test_the_package_refuses_to_install_without_acceptance(el9_base: str, standin: StandinRpmRepo) -> None:
    """The stand-in's %pre, through dnf as the vendor's instructions run it: refused without
    SCALE_LICENSE_ACCEPT=1 (nothing installed), installed with it."""
    with StandinRepoServer(standin.root) as server:
        repo = (
            f"[scale]\\nbaseurl={server.url}\\ngpgcheck=1\\ngpgkey={server.url}/RPM-GPG-KEY-scale-standin\\n"
        )
        install = (
            f"printf '{repo}' > /etc/yum.repos.d/t.repo && dnf -y install scale-1.7.2; "
            'echo "rpm: $(rpm -q scale)"'
        )
        refused = _run(el9_base, "sh", "-c", install)
        accepted = _run(el9_base, "sh", "-c", install, env=ACCEPT)
    # dnf passes the scriptlet's stderr on in its own output.
    assert "set SCALE_LICENSE_ACCEPT=1 to accept the licence" in refused.stdout
    assert refused.stdout.endswith("rpm: package scale is not installed\n"), refused.stdout + refused.stderr
    assert "SCALE_LICENSE_ACCEPT" not in accepted.stdout
    assert accepted.stdout.endswith(f"rpm: scale-1.7.2-{standin.release}.x86_64\n"), accepted.stderr


# --- which sections are the vendor's ---------------------------------------------------------------


def test_no_section_on_the_vendor_hosts_is_a_clear_failure(
    janitor: Janitor, el9_base: str, standin: StandinRpmRepo, amdgpu: StandinRepoServer
) -> None:
    with StandinRepoServer(standin.root) as server, pytest.raises(BuildFailed) as info:
        _build(janitor, el9_base, server, amdgpu, OTHER_CUDA, SCALE_VENDOR_HOSTS="pkgs.scale-lang.com")
    assert "no repository section on the vendor's hosts (SCALE_VENDOR_HOSTS: pkgs.scale-lang.com)" in str(
        info.value
    )


def test_the_vendor_url_itself_is_not_rewritten(
    janitor: Janitor, el9_base: str, standin: StandinRpmRepo, amdgpu: StandinRepoServer
) -> None:
    """SCALE_REPO_URL equal to SCALE_DEFAULT_REPO_URL: scale.repo is used as installed, so
    dnf goes to the stand-in's public address (which never resolves) and fails there."""
    with StandinRepoServer(standin.root) as server:
        with pytest.raises(BuildFailed) as info:
            _build(janitor, el9_base, server, amdgpu, OTHER_CUDA, SCALE_DEFAULT_REPO_URL=server.url)
        requests = server.requests
    assert STANDIN_HOST in str(info.value)
    assert not any("/Packages/" in r.path for r in requests)


# --- the commercial path: basic auth, through the loopback proxy -----------------------------------


@dataclass(frozen=True)
class Commercial:
    built: Built
    credentials: Credentials
    proxy_url: str


@pytest.fixture(scope="module")
def commercial(
    janitor: Janitor,
    el9_base: str,
    standin: StandinRpmRepo,
    amdgpu: StandinRepoServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Commercial:
    credentials = Credentials(f"mbx-customer-{secrets.token_hex(6)}", secrets.token_urlsafe(24))
    workdir = tmp_path_factory.mktemp("scale-rocky-secret")
    with StandinRepoServer(standin.root, credentials.username, credentials.password) as server:
        built = _build(janitor, el9_base, server, amdgpu, COMMERCIAL_CUDA, credentials, workdir)
    history = _docker("history", "--no-trunc", built.image).stdout
    proxy = re.search(r"SCALE_REPO_URL=(http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]+)", history)
    assert proxy is not None, history
    return Commercial(built, credentials, proxy.group(1))


def _needles(credentials: Credentials) -> dict[str, bytes]:
    return {
        "username": credentials.username.encode(),
        "password": credentials.password.encode(),
        "base64 user:pass": credentials.header_value().split()[1].encode(),
    }


def test_commercial_build_installs_through_the_credentials(
    commercial: Commercial, standin: StandinRpmRepo
) -> None:
    requests = commercial.built.requests
    assert requests and all(r.authorization == commercial.credentials.header_value() for r in requests)
    assert all(r.status != 401 for r in requests)
    paths = [r.path for r in requests if r.status == 200]
    assert f"/Packages/scale-{standin.pinned_version}-{standin.release}.x86_64.rpm" in paths
    assert "/RPM-GPG-KEY-scale-standin" in paths  # the gpgkey moved with the baseurl
    # The unrelated repository was read from its own server, and never given the credentials.
    amdgpu = commercial.built.amdgpu_requests
    assert amdgpu and all(r.authorization is None for r in amdgpu)
    labels = json.loads(_docker("image", "inspect", commercial.built.image).stdout)[0]["Config"]["Labels"]
    assert labels["io.moatbridge.licence"] == "scale-commercial"


def test_commercial_build_removes_only_the_vendor_section(
    commercial: Commercial, standin: StandinRpmRepo
) -> None:
    result = _run(commercial.built.image, "sh", "-c", f"ls -A /etc/yum.repos.d; cat {REPO_FILE}", env=ACCEPT)
    assert result.returncode == 0, result.stderr
    # SCALE_REPO_SOURCE=remove: the image has no credentials, so the vendor's section goes;
    # the unrelated one stays exactly as it was.
    assert result.stdout == "scale.repo\n" + standin.amdgpu_section


def test_credentials_and_proxy_token_appear_in_no_file(commercial: Commercial, tmp_path: Path) -> None:
    needles = _needles(commercial.credentials)
    needles["proxy token"] = commercial.proxy_url.rsplit("/", 1)[1].encode()
    findings, scanned = scan_saved_image(commercial.built.image, needles, tmp_path)
    assert scanned > 1000, "the layer scan saw suspiciously few files"
    # The proxy URL is in the image's history (build args are), as designed; never in a layer.
    assert [f for f in findings if not f.startswith("proxy token") or "layer.tar" in f] == []


def test_credentials_appear_nowhere_in_history_metadata_or_output(commercial: Commercial) -> None:
    image = commercial.built.image
    sources = {
        "docker history --no-trunc": _docker("history", "--no-trunc", image).stdout,
        "docker inspect": _docker("inspect", image).stdout,
        "build output": commercial.built.log,
    }
    assert "SCALE_REPO_URL=http://127.0.0.1:" in sources["docker history --no-trunc"]
    findings = [
        f"{label} in {where}"
        for where, text in sources.items()
        for label, needle in _needles(commercial.credentials).items()
        if needle.decode() in text
    ]
    assert findings == []


def test_without_credentials_the_build_fails_clearly(
    janitor: Janitor, el9_base: str, standin: StandinRpmRepo, amdgpu: StandinRepoServer
) -> None:
    with StandinRepoServer(standin.root, "someone", secrets.token_urlsafe(12)) as server:
        with pytest.raises(BuildFailed) as info:
            _build(janitor, el9_base, server, amdgpu, OTHER_CUDA)
        requests = server.requests
    message = str(info.value)
    assert "could not download" in message and "scale-repos.rpm" in message
    assert "curl exit status 22" in message
    assert requests and all(r.status == 401 for r in requests)
