"""The wrappers nvcc finds before rocThrust's headers: nvcc's macros hidden, Thrust's CUDA
system served by rocThrust's HIP system, additions where this rocThrust lacks a name.
tests/test_thrust_cuda_system.py checks the result in each stack's image."""

from __future__ import annotations

from pathlib import Path

from cudacompat.generate import toolkit


def _thrust(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_a_public_cuda_system_header_is_served_by_its_hip_counterpart(tmp_path: Path) -> None:
    thrust = _thrust(
        tmp_path, {"system/cuda/pointer.h": "", "system/hip/pointer.h": "", "system/cuda/detail/x.h": ""}
    )
    wrapper = toolkit.thrust_wrapper("system/cuda/pointer.h", thrust)
    assert "#include <thrust/system/hip/pointer.h>\n" in wrapper
    assert "include_next" not in wrapper
    # no HIP counterpart: rocThrust's own header, as for every other header
    assert "#include_next <thrust/system/cuda/detail/x.h>\n" in toolkit.thrust_wrapper(
        "system/cuda/detail/x.h", thrust
    )
    lines = wrapper.splitlines()
    assert lines.index("#include <moatbridge/hide_cuda_macros.h>") < lines.index(
        "#include <moatbridge/thrust_cuda.h>"
    )
    assert lines[-1] == "#include <moatbridge/restore_cuda_macros.h>"


def test_additions_follow_only_the_headers_that_lack_them(tmp_path: Path) -> None:
    old = _thrust(
        tmp_path / "old", {"system/hip/memory.h": "using universal_allocator = x;", "system/hip/error.h": ""}
    )
    new = _thrust(tmp_path / "new", {"system/hip/memory.h": "using universal_host_pinned_allocator = x;"})
    assert "thrust_host_pinned_memory.h" in toolkit.thrust_wrapper("system/hip/memory.h", old)
    assert "thrust_host_pinned_memory.h" not in toolkit.thrust_wrapper("system/hip/memory.h", new)
    assert "#include <moatbridge/thrust_cuda_error.h>" in toolkit.thrust_wrapper("system/hip/error.h", old)
    assert "thrust_cuda_error.h" not in toolkit.thrust_wrapper("system/hip/memory.h", old)


def test_every_rocthrust_file_gets_a_wrapper(tmp_path: Path) -> None:
    thrust = _thrust(tmp_path / "thrust", {"sort.h": "", "system/hip/vector.h": "", "detail/config.h": ""})
    assert toolkit.write_thrust_shadows(tmp_path / "include", thrust) == 3
    assert (tmp_path / "include/moatbridge/shadow/thrust/detail/config.h").is_file()


def test_a_math_function_rocthrust_defines_is_renamed_only_while_its_header_is_read(tmp_path: Path) -> None:
    thrust = _thrust(tmp_path, {"random/detail/erfcinv.h": "static double erfcinv(double x);", "sort.h": ""})
    lines = toolkit.thrust_wrapper("random/detail/erfcinv.h", thrust).splitlines()
    include = lines.index("#include_next <thrust/random/detail/erfcinv.h>")
    assert lines[include - 1] == "#define erfcinv moatbridge_rocthrust_erfcinv"
    assert lines[include + 1] == "#undef erfcinv"
    assert "erfcinv" not in toolkit.thrust_wrapper("sort.h", thrust)
