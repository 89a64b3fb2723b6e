"""A local STAND-IN for SCALE's dnf repository and a Rocky Linux 9 stand-in base, to
test images/scale/Dockerfile.dnf.

Spectral's servers and any Rocky image are out of reach here, so:

* the repository is built on the host with ``rpmbuild``, ``rpmsign`` (a throwaway gpg
  key made per run) and ``createrepo_c``, laid out as
  https://pkgs.scale-lang.com/rpm/el9/main/ is: ``scale-repos.rpm`` directly under the
  repository URL, the packages under ``Packages/``, ``repodata/`` from createrepo_c.
  It holds ``scale`` 1.7.2 and 1.7.3 (so a pin can be seen to work), whose ``%pre``
  refuses to install without SCALE_LICENSE_ACCEPT=1 like the vendor's package, and
  ``scale-repos``, which installs /etc/yum.repos.d/scale.repo: a ``[scale]`` section
  pointing at an address that can never resolve (a build that forgets to rewrite it
  fails), plus an unrelated ``[amdgpu]`` section that a build must leave untouched;
* the base is Debian (moatbridge's debootstrapped trixie) with Debian's ``dnf`` and
  ``rpm``, and one stand-in rpm, ``el9-standin-release``, that gives the empty rpm
  database what Rocky's own packages give a real one (see RELEASE_SPEC).

Nothing here is SCALE or Rocky: the ``scale`` rpm holds the shared stand-in layout
(scale_standin_layout.py: stubs, /opt/scale and /opt/rocm-scale as the vendor lays them
out, dkms leftovers) and a LICENSE.txt that says it is a test stand-in.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from support.scale_standin_layout import LICENSE_TEXT, write_dkms_leftovers, write_scale_tree

PINNED_VERSION = "1.7.2"  # the catalog's pin: what a default build must install
NEWER_VERSION = "1.7.3"  # also served, so a build that ignores the pin is caught
RELEASE = "1.standin"
REPOS_VERSION = "1.0"
# Where the stand-in scale.repo points dnf: a name that can never resolve.
STANDIN_HOST = "scale-standin.invalid"
STANDIN_PUBLIC_URL = f"http://{STANDIN_HOST}/rpm/el9/main"
REPO_FILE = "/etc/yum.repos.d/scale.repo"
GPG_KEY_NAME = "RPM-GPG-KEY-scale-standin"  # served at the repository root
KEY_NAME = "moatbridge SCALE stand-in (throwaway test key) <tests@moatbridge.invalid>"
REQUIRED_TOOLS = {"rpmbuild": "rpm", "rpmsign": "rpm", "createrepo_c": "createrepo-c", "gpg": "gpg"}

# Mirrors the vendor gate: the real package refuses to install without acceptance.
PRE_SCRIPTLET = """\
case "${SCALE_LICENSE_ACCEPT:-}" in
    1 | y | Y | yes | Yes) ;;
    *)
        echo "scale (TEST STAND-IN): set SCALE_LICENSE_ACCEPT=1 to accept the licence" >&2
        exit 1 ;;
esac
"""


def amdgpu_section(amdgpu_url: str) -> str:
    """The unrelated section scale-repos also ships, as if AMD's driver repository had been
    configured next to SCALE's. Enabled and served (an empty repository, see
    build_empty_repo): dnf reads it during the build, so a build that redirected it too
    would be seen not to ask its server. It must end exactly as it was."""
    return (
        "[amdgpu]\n"
        "name=AMD GPU driver (unrelated to SCALE; moatbridge stand-in test data)\n"
        f"baseurl={amdgpu_url}\n"
        "enabled=1\n"
        "gpgcheck=1\n"
        f"gpgkey={amdgpu_url}/rocm.gpg.key\n"
    )


def scale_repo_text(amdgpu_url: str, public_url: str = STANDIN_PUBLIC_URL) -> str:
    """/etc/yum.repos.d/scale.repo as the stand-in scale-repos installs it."""
    return (
        "[scale]\n"
        "name=SCALE by Spectral Compute (TEST STAND-IN)\n"
        f"baseurl={public_url}\n"
        "enabled=1\n"
        "gpgcheck=1\n"
        # Under the baseurl, so a build must move it along with the baseurl (the real
        # file's gpgkey is unknown; a file:// key would simply be left alone).
        f"gpgkey={public_url}/{GPG_KEY_NAME}\n"
        "\n" + amdgpu_section(amdgpu_url)
    )


SCALE_SPEC = """\
Name: scale
Version: {version}
Release: {release}
Summary: SCALE (TEST STAND-IN built by moatbridge's tests; not Spectral Compute's software)
License: LicenseRef-moatbridge-test-standin
# The host's architecture (x86_64): the layout holds real ELF objects, as SCALE does.
AutoReqProv: no

%description
TEST STAND-IN built by moatbridge's tests; not Spectral Compute's software.

%pre
{pre}
%install
cp -a {tree}/. %{{buildroot}}/

%files
/opt/scale
/opt/rocm-scale
{dkms}
"""

SCALE_REPOS_SPEC = """\
Name: scale-repos
Version: {version}
Release: {release}
Summary: SCALE dnf repository configuration (TEST STAND-IN)
License: LicenseRef-moatbridge-test-standin
BuildArch: noarch
AutoReqProv: no

%description
TEST STAND-IN built by moatbridge's tests; not Spectral Compute's software.

%install
cp -a {tree}/. %{{buildroot}}/

%files
%config(noreplace) {repo_file}
"""

# Rocky's rpm database already holds the packages that provide /bin/sh (bash) and
# system-release(releasever) (rocky-release), which dnf uses for $releasever. Debian's
# rpm database is empty, so the %pre scriptlet's automatic `Requires(pre): /bin/sh`
# would be unresolvable and dnf could not detect the release. This one package,
# registered in the base's rpm database (rpm --justdb: Debian's own files stay
# Debian's), stands in for those: the recipe runs unchanged, as it would on Rocky.
RELEASE_SPEC = """\
Name: el9-standin-release
Version: 9.6
Release: 1.standin
Summary: Stands in for Rocky 9's rocky-release and bash in a Debian test base (moatbridge tests)
License: LicenseRef-moatbridge-test-standin
BuildArch: noarch
AutoReqProv: no
Provides: system-release = 9.6
Provides: system-release(releasever) = 9
Provides: /bin/sh
Provides: bash

%description
TEST STAND-IN built by moatbridge's tests. Debian base; not Rocky Linux.

%files
"""

BASE_DOCKERFILE = """\
# TEST STAND-IN for a Rocky Linux 9 base (moatbridge's tests): Debian with Debian's
# dnf and rpm, and curl (which Rocky 9 images have: curl-minimal). /etc/os-release
# stays Debian's: this is not Rocky.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN set -eu; \\
    apt-get update; \\
    apt-get install -y --no-install-recommends dnf rpm curl ca-certificates; \\
    apt-get clean; \\
    rm -rf /var/lib/apt/lists/*; \\
    mkdir -p /etc/yum.repos.d
COPY el9-standin-release.rpm /tmp/
RUN rpm -i --justdb --nodeps /tmp/el9-standin-release.rpm && rm /tmp/el9-standin-release.rpm
# Debian's rpm (4.20) runs scriptlets through its unshare plugin, which needs privileges a
# build container lacks; Rocky 9's rpm (4.16) has no such plugin. Off, as on Rocky.
RUN mkdir -p /etc/rpm && echo '%__transaction_unshare %{nil}' > /etc/rpm/macros.standin-unshare
# Debian's dnf.conf sets skip_if_unavailable=True; Rocky's dnf keeps the default, False,
# so an unreachable repository is an error there. As on Rocky.
RUN echo skip_if_unavailable=False >> /etc/dnf/dnf.conf
LABEL io.moatbridge.test="1" io.moatbridge.test.standin="el9 (Debian with dnf; not Rocky)"
"""


def missing_tools() -> list[str]:
    """The Debian packages to install for the tools this module runs, if any are missing."""
    return sorted({package for tool, package in REQUIRED_TOOLS.items() if shutil.which(tool) is None})


def _write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
    path.write_text(text)
    path.chmod(mode)


def _run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run a host tool; a failure raises with the tool's own message."""
    result = subprocess.run(argv, capture_output=True, env=env)
    if result.returncode != 0:
        detail = result.stderr.decode(errors="replace").strip()[-2000:]
        raise RuntimeError(f"{argv[0]} failed (exit status {result.returncode}): {detail}")
    return result


def _rpmbuild(topdir: Path, name: str, spec: str) -> Path:
    """Build one binary rpm from `spec`; returns its path."""
    topdir.mkdir(parents=True)
    spec_path = topdir / f"{name}.spec"
    spec_path.write_text(spec)
    _run(
        ["rpmbuild", "-bb", "--quiet", "--define", f"_topdir {topdir}",
         "--define", "_binary_payload w6.gzdio", "--define", "_build_id_links none", str(spec_path)],
        env={**os.environ, "LC_ALL": "C"},
    )  # fmt: skip
    built = sorted((topdir / "RPMS").rglob(f"{name}-[0-9]*.rpm"))
    assert len(built) == 1, built
    result = built[0]
    final = topdir / "out" / result.name
    final.parent.mkdir(exist_ok=True)
    shutil.move(result, final)
    return final


class _SigningKey:
    """A throwaway passphrase-less RSA key in a temporary GNUPGHOME; ``close()`` removes it.

    RSA, not ed25519: Rocky 9's rpm is the one that will verify the real vendor's keys,
    and RSA/SHA-256+ signatures are what it accepts everywhere."""

    def __init__(self) -> None:
        # A short path under /tmp: gpg-agent's socket path must fit in sun_path.
        self.home = Path(tempfile.mkdtemp(prefix="mb-rpmgpg-"))
        self._gpg("--quick-generate-key", KEY_NAME, "rsa2048", "sign", "1d")
        self.public = self._gpg("--armor", "--export", KEY_NAME).stdout.decode()

    def _gpg(self, *argv: str) -> subprocess.CompletedProcess[bytes]:
        return _run(
            ["gpg", "--homedir", str(self.home), "--batch", "--quiet", "--pinentry-mode", "loopback",
             "--passphrase", "", *argv]
        )  # fmt: skip

    def sign(self, rpms: list[Path]) -> None:
        _run(
            ["rpmsign", "--addsign", "--define", f"_gpg_name {KEY_NAME}", "--define", f"_gpg_path {self.home}",
             "--define", f"__gpg {shutil.which('gpg')}", *map(str, rpms)]
        )  # fmt: skip

    def close(self) -> None:
        subprocess.run(["gpgconf", "--homedir", str(self.home), "--kill", "all"], capture_output=True)
        shutil.rmtree(self.home, ignore_errors=True)


@dataclass(frozen=True)
class StandinRpmRepo:
    root: Path  # serve this directory: it is the repository URL's root
    pinned_version: str
    newer_version: str
    release: str
    public_url: str
    repo_file_text: str  # scale.repo as scale-repos installs it
    amdgpu_section: str  # its unrelated section
    public_key: str

    @property
    def license_text(self) -> str:
        return LICENSE_TEXT


def _scale_rpm(build: Path, version: str) -> Path:
    tree = build / f"scale-tree-{version}"
    write_scale_tree(tree, version)
    dkms = write_dkms_leftovers(tree)  # what amdgpu-dkms leaves; the recipe must clean it
    spec = SCALE_SPEC.format(
        version=version, release=RELEASE, pre=PRE_SCRIPTLET, tree=tree, dkms="\n".join(dkms)
    )
    return _rpmbuild(build / f"top-{version}", "scale", spec)


def build_empty_repo(root: Path) -> Path:
    """An rpm repository with no packages (repodata only): the unrelated [amdgpu] section's."""
    root.mkdir(parents=True)
    _run(["createrepo_c", "--quiet", str(root)])
    return root


def build_standin_rpm_repo(workdir: Path, amdgpu_url: str) -> StandinRpmRepo:
    """Build, sign and index the stand-in repository under ``workdir/repo``; its
    scale.repo's unrelated [amdgpu] section points at ``amdgpu_url``."""
    build = workdir / "build"
    build.mkdir(parents=True)
    rpms = [_scale_rpm(build, version) for version in (PINNED_VERSION, NEWER_VERSION)]
    repos_tree = build / "scale-repos-tree"
    repo_file_text = scale_repo_text(amdgpu_url)
    _write(repos_tree / REPO_FILE.lstrip("/"), repo_file_text)
    repos = _rpmbuild(
        build / "top-repos", "scale-repos",
        SCALE_REPOS_SPEC.format(version=REPOS_VERSION, release=RELEASE, tree=repos_tree, repo_file=REPO_FILE),
    )  # fmt: skip
    key = _SigningKey()
    try:
        key.sign([*rpms, repos])
        public_key = key.public
    finally:
        key.close()

    root = workdir / "repo"
    (root / "Packages").mkdir(parents=True)
    for rpm in rpms:
        shutil.copy2(rpm, root / "Packages" / rpm.name)
    shutil.copy2(repos, root / "scale-repos.rpm")  # the vendor's documented URL: <repo>/scale-repos.rpm
    (root / GPG_KEY_NAME).write_text(public_key)
    _run(["createrepo_c", "--quiet", str(root)])
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return StandinRpmRepo(
        root=root, pinned_version=PINNED_VERSION, newer_version=NEWER_VERSION, release=RELEASE,
        public_url=STANDIN_PUBLIC_URL, repo_file_text=repo_file_text,
        amdgpu_section=amdgpu_section(amdgpu_url), public_key=public_key,
    )  # fmt: skip


def prepare_base_context(workdir: Path, debian_base_id: str) -> tuple[Path, str]:
    """The build context of the stand-in el9 base, and a tag naming its content."""
    context = workdir / "el9-base"
    context.mkdir(parents=True)
    release = _rpmbuild(workdir / "top-release", "el9-standin-release", RELEASE_SPEC)
    shutil.copy2(release, context / "el9-standin-release.rpm")
    (context / "Dockerfile").write_text(BASE_DOCKERFILE)
    digest = hashlib.sha256(f"{BASE_DOCKERFILE}\n{RELEASE_SPEC}\n{debian_base_id}".encode()).hexdigest()
    return context, f"moatbridge-test/el9-standin:{digest[:16]}"
