"""Every enum of NVIDIA's CUDA-X headers (cuBLAS, cuRAND, cuSPARSE, cuFFT, cuSOLVER,
library_types.h) of each mimicked release: code that switches over one needs every name, of
the enum's type, each a value of its own. A switch over each, read from NVIDIA's headers,
compiles against them (host C++, the image's g++) and through our nvcc on each stack, or the
enum is listed in tests/cudax_enum_gaps.tsv with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudacompat.generate import signatures

from conftest import docker_run
from support import cudax_enums, nvidia_releases
from support.open_stacks import MIMICKED

GAPS = Path(__file__).with_name("cudax_enum_gaps.tsv")


def _gaps() -> set[str]:
    """The listed enums (the file has api_gaps.tsv's shape: name, tab, reason)."""
    return {gap.name for gap in signatures.load_gaps(GAPS)}


# --- reading (pure) ---------------------------------------------------------------------------


def test_members_read_values_as_the_compiler_would() -> None:
    body = "A = -1, B, C = 0x10, D = A, E = 7u\n, F"
    assert cudax_enums.members(body) == (("A", -1), ("B", 0), ("C", 16), ("D", -1), ("E", 7), ("F", 8))
    with pytest.raises(ValueError):
        cudax_enums.members("A = 1 << 2")


def test_probe_cases_each_value_once_and_names_its_aliases() -> None:
    enum = cudax_enums.CudaEnum("cublas_api.h", "algo_t", (("DFALT", -1), ("DEFAULT", -1), ("ONE", 1)))
    source, owners = cudax_enums.probe_source([enum])
    lines = source.splitlines()
    assert "    case DFALT: return 1;" in lines and "    case ONE: return 2;" in lines
    assert "    (void)static_cast<algo_t>(DEFAULT);" in lines
    output = f"probe.cu:{lines.index('    case ONE: return 2;') + 1}:10: error: use of undeclared identifier 'ONE'\n"
    assert cudax_enums.failures(output, owners) == {"algo_t": "use of undeclared identifier 'ONE'"}
    with pytest.raises(ValueError):
        cudax_enums.probe_source([cudax_enums.CudaEnum("h", "x_t", (("A); system(", 0),))])


def test_every_listed_gap_is_an_enum_of_a_release() -> None:
    names = {
        e.name for release in ("12.4", "13.0") for e in cudax_enums.read(nvidia_releases.include_of(release))
    }
    gaps = signatures.load_gaps(GAPS)
    assert len({gap.name for gap in gaps}) == len(gaps), "an enum is listed twice"
    assert all(gap.reason.strip() for gap in gaps)
    assert {gap.name for gap in gaps} <= names


# --- against NVIDIA's headers and ours ----------------------------------------------------------


@pytest.mark.engine
@pytest.mark.parametrize(("gfx", "fixture", "release"), MIMICKED)
def test_every_cudax_enum_switch_compiles_or_is_a_listed_gap(
    request: pytest.FixtureRequest, gfx: str, fixture: str, release: str, tmp_path: Path
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    include = nvidia_releases.include_of(release)
    enums = cudax_enums.read(include)
    assert len(enums) > 50, [e.name for e in enums]
    source, owners = cudax_enums.probe_source(enums)
    (tmp_path / "probe.cpp").write_text(source)
    (tmp_path / "probe.cu").write_text(source)
    mounts, options = nvidia_releases.header_mounts(release)
    mounts += ["-v", f"{tmp_path}:/work"]
    script = (
        f"cd /work && g++ -std=c++17 -fsyntax-only {options} probe.cpp && echo oracle-ok; "
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null; nvcc -c probe.cu -o /tmp/probe.o -Xcompiler -ferror-limit=0"
    )
    result = docker_run(image, script, *mounts)
    assert "oracle-ok" in result.stdout, result.stderr[-3000:]
    failed = cudax_enums.failures(result.stdout + result.stderr, owners)
    listed = _gaps()
    print(
        f"\nCUDA {release} enums on {gfx}: a switch over every value compiles for {len(enums) - len(failed)} of {len(enums)}"
    )
    unlisted = {name: error for name, error in failed.items() if name not in listed}
    assert not unlisted, f"CUDA {release} enums whose switch fails on {gfx}, not in {GAPS.name}: {unlisted}"
    assert (result.returncode == 0) == (not failed), result.stderr[-3000:]
