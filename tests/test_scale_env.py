"""SCALE's environment in every generated file and in activation.

SCALE's `scaleenv` is not public: the generated files (devcontainer, Kubernetes, CI,
Apptainer) carry the vendor's documented layout (targets/<gfx>/lib holds libredscale.so,
/opt/scale/lib64 the CUDA API libraries, /opt/scale/bin the tools) unless the toolchain's
image is here, when what scaleenv really sets is measured in it. The engine tests build a
tiny stand-in SCALE image (moatbridge's Debian base plus the stand-in /opt/scale tree of
tests/support/scale_standin_layout.py: a real libredscale.so and a program linked against
it when the host has gcc), measure it, and run the program with and without the generated
LD_LIBRARY_PATH.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from moatbridge.core.apptainer import ApptainerSpec, definition
from moatbridge.core.ci_templates import CiSpec, github_workflow, gitlab_ci
from moatbridge.core.devcontainer import DevcontainerSpec, devcontainer_json, strip_jsonc
from moatbridge.core.in_image import exec_after_activation
from moatbridge.core.k8s import JobSpec, job_manifest
from moatbridge.core.scale_env import MeasurementRefused, difference, measured_env, parse_env0, split_dumps
from moatbridge.core.shims import PASS_ENV
from moatbridge.core.toolkit_env import SCALE_ACTIVATE, ToolkitEnv, toolkit_env
from moatbridge.errors import InputError

from support.devcontainers import devcontainer_images, remove_devcontainers
from support.scale_standin_layout import LOADER_ERROR, NVIDIA_TARGET_DIR, write_scale_tree
from support.toolchains import make_toolchain, respec

TARGET = "gfx1100"
ROOT = f"/opt/scale/targets/{TARGET}"
LIBS = f"{ROOT}/lib:/opt/scale/lib64"
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _devcontainer(
    env: ToolkitEnv | None = None, flavour: str = "scale", target: str = TARGET
) -> dict[str, Any]:
    spec = DevcontainerSpec(
        toolchain=f"{flavour}-{target}", flavour=flavour, target=target, image="sha256:" + "ab" * 32,
        image_tag="example/scale:1", uid=0, gid=0, devices=(), group_adds=(), licence=None, environment=env,
    )  # fmt: skip
    return dict(json.loads(strip_jsonc(devcontainer_json(spec))))


def _k8s(env: ToolkitEnv | None = None, flavour: str = "scale", target: str = TARGET) -> dict[str, str]:
    spec = JobSpec(name="job", namespace=None, toolchain=f"{flavour}-{target}", flavour=flavour, target=target,
                   image="example/scale:1", command=("make",), gpus=0, licence=None, environment=env)  # fmt: skip
    container = job_manifest(spec)["spec"]["template"]["spec"]["containers"][0]
    return {item["name"]: item["value"] for item in container["env"]}


def _ci(env: ToolkitEnv | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    spec = CiSpec(toolchain="scale-gfx1100", flavour="scale", target=TARGET, image="example/scale:1",
                  gpu_runner="amd", environment=env)  # fmt: skip
    github = yaml.safe_load(github_workflow(spec))
    gitlab = yaml.safe_load(gitlab_ci(spec))
    return github, gitlab


def _apptainer(env: ToolkitEnv | None = None, target: str = TARGET) -> str:
    return definition(ApptainerSpec(toolchain="scale-x", flavour="scale", target=target, image="example/scale:1",
                                    image_id="sha256:" + "cd" * 32, licence=None, environment=env))  # fmt: skip


# --- the documented layout, in every generated file --------------------------------------------


def test_scale_layout_puts_libredscale_on_both_library_paths() -> None:
    env = toolkit_env("scale", TARGET)
    assert env.path == (f"{ROOT}/bin", "/opt/scale/bin")
    assert env.library_path == env.ld_library_path == (f"{ROOT}/lib", "/opt/scale/lib64")
    assert env.as_dict()["SCALE_ENV"] == TARGET and env.as_dict()["CUDA_HOME"] == ROOT
    assert "lib64" not in f"{ROOT}/lib"  # no targets/<gfx>/lib64: the vendor has none


def test_open_flavour_output_is_unchanged() -> None:
    env = toolkit_env("open", "gfx1030")
    assert env.path_prepend == "/opt/moatbridge/targets/gfx1030/bin"
    assert env.library_paths() == (("LIBRARY_PATH", "/opt/moatbridge/targets/gfx1030/lib64"),)
    assert "LD_LIBRARY_PATH" not in _devcontainer(flavour="open", target="gfx1030")["remoteEnv"]
    assert "LD_LIBRARY_PATH" not in _k8s(flavour="open", target="gfx1030")


def test_devcontainer_for_scale_carries_ld_library_path() -> None:
    config = _devcontainer()
    assert config["remoteEnv"] == {
        "PATH": f"{ROOT}/bin:/opt/scale/bin:${{containerEnv:PATH}}",
        "LIBRARY_PATH": LIBS,
        "LD_LIBRARY_PATH": LIBS,
    }
    assert config["containerEnv"]["SCALE_ENV"] == TARGET


def test_kubernetes_job_for_scale_carries_ld_library_path() -> None:
    env = _k8s()
    assert env["PATH"] == f"{ROOT}/bin:/opt/scale/bin:{BASE_PATH}"
    assert env["LIBRARY_PATH"] == env["LD_LIBRARY_PATH"] == LIBS


def test_ci_files_for_scale_carry_ld_library_path() -> None:
    github, gitlab = _ci()
    for variables in (github["jobs"]["build"]["env"], github["jobs"]["test-gpu"]["env"],
                      gitlab["build"]["variables"], gitlab["test-gpu"]["variables"]):  # fmt: skip
        assert variables["LD_LIBRARY_PATH"] == variables["LIBRARY_PATH"] == LIBS
        assert variables["PATH"].startswith(f"{ROOT}/bin:/opt/scale/bin:")


def test_apptainer_definition_for_scale_carries_ld_library_path() -> None:
    text = _apptainer()
    assert (
        "# SCALE's environment: the vendor's documented layout (its image was not here to measure).\n" in text
    )
    assert f"    export PATH={ROOT}/bin:/opt/scale/bin:$PATH\n" in text
    # Apptainer's own LD_LIBRARY_PATH (the --rocm/--nv binds) is kept after ours.
    assert f"    export LD_LIBRARY_PATH={LIBS}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\n" in text
    assert f"    export LIBRARY_PATH={LIBS}${{LIBRARY_PATH:+:$LIBRARY_PATH}}\n" in text


def test_nvidia_targets_are_refused_without_a_measurement() -> None:
    with pytest.raises(InputError) as refused:
        toolkit_env("scale", "sm_89")
    assert "not documented" in refused.value.message and "sm_89" in refused.value.message
    assert refused.value.hint and "image" in refused.value.hint
    with pytest.raises(InputError):
        _k8s(target="sm_89")


def test_runner_and_slurm_pass_scale_variables_through() -> None:
    from moatbridge.core.slurm import SlurmJob, render

    script = render(SlurmJob(toolchain="scale-gfx1100", image="sha256:abc", target=TARGET,
                             activate=SCALE_ACTIVATE, command=("make",)))  # fmt: skip
    for name in ("SCALE_CCMAP", "SCALE_EXCEPTIONS", "SCALE_AMD_XNACK", "SCALE_CUDA_VERSION"):
        assert name in PASS_ENV and f"--env {name}" in script, name
    assert "NVCC_APPEND_FLAGS" in PASS_ENV
    assert "--require-scale" in script and ". /opt/scale/bin/scaleenv" in script


# --- the measurement, pure ------------------------------------------------------------------------


def _dump(env: dict[str, str]) -> bytes:
    return b"".join(f"{k}={v}".encode() + b"\0" for k, v in env.items())


BEFORE = {
    "PATH": BASE_PATH,
    "HOME": "/root",
    "SHLVL": "1",
    "_": "/usr/bin/env",
    "SCALE_CUDA_VERSION": "13.0.2",
}


def test_difference_keeps_what_scaleenv_set_and_nothing_of_the_shell() -> None:
    after = dict(BEFORE, SHLVL="2", _="/usr/bin/env", SCALE_ENV=TARGET, PATH=f"{ROOT}/bin:{BASE_PATH}",
                 LD_LIBRARY_PATH=f"{ROOT}/lib", CUDA_HOME=ROOT)  # fmt: skip
    assert difference(BEFORE, after) == (
        ("PATH", f"{ROOT}/bin:{BASE_PATH}"), ("SCALE_ENV", TARGET), ("LD_LIBRARY_PATH", f"{ROOT}/lib"),
        ("CUDA_HOME", ROOT),
    )  # fmt: skip
    env = measured_env(BEFORE, after, "img")
    assert env.path == (f"{ROOT}/bin", "/opt/scale/bin")  # /opt/scale/bin added: scaleenv leaves it off
    assert env.ld_library_path == (f"{ROOT}/lib",) and env.library_path == ()
    # Plus the guard against an accidental NVIDIA nvcc, which scaleenv does not set; appended
    # to flags scaleenv sets, never twice.
    with_flags = measured_env(BEFORE, dict(after, NVCC_APPEND_FLAGS="-Wno-x"), "img").as_dict()
    assert with_flags["NVCC_APPEND_FLAGS"] == "-Wno-x --require-scale"
    guarded = dict(after, NVCC_APPEND_FLAGS="--require-scale -O2")
    assert measured_env(BEFORE, guarded, "img").as_dict()["NVCC_APPEND_FLAGS"] == "--require-scale -O2"
    assert env.as_dict() == {"SCALE_ENV": TARGET, "CUDA_HOME": ROOT, "NVCC_APPEND_FLAGS": "--require-scale"}
    assert env.source == "measured in img"


def test_library_paths_keep_what_the_image_had_and_drop_empty_entries() -> None:
    before = dict(BEFORE, LD_LIBRARY_PATH="/usr/local/lib")
    after = dict(before, LD_LIBRARY_PATH=f"{ROOT}/lib::/usr/local/lib:")
    assert measured_env(before, after, "img").ld_library_path == (f"{ROOT}/lib", "/usr/local/lib")


@pytest.mark.parametrize(
    "entry",
    [b"BAD-NAME=1", b"1X=1", b"X=line\nbreak", b"X=\x1b[2J", b"X=\xff\xfe", "X=right\u202eleft".encode(),
     b"NOEQUALS"],
)  # fmt: skip
def test_odd_entries_refuse_the_measurement(entry: bytes) -> None:
    with pytest.raises(MeasurementRefused) as refused:
        parse_env0(b"PATH=/bin\0" + entry + b"\0", "img")
    assert "img" in refused.value.message and "\x1b" not in refused.value.message
    assert refused.value.hint


def test_exported_functions_are_left_out_and_expansions_refused() -> None:
    parsed = parse_env0(b"A=1\0BASH_FUNC_deactivate%%=() {  unset A\n}\0", "img")
    assert parsed == {"A": "1"}
    with pytest.raises(MeasurementRefused):
        measured_env(BEFORE, dict(BEFORE, CUDA_HOME="$(id)"), "img")
    with pytest.raises(MeasurementRefused):
        split_dumps(_dump(BEFORE), "img")  # no separator: cut short


# --- the probe when the engine fails it (no engine needed: a client that fails on cue) -------------


class _FailingClient:
    """A docker API client whose image is here but whose wait times out (a slow or stuck
    engine), or which cannot even be asked about the image."""

    def __init__(self, fail: str) -> None:
        self.fail = fail
        self.removed: list[str] = []

    def inspect_image(self, ref: str) -> dict[str, str]:
        import requests

        if self.fail == "inspect":
            raise requests.exceptions.ConnectionError("connection refused")
        return {"Id": "sha256:" + "cd" * 32}

    def create_container(self, **_: Any) -> dict[str, str]:
        return {"Id": "c0ffee"}

    def start(self, _id: str) -> None:
        pass

    def wait(self, _id: str, timeout: int) -> dict[str, int]:
        import requests

        raise requests.exceptions.ReadTimeout(f"read timed out ({timeout}s)")

    def remove_container(self, container: str, force: bool) -> None:
        self.removed.append(container)

    def close(self) -> None:
        pass


def test_a_probe_that_fails_with_the_image_present_is_an_error_not_a_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from moatbridge.adapters import docker_api
    from moatbridge.adapters.scaleenv_probe import ProbeFailed, measure, toolchain_environment

    client = _FailingClient("wait")
    with pytest.raises(ProbeFailed) as failed:
        measure(client, "example/scale:1", TARGET)
    assert "to measure SCALE's environment failed: read timed out (120s)" in failed.value.message
    assert "moatbridge doctor" in str(failed.value.hint) and client.removed == ["c0ffee"]
    # Through the entry point the generators use: a gfx target has a documented fallback, and
    # it must not be taken silently when the image is here.
    monkeypatch.setattr(docker_api, "connect", lambda: _FailingClient("wait"))
    with pytest.raises(ProbeFailed):
        toolchain_environment("scale", TARGET, "example/scale:1")
    # No engine answering at all (not even about the image): the documented layout, as before.
    monkeypatch.setattr(docker_api, "connect", lambda: _FailingClient("inspect"))
    assert toolchain_environment("scale", TARGET, "example/scale:1") == toolkit_env("scale", TARGET)


# --- against the engine: a stand-in SCALE image -----------------------------------------------

PROGRAM = f"{ROOT}/share/scale/standin-program"  # linked against libredscale.so, no rpath
NVIDIA_ROOT = f"/opt/scale/targets/{NVIDIA_TARGET_DIR}"


def _expected(target: str) -> dict[str, str]:
    """What the stand-in's scaleenv (tests/support/scale_standin_layout.py) exports, plus
    moatbridge's guard against an accidental NVIDIA nvcc."""
    root = f"/opt/scale/targets/{target}" if target.startswith("gfx") else NVIDIA_ROOT
    return {"SCALE_ENV": target, "CUDA_HOME": root, "CUDA_PATH": root, "CUDA_DIR": root, "CUDA_ROOT": root,
            "CUDA_BIN_PATH": f"{root}/bin", "CUDA_INC_DIR": f"{root}/include", "CUDACXX": f"{root}/bin/nvcc",
            "CUDA_CXX": f"{root}/bin/nvcc", "CUCC": f"{root}/bin/nvcc",
            "CUDAARCHS": "86" if target.startswith("gfx") else target[3:],
            "NVCC_APPEND_FLAGS": "--require-scale"}  # fmt: skip


@pytest.fixture(scope="module")
def standin_image(debian_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The stand-in /opt/scale tree (the vendor's layout; a real libredscale.so and a program
    linked against it when the host has gcc) on moatbridge's Debian base. The entrypoint
    refuses everything, as the vendor's licence gate does unaccepted: the probe replaces it."""
    context = tmp_path_factory.mktemp("scale-env-image")
    write_scale_tree(context / "root", "1.7.2-standin", targets=(TARGET,))
    (context / "Dockerfile").write_text(
        f'FROM {debian_base}\nCOPY root/ /\nENV SCALE_CUDA_VERSION=13.0.2\nENTRYPOINT ["/bin/false"]\n'
    )
    tag = f"moatbridge-test/scale-env:{secrets.token_hex(4)}"
    build = subprocess.run(["docker", "build", "-q", "--network", "none", "-t", tag, str(context)],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    assert build.returncode == 0, build.stderr
    try:
        yield tag
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, check=False)


def _measure(image: str, target: str) -> ToolkitEnv | None:
    from moatbridge.adapters import docker_api
    from moatbridge.adapters.scaleenv_probe import measure

    client = docker_api.connect()
    try:
        return measure(client, image, target)
    finally:
        client.close()


def _run(image: str, program: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    flags = [item for key, value in env.items() for item in ("-e", f"{key}={value}")]
    return subprocess.run(["docker", "run", "--rm", "--network", "none", *flags, "--entrypoint", program, image],
                          capture_output=True, text=True, timeout=300)  # fmt: skip


@pytest.mark.engine
def test_measured_env_is_what_scaleenv_exported(standin_image: str) -> None:
    measured = _measure(standin_image, TARGET)
    assert measured is not None
    assert measured.as_dict() == _expected(TARGET)  # no SCALE_CUDA_VERSION: the image's, not scaleenv's
    assert measured.path == (f"{ROOT}/bin", "/opt/scale/bin")  # /opt/scale/bin: moatbridge's addition
    assert measured.ld_library_path == (f"{ROOT}/lib",)
    assert measured.library_path == ()  # the stand-in's scaleenv leaves LIBRARY_PATH alone
    assert measured.source == f"measured in {standin_image}"


@pytest.mark.engine
def test_program_runs_with_the_generated_ld_library_path_and_not_without(standin_image: str) -> None:
    measured = _measure(standin_image, TARGET)
    assert measured is not None
    for env in (measured, toolkit_env("scale", TARGET)):  # measured, and the documented fallback
        generated = _k8s(env)
        ran = _run(standin_image, PROGRAM, {"LD_LIBRARY_PATH": generated["LD_LIBRARY_PATH"]})
        assert ran.returncode == 0 and ran.stdout == f"stand-in program: libredscale {TARGET}\n", ran.stderr
    without = _run(standin_image, PROGRAM, {})
    assert without.returncode != 0 and LOADER_ERROR in without.stderr
    # What the files said before (targets/<gfx>/lib64 on LIBRARY_PATH only) fails the same way.
    old = _run(standin_image, PROGRAM, {"LIBRARY_PATH": f"{ROOT}/lib64"})
    assert old.returncode != 0 and LOADER_ERROR in old.stderr


@pytest.mark.engine
def test_nvidia_target_is_served_from_the_measurement(standin_image: str) -> None:
    from moatbridge.adapters.scaleenv_probe import toolchain_environment

    env = toolchain_environment("scale", "sm_89", standin_image)
    assert env.as_dict() == _expected("sm_89")
    assert env.ld_library_path == (f"{NVIDIA_ROOT}/lib",)
    assert _k8s(env, target="sm_89")["CUDAARCHS"] == "89"
    with pytest.raises(InputError):  # not here: refused, not guessed
        toolchain_environment("scale", "sm_89", f"moatbridge-test/absent:{secrets.token_hex(4)}")


@pytest.mark.engine
def test_a_target_scaleenv_refuses_is_one_clear_error(standin_image: str) -> None:
    from moatbridge.adapters.scaleenv_probe import ProbeFailed

    with pytest.raises(ProbeFailed) as failed:
        _measure(standin_image, "gfx9999")
    assert (
        "did not activate gfx9999" in failed.value.message
        and "unknown target gfx9999" in failed.value.message
    )


@pytest.mark.engine
def test_activation_guards_nvcc_and_puts_scale_tools_on_path(standin_image: str) -> None:
    """The sh prefix that shims, `moatbridge run` and Slurm scripts run in the container:
    a program its nvcc builds runs there (scaleenv's LD_LIBRARY_PATH), scaleinfo resolves."""
    script = exec_after_activation(SCALE_ACTIVATE)  # what the runner and Slurm scripts run
    probe = ('printf "%s\\n" "${NVCC_APPEND_FLAGS-}" "$PATH"; command -v scaleinfo; '
             "nvcc $NVCC_APPEND_FLAGS -o /tmp/app app.cu && /tmp/app")  # fmt: skip
    cases = ((None, "--require-scale"), ("-Wno-deprecated-gpu-targets", "-Wno-deprecated-gpu-targets --require-scale"),
             ("--require-scale -O2", "--require-scale -O2"))  # fmt: skip
    for given, expected in cases:
        extra = ["-e", f"NVCC_APPEND_FLAGS={given}"] if given is not None else []
        result = subprocess.run(["docker", "run", "--rm", "--network", "none", *extra, "--entrypoint", "bash",
                                 standin_image, "-c", script, "moatbridge", TARGET, "sh", "-c", probe],
                                capture_output=True, text=True, timeout=300)  # fmt: skip
        assert result.returncode == 0, result.stderr
        flags, path, scaleinfo, ran = result.stdout.splitlines()
        assert flags == expected
        assert path.startswith(f"{ROOT}/bin:/opt/scale/bin:")
        assert scaleinfo == "/opt/scale/bin/scaleinfo" and ran == f"stand-in program: libredscale {TARGET}"


def test_the_runner_configuration_keeps_the_activation_word_for_word(tmp_path: Path) -> None:
    from moatbridge.core.shims import ToolchainRuntime, render_toolchain_env

    runtime = ToolchainRuntime(name="scale-gfx1100", image="sha256:abc", target=TARGET, activate=SCALE_ACTIVATE,
                               uid=1000, gid=1000, group_adds=(), devices=(), roots=("/home/u",), licence=None,
                               licence_records="/r", licence_env=(), home_key="k", home="/h")  # fmt: skip
    (tmp_path / "toolchain.env").write_text(render_toolchain_env(runtime))
    read = subprocess.run(["sh", "-c", '. "$0"; printf %s "$MB_ACTIVATE"', str(tmp_path / "toolchain.env")],
                          capture_output=True, text=True, check=True)  # fmt: skip
    assert read.stdout == SCALE_ACTIVATE


@pytest.mark.engine
def test_the_commands_write_the_measurement_and_refuse_an_unmeasured_nvidia_target(
    standin_image: str, tmp_path: Path
) -> None:
    """`moatbridge k8s` and `devcontainer` for recorded SCALE toolchains, through the CLI."""

    from moatbridge.adapters.consents import ConsentFiles
    from moatbridge.adapters.records import load_licences
    from moatbridge.adapters.statestore import StateStore
    from moatbridge.core.licences import Consent
    from moatbridge.core.toolchains import State

    from conftest import mb

    home = Path(os.environ["MOATBRIDGE_HOME"])
    image_id = subprocess.run(["docker", "image", "inspect", "-f", "{{.Id}}", standin_image],
                              capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    amd = make_toolchain(
        "scale-gfx1100", "scale", "devel", (TARGET,), "13.0.2", standin_image, image_id, "scale-free"
    )
    nvidia = respec(amd, name="scale-sm_89", targets=("sm_89",), image=f"moatbridge-test/absent:{secrets.token_hex(4)}",
                     image_id="")  # fmt: skip
    StateStore(home / "state.json").write(State().with_toolchain(amd, True).with_toolchain(nvidia, False))
    licence = load_licences()["scale-free"]
    ConsentFiles(home).write(
        Consent("scale-free", licence.terms_hash(), "non-commercial", "2026-01-01T00:00:00Z", "t")
    )

    manifest = mb("k8s", "-t", "scale-gfx1100", "--", "make")
    assert manifest.returncode == 0, manifest.stderr
    container = yaml.safe_load(manifest.stdout)["spec"]["template"]["spec"]["containers"][0]
    env = {item["name"]: item["value"] for item in container["env"]}
    # The stand-in's scaleenv sets LD_LIBRARY_PATH to the target's lib only and no LIBRARY_PATH:
    # the documented fallback would have added /opt/scale/lib64 to both, so this is the measurement.
    assert env["LD_LIBRARY_PATH"] == f"{ROOT}/lib" and "LIBRARY_PATH" not in env
    assert env["CUDA_BIN_PATH"] == f"{ROOT}/bin" and env["SCALE_LICENSE_ACCEPT"] == "1"
    project = tmp_path / "project"
    project.mkdir()
    written = mb("devcontainer", "--dir", str(project))
    assert written.returncode == 0, written.stderr
    text = (project / ".devcontainer" / "devcontainer.json").read_text()
    assert f"// SCALE's environment: what scaleenv set when measured in {image_id}." in text
    assert f"# SCALE's environment: what scaleenv set when measured in {image_id}.\n" in manifest.stdout
    config = json.loads(strip_jsonc((project / ".devcontainer" / "devcontainer.json").read_text()))
    assert config["remoteEnv"]["LD_LIBRARY_PATH"] == f"{ROOT}/lib"

    refused = mb("k8s", "-t", "scale-sm_89", "--", "make")
    assert refused.returncode == 2 and refused.stdout == ""
    assert (
        "NVIDIA target sm_89 is not documented" in refused.stderr and "hint: pull or build" in refused.stderr
    )


@pytest.mark.engine
def test_devcontainer_cli_runs_a_scale_program_with_the_generated_env(
    standin_image: str, tmp_path: Path
) -> None:
    """The real devcontainer CLI: it replaces the image's entrypoint (the stand-in's refuses
    everything) and starts no login shell, so only the generated remoteEnv finds libredscale."""
    cli = shutil.which("devcontainer")
    if cli is None:
        pytest.skip("the devcontainer CLI is not installed (npm install -g @devcontainers/cli)")
    measured = _measure(standin_image, TARGET)
    spec = DevcontainerSpec(
        toolchain="scale-gfx1100", flavour="scale", target=TARGET, image=standin_image, image_tag=standin_image,
        uid=0, gid=0, devices=(), group_adds=(), licence=None, environment=measured,
    )  # fmt: skip
    project = tmp_path / "project"
    (project / ".devcontainer").mkdir(parents=True)
    (project / ".devcontainer" / "devcontainer.json").write_text(devcontainer_json(spec))
    workspace = ["--workspace-folder", str(project)]
    images_before = devcontainer_images()
    try:
        up = subprocess.run([cli, "up", *workspace], capture_output=True, text=True, timeout=600)
        assert up.returncode == 0, up.stdout[-3000:] + up.stderr[-3000:]
        ran = subprocess.run([cli, "exec", *workspace, "sh", "-c", f'{PROGRAM}; echo "$SCALE_ENV"; command -v scaleinfo'],
                             capture_output=True, text=True, timeout=300)  # fmt: skip
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert ran.stdout.splitlines() == [
            f"stand-in program: libredscale {TARGET}",
            TARGET,
            "/opt/scale/bin/scaleinfo",
        ]
    finally:
        remove_devcontainers(project, images_before)
