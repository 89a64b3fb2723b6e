"""Recipe tests for images/scale/Dockerfile.apt, built against a local STAND-IN repository.

These test the recipe's mechanics, not SCALE: Spectral's servers are out of reach,
so tests/support/scale_standin.py builds packages named ``scale`` and ``scale-repos``
with the real layout (stubs, and a LICENSE.txt that says it is a stand-in) and
serves them from an apt repository on 127.0.0.1. The base image is moatbridge's
debootstrapped Debian base standing in for Ubuntu. Every build goes through
`moatbridge image build --flavour scale`, so its output is moatbridge's own log.

Covered: the vendor's install procedure and the licence gate (package and image
entrypoint), the vendor's layout and LD_LIBRARY_PATH resolution of libredscale.so, the
build arg that points apt at another repository (only the vendor's own source entries
are rewritten, signed-by keys still verify them, the AMD entries stay untouched, and the
files end byte-identical), the version pin and its record, the dkms clean-up, apt state
left in the image, and the commercial path: credentials go only to moatbridge's loopback
proxy and must appear nowhere in the image, its history, its metadata or the build
output. The awk program that edits the sources is unit-tested in test_scale_apt_sources.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from moatbridge.adapters.repo_proxy import Credentials

from support.scale_builds import (
    CUDA_VERSION,
    ImageBuild,
    ImageBuildError,
    Janitor,
    api_client,
    build_image,
    docker_cli,
    run_in_image,
    unavailable,
)
from support.scale_standin import (
    AMDGPU_URL,
    KEYRING,
    LICENSE_TEXT,
    NOTICES_TEXT,
    REPOS_VERSION,
    ROCM_URL,
    TARGET,
    SeenRequest,
    StandinRepo,
    StandinRepoServer,
    build_standin_repo,
    missing_tools,
)
from support.scale_standin_layout import LOADER_ERROR
from support.secret_scan import scan_saved_image

pytestmark = pytest.mark.engine

ENTRYPOINT = "/usr/local/bin/moatbridge-scale-entrypoint"


@pytest.fixture(scope="module")
def janitor(debian_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Janitor]:
    found = Janitor(base=debian_base, workdir=tmp_path_factory.mktemp("scale-builds"))
    yield found
    found.cleanup()


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> StandinRepo:
    missing = missing_tools()
    if missing:
        unavailable(f"the stand-in repository needs these Debian packages: {' '.join(missing)}")
    return build_standin_repo(tmp_path_factory.mktemp("scale-standin"))


ACCEPT = {"SCALE_LICENSE_ACCEPT": "1"}


# --- the free path: no authentication ------------------------------------------------------------


@dataclass(frozen=True)
class Built:
    build: ImageBuild
    requests: list[SeenRequest]
    repo_url: str


@pytest.fixture(scope="module")
def free(janitor: Janitor, standin: StandinRepo) -> Built:
    with StandinRepoServer(standin.root) as server:
        build = build_image(janitor, server.url, standin)
    return Built(build, server.requests, server.url)


def test_free_build_installs_the_standin_with_the_vendor_layout(free: Built, standin: StandinRepo) -> None:
    image = free.build.image_id
    result = run_in_image(
        image, "sh", "-c", "test -x /opt/scale/bin/scaleenv && cat /opt/scale/LICENSE.txt", env=ACCEPT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == LICENSE_TEXT  # Spectral's file is installed untouched
    result = run_in_image(image, "cat", "/opt/scale/NOTICES.txt", env=ACCEPT)
    assert result.stdout == NOTICES_TEXT
    layout = [
        *(f"/opt/scale/bin/{tool}" for tool in ("scaleenv", "scaleinfo", "scalediag", "hsakmtsysinfo")),
        *(f"/opt/scale/targets/{t}/{f}" for t in ("gfx1030", "gfx1100")
          for f in ("bin/nvcc", "lib/libredscale.so", "share/scale/ccmap.conf")),
        "/opt/scale/lib/libcublas.so", "/opt/scale/lib64/libcublas.so", "/opt/rocm-scale/lib/librocblas.so",
    ]  # fmt: skip
    result = run_in_image(image, "ls", "-d", *layout, "/opt/scale/targets/gfx1100/include", env=ACCEPT)
    assert result.returncode == 0, result.stderr


def test_the_pinned_version_is_installed_and_recorded(free: Built, standin: StandinRepo) -> None:
    # The repository's newest is 1.7.3; the recipe's (and the catalog's) pin is 1.7.2.
    assert (standin.scale_version, standin.newest_version) == ("1.7.2", "1.7.3")
    result = run_in_image(free.build.image_id, "cat", "/opt/moatbridge/packages.tsv", env=ACCEPT)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.splitlines()) == ["scale\t1.7.2", f"scale-repos\t{REPOS_VERSION}"]
    result = run_in_image(free.build.image_id, "dpkg-query", "-W", "-f", "${Version}", "scale", env=ACCEPT)
    assert result.stdout == "1.7.2"


def test_an_empty_version_installs_the_newest(janitor: Janitor, standin: StandinRepo) -> None:
    with StandinRepoServer(standin.root) as server:
        build = build_image(janitor, server.url, standin, SCALE_VERSION="")
    result = run_in_image(build.image_id, "cat", "/opt/moatbridge/packages.tsv", env=ACCEPT)
    assert sorted(result.stdout.splitlines()) == ["scale\t1.7.3", f"scale-repos\t{REPOS_VERSION}"]


def test_scaleenv_activates_a_target(free: Built) -> None:
    script = f". /opt/scale/bin/scaleenv {TARGET} && echo $CUDA_HOME && nvcc --version"
    result = run_in_image(free.build.image_id, "bash", "-c", script, env=ACCEPT)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"/opt/scale/targets/{TARGET}"
    assert "SCALE stand-in" in lines[1]
    assert lines[2] == f"Cuda compilation tools, release {CUDA_VERSION}"


def test_programs_need_the_target_lib_on_ld_library_path(free: Built) -> None:
    """The vendor's troubleshooting case: libredscale.so is found only through targets/<t>/lib."""
    script = (
        ". /opt/scale/bin/scaleenv gfx1100 && nvcc --require-scale -o /tmp/app app.cu && deactivate"
        ' && { /tmp/app; echo "status=$?"; }'
        ' && LD_LIBRARY_PATH=/opt/scale/lib64 /tmp/app; echo "status=$?"'
        " && LD_LIBRARY_PATH=/opt/scale/targets/gfx1100/lib /tmp/app"
        " && . /opt/scale/bin/scaleenv gfx1030 && /tmp/app"
    )
    result = run_in_image(free.build.image_id, "bash", "-c", script, env=ACCEPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "status=127",
        "status=127",
        "stand-in program: libredscale gfx1100",
        "stand-in program: libredscale gfx1030",
    ]
    assert result.stderr.count(LOADER_ERROR) == 2


def test_scaleenv_accepts_nvidia_targets(free: Built) -> None:
    script = ". /opt/scale/bin/scaleenv sm_89 && echo $SCALE_ENV $CUDAARCHS && nvcc --version | head -1"
    result = run_in_image(free.build.image_id, "bash", "-uec", script, env=ACCEPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "sm_89 89"
    assert "SCALE stand-in" in result.stdout
    result = run_in_image(free.build.image_id, "bash", "-c", ". /opt/scale/bin/scaleenv gfx9999", env=ACCEPT)
    assert result.returncode == 1
    assert "unknown target gfx9999" in result.stderr


def test_dkms_leftovers_are_removed(free: Built) -> None:
    image = free.build.image_id
    shipped = run_in_image(image, "dpkg-query", "-L", "scale", env=ACCEPT).stdout.splitlines()
    assert {"/usr/src/amdgpu-standin", "/var/lib/dkms/amdgpu-standin", "/boot/standin-initrd"} <= set(shipped)
    result = run_in_image(
        image, "sh", "-c", "ls -A /usr/src /boot; ls -d /var/lib/dkms /etc/dkms 2>&1", env=ACCEPT
    )
    assert "standin" not in result.stdout
    assert result.stdout.count("No such file or directory") == 2, result.stdout


def test_the_build_used_the_repository_from_the_build_arg(free: Built, standin: StandinRepo) -> None:
    paths = [r.path for r in free.requests if r.status == 200]
    assert f"/dists/{standin.codename}/main/binary-all/scale-repos.deb" in paths
    assert f"/pool/main/s/scale/scale_1.7.2_{standin.arch}.deb" in paths
    # Signed metadata, for the one-line entry and for the deb822 one (its own suite).
    assert f"/dists/{standin.codename}/InRelease" in paths
    assert f"/dists/{standin.codename}-extra/InRelease" in paths
    assert all(r.authorization is None for r in free.requests)
    # The AMD entries were not redirected: apt still tried their own (unresolvable) host.
    for url in (AMDGPU_URL, ROCM_URL):
        assert f"{url} {standin.codename} InRelease" in free.build.log


def test_a_wrong_key_fails_the_build(janitor: Janitor, standin: StandinRepo, tmp_path: Path) -> None:
    """signed-by is enforced: metadata signed by another key is refused."""
    other = build_standin_repo(tmp_path, standin.codename, standin.arch)  # a fresh throwaway key
    mixed = tmp_path / "mixed"
    shutil.copytree(standin.root, mixed)
    shutil.copy2(other.root / "dists" / standin.codename / "main" / "binary-all" / "scale-repos.deb",
                 mixed / "dists" / standin.codename / "main" / "binary-all" / "scale-repos.deb")  # fmt: skip
    with StandinRepoServer(mixed) as server, pytest.raises(ImageBuildError) as info:
        build_image(janitor, server.url, standin)
    assert "NO_PUBKEY" in info.value.log or "not signed" in info.value.log, info.value.log[-3000:]


def test_the_default_url_rewrites_nothing(janitor: Janitor, standin: StandinRepo) -> None:
    """SCALE_REPO_URL == SCALE_DEFAULT_REPO_URL: apt uses the package's own (here unresolvable) entries."""
    with StandinRepoServer(standin.root) as server:
        with pytest.raises(ImageBuildError) as info:
            build_image(janitor, server.url, standin, SCALE_DEFAULT_REPO_URL=server.url + "/")
        requests = server.requests
    log = info.value.log
    assert f"Could not resolve '{standin.vendor_host}'" in log
    assert "Unable to locate package scale" in log or "'1.7.2' for 'scale' was not found" in log, log[-3000:]
    assert not any("InRelease" in r.path for r in requests)  # only scale-repos.deb came from it


@pytest.mark.parametrize("value", [None, "", "0", "no", "true", "YES"])
def test_the_gate_refuses_without_acceptance(free: Built, value: str | None) -> None:
    env = {} if value is None else {"SCALE_LICENSE_ACCEPT": value}
    result = run_in_image(free.build.image_id, "echo", "must-not-run", env=env)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "SCALE_LICENSE_ACCEPT=1" in result.stderr
    assert "/opt/scale/LICENSE.txt" in result.stderr


@pytest.mark.parametrize("value", ["1", "y", "Y", "yes", "Yes"])
def test_the_gate_runs_the_command_when_accepted(free: Built, value: str) -> None:
    result = run_in_image(free.build.image_id, "echo", "ran", env={"SCALE_LICENSE_ACCEPT": value})
    assert (result.returncode, result.stdout, result.stderr) == (0, "ran\n", "")


def test_the_gate_prints_the_licence_on_request(free: Built) -> None:
    result = run_in_image(free.build.image_id, "true", env={"SCALE_LICENSE_PRINT": "1"})
    assert result.returncode == 1
    assert result.stdout == LICENSE_TEXT


def test_no_command_starts_bash(free: Built) -> None:
    result = run_in_image(free.build.image_id, env=ACCEPT, stdin='echo "shell=${BASH_VERSION:+bash}"\n')
    assert (result.returncode, result.stdout) == (0, "shell=bash\n"), result.stderr


def test_image_metadata(free: Built) -> None:
    config = json.loads(docker_cli("image", "inspect", free.build.image_id).stdout)[0]["Config"]
    assert config["Entrypoint"] == [ENTRYPOINT]
    assert not config.get("Cmd")
    assert f"SCALE_CUDA_VERSION={CUDA_VERSION}" in config["Env"]
    assert not any(e.startswith("SCALE_LICENSE_ACCEPT") for e in config["Env"])  # never baked in
    labels = config["Labels"]
    assert labels["io.moatbridge.flavour"] == "scale"
    assert labels["io.moatbridge.managed"] == "1"
    assert labels["io.moatbridge.licence"] == "scale-free"
    assert labels["io.moatbridge.cuda-version"] == CUDA_VERSION
    assert len(labels["io.moatbridge.recipe-digest"]) == 64
    result = run_in_image(free.build.image_id, "printenv", "SCALE_CUDA_VERSION", env=ACCEPT)
    assert result.stdout == f"{CUDA_VERSION}\n"


def test_free_build_leaves_the_sources_as_installed(free: Built, standin: StandinRepo) -> None:
    image = free.build.image_id
    for path, text in standin.sources:  # rewritten during the build, then restored byte for byte
        result = run_in_image(image, "cat", path, env=ACCEPT)
        assert (result.returncode, result.stdout) == (0, text), result.stderr
    assert standin.repos_list_line in dict(standin.sources)["/etc/apt/sources.list.d/scale.list"]
    keyring = run_in_image(image, "sha256sum", KEYRING, env=ACCEPT).stdout.split()[0]
    assert keyring == hashlib.sha256(standin.keyring).hexdigest()
    # No package lists or caches (apt-get clean).
    result = run_in_image(
        image, "find", "/var/lib/apt/lists", "/var/cache/apt", "-type", "f", "!", "-name", "lock", env=ACCEPT
    )
    assert (result.returncode, result.stdout) == (0, ""), result.stderr
    sources = run_in_image(
        free.build.image_id,
        "sh",
        "-c",
        "cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null",
        env=ACCEPT,
    )
    assert "127.0.0.1" not in sources.stdout


# --- the commercial path: basic auth, through the loopback proxy --------------------------------


@dataclass(frozen=True)
class Commercial:
    build: ImageBuild
    requests: list[SeenRequest]
    credentials: Credentials
    proxy_url: str


@pytest.fixture(scope="module")
def commercial(janitor: Janitor, standin: StandinRepo) -> Commercial:
    credentials = Credentials(f"mbx-customer-{secrets.token_hex(6)}", secrets.token_urlsafe(24))
    with StandinRepoServer(standin.root, credentials.username, credentials.password) as server:
        # moatbridge starts its loopback proxy itself and hands the build only its URL.
        build = build_image(janitor, server.url, standin, credentials=credentials)
    history = docker_cli("history", "--no-trunc", build.image_id).stdout
    proxy = re.search(r"SCALE_REPO_URL=(http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]+)", history)
    assert proxy is not None, history
    return Commercial(build, server.requests, credentials, proxy.group(1))


def _needles(credentials: Credentials) -> dict[str, bytes]:
    token = credentials.header_value().split()[1]
    return {
        "username": credentials.username.encode(),
        "password": credentials.password.encode(),
        "base64 user:pass": token.encode(),
    }


def test_commercial_build_sent_credentials_to_the_repository(commercial: Commercial) -> None:
    assert commercial.requests, "the stand-in repository saw no requests"
    expected = commercial.credentials.header_value()
    assert all(r.authorization == expected for r in commercial.requests)
    assert all(r.status != 401 for r in commercial.requests)
    assert any(
        r.path.startswith("/pool/main/s/scale/scale_") and r.status == 200 for r in commercial.requests
    )


def test_credentials_appear_nowhere_in_the_image(commercial: Commercial, tmp_path: Path) -> None:
    needles = _needles(commercial.credentials)
    image = commercial.build.image_id
    findings, scanned = scan_saved_image(image, needles, tmp_path)
    assert scanned > 1000, "the layer scan saw suspiciously few files"
    assert findings == []


def test_credentials_appear_nowhere_in_history_metadata_or_build_output(commercial: Commercial) -> None:
    needles = _needles(commercial.credentials)
    image = commercial.build.image_id
    history = docker_cli("history", "--no-trunc", image)
    assert history.returncode == 0, history.stderr
    inspect = docker_cli("inspect", image)
    assert inspect.returncode == 0, inspect.stderr
    api = api_client()
    try:
        api_history = json.dumps(api.history(image))
        api_inspect = json.dumps(api.inspect_image(image))
    finally:
        api.close()
    assert "SCALE_REPO_URL=http://127.0.0.1:" in history.stdout  # the proxy URL is there, as designed
    sources = {
        "docker history --no-trunc": history.stdout,
        "docker inspect": inspect.stdout,
        "history API": api_history,
        "inspect API": api_inspect,
        "build output": commercial.build.log,
    }
    findings = [
        f"{label} in {where}"
        for where, text in sources.items()
        for label, needle in needles.items()
        if needle.decode() in text
    ]
    assert findings == []


def test_the_proxy_url_does_not_remain_in_apt_sources(
    commercial: Commercial, standin: StandinRepo, tmp_path: Path
) -> None:
    image = commercial.build.image_id
    script = (
        "ls -A /etc/apt/sources.list.d; cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null; true"
    )
    result = run_in_image(image, "sh", "-c", script, env=ACCEPT)
    assert result.returncode == 0, result.stderr
    assert "127.0.0.1" not in result.stdout
    # SCALE_REPO_SOURCE=remove: the vendor's entries are gone, the AMD ones stay as installed.
    assert standin.vendor_host not in result.stdout
    listing = run_in_image(image, "cat", "/etc/apt/sources.list.d/scale.list", env=ACCEPT).stdout.splitlines()
    assert listing == [line for line in dict(standin.sources)["/etc/apt/sources.list.d/scale.list"].splitlines()
                       if standin.vendor_host not in line]  # fmt: skip
    stanzas = run_in_image(image, "cat", "/etc/apt/sources.list.d/scale-extra.sources", env=ACCEPT).stdout
    assert f"URIs: {ROCM_URL}\n" in stanzas
    # Stronger: the proxy's URL (its random token) is in no file of the image at all.
    token = commercial.proxy_url.rsplit("/", 1)[1]
    findings, _ = scan_saved_image(image, {"proxy token": token.encode()}, tmp_path)
    assert [f for f in findings if "layer.tar" in f] == []


# --- failures are errors, not hangs -------------------------------------------------------------


def test_without_credentials_the_build_fails_clearly(janitor: Janitor, standin: StandinRepo) -> None:
    started = time.monotonic()
    with StandinRepoServer(standin.root, "someone", secrets.token_urlsafe(12)) as server:
        with pytest.raises(ImageBuildError) as info:
            build_image(janitor, server.url, standin)
        requests = server.requests
    assert time.monotonic() - started < 300
    message = str(info.value)
    assert "exit status 6" in message  # wget: the server refused the (missing) credentials
    assert "Authentication Failed" in message
    assert "scale-repos.deb" in message
    assert requests and all(r.status == 401 for r in requests)


def test_credentials_in_the_repo_url_are_refused(janitor: Janitor, standin: StandinRepo) -> None:
    with pytest.raises(ImageBuildError) as info:
        build_image(janitor, "http://user:not-a-secret@127.0.0.1:9/deb", standin)
    assert "must not contain credentials" in str(info.value)
