"""Which of clang's error-by-default diagnostics the driver lowers to warnings, by clang
version. tests/test_gxx_leniency.py checks the lists against each stack's clang and NVIDIA's
nvcc with g++."""

from __future__ import annotations

from cudacompat.nvcc import leniency, options, plan
from cudacompat.nvcc.config import ToolkitConfig


def _compile_flags(clang: str, *argv: str) -> tuple[str, ...]:
    config = ToolkitConfig(
        root="/opt/moatbridge/targets/gfx1201", gfx="gfx1201", cuda_version="12.4.131", mimic_cc=86,
        clang_version=clang,
    )  # fmt: skip
    steps = plan.build(options.parse(["-c", "k.cu", *argv]), config, "/work").steps
    first = steps[0]
    assert isinstance(first, plan.Run)
    return first.argv


def test_each_clang_gets_the_groups_it_has() -> None:
    assert leniency.tolerance_flags(17) == [
        "-Wno-error=register", "-Wno-error=c++11-narrowing", "-Wno-error=reserved-user-defined-literal",
        "-Wno-error=parentheses", "-Wno-error=elaborated-enum-class", "-Wno-error=return-type",
        "-Wno-error=enum-constexpr-conversion",
    ]  # fmt: skip
    on_21 = leniency.tolerance_flags(21)
    assert "-Wno-error=return-mismatch" in on_21 and "-Wno-error=init-priority-reserved" in on_21
    assert "-Wno-error=enum-constexpr-conversion" not in on_21 and "-Wno-error=return-type" not in on_21


def test_tolerated_and_kept_do_not_overlap() -> None:
    assert not set(leniency.TOLERATED) & set(leniency.KEPT)
    assert all(reason for reason in leniency.KEPT.values())


def test_cuda_compiles_carry_them_unless_warnings_are_errors() -> None:
    assert "-Wno-error=register" in _compile_flags("21")
    assert "-Wno-error=return-type" in _compile_flags("17")
    # g++ -Werror refuses what it warns about: so does ours then
    for werror in (["-Werror", "all-warnings"], ["-Xcompiler", "-Werror"], ["-Xcompiler=-Wall,-Werror"]):
        assert not any(flag.startswith("-Wno-error=") for flag in _compile_flags("21", *werror)), werror
    # host sources go to the host compiler untouched
    config = ToolkitConfig(root="/r", gfx="gfx1201", cuda_version="12.4.131", mimic_cc=86, clang_version="21")
    host = plan.build(options.parse(["-c", "h.cpp"]), config, "/work").steps[0]
    assert isinstance(host, plan.Run) and not any(a.startswith("-Wno-error=") for a in host.argv)
