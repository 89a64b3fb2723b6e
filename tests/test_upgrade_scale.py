"""`upgrade` of SCALE toolchains: consent before anything is built, the
image rebuilt through the channel setup used (the same stand-in repository, base image
and build args; a tarball toolchain refused with setup's command line), the shim-command
probe run again, and the commercial credentials file found from any directory."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from moatbridge.core.image_spec import ImageSource, ImageSpec
from moatbridge.core.recipes import recorded_source
from moatbridge.core.toolchains import State, Toolchain
from moatbridge.errors import InputError
from moatbridge.services.toolchain_upgrade import check_repeatable

from support.environ import environ_without
from support.scale_standin import StandinRepoServer, build_standin_repo, missing_tools
from support.scale_standin_tarball import write_standin_tarball
from support.toolchains import warm_container

STATE = Path(".local/share/moatbridge/state.json")
# Tags no other test module builds (and not the default, which also moves `latest`).
REPO_TAG = ("--cuda-version", "11.8.0", "--distro", "ubuntu24.04")
COMMERCIAL_TAG = ("--cuda-version", "12.1.0", "--distro", "ubuntu24.04")
TARBALL_TAG = ("--cuda-version", "11.4.3", "--distro", "ubuntu24.04")


def _env(home: Path) -> dict[str, str]:
    env = environ_without("MOATBRIDGE_", "XDG_")
    env["HOME"] = str(home)
    return env


def mb(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True,
                          env=_env(home), cwd=cwd or home, timeout=1800)  # fmt: skip


def _toolchains(home: Path) -> list[dict[str, Any]]:
    return list(json.loads((home / STATE).read_text())["toolchains"])


def _image_id(reference: str) -> str:
    found = subprocess.run(["docker", "image", "inspect", "--format", "{{.Id}}", reference],
                           capture_output=True, text=True)  # fmt: skip
    return found.stdout.strip()


def _clean(home: Path, name: str, images: set[str]) -> None:
    """Uninstall, then remove exactly the images this test made (by ID)."""
    images |= {str(t["image_id"]) for t in _toolchains(home)} if (home / STATE).exists() else set()
    mb(home, "uninstall", "--all", "--remove-images")
    subprocess.run(["docker", "rm", "-f", warm_container(name, home)], capture_output=True)
    if images - {""}:
        subprocess.run(["docker", "rmi", "-f", *sorted(images - {""})], capture_output=True)


# --- the recorded source: pure ------------------------------------------------------------------


def _toolchain(source: ImageSource | None) -> Toolchain:
    spec = ImageSpec("scale", "devel", None, ("gfx1030",), "13.0.2", source=source or ImageSource())
    return Toolchain("scale-gfx1030", spec, "moatbridge/scale:x", "sha256:" + "1" * 64, "scale-free")


def test_the_source_round_trips_through_the_state_file() -> None:
    source = ImageSource("repository", "http://mirror.example/scale?token=***", True, "debian:trixie",
                         ("SCALE_PREREQS=", "SCALE_VERSION=1.7.2"))  # fmt: skip
    tarball = ImageSource("tarball", tarball="scale-1.7.2-amd64.tar.xz", tarball_sha256="ab" * 32)
    state = State(toolchains=(_toolchain(source), replace_name(_toolchain(tarball), "t")))
    again = State.from_json(json.loads(json.dumps(state.to_json())))
    assert again == state


def replace_name(toolchain: Toolchain, name: str) -> Toolchain:
    from dataclasses import replace

    return replace(toolchain, name=name)


# Toolchains as the state file has recorded them since the source was recorded: a commercial
# SCALE one built from a mirror whose token was masked, and an open one pulled from a team registry.
RECORDED = [
    {
        "name": "scale-gfx1030", "flavour": "scale", "variant": "devel", "targets": ["gfx1030"],
        "cuda_version": "13.0.2", "image": "moatbridge/scale:1.7.2-13.0.2-devel-ubuntu24.04-commercial",
        "image_id": "sha256:" + "1" * 64, "licence": "scale-commercial", "digest": None,
        "created": "2026-11-30T10:00:00+00:00", "distro": None, "tools": ["nvcc", "cmake"],
        "customer": "acme", "credentials_file": "/home/u/scale.json",
        "source": {"channel": "repository", "repo_url": "http://mirror.example/scale?token=***",
                   "repo_url_secret": True, "base_image": "ubuntu:24.04", "build_args": ["SCALE_PREREQS="],
                   "tarball": None, "tarball_sha256": None},
    },
    {
        "name": "open-gfx1030", "flavour": "open", "variant": "devel", "targets": ["gfx1030"],
        "cuda_version": "12.4", "image": "registry.example:5000/team/open:12.4-devel-trixie-gfx1030",
        "image_id": "sha256:" + "2" * 64, "licence": "open-components", "digest": "sha256:" + "3" * 64,
        "created": "2026-11-30T10:00:00+00:00", "distro": "trixie", "tools": None, "customer": None,
        "credentials_file": None,
        "source": {"channel": "registry", "repo_url": None, "repo_url_secret": False, "base_image": None,
                   "build_args": [], "tarball": None, "tarball_sha256": None},
    },
]  # fmt: skip


def test_recorded_toolchains_read_as_their_image_spec_and_are_written_back_unchanged() -> None:
    scale, pulled = (Toolchain.from_json(record) for record in RECORDED)
    assert scale.spec == ImageSpec("scale", "devel", None, ("gfx1030",), "13.0.2", source=ImageSource(
        "repository", repo_url="http://mirror.example/scale?token=***", repo_url_secret=True,
        base_image="ubuntu:24.04", build_args=("SCALE_PREREQS=",), commercial=True, customer="acme",
        credentials_file="/home/u/scale.json"))  # fmt: skip
    # The registry a pull came from is the reference's (upgrade pulls the newer tag from it).
    assert pulled.spec.source == ImageSource("registry", registry="registry.example:5000/team")
    assert pulled.spec.distro == "trixie" and pulled.tools is None
    # Written back as it was; a build input added since is written at its default.
    for toolchain, record in zip((scale, pulled), RECORDED, strict=True):
        written = toolchain.to_json()
        assert {key: written[key] for key in record} == {**record, "source": written["source"]}
        assert {key: written["source"][key] for key in record["source"]} == record["source"]
        added = {key: value for key, value in written["source"].items() if key not in record["source"]}
        assert added == {name: None for name in added}, added


def test_a_build_input_goes_from_its_option_to_the_record_and_back() -> None:
    """The path every ImageSource field takes: the option of its name, the spec setup plans
    with, the record a toolchain keeps (for upgrade), the spec read back."""
    from moatbridge.parser import build_parser

    mirror = "http://deb.example/debian"
    args = build_parser().parse_args(["setup", "--yes", "--flavour", "open", "--target", "gfx1030",
                                      "--apt-mirror", mirror, "--build-arg", "A=1"])  # fmt: skip
    from moatbridge.adapters.records import load_catalog
    from moatbridge.commands.setup import flags
    from moatbridge.core.setup_plan import make_plan

    spec = make_plan(flags(args), load_catalog()).spec
    assert (spec.source.apt_mirror, spec.source.build_args) == (mirror, ("A=1",))
    recorded = replace(spec, source=recorded_source(spec.source))
    toolchain = Toolchain(
        "open-gfx1030", recorded, "moatbridge/open:x", "sha256:" + "1" * 64, "open-components"
    )
    again = Toolchain.from_json(json.loads(json.dumps(toolchain.to_json())))
    assert again.spec.source.apt_mirror == mirror and again == toolchain


def test_older_state_without_a_source_loads_as_before() -> None:
    old = _toolchain(None).to_json()
    del old["source"]
    loaded = Toolchain.from_json(old)
    assert loaded.spec.source == ImageSource() and loaded == _toolchain(None)
    check_repeatable(loaded)  # today's behaviour: rebuilt from the catalog's repository
    # A record that is not one (hand-edited, another version) reads as no record.
    for junk in ({"channel": "ftp"}, {"channel": "repository", "build_args": "A=1"}, "tarball"):
        assert Toolchain.from_json({**old, "source": junk}).spec.source.build_args == ()


def test_a_tarball_toolchain_is_not_silently_rebuilt_from_the_repository() -> None:
    tarball = ImageSource("tarball", base_image="debian:trixie", tarball="scale-1.7.2-amd64.tar.xz",
                          tarball_sha256="ab" * 32)  # fmt: skip
    with pytest.raises(InputError) as refused:
        check_repeatable(_toolchain(tarball))
    assert "scale-1.7.2-amd64.tar.xz" in refused.value.message and "newer tarball" in refused.value.message
    assert "moatbridge setup" in str(refused.value.hint) and "--tarball NEWFILE" in str(refused.value.hint)
    assert "--base-image debian:trixie" in str(refused.value.hint)


def test_a_repository_url_with_a_token_is_recorded_masked_and_asked_again() -> None:
    source = recorded_source(
        ImageSource(
            "repository", repo_url="https://mirror.example/scale?token=s3cr3t", build_args=("SCALE_PREREQS=",)
        )
    )
    assert "s3cr3t" not in json.dumps(source.to_json())
    assert (source.channel, source.repo_url, source.repo_url_secret) == (
        "repository", "https://mirror.example/scale?token=***", True)  # fmt: skip
    with pytest.raises(InputError) as refused:
        check_repeatable(_toolchain(source))
    assert "--repo-url URL" in str(refused.value.hint)
    plain = recorded_source(ImageSource("repository", repo_url="http://mirror.example/scale"))
    assert (plain.repo_url, plain.repo_url_secret) == ("http://mirror.example/scale", False)
    check_repeatable(_toolchain(plain))


# --- against the stand-in repository ------------------------------------------------------------


@dataclass(frozen=True)
class Installed:
    home: Path
    server: StandinRepoServer
    base: str
    version: str
    setup: subprocess.CompletedProcess[str]
    made: set[str]  # image IDs to remove at the end


@pytest.fixture(scope="module")
def installed(debian_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    if missing_tools():
        pytest.fail(f"the stand-in repository needs: {' '.join(missing_tools())}")
    work = tmp_path_factory.mktemp("upgrade-scale")
    home = work / "home"
    home.mkdir()
    repo = build_standin_repo(work / "standin")
    made: set[str] = set()
    with StandinRepoServer(repo.root) as server:
        setup = mb(
            home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--source", "build",
            *REPO_TAG, "--use", "non-commercial", "--accept-license", "--repo-url", server.url,
            "--base-image", debian_base, "--build-arg", "SCALE_PREREQS=",
            "--build-arg", f"SCALE_VERSION={repo.scale_version}",
            "--build-arg", "SCALE_VENDOR_HOSTS=scale-standin.invalid", "--no-modify-rc",
        )  # fmt: skip
        try:
            yield Installed(home, server, debian_base, repo.scale_version, setup, made)
        finally:
            _clean(home, "scale-gfx1030", made)


@pytest.mark.engine
def test_setup_records_how_the_image_was_made(installed: Installed) -> None:
    assert installed.setup.returncode == 0, installed.setup.stdout + installed.setup.stderr
    (toolchain,) = _toolchains(installed.home)
    assert toolchain["source"] == {
        "channel": "repository", "repo_url": installed.server.url, "repo_url_secret": False,
        "base_image": installed.base, "tarball": None, "tarball_sha256": None, "apt_mirror": None,
        "build_args": ["SCALE_PREREQS=", f"SCALE_VERSION={installed.version}",
                       "SCALE_VENDOR_HOSTS=scale-standin.invalid"],
    }  # fmt: skip


@pytest.mark.engine
def test_upgrade_asks_for_consent_before_building_anything(installed: Installed) -> None:
    assert installed.setup.returncode == 0, installed.setup.stderr
    home = installed.home
    assert mb(home, "license", "revoke", "scale-free").returncode == 0
    try:
        (toolchain,) = _toolchains(home)
        seen = len(installed.server.requests)
        refused = mb(home, "upgrade", "--rebuild")
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "needs your acceptance of the SCALE Free Licence" in refused.stderr
        assert "Traceback" not in refused.stderr
        assert _image_id(toolchain["image"]) == toolchain["image_id"]  # nothing was built
        assert _toolchains(home) == [toolchain]
        assert installed.server.requests[seen:] == []  # nor was the repository asked
    finally:
        accepted = mb(home, "license", "accept", "scale-free", "--use", "non-commercial", "--yes")
        assert accepted.returncode == 0, accepted.stderr


@pytest.mark.engine
def test_upgrade_rebuilds_through_the_same_repository_and_probes_again(installed: Installed) -> None:
    assert installed.setup.returncode == 0, installed.setup.stderr
    home = installed.home
    (old,) = _toolchains(home)
    installed.made.add(old["image_id"])
    # The same recipe (repository, base image, build args): nothing to do. Without the record
    # the catalog's repository and Ubuntu base would be a different recipe (and unreachable).
    same = mb(home, "upgrade")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "already up to date with" in same.stdout

    # A stale probe result (say, from an image without scaleinfo) is replaced by a new probe.
    state = json.loads((home / STATE).read_text())
    state["toolchains"][0]["tools"] = ["nvcc"]
    (home / STATE).write_text(json.dumps(state))
    seen = len(installed.server.requests)
    rebuilt = mb(home, "upgrade", "--rebuild")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert "upgraded to" in rebuilt.stdout
    fetched = [r.path for r in installed.server.requests[seen:] if r.status == 200]
    assert any(p.startswith("/pool/main/s/scale/scale_") for p in fetched), fetched
    (new,) = _toolchains(home)
    installed.made.add(new["image_id"])
    assert new["image_id"] != old["image_id"] and new["source"] == old["source"]
    assert new["tools"] == old["tools"] and "scaleinfo" in new["tools"]
    shim = home / ".local/share/moatbridge/toolchains/scale-gfx1030/bin/scaleinfo"
    assert shim.is_file()


@pytest.mark.engine
def test_a_commercial_toolchain_from_a_mirror_upgrades_from_any_directory(
    debian_base: str, tmp_path: Path
) -> None:
    if missing_tools():
        pytest.fail(f"the stand-in repository needs: {' '.join(missing_tools())}")
    home, work = tmp_path / "home", tmp_path / "project"
    (work / "private").mkdir(parents=True)
    home.mkdir()
    credentials = work / "private" / "scale.json"
    credentials.write_text(json.dumps({"username": "acme", "password": "mirror-pass-1234"}))
    credentials.chmod(stat.S_IRUSR | stat.S_IWUSR)
    repo = build_standin_repo(tmp_path / "standin")
    try:
        with StandinRepoServer(repo.root, "acme", "mirror-pass-1234") as server:
            setup = mb(
                home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", *COMMERCIAL_TAG,
                "--use", "commercial",
                "--accept-license", "--credentials-file", "private/scale.json", "--repo-url", server.url,
                "--base-image", debian_base, "--build-arg", "SCALE_PREREQS=",
                "--build-arg", f"SCALE_VERSION={repo.scale_version}",
                "--build-arg", "SCALE_VENDOR_HOSTS=scale-standin.invalid", "--no-modify-rc", cwd=work,
            )  # fmt: skip
            assert setup.returncode == 0, setup.stdout + setup.stderr
            (toolchain,) = _toolchains(home)
            assert toolchain["credentials_file"] == str(credentials)  # absolute: usable from anywhere
            assert str(credentials) in (home / ".local/share/moatbridge/answers.yaml").read_text()
            assert toolchain["customer"] is None and toolchain["licence"] == "scale-commercial"
            upgrade = mb(home, "upgrade", cwd=tmp_path)  # elsewhere; no customer name: the mirror
            assert upgrade.returncode == 0, upgrade.stdout + upgrade.stderr
            assert "already up to date with" in upgrade.stdout
    finally:
        _clean(home, "scale-gfx1030", set())


@pytest.mark.engine
def test_a_tarball_toolchain_upgrade_asks_for_the_new_tarball(debian_base: str, tmp_path: Path) -> None:
    """Commercial use from a local tarball (an air-gapped site carries the customer's tarball
    in): no customer name, no credentials file; an upgrade refuses rather than switch channel."""
    import hashlib

    home = tmp_path / "home"
    home.mkdir()
    tarball = write_standin_tarball(tmp_path)
    try:
        setup = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", *TARBALL_TAG,
                   "--use", "commercial", "--accept-license", "--tarball", str(tarball),
                   "--base-image", debian_base, "--no-modify-rc")  # fmt: skip
        assert setup.returncode == 0, setup.stdout + setup.stderr
        (toolchain,) = _toolchains(home)
        assert toolchain["licence"] == "scale-commercial" and toolchain["credentials_file"] is None
        assert toolchain["source"]["channel"] == "tarball"
        assert toolchain["source"]["tarball"] == tarball.name
        assert toolchain["source"]["tarball_sha256"] == hashlib.sha256(tarball.read_bytes()).hexdigest()
        refused = mb(home, "upgrade", "scale-gfx1030", "--rebuild")
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert f"built from the tarball {tarball.name}" in refused.stderr
        assert "--tarball NEWFILE" in refused.stderr and "moatbridge setup" in refused.stderr
        assert _image_id(toolchain["image"]) == toolchain["image_id"] and _toolchains(home) == [toolchain]
        # Upgrading every toolchain: this one is skipped with the same hint, the rest would go on.
        every = mb(home, "upgrade", "--rebuild")
        assert every.returncode == 0, every.stdout + every.stderr
        assert "scale-gfx1030 skipped: " in every.stderr and "--tarball NEWFILE" in every.stderr
        assert _image_id(toolchain["image"]) == toolchain["image_id"] and _toolchains(home) == [toolchain]
    finally:
        _clean(home, "scale-gfx1030", set())


@pytest.mark.engine
def test_commercial_use_of_a_local_tarball_needs_no_customer_repository(
    engine_version: str, debian_base: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    tarball = write_standin_tarball(tmp_path)
    planned = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
                 "--accept-license", "--tarball", str(tarball), "--base-image", debian_base,
                 "--no-modify-rc", "--dry-run")  # fmt: skip
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert "licence scale-commercial (commercial use)" in planned.stdout
    # A tarball URL asks only what its server needs: no customer name; credentials when given.
    url = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
             "--accept-license", "--tarball", "https://tarballs.example/scale-1.7.2-amd64.tar.xz",
             "--base-image", debian_base, "--no-modify-rc", "--dry-run")  # fmt: skip
    assert url.returncode == 0, url.stdout + url.stderr
    missing = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
                 "--accept-license", "--tarball", "https://tarballs.example/scale-1.7.2-amd64.tar.xz",
                 "--credentials-file", str(tmp_path / "nowhere.json"), "--base-image", debian_base,
                 "--no-modify-rc", "--dry-run")  # fmt: skip
    assert missing.returncode == 2 and "does not exist" in missing.stderr, missing.stderr
    assert "tarball's server" in missing.stderr


# --- the credentials file is kept as an absolute path ---------------------------------------------


def _private(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"username": "u", "password": "p-abs-path-test"}))
    path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return path


def test_the_wizard_keeps_the_credentials_file_as_an_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from argparse import Namespace

    from moatbridge.commands import setup_wizard
    from moatbridge.paths import Paths

    home, work = tmp_path / "home", tmp_path / "work"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(_private(work / "private" / "scale.json").parent.parent)
    _private(home / "keys" / "scale.json")
    answers: list[str] = []

    class Prompts:  # the questions the wizard asks, answered from `answers`
        def text(self, *args: Any, **kwargs: Any) -> str:
            return answers.pop(0)

        path = text

    monkeypatch.setattr(setup_wizard, "_q", Prompts)
    monkeypatch.setattr(setup_wizard, "ask_prompt", lambda answer: answer)
    paths = Paths.from_environ(dict(os.environ))
    for given, absolute in (("private/scale.json", work / "private" / "scale.json"),
                            ("~/keys/scale.json", home / "keys" / "scale.json")):  # fmt: skip
        answers[:] = ["acme", given]
        args = Namespace(customer=None, credentials_file=None)
        setup_wizard._ask_customer(args, paths)
        assert args.credentials_file == str(absolute)


def test_setup_keeps_a_relative_or_home_credentials_path_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from moatbridge.adapters.hostfs import HostFS
    from moatbridge.commands.setup import answers_of as gather
    from moatbridge.core.detection import detect
    from moatbridge.parser import build_parser
    from moatbridge.paths import Paths

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    answers = tmp_path / "answers.yaml"
    answers.write_text("credentials-file: ~/keys/scale.json\n")
    paths = Paths.from_environ(dict(os.environ))
    report = detect(HostFS("/"), os.environ)
    common = ["setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial"]
    from_file = gather(build_parser().parse_args([*common, "--answers", str(answers)]), paths, report)
    assert from_file.image.source.credentials_file == str(home / "keys" / "scale.json")
    from_flag = gather(build_parser().parse_args([*common, "--credentials-file", "c.json"]), paths, report)
    assert from_flag.image.source.credentials_file == str(tmp_path / "c.json")
