"""One licence-consent rule on every path.

A SCALE toolchain is installed on the host (state, runner, shims, toolchain.env) without
an engine: the runner's `docker` is a stand-in script that records its argv, because the
question here is whether the runner lets SCALE start at all, not what SCALE then does.
The same consent files are put to the shims' sh runner and to the Python commands, and
both must decide alike; the artefact generators and `bundle load` must refuse without
consent and write the licence gate in with it.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from moatbridge.adapters import bundle_archive
from moatbridge.adapters.records import default_licences_dir, load_catalog, load_licences
from moatbridge.core import bundle
from moatbridge.paths import Paths
from moatbridge.services.installation import install_files
from moatbridge.services.runtime import runtime_for
from moatbridge.services.toolchains import record, state_store

from support.toolchains import make_toolchain

NAME = "scale-gfx1030"
SCALE = make_toolchain(NAME, "scale", "devel", ("gfx1030",), "12.4", "moatbridge/scale:1.7.2-devel-gfx1030",
                  "sha256:" + "5" * 64, "scale-free")  # fmt: skip
STAND_IN_DOCKER = """#!/bin/sh
# Stand-in for the docker CLI (no engine is needed to test the runner's decision).
printf '%s\\n' "$@" > "$MB_TEST_DOCKER_ARGV"
exit 0
"""


@pytest.fixture
def installed(tmp_path: Path) -> dict[str, str]:
    """A SCALE toolchain written the way setup writes it; returns the env to run in."""
    paths = Paths.from_environ(os.environ)
    runtime = runtime_for(SCALE, paths, licence_required=True)
    written = install_files(paths, SCALE, runtime, make_default=True, dry_run=False)
    state_store(paths).write(record(state_store(paths).read().with_toolchain(SCALE, True), written))
    bin_dir = tmp_path / "stand-in-bin"
    bin_dir.mkdir()
    (bin_dir / "docker").write_text(STAND_IN_DOCKER)
    (bin_dir / "docker").chmod(0o755)
    work = tmp_path / "outside-home"  # outside the warm container's roots: the `docker run` path
    work.mkdir()
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "MB_TEST_DOCKER_ARGV": str(tmp_path / "argv"),
            "MB_TEST_WORK": str(work)}  # fmt: skip


def consent_file() -> Path:
    return Path(os.environ["MOATBRIDGE_HOME"]) / "consents" / "scale-free"


def shim_runs(env: dict[str, str]) -> tuple[bool, str]:
    """Run the nvcc shim; True when it reached docker (SCALE would start)."""
    argv = Path(env["MB_TEST_DOCKER_ARGV"])
    argv.unlink(missing_ok=True)
    shim = Path(os.environ["MOATBRIDGE_HOME"]) / "toolchains" / NAME / "bin" / "nvcc"
    result = subprocess.run([str(shim), "--version"], capture_output=True, text=True, env=env,
                            cwd=env["MB_TEST_WORK"], timeout=60)  # fmt: skip
    ran = argv.exists()
    assert ran == (result.returncode == 0), result.stderr
    if ran:
        assert "SCALE_LICENSE_ACCEPT=1" in argv.read_text().splitlines()
    else:
        assert result.returncode == 127 and "moatbridge: " in result.stderr, result.stderr
    return ran, result.stderr


def python_runs(env: dict[str, str]) -> tuple[bool, str]:
    """`moatbridge run`: its own check, then the runner's."""
    argv = Path(env["MB_TEST_DOCKER_ARGV"])
    argv.unlink(missing_ok=True)
    result = subprocess.run([sys.executable, "-m", "moatbridge", "run", "-t", NAME, "--", "nvcc", "--version"],
                            capture_output=True, text=True, env=env, cwd=env["MB_TEST_WORK"], timeout=60)  # fmt: skip
    ran = argv.exists()
    if not ran:
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    return ran, result.stderr


def accept(env: dict[str, str]) -> None:
    result = subprocess.run([sys.executable, "-m", "moatbridge", "license", "accept", "scale-free", "--use",
                             "non-commercial", "--yes"], capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr


def changed_records(tmp_path: Path) -> str:
    records = tmp_path / "newer-terms"
    shutil.copytree(default_licences_dir(), records)
    record = records / "scale-free.yaml"
    record.write_bytes(record.read_bytes().replace(b'terms_version: "2026"', b'terms_version: "2027"'))
    assert record.read_bytes() != (default_licences_dir() / "scale-free.yaml").read_bytes()
    return str(records)


def _valid_then(change: Callable[[Path, bytes], None]) -> Callable[[dict[str, str], Path], None]:
    def setup(env: dict[str, str], tmp_path: Path) -> None:
        accept(env)
        path = consent_file()
        data = path.read_bytes()
        path.unlink()
        change(path, data)

    return setup


def _symlinked(path: Path, data: bytes) -> None:
    elsewhere = path.parent.parent / "elsewhere"
    elsewhere.write_bytes(data)
    path.symlink_to(elsewhere)


def _accepted_then_terms_changed(env: dict[str, str], tmp_path: Path) -> None:
    accept(env)
    env["MOATBRIDGE_LICENSES"] = changed_records(tmp_path)


def _accepted_under_changed_terms(env: dict[str, str], tmp_path: Path) -> None:
    env["MOATBRIDGE_LICENSES"] = changed_records(tmp_path)
    accept(env)


OLD_RULE_HASH = hashlib.sha256(b"scale-free\x002026\x00").hexdigest().encode()  # before the record hash
CASES: dict[str, tuple[Callable[[dict[str, str], Path], None], bool]] = {
    "nothing recorded": (lambda env, tmp: None, False),
    "accepted": (lambda env, tmp: accept(env), True),
    "accepted, terms changed since": (_accepted_then_terms_changed, False),
    "accepted under the changed terms": (_accepted_under_changed_terms, True),
    "line 1 ends in CR": (_valid_then(lambda p, d: p.write_bytes(d.replace(b"\n", b"\r\n", 1))), False),
    "blank line first": (_valid_then(lambda p, d: p.write_bytes(b"\n" + d)), False),
    "padded hash": (_valid_then(lambda p, d: p.write_bytes(b" " + d)), False),
    "hash only, no newline": (_valid_then(lambda p, d: p.write_bytes(d.split(b"\n")[0])), True),
    "hash of the old terms rule": (_valid_then(lambda p, d: p.write_bytes(OLD_RULE_HASH + b"\n")), False),
    "a symlink to a valid consent": (_valid_then(_symlinked), False),
    "a directory": (_valid_then(lambda p, d: p.mkdir()), False),
    "a FIFO": (_valid_then(lambda p, d: os.mkfifo(p)), False),
    "empty": (_valid_then(lambda p, d: p.write_bytes(b"")), False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_runner_and_python_decide_alike(installed: dict[str, str], tmp_path: Path, case: str) -> None:
    prepare, expected = CASES[case]
    env = dict(installed)
    prepare(env, tmp_path)
    shim, shim_said = shim_runs(env)
    python, python_said = python_runs(env)
    assert (shim, python) == (expected, expected), f"shim: {shim_said!r}\npython: {python_said!r}"
    status = json.loads(subprocess.run([sys.executable, "-m", "moatbridge", "license", "status", "--json"],
                                       capture_output=True, text=True, env=env, timeout=60).stdout)  # fmt: skip
    row = next(r for r in status["licences"] if r["licence"] == "scale-free")
    assert (row["status"] == "accepted") == expected, row
    if not expected:
        assert "acceptance of the" in shim_said and "acceptance of the" in python_said


def test_a_damaged_state_file_changes_nothing_about_consent(installed: dict[str, str]) -> None:
    state = Path(os.environ["MOATBRIDGE_HOME"]) / "state.json"
    state.write_text("{ damaged")
    assert shim_runs(installed)[0] is False  # no consent: refused, state or not
    accept(installed)
    state.write_text("{ damaged")
    assert shim_runs(installed)[0] is True


def test_revoke_removes_a_consent_the_state_does_not_list(installed: dict[str, str]) -> None:
    accept(installed)
    assert shim_runs(installed)[0] is True
    (Path(os.environ["MOATBRIDGE_HOME"]) / "state.json").write_text("{ damaged")
    revoked = subprocess.run([sys.executable, "-m", "moatbridge", "license", "revoke", "scale-free"],
                             capture_output=True, text=True, env=installed, timeout=60)  # fmt: skip
    assert revoked.returncode == 0 and "Revoked" in revoked.stdout, revoked.stderr
    assert not consent_file().exists()
    assert shim_runs(installed)[0] is False


def test_a_licence_record_that_is_gone_refuses(installed: dict[str, str], tmp_path: Path) -> None:
    accept(installed)
    empty = tmp_path / "no-records"
    empty.mkdir()
    ran, said = shim_runs({**installed, "MOATBRIDGE_LICENSES": str(empty)})
    assert not ran and "record of the scale-free licence is missing" in said


# --- artefacts: refused without consent, the licence gate written in with it -----------------

ARTEFACTS = {
    "k8s": (["k8s", "--", "make"], lambda out, tmp: out),
    "slurm": (["slurm", "--", "make"], lambda out, tmp: out),
    "export apptainer": (["export", "apptainer"], lambda out, tmp: out),
    "ci": (["ci", "github", "--dir", "{tmp}"], lambda out, tmp: (tmp / ".github/workflows/moatbridge-cuda.yml").read_text()),
    "devcontainer": (["devcontainer", "--dir", "{tmp}"],
                     lambda out, tmp: (tmp / ".devcontainer/devcontainer.json").read_text()),
}  # fmt: skip


@pytest.mark.parametrize("artefact", list(ARTEFACTS))
def test_artefacts_need_consent_and_carry_the_gate(installed: dict[str, str], tmp_path: Path,
                                                   artefact: str) -> None:  # fmt: skip
    words, written = ARTEFACTS[artefact]
    project = tmp_path / "project"
    project.mkdir()
    argv = [sys.executable, "-m", "moatbridge", *(w.replace("{tmp}", str(project)) for w in words)]
    before = sorted(p.name for p in project.rglob("*"))
    refused = subprocess.run(argv, capture_output=True, text=True, env=installed, timeout=60)
    assert refused.returncode == 2, refused.stderr
    assert "needs your acceptance of the SCALE Free Licence" in refused.stderr and refused.stdout == ""
    assert sorted(p.name for p in project.rglob("*")) == before  # nothing written
    accept(installed)
    done = subprocess.run(argv, capture_output=True, text=True, env=installed, timeout=60)
    assert done.returncode == 0, done.stderr
    text = written(done.stdout, project)
    assert "SCALE_LICENSE_ACCEPT" in text
    if artefact != "slurm":  # the batch script passes the env; the others also say whose consent it is
        assert "accepted for non-commercial use by" in text and "scale-free" in text


def test_bundle_save_follows_the_consent_rule(installed: dict[str, str], tmp_path: Path) -> None:
    """A SCALE bundle hands SCALE on: refused without consent, and again once it is revoked."""
    out = tmp_path / "scale.bundle"
    env = {**installed, "DOCKER_HOST": NO_ENGINE}  # past the rule, the absent engine answers (3)

    def save() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "moatbridge", "bundle", "save", "-t", NAME, "-o", str(out)],
                              capture_output=True, text=True, env=env, timeout=60)  # fmt: skip

    refused = save()
    assert refused.returncode == 2, refused.stderr
    assert "needs your acceptance of the SCALE Free Licence" in refused.stderr and refused.stdout == ""
    accept(installed)
    assert save().returncode == 3  # the rule let it through, to the engine
    revoke = subprocess.run([sys.executable, "-m", "moatbridge", "license", "revoke", "scale-free"],
                            capture_output=True, text=True, env=env, timeout=60)  # fmt: skip
    assert revoke.returncode == 0, revoke.stderr
    again = save()
    assert again.returncode == 2 and "needs your acceptance" in again.stderr, again.stderr
    assert not out.exists() and list(tmp_path.glob(".scale.bundle.*")) == []


# --- bundles: the image's own labels, not only the manifest, decide ---------------------------


def docker_archive(container_config: dict[str, object], repo_tags: list[str] | None) -> tuple[bytes, str]:
    """A minimal `docker save` archive (no layers) and its image ID."""
    config = json.dumps({"architecture": "amd64", "os": "linux", "config": container_config,
                         "rootfs": {"type": "layers", "diff_ids": []}}).encode()  # fmt: skip
    image_hex = hashlib.sha256(config).hexdigest()
    members = {f"{image_hex}.json": config,
               "manifest.json": json.dumps([{"Config": f"{image_hex}.json", "RepoTags": repo_tags,
                                             "Layers": []}]).encode()}  # fmt: skip
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue(), f"sha256:{image_hex}"


def write_bundle(path: Path, flavour: str, licence: str, config: dict[str, object],
                 repo_tags: list[str] | None = None, image_id: str | None = None) -> None:  # fmt: skip
    image, real_id = docker_archive(config, repo_tags)
    toolchain = make_toolchain("loaded", flavour, "devel", ("gfx1030",), "12.4", f"moatbridge/{flavour}:x",
                          image_id or real_id, licence)  # fmt: skip
    manifest = bundle.build_manifest(toolchain, load_catalog().flavour(flavour), load_licences(), "9.9.9",
                                     "2026-01-01T00:00:00+00:00")  # fmt: skip
    bundle_archive.write_bundle(path, manifest.to_bytes(), iter([image]), force=False)


SCALE_LABELS = {"Labels": {"io.moatbridge.flavour": "scale", "io.moatbridge.licence": "scale-free"}}
OPEN = {"flavour": "open", "licence": "open-components"}
BUNDLES = {
    "SCALE image relabelled open": ({**OPEN, "config": SCALE_LABELS},
                                    "mislabelled: the manifest calls it open, but the image is scale"),
    "vendor's SCALE image (no labels) relabelled open": (
        {**OPEN, "config": {"Env": ["PATH=/opt/scale/bin:/usr/bin"]}}, "mislabelled"),
    "scale flavour, open licence": ({"flavour": "scale", "licence": "open-components", "config": SCALE_LABELS},
                                    "not covered by a licence called 'open-components'"),
    "scale, no consent": ({"flavour": "scale", "licence": "scale-free", "config": SCALE_LABELS},
                          "needs your acceptance of the SCALE Free Licence"),
    "tags that loading would move": ({**OPEN, "config": {}, "repo_tags": ["moatbridge/open:12.4-devel-trixie-gfx1030"]},
                                     "names tags"),
    "config that is not the manifest's image": ({**OPEN, "config": {}, "image_id": "sha256:" + "0" * 64},
                                                "not the manifest's"),
}  # fmt: skip
NO_ENGINE = "unix:///nonexistent/engine.sock"  # anything that reaches the engine fails differently (3)


def load(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "moatbridge", "bundle", "load", str(path)], capture_output=True,
                          text=True, env={**os.environ, "DOCKER_HOST": NO_ENGINE}, timeout=60)  # fmt: skip


@pytest.mark.parametrize("case", list(BUNDLES))
def test_bundle_load_checks_the_image_before_the_engine(tmp_path: Path, case: str) -> None:
    values, message = BUNDLES[case]
    path = tmp_path / "b.tar"
    write_bundle(path, **values)  # type: ignore[arg-type]
    result = load(path)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert not (Path(os.environ["MOATBRIDGE_HOME"]) / "state.json").exists()


def test_a_consistent_bundle_passes_the_checks(tmp_path: Path) -> None:
    """The control: a correct open bundle gets past every check, to the (absent) engine."""
    path = tmp_path / "b.tar"
    write_bundle(path, **OPEN, config={"Labels": {"io.moatbridge.flavour": "open"}})
    result = load(path)
    assert result.returncode == 3, result.stderr  # EngineUnavailable: it got that far
