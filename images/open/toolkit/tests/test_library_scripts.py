"""The CUDA library names in the toolkit's lib64 are linker scripts onto the stack's ROCm
libraries; where a ROCm release moved a library's symbols, the script follows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudacompat.generate.stack import Stack
from cudacompat.generate.toolkit import write_libraries


def _stack(hip: str) -> Stack:
    return Stack(clang_version=21, rocm_version=hip, hip_version=hip, hipblaslt=False, rccl=False)


@pytest.mark.parametrize(
    ("hip", "inputs"),
    [
        ("5.7", "-lamdhip64"),
        ("6.4", "-lamdhip64"),
        ("7.2", "-lhiprtc -lamdhip64"),
        ("8.0", "-lhiprtc -lamdhip64"),
    ],
)
def test_nvrtc_links_where_the_stack_keeps_hiprtc(tmp_path: Path, hip: str, inputs: str) -> None:
    """HIP 7 moved hiprtc out of libamdhip64 (a -lnvrtc link on experimental's HIP 7.2 had
    every hiprtc symbol undefined); the runtime's own names stay in libamdhip64."""
    write_libraries(tmp_path, _stack(hip))
    assert (tmp_path / "libnvrtc.so").read_text().splitlines()[-1] == f"INPUT({inputs})"
    assert (tmp_path / "libcudart.so").read_text().splitlines()[-1] == "INPUT(-lamdhip64)"
