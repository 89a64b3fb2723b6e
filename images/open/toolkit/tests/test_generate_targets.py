"""The CUDA layer is generated in two steps: what every image of a stack and CUDA version
shares, then one toolkit directory per target over it (`--only-targets`, run once per image).
The second step alone is tested here; the first runs for real in the image builds under tests/."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cudacompat.generate import cublaslt
from cudacompat.generate.__main__ import main


def _system_include(tmp_path: Path) -> Path:
    include = tmp_path / "usr-include"
    (include / "hip").mkdir(parents=True)
    (include / "hip" / "hip_version.h").write_text(
        "#define HIP_VERSION_MAJOR 6\n#define HIP_VERSION_MINOR 4\n"
    )
    return include


def _arguments(tmp_path: Path, targets: str) -> list[str]:
    return [
        "--prefix", str(tmp_path / "prefix"), "--only-targets", "--targets", targets, "--cuda-version", "13.0",
        "--clang-version", "21", "--rocm-version", "6.4", "--system-include", str(_system_include(tmp_path)),
    ]  # fmt: skip


def test_only_targets_writes_one_directory_per_target_over_the_shared_toolkit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "prefix" / "toolkit" / "lib64").mkdir(parents=True)
    builds: list[tuple[Path, Path, list[str], str]] = []

    def build(lib64: Path, nvcc: Path, targets: list[str], cuda_version: str) -> str:
        builds.append((lib64, nvcc, list(targets), cuda_version))
        return "cuBLASLt: built"

    monkeypatch.setattr(cublaslt, "build", build)
    assert main(_arguments(tmp_path, "gfx1030,gfx1201")) == 0
    # no hipBLASLt in this stack: cuBLASLt over hipBLAS, compiled by the first target's nvcc for all
    prefix = tmp_path / "prefix"
    assert builds == [
        (prefix / "toolkit" / "lib64", prefix / "targets" / "gfx1030" / "bin" / "nvcc", ["gfx1030", "gfx1201"],
         builds[0][3]),
    ]  # fmt: skip
    assert builds[0][3].startswith("13.0.")
    for gfx in ("gfx1030", "gfx1201"):
        root = tmp_path / "prefix" / "targets" / gfx
        assert (root / "bin" / "nvcc").is_file()
        assert (root / "lib64").resolve() == (tmp_path / "prefix" / "toolkit" / "lib64").resolve()
        assert json.loads((root / "version.json").read_text())["cuda"]["version"].startswith("13.0")
        assert gfx in (root / "bin" / "nvcc").read_text()
    assert "HIP_VERSION=6.4" in (tmp_path / "prefix" / "stack.env").read_text()


def test_only_targets_without_a_generated_toolkit_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_arguments(tmp_path, "gfx1030")) == 2
    assert "run without --only-targets first" in capsys.readouterr().err
    assert not (tmp_path / "prefix" / "targets").exists()
