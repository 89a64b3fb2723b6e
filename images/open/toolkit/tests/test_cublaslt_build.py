"""libcublasLt over hipBLAS is compiled when the image's targets are known, by the toolkit's
own nvcc: the command, where the library and its link-time names go, and what a failed
compile leaves (the compiler is replaced here; tests/test_cublaslt.py builds it for real)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from cudacompat.generate import cublaslt
from cudacompat.generate.stack import Stack
from cudacompat.generate.toolkit import write_libraries


def _compiler(
    returncode: int = 0, calls: list[list[str]] | None = None, refused: tuple[str, ...] = ()
) -> Any:
    """A stand-in for nvcc: the library build (-shared) exits with `returncode`; a target's
    probe (-c) fails for the `refused` targets."""

    def run(argv: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        if "-c" in argv:
            gfx = argv[argv.index("-arch") + 1]
            return subprocess.CompletedProcess(argv, 1 if gfx in refused else 0, "", "")
        if calls is not None:
            calls.append(argv)
        if returncode == 0:
            Path(argv[argv.index("-o") + 1]).write_bytes(b"\x7fELF library")
        return subprocess.CompletedProcess(argv, returncode, "", "cublaslt.cu:1: error: broken")

    return run


@pytest.mark.parametrize(
    ("cuda", "soname"), [("12.4.131", "libcublasLt.so.12"), ("13.0.88", "libcublasLt.so.13")]
)
def test_the_library_has_kernels_for_every_target_and_nvidias_names(
    tmp_path: Path, cuda: str, soname: str
) -> None:
    lib64 = tmp_path / "lib64"
    write_libraries(
        lib64, Stack(clang_version=17, rocm_version="5.7", hip_version="5.7", hipblaslt=False, rccl=False)
    )
    assert "placeholder" in (lib64 / "libcublasLt.so").read_text()
    calls: list[list[str]] = []
    nvcc = tmp_path / "targets" / "gfx1030" / "bin" / "nvcc"
    said = cublaslt.build(lib64, nvcc, ["gfx1030", "gfx1100"], cuda, run=_compiler(calls=calls))
    (argv,) = calls
    assert argv[0] == str(nvcc) and str(cublaslt.SOURCE) in argv and "-lcublas" in argv
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "-arch"] == ["gfx1030", "gfx1100"]
    assert f"-soname={soname}" in argv and "--no-undefined" in argv and "-fvisibility=hidden" in argv
    assert (lib64 / soname).read_bytes() == b"\x7fELF library"
    # the placeholder linker script is replaced by the library's link-time name
    assert (lib64 / "libcublasLt.so").readlink() == Path(soname)
    assert (lib64 / "libcublasLt_static.a").read_text().splitlines()[-1] == "INPUT(-lcublasLt)"
    assert not list(lib64.glob(".*partial")) and "gfx1030, gfx1100" in said
    cublaslt.build(lib64, nvcc, ["gfx1030"], cuda, run=_compiler())  # a rerun replaces it
    assert (lib64 / "libcublasLt.so").readlink() == Path(soname)


def test_a_failed_compile_stops_the_build_and_leaves_the_placeholder(tmp_path: Path) -> None:
    lib64 = tmp_path / "lib64"
    write_libraries(
        lib64, Stack(clang_version=17, rocm_version="5.7", hip_version="5.7", hipblaslt=False, rccl=False)
    )
    with pytest.raises(RuntimeError, match="broken"):
        cublaslt.build(lib64, tmp_path / "nvcc", ["gfx1030"], "12.4.131", run=_compiler(returncode=1))
    assert not (lib64 / "libcublasLt.so.12").exists() and not list(lib64.glob(".*partial"))
    assert "placeholder" in (lib64 / "libcublasLt.so").read_text()


def test_targets_hip_refuses_are_left_out_and_said(tmp_path: Path) -> None:
    lib64 = tmp_path / "lib64"
    lib64.mkdir()
    calls: list[list[str]] = []
    said = cublaslt.build(
        lib64, tmp_path / "nvcc", ["gfx700", "gfx1030", "gfx701"], "12.4.131",
        run=_compiler(calls=calls, refused=("gfx700", "gfx701")),
    )  # fmt: skip
    (argv,) = calls
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "-arch"] == ["gfx1030"]
    assert "gfx700, gfx701" in said and (lib64 / "libcublasLt.so.12").exists()


def test_no_target_hip_compiles_for_leaves_the_placeholder(tmp_path: Path) -> None:
    lib64 = tmp_path / "lib64"
    write_libraries(
        lib64, Stack(clang_version=17, rocm_version="5.7", hip_version="5.7", hipblaslt=False, rccl=False)
    )
    calls: list[list[str]] = []
    said = cublaslt.build(
        lib64, tmp_path / "nvcc", ["gfx700"], "12.4.131", run=_compiler(calls=calls, refused=("gfx700",))
    )
    assert calls == [] and "not built" in said and "gfx700" in said
    assert "placeholder" in (lib64 / "libcublasLt.so").read_text()
