"""libnvidia-ml is compiled at image build against the stack's ROCm SMI: the command, where
the library and its link-time names go, and what happens without ROCm SMI's headers or when
the compiler fails (the compiler is replaced here; the tests under tests/ build it for real)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from cudacompat.generate import nvml
from cudacompat.generate.stack import Stack

STACK = Stack(clang_version=21, rocm_version="6.4", hip_version="6.4", hipblaslt=True, rccl=False)


def _system_include(tmp_path: Path, with_rocm_smi: bool = True) -> Path:
    include = tmp_path / "usr-include"
    if with_rocm_smi:
        (include / "rocm_smi").mkdir(parents=True)
        (include / "rocm_smi" / "rocm_smi.h").write_text("/* ROCm SMI */\n")
    return include


def _compiler(returncode: int = 0, calls: list[list[str]] | None = None) -> Any:
    def run(argv: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        if calls is not None:
            calls.append(argv)
        if returncode == 0:
            Path(argv[argv.index("-o") + 1]).write_bytes(b"\x7fELF library")
        return subprocess.CompletedProcess(argv, returncode, "", "nvidia_ml.c:1: error: broken")

    return run


def test_the_library_is_built_with_the_stacks_clang_and_linked_under_cudas_names(tmp_path: Path) -> None:
    lib64, include = tmp_path / "lib64", tmp_path / "include"
    calls: list[list[str]] = []
    said = nvml.build(lib64, include, STACK, _system_include(tmp_path), run=_compiler(calls=calls))
    (argv,) = calls
    assert argv[0] == "/usr/bin/clang-21" and str(nvml.SOURCE) in argv
    assert "-Wl,-soname,libnvidia-ml.so.1" in argv and "-lrocm_smi64" in argv
    assert "-fvisibility=hidden" in argv and argv[argv.index("-I") + 1] == str(include)
    assert (lib64 / "libnvidia-ml.so.1").read_bytes() == b"\x7fELF library"
    assert (lib64 / "libnvidia-ml.so").readlink() == Path("libnvidia-ml.so.1")
    assert (lib64 / "stubs" / "libnvidia-ml.so").resolve() == (lib64 / "libnvidia-ml.so.1").resolve()
    assert not list(lib64.glob(".*partial")) and "over ROCm SMI" in said
    # a rerun replaces what the first wrote
    nvml.build(lib64, include, STACK, _system_include(tmp_path / "again"), run=_compiler())
    assert (lib64 / "libnvidia-ml.so").readlink() == Path("libnvidia-ml.so.1")


def test_without_rocm_smis_headers_nothing_is_built_and_it_says_why(tmp_path: Path) -> None:
    lib64 = tmp_path / "lib64"
    calls: list[list[str]] = []
    said = nvml.build(
        lib64, tmp_path, STACK, _system_include(tmp_path, with_rocm_smi=False), run=_compiler(calls=calls)
    )
    assert calls == [] and not lib64.exists()
    assert "not built" in said and "librocm-smi-dev" in said


def test_a_failed_compile_stops_the_build_and_leaves_no_library(tmp_path: Path) -> None:
    lib64 = tmp_path / "lib64"
    with pytest.raises(RuntimeError, match="broken"):
        nvml.build(lib64, tmp_path, STACK, _system_include(tmp_path), run=_compiler(returncode=1))
    assert not (lib64 / "libnvidia-ml.so.1").exists() and not (lib64 / "libnvidia-ml.so").exists()
