"""What NVIDIA's nvcc builds with g++ (its default host compiler), ours builds too, with the
warning: clang makes some diagnostics errors by default that g++ and nvcc's front end only
warn about (`register` in C++17, narrowing in braces, `"%"FMT`, `a < b < c`, ...).

* Every error-by-default group of the stack's clang (`diagtool show-enabled`) is either
  lowered to a warning by our nvcc or kept an error for a stated reason
  (cudacompat/nvcc/leniency.py), so a new clang's new group cannot slip through unclassified.
* A probe of each lowered group (tests/cuda_programs/leniency/<group>.cu), in host and device
  code, is compiled by NVIDIA's CUDA 13 nvcc from PyPI with the image's g++ and by ours.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from cudacompat.nvcc import leniency

from conftest import REPO, docker_run
from support import nvidia_pypi
from support.open_stacks import OPEN_STACKS

pytestmark = pytest.mark.engine

PROBES = REPO / "tests" / "cuda_programs" / "leniency"
# clang 17 reports the construct of return-mismatch's probe under return-type
PROBE_FOR = {"return-type": "return-mismatch"}
SIDES = ("host", "device")  # the probe script defines SIDE as nothing or __device__
# g++ warns about `a < b < c` only with -Wall, and clang before 20 not at all
QUIET_UNDER_NVCC = {"parentheses"}


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_every_error_by_default_group_is_lowered_or_kept_for_a_reason(
    request: pytest.FixtureRequest, gfx: str, fixture: str
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    script = f""". /opt/moatbridge/bin/activate {gfx} >/dev/null
set -eu
cd /tmp && echo 'int main() {{ return 0; }}' > t.cpp && cp t.cpp t.cu
clang++ --version | head -n 1
diagtool show-enabled -- clang++ -x hip -nogpuinc -nogpulib --offload-arch={gfx} -std=c++17 -c t.cpp
echo '== nvcc'
nvcc -std=c++17 -c t.cu -o t.o
"""
    result = docker_run(image, script)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    listing, nvcc_stderr = result.stdout.split("== nvcc", 1)[0], result.stderr
    version = re.search(r"clang version (\d+)\.", listing)
    assert version, listing[:300]
    errors = set(re.findall(r"^E\s+\S+ \[-W([^\]]+)\]$", listing, re.M))
    assert len(errors) > 20, listing[-2000:]
    unclassified = errors - set(leniency.TOLERATED) - set(leniency.KEPT)
    assert not unclassified, (
        f"clang {version.group(1)} errors by default in groups not classified: {unclassified}"
    )
    lowered = {flag.removeprefix("-Wno-error=") for flag in leniency.tolerance_flags(int(version.group(1)))}
    # each lowered group is one this clang knows (else it warns about an unknown option)
    assert "unknown warning option" not in nvcc_stderr, nvcc_stderr
    assert lowered - {"parentheses"} <= errors, lowered - errors


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_code_nvidias_nvcc_builds_with_a_warning_builds_with_ours(
    request: pytest.FixtureRequest, gfx: str, fixture: str, shared_tmp: Path
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    toolkit = nvidia_pypi.cuda_13()
    work = shared_tmp / gfx
    shutil.copytree(PROBES, work)
    script = f""". /opt/moatbridge/bin/activate {gfx} >/dev/null
cd {work}
clang++ --version | head -n 1
for probe in *.cu; do
  for side in host device; do
    [ "$side" = device ] && macro=__device__ || macro=
    (  # the two compilers side by side, each on its own core
      /nvidia/bin/nvcc -ccbin g++ -allow-unsupported-compiler -std=c++17 -arch=sm_80 "-DSIDE=$macro" \\
          -c "$probe" -o /dev/null >/dev/null 2>&1
      echo "nvidia ${{probe%.cu}} $side $?" > "${{probe%.cu}}.$side.nvidia"
    ) &
    nvcc -std=c++17 "-DSIDE=$macro" -c "$probe" -o /dev/null 2>ours.err
    echo "ours ${{probe%.cu}} $side $? $(grep -c 'warning:' ours.err)"
    wait
  done
done
cat ./*.nvidia
"""
    result = docker_run(image, script, "-v", f"{work}:{work}", "-v", f"{toolkit}:/nvidia:ro")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    version = re.search(r"clang version (\d+)\.", result.stdout)
    assert version, result.stdout[:300]
    outcomes = {tuple(words[:3]): words[3:] for words in map(str.split, result.stdout.splitlines()[1:])}
    lowered = {flag.removeprefix("-Wno-error=") for flag in leniency.tolerance_flags(int(version.group(1)))}
    probed = {PROBE_FOR.get(group, group) for group in lowered} & {p.stem for p in PROBES.glob("*.cu")}
    assert len(probed) >= 7, probed
    for probe in sorted(probed):
        for side in SIDES:
            assert outcomes[("nvidia", probe, side)] == ["0"], (
                f"NVIDIA's nvcc refuses {probe} ({side}): a bad probe"
            )
            code, warnings = outcomes[("ours", probe, side)]
            assert code == "0", f"ours refuses {probe} in {side} code, which NVIDIA's nvcc builds"
            if probe not in QUIET_UNDER_NVCC:
                assert int(warnings) >= 1, f"ours builds {probe} in {side} code without the warning"
