"""`setup` for SCALE as the vendor ships it, against the stand-in repository:
commercial use from a customer repository that demands credentials, shims only for the
commands the image has, SCALE's own checks in verification, and its refusals."""

from __future__ import annotations

import json
import os
import secrets
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.environ import environ_without
from support.scale_standin import SeenRequest, StandinRepoServer, build_standin_repo, missing_tools
from support.secret_scan import scan_saved_image
from support.toolchains import warm_container


def _env(home: Path) -> dict[str, str]:
    env = environ_without("MOATBRIDGE_", "XDG_")
    env["HOME"] = str(home)
    return env


def mb(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True,
                          env=_env(home), timeout=1800)  # fmt: skip


def _credentials_file(where: Path, username: str, password: str) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    path = where / "scale-customer.json"
    path.write_text(json.dumps({"username": username, "password": password}))
    path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return path


@dataclass(frozen=True)
class Commercial:
    home: Path
    setup: subprocess.CompletedProcess[str]
    requests: list[SeenRequest]
    username: str
    password: str
    credentials_file: Path
    toolchain: dict[str, object]


@pytest.fixture(scope="module")
def commercial(
    engine_version: str, debian_base: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Commercial]:
    if missing_tools():
        pytest.fail(f"the stand-in repository needs: {' '.join(missing_tools())}")
    work = tmp_path_factory.mktemp("scale-commercial")
    home = work / "home"
    home.mkdir()
    username, password = f"mbx-acme-{secrets.token_hex(6)}", secrets.token_urlsafe(24)
    credentials = _credentials_file(work / "private", username, password)
    repo = build_standin_repo(work / "standin")
    with StandinRepoServer(repo.root, username, password) as server:
        setup = mb(
            home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
            "--accept-license", "--customer", "acme", "--credentials-file", str(credentials),
            "--repo-url", server.url, "--base-image", debian_base, "--build-arg", "SCALE_PREREQS=", "--build-arg", f"SCALE_VERSION={repo.scale_version}",
            "--build-arg", "SCALE_VENDOR_HOSTS=scale-standin.invalid", "--no-modify-rc",
        )  # fmt: skip
        requests = server.requests
    listed = json.loads(mb(home, "list", "--json").stdout or "{}").get("toolchains") or [{}]
    try:
        yield Commercial(home, setup, requests, username, password, credentials, listed[0])
    finally:
        mb(home, "uninstall", "--all", "--remove-images")
        if listed[0].get("image_id"):  # and the tags left on it (moving aliases such as latest)
            subprocess.run(["docker", "rmi", "-f", str(listed[0]["image_id"])], capture_output=True)
        subprocess.run(["docker", "rm", "-f", warm_container("scale-gfx1030", home)], capture_output=True)


def _needles(c: Commercial) -> dict[str, bytes]:
    import base64

    token = base64.b64encode(f"{c.username}:{c.password}".encode())
    return {"username": c.username.encode(), "password": c.password.encode(), "basic-auth token": token}


@pytest.mark.engine
def test_commercial_setup_builds_from_the_customer_repository(commercial: Commercial) -> None:
    assert commercial.setup.returncode == 0, commercial.setup.stdout + commercial.setup.stderr
    assert commercial.toolchain["licence"] == "scale-commercial"
    # Recorded for upgrade: the customer and where its credentials are, never what they say.
    assert commercial.toolchain["customer"] == "acme"
    assert commercial.toolchain["credentials_file"] == str(commercial.credentials_file)
    assert "scale-commercial (commercial use)" in commercial.setup.stdout
    fetched = [r for r in commercial.requests if r.path.startswith("/pool/main/s/scale/scale_")]
    assert fetched and all(r.status == 200 for r in fetched), commercial.requests
    expected = "Basic " + _needles(commercial)["basic-auth token"].decode()
    assert all(r.authorization == expected for r in commercial.requests if r.status == 200)


@pytest.mark.engine
def test_credentials_reach_no_layer_history_label_output_or_saved_answers(
    commercial: Commercial, tmp_path: Path
) -> None:
    assert commercial.setup.returncode == 0, commercial.setup.stderr
    image = str(commercial.toolchain["image_id"])
    needles = _needles(commercial)
    findings, scanned = scan_saved_image(image, needles, tmp_path)
    assert scanned > 100, "the layer scan saw suspiciously few files"
    assert findings == []
    history = subprocess.run(["docker", "history", "--no-trunc", image], capture_output=True, text=True)
    inspect = subprocess.run(["docker", "inspect", image], capture_output=True, text=True)
    saved = (commercial.home / ".local" / "share" / "moatbridge" / "answers.yaml").read_text()
    texts = {
        "history": history.stdout, "inspect": inspect.stdout, "setup output": commercial.setup.stdout
        + commercial.setup.stderr, "saved answers": saved,
    }  # fmt: skip
    assert [f"{n} in {w}" for w, t in texts.items() for n, v in needles.items() if v.decode() in t] == []
    # The answers keep the customer and where the credentials are, never what they say.
    assert "customer: acme" in saved and str(commercial.credentials_file) in saved


@pytest.mark.engine
def test_shims_only_for_commands_the_image_has(commercial: Commercial) -> None:
    assert commercial.setup.returncode == 0, commercial.setup.stderr
    bin_dir = commercial.home / ".local" / "share" / "moatbridge" / "toolchains" / "scale-gfx1030" / "bin"
    shims = {p.name for p in bin_dir.iterdir()}
    # The stand-in (SCALE_PREREQS empty) has SCALE's nvcc and scaleinfo, not ninja, cmake or make.
    assert {"nvcc", "scaleinfo"} <= shims
    assert not {"ninja", "cmake", "make"} & shims
    assert commercial.toolchain["tools"] and "ninja" not in commercial.toolchain["tools"]  # type: ignore[operator]
    assert "no shims for" in commercial.setup.stdout and "ninja" in commercial.setup.stdout
    # scaleinfo lives in /opt/scale/bin, which scaleenv leaves off PATH: its shim resolves.
    work = commercial.home / "w"
    work.mkdir(exist_ok=True)
    ran = subprocess.run([str(bin_dir / "scaleinfo")], capture_output=True, text=True, cwd=work,
                         env=_env(commercial.home), timeout=300)  # fmt: skip
    # It ran (not 127, command not found); without /dev/kfd here it may report no device.
    assert ran.returncode != 127 and "scaleinfo: TEST STAND-IN" in ran.stdout, ran.stdout + ran.stderr


@pytest.mark.engine
def test_commercial_setup_without_credentials_fails_before_any_build(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    missing = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
                 "--accept-license", "--customer", "acme", "--no-modify-rc")  # fmt: skip
    assert missing.returncode == 2, missing.stderr
    assert "credentials file" in missing.stderr and "does not exist" in missing.stderr
    assert "--credentials-file" in missing.stderr
    loose = _credentials_file(tmp_path / "c", "u", "p")
    loose.chmod(0o644)
    readable = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
                  "--accept-license", "--customer", "acme", "--credentials-file", str(loose))  # fmt: skip
    assert readable.returncode == 2 and "readable by others" in readable.stderr
    nameless = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
                  "--accept-license")  # fmt: skip
    assert nameless.returncode == 2 and "--customer NAME" in nameless.stderr
    assert not (home / ".local" / "share" / "moatbridge" / "state.json").exists()


@pytest.mark.engine
def test_commercial_use_is_never_pulled_from_the_vendors_public_images(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pulled = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
                "--accept-license", "--customer", "acme", "--source", "pull", "--dry-run")  # fmt: skip
    assert pulled.returncode == 2
    assert "public images: they are the free product" in pulled.stderr and "--registry" in pulled.stderr
    own = _credentials_file(tmp_path / "c", "u", "p")
    team = mb(home, "setup", "--yes", "--flavour", "scale", "--target", "gfx1030", "--use", "commercial",
              "--accept-license", "--registry", "registry.example:5000/acme", "--credentials-file", str(own),
              "--dry-run")  # fmt: skip
    assert team.returncode == 0, team.stderr
    assert "registry.example:5000/acme/scale:" in team.stdout and "would pull" in team.stdout


@pytest.mark.engine
def test_doctor_of_an_installed_scale_toolchain(commercial: Commercial) -> None:
    assert commercial.setup.returncode == 0, commercial.setup.stderr
    doctor = mb(commercial.home, "doctor", "--json")
    assert "Traceback" not in doctor.stderr
    checks = {c["id"]: c for c in json.loads(doctor.stdout)["checks"]}
    if os.path.exists("/dev/kfd"):
        tools = [checks[f"scale-{t}-scale-gfx1030"] for t in ("scaleinfo", "scalediag", "hsakmtsysinfo")]
        assert all(c["status"] in ("pass", "warn") for c in tools), tools
    else:  # the tools could only say they cannot open /dev/kfd: one honest line instead
        check = checks["scale-tools-scale-gfx1030"]
        assert (check["status"], check["detail"]) == (
            "skip",
            "skipped: no /dev/kfd (scaleinfo, scalediag and hsakmtsysinfo need it)",
        )


# --- verification of SCALE's runtime images (pulled from a registry) -----------------------------


@pytest.mark.engine
def test_scale_runtime_images_are_verified_by_libredscale(
    engine_version: str, debian_base: str, tmp_path: Path
) -> None:
    """A runtime image carries SCALE's runtime where the vendor keeps it,
    /opt/scale/targets/<t>/lib/libredscale.so (not libamdhip64 or rocminfo); one without it
    for the target is refused; an sm_NN target skips the AMD check and says so."""
    from support.registry import run_registry

    home = tmp_path / "home"
    home.mkdir()
    # Building a SCALE image asks for the recorded consent, as its install does.
    accepted = mb(home, "license", "accept", "scale-free", "--use", "non-commercial", "--yes")
    assert accepted.returncode == 0, accepted.stderr
    repo = build_standin_repo(tmp_path / "standin")
    with StandinRepoServer(repo.root) as server:
        built = mb(
            home, "image", "build", "--flavour", "scale", "--json", "--repo-url", server.url,
            "--base-image", debian_base, "--build-arg", "SCALE_PREREQS=",
            "--build-arg", f"SCALE_VERSION={repo.scale_version}",
            "--build-arg", "SCALE_VENDOR_HOSTS=scale-standin.invalid",
        )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    image = json.loads(built.stdout)["id"]
    pushed = ""
    try:
        with run_registry(tmp_path / "registry") as registry:
            team = f"{registry}/team"
            common = ("--yes", "--flavour", "scale", "--variant", "runtime", "--registry", team,
                      "--use", "non-commercial", "--accept-license", "--no-modify-rc")  # fmt: skip
            plan = mb(home, "setup", *common, "--target", "gfx1030", "--dry-run")
            assert plan.returncode == 0, plan.stderr
            pushed = next(w for line in plan.stdout.splitlines() for w in line.split() if w.startswith(team))
            push = mb(home, "image", "push", pushed, "--from", image, "--json")
            assert push.returncode == 0, push.stderr
            subprocess.run(["docker", "rmi", pushed], capture_output=True, check=False)

            ok = mb(home, "setup", *common, "--target", "gfx1030")
            assert ok.returncode == 0, ok.stdout + ok.stderr
            missing = mb(home, "setup", *common, "--target", "gfx1201")  # not in the stand-in
            assert missing.returncode == 1, missing.stdout + missing.stderr
            assert "has no /opt/scale/targets/gfx1201/lib/libredscale.so (SCALE's runtime" in missing.stderr
            nvidia = mb(home, "setup", *common, "--target", "sm_89")
            assert nvidia.returncode == 0, nvidia.stdout + nvidia.stderr
            assert "sm_89 is SCALE's NVIDIA mode: the image's AMD runtime was not checked" in nvidia.stdout
        names = [t["name"] for t in json.loads(mb(home, "list", "--json").stdout)["toolchains"]]
        assert sorted(names) == ["scale-gfx1030", "scale-sm_89"]
    finally:
        mb(home, "uninstall", "--all", "--remove-images")
        for name in ("scale-gfx1030", "scale-sm_89"):
            subprocess.run(["docker", "rm", "-f", warm_container(name, home)], capture_output=True)
        subprocess.run(["docker", "rmi", "-f", image, *([pushed] if pushed else [])], capture_output=True)
