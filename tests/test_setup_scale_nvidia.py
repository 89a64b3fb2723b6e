"""`setup` for SCALE's NVIDIA mode (sm_NN targets): the flavour must be named under
--yes, runs take docker's NVIDIA path, and the image must hold an NVIDIA CUDA toolkit,
checked with the shims' own activation against the stand-in (with and without a FAKE
NVIDIA toolkit tree)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from moatbridge.adapters.hostfs import HostFS
from moatbridge.adapters.records import load_catalog
from moatbridge.core.answers import Answers, merge
from moatbridge.core.detection import detect
from moatbridge.core.image_spec import ImageSpec
from moatbridge.core.setup_plan import NVIDIA_MODE_REASON, defaults, make_plan
from moatbridge.errors import UsageError
from test_setup_scale import _env, mb

from support.environ import strip_environ
from support.scale_standin import StandinRepoServer, build_standin_repo, missing_tools
from support.scale_standin_layout import write_fake_nvidia_toolkit, write_scale_tree
from support.toolchains import make_toolchain, warm_container

# --- SCALE's NVIDIA mode ------------------------------------------------------------------------


def test_an_nvidia_machine_is_offered_scales_nvidia_mode(machine: Any) -> None:
    report = detect(HostFS(str(machine("nvidia-only"))), {})
    offered = defaults(report, {"SHELL": "/bin/bash"}, {})
    # The target is SCALE's NVIDIA mode; the flavour, whose licence needs acceptance, is not
    # defaulted: the wizard proposes it, --yes must name it.
    assert (offered.image.flavour, offered.image.targets) == (None, ("sm_89",))  # an RTX 4090
    with pytest.raises(UsageError) as unnamed:
        make_plan(merge(Answers(use="non-commercial", accept_license=True), offered), load_catalog())
    assert "named explicitly" in unnamed.value.message and "--flavour scale" in str(unnamed.value.hint)
    chosen = merge(Answers(ImageSpec(flavour="scale"), use="non-commercial", accept_license=True), offered)
    plan = make_plan(chosen, load_catalog())
    assert plan.targets == ("sm_89",) and plan.flavour == "scale"
    assert any("NVIDIA mode" in w for w in plan.warnings)
    assert "NVIDIA's own CUDA libraries" in NVIDIA_MODE_REASON
    # An AMD GPU next to it keeps the AMD default.
    amd = detect(HostFS(str(machine("rdna3-desktop"))), {})
    assert defaults(amd, {}, {}).image.flavour == "open"


def test_yes_never_accepts_scales_licence_unnamed(
    machine: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`setup --yes --accept-license` on an NVIDIA-only machine, without --flavour: refused
    (exit 2, one sentence and a hint) before anything is asked of the engine, no consent on record."""
    from moatbridge import cli
    from moatbridge.adapters import hostfs
    from moatbridge.commands import setup

    root = machine("nvidia-only")
    monkeypatch.setattr(setup, "HostFS", lambda _root: hostfs.HostFS(str(root)))
    home = tmp_path / "home"
    home.mkdir()
    strip_environ(monkeypatch, "MOATBRIDGE_", "XDG_")
    monkeypatch.setenv("HOME", str(home))
    status = cli.main(["setup", "--yes", "--accept-license", "--use", "non-commercial", "--no-modify-rc"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "No flavour was named for sm_89 (NVIDIA: SCALE's NVIDIA mode)" in err and "--flavour scale" in err
    assert "Traceback" not in err
    assert [p for p in home.rglob("*") if p.is_file()] == []  # no consent, no state, no answers


def test_nvidia_mode_runs_take_dockers_nvidia_path(machine: Any) -> None:
    from moatbridge.core.shims import ToolchainRuntime, render_toolchain_env
    from moatbridge.paths import Paths
    from moatbridge.services import runtime as host_runtime
    from moatbridge.services.verify import gpu_run_args

    toolchain = make_toolchain(
        "scale-sm_89", "scale", "devel", ("sm_89",), "13.0.2", "img", "sha256:x", "scale-free"
    )
    runtime = host_runtime.runtime_for(toolchain, Paths.from_environ(os.environ), licence_required=True)
    assert runtime.devices == () and runtime.group_adds == ()  # never /dev/kfd for sm_NN
    assert runtime.activate.endswith(". /opt/scale/bin/scaleenv")
    assert runtime.gpus == host_runtime.nvidia_gpu_access()  # --gpus only where the toolkit serves it
    rendered = render_toolchain_env(ToolchainRuntime(**{**runtime.__dict__, "gpus": True}))
    assert "MB_RUN_ARGS='--gpus all'" in rendered
    report = detect(HostFS(str(machine("nvidia-only"))), {})
    assert gpu_run_args(report, "sm_89") == (("--gpus", "all") if host_runtime.nvidia_gpu_access() else ())
    assert "/dev/kfd" not in " ".join(gpu_run_args(report, "sm_89"))


def test_the_stand_ins_scaleenv_picks_an_nvidia_toolkit_for_sm_targets(tmp_path: Path) -> None:
    """As the vendor's scaleenv sm_NN does: CUDA_PATH on an NVIDIA install when one is there
    (here the FAKE one), SCALE's NVIDIA-mode nvcc first on PATH; else its old guess."""
    write_scale_tree(tmp_path, "1.7.2")
    script = '. "$0/opt/scale/bin/scaleenv" sm_89; echo "$CUDA_PATH"; command -v nvcc'
    bare = subprocess.run(["bash", "-uec", script, str(tmp_path)], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin"})  # fmt: skip
    assert bare.stdout.splitlines()[0] == f"{tmp_path}/opt/scale/targets/sm_any", bare.stderr
    write_fake_nvidia_toolkit(tmp_path)
    found = subprocess.run(["bash", "-uec", script, str(tmp_path)], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin"})  # fmt: skip
    assert found.stdout.splitlines() == [f"{tmp_path}/usr/local/cuda", f"{tmp_path}/opt/scale/llvm/bin/nvcc"]
    assert "Using cuda install at" in found.stderr


@pytest.fixture(scope="module")
def sm_images(debian_base: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Two tiny SCALE stand-in images: with the FAKE NVIDIA toolkit and without any."""
    images: dict[str, str] = {}
    try:
        for kind in ("without", "with"):
            context = tmp_path_factory.mktemp(f"sm-{kind}")
            write_scale_tree(context / "root", "1.7.2-standin", targets=("gfx1030",))
            if kind == "with":
                write_fake_nvidia_toolkit(context / "root")
            (context / "Dockerfile").write_text(f"FROM {debian_base}\nCOPY root/ /\n")
            tag = f"moatbridge-test/scale-sm-{kind}:{secrets.token_hex(4)}"
            built = subprocess.run(["docker", "build", "-q", "--network", "none", "-t", tag, str(context)],
                                   capture_output=True, text=True, timeout=600)  # fmt: skip
            assert built.returncode == 0, built.stderr
            images[kind] = tag
        yield images
    finally:
        for tag in images.values():
            subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, check=False)


@pytest.mark.engine
def test_verification_of_nvidia_mode_needs_nvidias_toolkit(sm_images: dict[str, str]) -> None:
    """Setup's check runs the shims' own activation (ACTIVATORS, then the target) and refuses
    an sm_NN image whose scaleenv finds no NVIDIA CUDA toolkit; gfx targets are unaffected."""
    from moatbridge.errors import MoatbridgeError
    from moatbridge.services.verify import verify

    plan = make_plan(Answers(ImageSpec("scale", targets=("sm_89",)), use="non-commercial"), load_catalog())
    with pytest.raises(MoatbridgeError) as refused:
        verify(sm_images["without"], plan.spec)
    assert refused.value.message == (
        f"The toolchain image {sm_images['without']} has no NVIDIA CUDA toolkit, which SCALE's NVIDIA mode "
        "(sm_89) needs for CUDA's headers and libraries."
    )
    hint = str(refused.value.hint)
    assert "--base-image REF" in hint and "--registry HOST/PATH" in hint and "SCALE's NVIDIA mode" in hint
    assert "CUDA_PATH after activation: /opt/scale/targets/sm_any" in hint
    assert verify(sm_images["with"], plan.spec) is None
    gfx = make_plan(Answers(ImageSpec("scale", targets=("gfx1030",)), use="non-commercial"), load_catalog())
    assert verify(sm_images["without"], gfx.spec) is None


@pytest.mark.engine
def test_setup_for_sm_89_against_the_stand_in(engine_version: str, debian_base: str, tmp_path: Path) -> None:
    """Without an NVIDIA toolkit in the image, setup refuses and records nothing; built on a
    base that has one (here the FAKE toolkit: the user's would be NVIDIA's cuda-toolkit-12-x
    or an nvidia/cuda image), the toolchain works."""
    if missing_tools():
        pytest.fail(f"the stand-in repository needs: {' '.join(missing_tools())}")
    home = tmp_path / "home"
    home.mkdir()
    repo = build_standin_repo(tmp_path / "standin")
    context = tmp_path / "nvidia-base"
    write_fake_nvidia_toolkit(context / "root")
    (context / "Dockerfile").write_text(f"FROM {debian_base}\nCOPY root/ /\n")
    nvidia_base = f"moatbridge-test/fake-nvidia-cuda:{secrets.token_hex(4)}"
    built = subprocess.run(["docker", "build", "-q", "--network", "none", "-t", nvidia_base, str(context)],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
    assert built.returncode == 0, built.stderr
    image_ids: list[str] = []

    def setup(server: StandinRepoServer, base: str) -> subprocess.CompletedProcess[str]:
        done = mb(
            home, "setup", "--yes", "--flavour", "scale", "--target", "sm_89", "--source", "build",
            "--use", "non-commercial", "--accept-license", "--repo-url", server.url,
            "--base-image", base, "--build-arg", "SCALE_PREREQS=",
            "--build-arg", f"SCALE_VERSION={repo.scale_version}",
            "--build-arg", "SCALE_VENDOR_HOSTS=scale-standin.invalid", "--no-modify-rc",
        )  # fmt: skip
        reference = next(
            (line.split()[1] for line in done.stdout.splitlines() if line.startswith("  image ")), ""
        )
        found = subprocess.run(["docker", "image", "inspect", "-f", "{{.Id}}", reference], capture_output=True,
                               text=True) if reference else None  # fmt: skip
        if found is not None and found.returncode == 0:
            image_ids.append(found.stdout.strip())
        return done

    try:
        with StandinRepoServer(repo.root) as server:
            refused = setup(server, debian_base)
            assert refused.returncode == 1, refused.stdout + refused.stderr
            assert "has no NVIDIA CUDA toolkit, which SCALE's NVIDIA mode (sm_89) needs" in refused.stderr
            assert "--base-image REF" in refused.stderr and "Traceback" not in refused.stderr
            # Nothing on record: no toolchain, no consent (it is recorded once the toolchain works).
            assert json.loads(mb(home, "list", "--json").stdout)["toolchains"] == []
            assert not list((home / ".local/share/moatbridge").rglob("*consent*"))
            setup_ok = setup(server, nvidia_base)
        assert setup_ok.returncode == 0, setup_ok.stdout + setup_ok.stderr
        assert "SCALE's NVIDIA mode" in setup_ok.stdout
        (toolchain,) = json.loads(mb(home, "list", "--json").stdout)["toolchains"]
        assert toolchain["targets"] == ["sm_89"]
        conf = (home / ".local/share/moatbridge/toolchains/scale-sm_89/toolchain.env").read_text()
        assert "MB_TARGET='sm_89'" in conf and "/dev/kfd" not in conf
        work = home / "w"
        work.mkdir()
        shim = home / ".local/share/moatbridge/toolchains/scale-sm_89/bin/nvcc"
        ran = subprocess.run(
            [str(shim), "--version"], capture_output=True, text=True, cwd=work, env=_env(home)
        )
        assert ran.returncode == 0 and "SCALE" in ran.stdout, ran.stdout + ran.stderr
        env = mb(home, "run", "--", "printenv", "SCALE_ENV", "CUDA_PATH")
        assert env.stdout.split() == ["sm_89", "/usr/local/cuda"], env.stdout + env.stderr
    finally:
        mb(home, "uninstall", "--all", "--remove-images")
        subprocess.run(["docker", "rm", "-f", warm_container("scale-sm_89", home)], capture_output=True)
        subprocess.run(["docker", "rmi", "-f", *image_ids, nvidia_base], capture_output=True)
