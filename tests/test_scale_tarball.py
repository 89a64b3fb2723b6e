"""SCALE's tarball channel: images/scale/Dockerfile.tarball, built from a STAND-IN tarball.

Spectral's tarballs are out of reach, so tests/support/scale_standin_tarball.py writes
``scale-1.7.2-amd64.tar.xz`` holding ``scale-1.7.2-Linux/`` with the stand-in layout, its
bin/ files without the execute bit (the vendor's quirk). Builds go through
`moatbridge image build --flavour scale --tarball FILE` on moatbridge's debootstrapped
Debian base (no registry, no Spectral repository): the local file is served from
127.0.0.1 for the length of the build. Also: the planner, the loopback file server, the
refusals (one sentence, exit 2) and the consent rule in front of `setup --tarball`.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.file_server import check_tarball, file_sha256, serve_file
from moatbridge.adapters.records import load_catalog
from moatbridge.core.build_plan import BaseImage
from moatbridge.core.image_spec import ImageSource, ImageSpec
from moatbridge.core.recipes import plan_build
from moatbridge.core.scale_tarball import (
    SERVED_LATER,
    tarball_refusal,
    tarball_source,
    tarball_version,
)
from moatbridge.errors import InputError

from support.consent import accepting_env
from support.scale_standin_tarball import (
    VERSION,
    write_not_a_tarball,
    write_standin_tarball,
    write_wrong_layout_tarball,
)
from support.secret_scan import scan_saved_image
from support.toolchains import warm_container

# Not the defaults (13.0.2, ubuntu24.04): the tag is this module's alone, and no moving
# `latest` tag is touched.
CUDA, DISTRO = "11.4.3", "ubuntu22.04"
ACCEPT = ("-e", "SCALE_LICENSE_ACCEPT=1")


def mb(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    # Image builds run where SCALE's licence is accepted (they refuse otherwise); setup asks itself.
    env = accepting_env(args) if args[:2] == ("image", "build") else None
    return subprocess.run([sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)  # fmt: skip


def docker(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)


def one_sentence(result: subprocess.CompletedProcess[str]) -> str:
    """The refusal's sentence, after checking it is exit 2 and ends stderr as one `moatbridge:`
    line and its hint (a build's progress lines may come before it)."""
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert [line for line in lines if line.startswith("moatbridge: ")] == lines[-2:-1], lines
    assert lines[-1].startswith("hint: ") and "Traceback" not in result.stderr, lines
    assert result.stdout == ""
    return lines[-2]


# --- the planner (pure) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("scale-1.7.2-amd64.tar.xz", "1.7.2"),
        ("scale-1.7.3-Linux.tar.xz", "1.7.3"),
        ("scale-free-1.5.0-amd64.tar.xz", "1.5.0"),
        ("scale-unstable-2026.08.01-Linux.tar.xz", "2026.08.01"),
        ("scale-latest-amd64.tar.xz", None),
        ("scale-1.7.2-amd64.tar.xz.part", None),
        ("myscale-1.7.2-amd64.tar.xz", None),
        ("scale-1.7.2-amd64.tar.gz", None),
        ("scale-1.7.2;rm -rf-amd64.tar.xz", None),
    ],
)
def test_the_version_comes_from_the_vendors_file_names(name: str, version: str | None) -> None:
    assert tarball_version(name) == version


def _plan(source: str, sha256: str | None = None, tree: str | None = None, **extra: str) -> Any:
    catalog = load_catalog()
    build_args = tuple(f"{name}={value}" for name, value in extra.items())
    spec = ImageSpec("scale", distro=DISTRO, cuda_version=CUDA, source=ImageSource(
        "tarball", tarball=source, tarball_sha256=sha256, build_args=build_args))  # fmt: skip
    base = BaseImage("moatbridge/debian-base:trixie", "sha256:" + "b" * 64)
    return plan_build(spec, catalog, base, "ctx", tarball_tree=tree)


def test_the_plan_tags_the_tarballs_version_and_its_digest_follows_the_file() -> None:
    plan = _plan("/carried/in/scale-1.7.2-amd64.tar.xz", "a" * 64)
    assert plan.reference == f"moatbridge/scale:{CUDA}-devel-{DISTRO}-1.7.2-tarball"
    assert plan.dockerfile == "Dockerfile.tarball" and plan.recipe_dir.name == "scale"
    args = dict(plan.buildargs)
    assert args["SCALE_TARBALL_URL"] == SERVED_LATER and args["SCALE_TARBALL_SHA256"] == "a" * 64
    assert args["SCALE_VERSION"] == "1.7.2"
    labels = dict(plan.labels)
    assert labels["io.moatbridge.scale-channel"] == "tarball"
    assert "/carried/in" not in json.dumps(labels)  # the name, never the user's directories
    assert plan.aliases == ()
    # Another file (same name), another image; the same file elsewhere, the same image.
    assert _plan("/carried/in/scale-1.7.2-amd64.tar.xz", "c" * 64).recipe_digest != plan.recipe_digest
    assert _plan("/elsewhere/scale-1.7.2-amd64.tar.xz", "a" * 64).recipe_digest == plan.recipe_digest


def test_a_name_without_a_version_needs_one() -> None:
    with pytest.raises(InputError) as refused:
        _plan("/x/scale-latest-amd64.tar.xz", "a" * 64)
    assert "does not say which SCALE version" in refused.value.message
    assert "SCALE_VERSION" in str(refused.value.hint)
    assert _plan("/x/scale-latest-amd64.tar.xz", "a" * 64, SCALE_VERSION="1.7.1").reference.endswith(
        "-1.7.1-tarball"
    )
    # A local file's top directory says it too.
    assert _plan("/x/download.tar.xz", "a" * 64, tree="scale-1.7.0-Linux").reference.endswith(
        "-1.7.0-tarball"
    )
    with pytest.raises(InputError):
        _plan("/x/scale-1.7.2-amd64.tar.xz", "a" * 64, SCALE_VERSION="1.7.2; echo")


def test_urls_pass_through_without_credentials() -> None:
    url = "https://pkgs.scale-lang.com/tar/scale-1.7.2-amd64.tar.xz"
    plan = _plan(url)
    assert dict(plan.buildargs)["SCALE_TARBALL_URL"] == url
    assert dict(plan.buildargs)["SCALE_TARBALL_SHA256"] == ""
    pinned = _plan(url, SCALE_TARBALL_SHA256="D" * 64)
    assert dict(pinned.buildargs)["SCALE_TARBALL_SHA256"] == "d" * 64
    assert pinned.recipe_digest != plan.recipe_digest
    for bad in ("https://user:pw@pkgs.scale-lang.com/tar/scale-1.7.2-amd64.tar.xz",
                "ftp://pkgs.scale-lang.com/scale-1.7.2-amd64.tar.xz"):  # fmt: skip
        with pytest.raises(InputError):
            tarball_source(bad)


def test_the_recipes_refusals_become_one_sentence() -> None:
    log = ("Step 5/30 : RUN ...", "moatbridge-tarball: layout", "The command returned a non-zero code: 1")
    assert tarball_refusal(log) == (
        "The tarball does not have SCALE's layout: its bin/scaleenv is missing.",
        "pass the vendor's scale-<version>-amd64.tar.xz as it was downloaded",
    )
    sentence, hint = tarball_refusal(["moatbridge-tarball: version 1.7.3"]) or ("", "")
    assert "holds SCALE 1.7.3" in sentence and "SCALE_VERSION=1.7.3" in hint
    coloured = ("\x1b[91mmoatbridge-tarball: top-directory 2", "\x1b[0m", "Removing intermediate container 6")
    assert "holds 2 top-level entries" in (tarball_refusal(coloured) or ("", ""))[0]
    assert tarball_refusal(["moatbridge-tarball: made-up"]) is None
    assert tarball_refusal(["E: Unable to locate package"]) is None


# --- the loopback file server -------------------------------------------------------------------


def test_the_file_server_serves_one_file_and_dies_with_its_context(tmp_path: Path) -> None:
    file = tmp_path / "scale-1.7.2-amd64.tar.xz"
    file.write_bytes(os.urandom(300_000))
    with serve_file(file) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/scale-1.7.2-amd64.tar.xz")
        token = url.split("/")[3]
        assert len(token) >= 32
        with urllib.request.urlopen(url, timeout=10) as answer:
            assert answer.headers["Content-Length"] == "300000"
            assert answer.read() == file.read_bytes()
        head = urllib.request.Request(url, method="HEAD")
        with urllib.request.urlopen(head, timeout=10) as answer:
            assert answer.headers["Content-Length"] == "300000" and answer.read() == b""
        base = url.rsplit("/", 2)[0]
        for other in (f"{base}/", f"{base}/{token}/other", f"{base}/{token}/../{file.name}",
                      url.replace(token, "x" * len(token))):  # fmt: skip
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(other, timeout=10)
            assert missing.value.code == 404
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=5)


def test_a_stalled_download_does_not_hold_the_server_open(tmp_path: Path) -> None:
    file = tmp_path / "big.tar.xz"
    with open(file, "wb") as handle:
        handle.truncate(200_000_000)  # sparse: more than the socket buffers hold
    with serve_file(file) as url:
        port = int(url.split(":")[2].split("/")[0])
        client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        client.request("GET", url.split(str(port), 1)[1])
        response = client.getresponse()
        assert response.read(1024) == b"\0" * 1024  # then stop reading
        started = time.monotonic()
    assert time.monotonic() - started < 7
    client.close()


def test_the_checksum_is_read_once_per_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    file = write_standin_tarball(tmp_path)
    expected = hashlib.sha256(file.read_bytes()).hexdigest()
    assert file_sha256(file) == expected
    reads: list[object] = []
    real_open = builtins.open

    def counting_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        reads.append(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    assert file_sha256(file) == expected  # setup plans twice: the second plan reads nothing
    monkeypatch.undo()
    assert reads == []
    file.write_bytes(file.read_bytes() + b"\0")  # another file (size, mtime): hashed again
    assert file_sha256(file) != expected


def test_local_tarballs_are_checked_from_their_first_bytes(tmp_path: Path) -> None:
    assert check_tarball(write_standin_tarball(tmp_path)) == f"scale-{VERSION}-Linux"
    with pytest.raises(InputError, match="does not exist"):
        check_tarball(tmp_path / "nowhere" / "scale-1.7.2-amd64.tar.xz")
    with pytest.raises(InputError, match="not a file"):
        check_tarball(tmp_path)
    other = tmp_path / "text"
    other.mkdir()
    with pytest.raises(InputError, match="not an xz-compressed tarball"):
        check_tarball(write_not_a_tarball(other))


# --- bad input on the command line: one sentence, exit 2, no build -----------------------------


def test_bad_tarballs_are_one_sentence_before_the_engine(tmp_path: Path) -> None:
    missing = mb(
        "image", "build", "--flavour", "scale", "--tarball", str(tmp_path / "scale-1.7.2-amd64.tar.xz")
    )
    assert "does not exist" in one_sentence(missing)
    text = write_not_a_tarball(tmp_path)
    assert "not an xz-compressed tarball" in one_sentence(
        mb("image", "build", "--flavour", "scale", "--tarball", str(text))
    )
    assert "--tarball builds SCALE" in one_sentence(
        mb("image", "build", "--flavour", "open", "--tarball", str(text))
    )
    secret = mb("image", "build", "--flavour", "scale", "--tarball",
                "https://me:hunter2-not-a-secret@example.org/scale-1.7.2-amd64.tar.xz")  # fmt: skip
    assert "must not contain credentials" in one_sentence(secret) and "hunter2" not in secret.stderr


# --- a build from the stand-in tarball (engine) ------------------------------------------------


@dataclass(frozen=True)
class Built:
    tarball: Path
    image_id: str
    result: dict[str, Any]
    log: str
    seconds: float


def _remove_image(image_id: str) -> None:
    docker("rmi", "-f", image_id)


@pytest.fixture(scope="module")
def built(debian_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    work = tmp_path_factory.mktemp("scale-tarball")
    tarball = write_standin_tarball(work)
    started = time.monotonic()
    result = mb("image", "build", "--flavour", "scale", "--tarball", str(tarball), "--base-image", debian_base,
                "--distro", DISTRO, "--cuda-version", CUDA, "--no-space-check", "--verbose", "--json")  # fmt: skip
    seconds = time.monotonic() - started
    if result.returncode != 0:
        pytest.fail(f"the tarball build failed:\n{result.stderr[-4000:]}")
    record = json.loads(result.stdout)
    try:
        yield Built(tarball, str(record["id"]), record, result.stderr, seconds)
    finally:
        _remove_image(str(record["id"]))


@pytest.mark.engine
def test_the_tarball_is_installed_at_opt_scale_with_executable_tools(built: Built) -> None:
    assert built.result["action"] == "built"
    assert built.result["reference"] == f"moatbridge/scale:{CUDA}-devel-{DISTRO}-{VERSION}-tarball"
    # The stand-in carries the vendor's quirk: no execute bit in the tarball itself.
    listing = subprocess.run(["tar", "-tvJf", str(built.tarball)], capture_output=True, text=True).stdout
    assert re.search(r"^-rw-r--r-- .* scale-1\.7\.2-Linux/bin/scaleenv$", listing, re.MULTILINE), listing
    script = ("test -x /opt/scale/bin/scaleenv && test -x /opt/scale/bin/scaleinfo && "
              "stat -c '%u:%g' /opt/scale/bin/scaleenv && cat /opt/moatbridge/packages.tsv && "
              ". /opt/scale/bin/scaleenv gfx1030 && echo $CUDA_HOME && nvcc --version")  # fmt: skip
    run = docker("run", "--rm", *ACCEPT, built.image_id, "bash", "-c", script)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "0:0"  # not the tarball's uid 1000
    assert lines[1] == f"scale-tarball\t{VERSION}"
    assert lines[2] == "/opt/scale/targets/gfx1030"
    assert "TEST STAND-IN" in lines[3] and lines[4] == f"Cuda compilation tools, release {CUDA}"


@pytest.mark.engine
def test_the_image_keeps_the_licence_gate_and_says_where_it_came_from(built: Built) -> None:
    refused = docker("run", "--rm", built.image_id, "echo", "must-not-run")
    assert refused.returncode == 1 and refused.stdout == "" and "SCALE_LICENSE_ACCEPT=1" in refused.stderr
    config = json.loads(docker("image", "inspect", built.image_id).stdout)[0]["Config"]
    assert config["Entrypoint"] == ["/usr/local/bin/moatbridge-scale-entrypoint"]
    assert f"SCALE_CUDA_VERSION={CUDA}" in config["Env"]
    labels = config["Labels"]
    assert labels["io.moatbridge.scale-channel"] == "tarball"
    assert (
        labels["io.moatbridge.scale-tarball-sha256"] == hashlib.sha256(built.tarball.read_bytes()).hexdigest()
    )
    assert (
        labels["io.moatbridge.scale-version"] == VERSION and labels["io.moatbridge.licence"] == "scale-free"
    )
    assert str(built.tarball.parent) not in json.dumps(config)


@pytest.mark.engine
def test_no_layer_keeps_the_tarball(built: Built, tmp_path: Path) -> None:
    data = built.tarball.read_bytes()
    needles = {"tarball head": data[:256], "tarball middle": data[len(data) // 2 : len(data) // 2 + 256]}
    findings, scanned = scan_saved_image(built.image_id, needles, tmp_path)
    assert scanned > 100, "the layer scan saw suspiciously few files"
    assert findings == []
    leftovers = docker("run", "--rm", *ACCEPT, built.image_id, "sh", "-c",
                       "find / -xdev \\( -name '*.tar.xz' -o -name 'scale-tarball.*' \\) -print")  # fmt: skip
    assert leftovers.returncode == 0 and leftovers.stdout == "", leftovers.stdout + leftovers.stderr


@pytest.mark.engine
def test_the_loopback_url_is_dead_after_the_build(built: Built) -> None:
    history = docker("history", "--no-trunc", built.image_id).stdout
    found = re.search(r"SCALE_TARBALL_URL=(http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{32,}/\S+)", history)
    assert found is not None, history
    try:
        with urllib.request.urlopen(found.group(1), timeout=5) as answer:
            served = answer.read()
    except (urllib.error.URLError, OSError):
        return  # refused: nothing listens there any more
    assert served != built.tarball.read_bytes()  # the port was reused by someone else


@pytest.mark.engine
def test_the_same_tarball_again_is_up_to_date(built: Built, debian_base: str) -> None:
    again = mb("image", "build", "--flavour", "scale", "--tarball", str(built.tarball), "--base-image",
               debian_base, "--distro", DISTRO, "--cuda-version", CUDA, "--json")  # fmt: skip
    assert again.returncode == 0, again.stderr
    record = json.loads(again.stdout)
    if record["id"] != built.image_id:
        _remove_image(str(record["id"]))
    assert (record["action"], record["id"]) == ("up-to-date", built.image_id)


@pytest.mark.engine
def test_a_wrong_layout_is_one_sentence_and_no_image(built: Built, debian_base: str, tmp_path: Path) -> None:
    wrong = write_wrong_layout_tarball(tmp_path)
    result = mb("image", "build", "--flavour", "scale", "--tarball", str(wrong), "--base-image", debian_base,
                "--distro", DISTRO, "--cuda-version", "11.8.0", "--no-space-check", "--json")  # fmt: skip
    assert "bin/scaleenv is missing" in one_sentence(result)
    sha = hashlib.sha256(wrong.read_bytes()).hexdigest()
    left = docker("images", "-q", "--filter", f"label=io.moatbridge.scale-tarball-sha256={sha}")
    assert left.stdout.strip() == ""


@pytest.mark.engine
def test_a_tarball_whose_directory_disagrees_with_its_name_is_refused(
    built: Built, debian_base: str, tmp_path: Path
) -> None:
    mislabelled = write_standin_tarball(tmp_path, version="1.7.3", name="scale-1.7.2-amd64.tar.xz")
    result = mb("image", "build", "--flavour", "scale", "--tarball", str(mislabelled), "--base-image",
                debian_base, "--distro", DISTRO, "--cuda-version", "11.8.0", "--no-space-check", "--json")  # fmt: skip
    assert "holds SCALE 1.7.3" in one_sentence(result)


@pytest.mark.engine
def test_the_build_took_a_reasonable_time(built: Built) -> None:
    assert built.seconds < 120, built.seconds


# --- a URL: passed through, or through the loopback proxy when it carries a token ------------------


class _TarServer:
    """Serves one file at /tar/<name>, only with ?token=<token> when given and only with the
    basic-auth header when given; records each request's path and Authorization header."""

    def __init__(self, file: Path, token: str | None = None, authorization: str | None = None) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        seen: list[tuple[str, str | None]] = []
        self.seen = seen
        expected = f"/tar/{file.name}" + (f"?token={token}" if token else "")

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                seen.append((self.path, self.headers.get("Authorization")))
                if self.path != expected or self.headers.get("Authorization") != authorization:
                    self.send_error(403 if authorization is None else 401)
                    return
                data = file.read_bytes()
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{expected}"

    def __enter__(self) -> _TarServer:
        import threading

        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.engine
def test_a_url_with_a_token_is_fetched_through_the_proxy_and_pinned(
    built: Built, debian_base: str, tmp_path: Path
) -> None:
    token = "tok" + os.urandom(12).hex()
    sha = hashlib.sha256(built.tarball.read_bytes()).hexdigest()
    common = ("image", "build", "--flavour", "scale", "--base-image", debian_base, "--distro", DISTRO,
              "--cuda-version", "12.1.0", "--no-space-check", "--json")  # fmt: skip
    with _TarServer(built.tarball, token) as server:
        wrong = mb(*common, "--tarball", server.url, "--build-arg", f"SCALE_TARBALL_SHA256={'0' * 64}")
        assert f"SHA-256 is {sha}" in one_sentence(wrong)
        result = mb(*common, "--tarball", server.url, "--build-arg", f"SCALE_TARBALL_SHA256={sha}")
        assert result.returncode == 0, result.stderr
        image = str(json.loads(result.stdout)["id"])
    try:
        assert server.seen == [(f"/tar/{built.tarball.name}?token={token}", None)] * 2
        history = docker("history", "--no-trunc", image).stdout
        inspect = docker("image", "inspect", image).stdout
        assert "SCALE_TARBALL_URL=http://127.0.0.1:" in history
        assert token not in history + inspect + result.stdout + result.stderr + wrong.stderr
        findings, _ = scan_saved_image(image, {"token": token.encode()}, tmp_path)
        assert findings == []
        run = docker("run", "--rm", *ACCEPT, image, "cat", "/opt/moatbridge/packages.tsv")
        assert run.stdout == f"scale-tarball\t{VERSION}\n"
    finally:
        _remove_image(image)


@pytest.mark.engine
def test_the_customers_tarball_is_fetched_with_credentials_only_the_proxy_holds(
    built: Built, debian_base: str, tmp_path: Path
) -> None:
    import base64

    username, password = "mbx-customer", "pw-" + os.urandom(12).hex()
    header = "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
    credentials = tmp_path / "private" / "scale.json"
    credentials.parent.mkdir()
    credentials.write_text(json.dumps({"username": username, "password": password}))
    credentials.chmod(0o600)
    with _TarServer(built.tarball, authorization=header) as server:
        result = mb("image", "build", "--flavour", "scale", "--base-image", debian_base, "--distro", DISTRO,
                    "--cuda-version", "11.8.0", "--no-space-check", "--json", "--tarball", server.url,
                    "--credentials-file", str(credentials))  # fmt: skip
    assert result.returncode == 0, result.stderr
    image = str(json.loads(result.stdout)["id"])
    try:
        assert server.seen == [(f"/tar/{built.tarball.name}", header)]
        config = docker("image", "inspect", image).stdout
        assert json.loads(config)[0]["Config"]["Labels"]["io.moatbridge.licence"] == "scale-commercial"
        history = docker("history", "--no-trunc", image).stdout
        texts = history + config + result.stdout + result.stderr
        assert password not in texts and header.split()[1] not in texts
        findings, _ = scan_saved_image(image, {"password": password.encode()}, tmp_path)
        assert findings == []
    finally:
        _remove_image(image)


# --- setup --tarball: the consent rule first, then the same build ---------------------------------


@pytest.mark.engine
def test_setup_from_a_tarball_asks_for_consent_before_anything(
    engine_version: str, debian_base: str, tmp_path: Path
) -> None:
    tarball = write_standin_tarball(tmp_path)
    refused = mb("setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "non-commercial",
                 "--tarball", str(tarball), "--base-image", debian_base, "--no-modify-rc")  # fmt: skip
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "must be accepted first" in refused.stderr and "--accept-license" in refused.stderr
    sha = hashlib.sha256(tarball.read_bytes()).hexdigest()
    assert docker("images", "-q", "--filter", f"label=io.moatbridge.scale-tarball-sha256={sha}").stdout == ""
    assert not (Path(os.environ["MOATBRIDGE_HOME"]) / "state.json").exists()


@pytest.mark.engine
def test_setup_builds_the_toolchain_from_the_tarball(
    engine_version: str, debian_base: str, tmp_path: Path
) -> None:
    tarball = write_standin_tarball(tmp_path)
    setup = mb("setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "non-commercial",
               "--accept-license", "--tarball", str(tarball), "--base-image", debian_base, "--distro", DISTRO,
               "--cuda-version", "11.8.0", "--no-modify-rc")  # fmt: skip
    listed = json.loads(mb("list", "--json").stdout or "{}").get("toolchains") or [{}]
    try:
        assert setup.returncode == 0, setup.stdout + setup.stderr
        image = str(listed[0]["image_id"])
        labels = json.loads(docker("image", "inspect", image).stdout)[0]["Config"]["Labels"]
        assert labels["io.moatbridge.scale-channel"] == "tarball"
        assert (
            labels["io.moatbridge.scale-tarball-sha256"] == hashlib.sha256(tarball.read_bytes()).hexdigest()
        )
        assert listed[0]["image"] == f"moatbridge/scale:11.8.0-devel-{DISTRO}-{VERSION}-tarball"
    finally:
        mb("uninstall", "--all", "--remove-images")
        if listed[0].get("image_id"):
            _remove_image(str(listed[0]["image_id"]))
        docker("rm", "-f", warm_container("scale-gfx1030", os.environ["HOME"]))
