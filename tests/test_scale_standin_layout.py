"""The SCALE stand-in's file tree (tests/support/scale_standin_layout.py), on the host.

The deb, rpm and tarball stand-ins all install this tree, and tests of library paths
rely on it reproducing the vendor's documented failure: a program built by nvcc cannot
load libredscale.so unless targets/<t>/lib is on LD_LIBRARY_PATH. Checked here with
real shared objects (host gcc) and with the no-compiler fallback.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from support import scale_standin_layout as layout

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")


def _tree(root: Path) -> Path:
    layout.write_scale_tree(root, "1.7.2")
    return root / "opt" / "scale"


def _bash(script: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    base = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"}
    return subprocess.run(
        ["bash", "-uec", script], capture_output=True, text=True, env={**base, **(env or {})}
    )


@pytest.fixture(params=["real", "fallback"])
def prefix(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if request.param == "real" and not layout.real_shared_objects():
        pytest.skip("no C compiler on this host")
    if request.param == "fallback":
        monkeypatch.setattr(layout, "real_shared_objects", lambda: False)
    return _tree(tmp_path)


def test_programs_load_libredscale_only_from_the_target_lib(prefix: Path, tmp_path: Path) -> None:
    app = tmp_path / "app"
    built = _bash(f". {prefix}/bin/scaleenv gfx1100 && nvcc --require-scale -o {app} app.cu")
    assert built.returncode == 0, built.stderr
    bare = _bash(str(app))
    assert bare.returncode == 127
    assert layout.LOADER_ERROR in bare.stderr
    for target in ("gfx1030", "gfx1100"):
        ran = _bash(str(app), {"LD_LIBRARY_PATH": f"{prefix}/targets/{target}/lib"})
        assert (ran.returncode, ran.stdout) == (0, f"stand-in program: libredscale {target}\n"), ran.stderr
    wrong = _bash(str(app), {"LD_LIBRARY_PATH": f"{prefix}/lib64:{prefix}/lib"})
    assert wrong.returncode == 127


def test_scaleenv_sets_and_deactivate_restores(tmp_path: Path) -> None:
    prefix = _tree(tmp_path)
    script = (
        f'. {prefix}/bin/scaleenv gfx1030; echo "$CUDA_HOME|$CUDA_PATH|$SCALE_ENV|$CUDAARCHS|$LD_LIBRARY_PATH";'
        ' echo "${PATH%%:*}|$CUDACXX"; deactivate; echo "$PATH|${LD_LIBRARY_PATH-unset}|${CUDA_HOME-unset}"'
    )
    result = _bash(script)
    assert result.returncode == 0, result.stderr
    target = f"{prefix}/targets/gfx1030"
    assert result.stdout.splitlines() == [
        f"{target}|{target}|gfx1030|86|{target}/lib",
        f"{target}/bin|{target}/bin/nvcc",
        "/usr/bin:/bin|unset|unset",
    ]
    kept = _bash(
        f". {prefix}/bin/scaleenv gfx1100; deactivate; echo $LD_LIBRARY_PATH", {"LD_LIBRARY_PATH": "/x"}
    )
    assert kept.stdout == "/x\n"


@pytest.mark.parametrize(("target", "archs"), [("sm_89", "89"), ("sm_90a", "90a"), ("sm_120f", "120f")])
def test_scaleenv_nvidia_mode(tmp_path: Path, target: str, archs: str) -> None:
    prefix = _tree(tmp_path)
    result = _bash(f". {prefix}/bin/scaleenv {target}; echo $SCALE_ENV $CUDAARCHS $CUDA_HOME; nvcc --version")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"{target} {archs} {prefix}/targets/{layout.NVIDIA_TARGET_DIR}"
    assert "SCALE stand-in 1.7.2" in lines[1]


@pytest.mark.parametrize("target", ["gfx9999", "sm_", "sm_89x", ""])
def test_scaleenv_refuses_unknown_targets(tmp_path: Path, target: str) -> None:
    prefix = _tree(tmp_path)
    result = _bash(f". {prefix}/bin/scaleenv {target} || echo refused=$?; echo ${{CUDA_HOME-unset}}")
    assert result.stdout.splitlines() == ["refused=1", "unset"], result.stderr


@pytest.mark.skipif(shutil.which("zsh") is None, reason="needs zsh")
def test_scaleenv_finds_itself_from_zsh(tmp_path: Path) -> None:
    prefix = _tree(tmp_path)
    result = subprocess.run(
        ["zsh", "-c", f". {prefix}/bin/scaleenv gfx1100 && echo $CUDA_HOME"], capture_output=True, text=True
    )
    assert result.stdout == f"{prefix}/targets/gfx1100\n", result.stderr


def test_tools_fail_like_the_vendors_without_kfd(tmp_path: Path) -> None:
    prefix = _tree(tmp_path)
    if Path("/dev/kfd").exists():
        pytest.skip("this host has /dev/kfd")
    result = _bash(f"{prefix}/bin/hsakmtsysinfo")
    assert (result.returncode, result.stderr) == (1, "HSAKMT Error 20: Could not open KFD\n")
    result = _bash(f"{prefix}/bin/scaleinfo")
    assert result.returncode == 1 and "Error getting device count" in result.stderr


def test_dkms_leftovers(tmp_path: Path) -> None:
    paths = layout.write_dkms_leftovers(tmp_path)
    assert paths == ["/usr/src/amdgpu-standin", "/var/lib/dkms/amdgpu-standin", "/boot/standin-initrd"]
    assert all((tmp_path / path.lstrip("/")).exists() for path in paths)
