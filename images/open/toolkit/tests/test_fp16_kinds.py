"""The probe of HIP's fp16 header: which cuda_fp16.h host functions HIP has for host code, for
device code only, not at all, or declared for host code but unusable there (an error inside
HIP's header, reported as called by the probe). A stand-in compiler gives clang's diagnostics
here; tests/test_cuda_fp16_host.py runs the real probe in each stack's image and checks the
inventory against NVIDIA's header."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from cudacompat.generate import fp16_kinds

ENTRIES = list(fp16_kinds.entries())
INDEX = {entry.key: n for n, entry in enumerate(ENTRIES)}
FIRST = fp16_kinds._PREAMBLE.count("\n") + 1  # the probe file's line of probe 0


def stand_in_clang(tmp_path: Path, host_errors: str, device_errors: str) -> str:
    """A compiler that prints `host_errors` for the host probe (it has static_asserts) and
    `device_errors` for the device one, and fails when it printed any."""
    (tmp_path / "host.txt").write_text(host_errors)
    (tmp_path / "device.txt").write_text(device_errors)
    script = tmp_path / "clang++"
    script.write_text(
        "#!/bin/sh\n"
        "for last; do :; done\n"
        'if grep -q static_assert "$last"; then out=host; else out=device; fi\n'
        f'cat "{tmp_path}/$out.txt" >&2\n'
        f'test ! -s "{tmp_path}/$out.txt"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def line_of(key: str) -> int:
    return FIRST + INDEX[key]


def test_each_kind_is_read_from_where_clang_reports_the_error(tmp_path: Path) -> None:
    host = (
        f"/tmp/x/probe.hip:{line_of('__hadd')}:20: error: no matching function for call to '__hadd'\n"
        f"/tmp/x/probe.hip:{line_of('__double2half')}:20: error: use of undeclared identifier '__double2half'\n"
        "/usr/include/hip/amd_detail/amd_hip_fp16.h:1486:21: error: reference to __device__ function\n"
        f"/tmp/x/probe.hip:{line_of('__hadd_sat')}:291: note: called by 'probe_{INDEX['__hadd_sat']}'\n"
    )
    device = f"/tmp/x/probe.hip:{line_of('__double2half')}:20: error: use of undeclared identifier\n"
    found = fp16_kinds.kinds(stand_in_clang(tmp_path, host, device))
    assert (found["__hadd"], found["__double2half"], found["__hadd_sat"]) == (1, 2, 3)
    assert found["__hsub"] == 0 and found["op_add"] == 0
    assert len(found) == len(ENTRIES) == len(INDEX)


def test_an_operator_unusable_in_host_code_is_refused(tmp_path: Path) -> None:
    host = f"/tmp/x/probe.hip:9:1: note: called by 'probe_{INDEX['op_mul']}'\n"
    with pytest.raises(RuntimeError, match="operator cannot be replaced"):
        fp16_kinds.kinds(stand_in_clang(tmp_path, host, ""))


def test_a_failure_outside_the_probes_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="outside its probes"):
        fp16_kinds.kinds(stand_in_clang(tmp_path, "/usr/include/hip/hip_fp16.h:1:1: error: broken\n", ""))


def test_headers_name_each_kind_and_replace_only_named_functions() -> None:
    found = {"__hadd": 0, "__hmul": 1, "__double2half": 2, "__hadd_sat": 3, "op_add": 0}
    kinds = fp16_kinds.kinds_header(found)
    assert (
        "#define MOATBRIDGE_FP16_KIND___hadd 0\n" in kinds
        and "#define MOATBRIDGE_FP16_KIND_op_add 0\n" in kinds
    )
    assert "2 for host code, 1 device-only, 1 missing, 1 unusable in host code" in kinds
    replaced = fp16_kinds.replaced_header(found)
    defines = [line for line in replaced.splitlines() if line.startswith("#define")]
    assert defines == [
        "#define __hadd moatbridge_fp16_replaced___hadd",
        "#define __hadd_sat moatbridge_fp16_replaced___hadd_sat",
    ]
    # each after the template forwarding other types to the original name's overloads
    forward = replaced.index("-> decltype(__hadd(args...)) { return __hadd(args...); }")
    assert forward < replaced.index("#define __hadd ")


def test_every_probe_checks_the_result_type_cuda_gives() -> None:
    assert all(entry.result for entry in ENTRIES)
    assert {entry.result for entry in ENTRIES if entry.key.startswith("op") and "assign" in entry.key} == {
        "__half&", "__half2&"
    }  # fmt: skip
