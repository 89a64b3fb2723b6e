"""The CI job that runs a project's tests on an emulated AMD GPU, on an ordinary runner
without one (pure shell text; core/ci_templates.py puts it in GitHub's and GitLab's files).

AMD ships its GPU emulator, rocjitsu, only in its nightly ROCm packages (`amdrocm-emulation`
on rocm.nightlies.amd.com), whose file names carry the build: the job takes the package's
URL from a CI variable (EMULATOR_DEB), unpacks it without installing (no other AMD package
is needed beside the toolchain image's own ROCm), finds the emulator's CLI with its
library, chooses the GPU profile the emulator ships for the target, and checks that the
runtime enumerates the emulated GPU before the tests run: a profile whose GPU the runtime
does not know enumerates none, and tests that skip without a GPU would then pass.
"""

from __future__ import annotations

from moatbridge.core.emulator import UNSET_UNDER_EMULATION
from moatbridge.core.sh_quote import sh_quote

EMULATOR_DEB = "MOATBRIDGE_EMULATOR_DEB"

# Which of the package's profiles describes the target: rocjitsu's profiles name it by the
# KFD number (vm.gpu.device.gfx_target_version); translation profiles are left out.
_PROFILE_PICKER = r"""
import glob, json, os, sys
want, root = sys.argv[1], sys.argv[2]
def gfx(number):
    major, minor, step = number // 10000 % 100, number // 100 % 100, number % 100
    return "gfx%d%d%x" % (major, minor, step)
for path in sorted(glob.glob(os.path.join(root, "share", "rocjitsu", "configs", "*.json"))):
    try:
        data = json.load(open(path))
        number = data["vm"]["gpu"]["device"]["gfx_target_version"]
    except (OSError, ValueError, KeyError, TypeError):
        continue
    if "dbt_guest" not in data and isinstance(number, int) and gfx(number) == want:
        print(path)
        break
""".strip()

_GPU_COUNT = r"""#include <cstdio>
#include <cuda_runtime.h>
int main() {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < 1) {
        std::printf("moatbridge: the runtime enumerates no emulated GPU (%s)\n", cudaGetErrorString(e));
        return 1;
    }
    std::printf("moatbridge: %d emulated GPU(s)\n", n);
    return 0;
}
"""


def emulated_test_script(gfx: str, test: tuple[str, ...]) -> str:
    """The job's one step: fetch and unpack the emulator, choose its profile for ``gfx``,
    check the GPU is there, then run ``test`` under it."""
    tests = "\n".join(test)
    return f"""set -eu
# AMD's GPU emulator (rocjitsu) from AMD's nightly ROCm packages: set the CI variable
# {EMULATOR_DEB} to the URL of a current amdrocm-emulation .deb (rocm.nightlies.amd.com).
if [ -z "${{{EMULATOR_DEB}:-}}" ]; then
  echo "moatbridge: set the CI variable {EMULATOR_DEB} to the URL of AMD's amdrocm-emulation .deb" >&2
  exit 1
fi
unset {" ".join(UNSET_UNDER_EMULATION)}
python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \\
  "${EMULATOR_DEB}" /tmp/amd-emulation.deb
mkdir -p /tmp/amd-emulation
dpkg-deb -x /tmp/amd-emulation.deb /tmp/amd-emulation
emulator=
for cli in $(find /tmp/amd-emulation -path '*/bin/rocjitsu' -o -path '*/bin/mirage'); do
  bin=$(dirname "$cli")
  if [ -f "$bin/../lib/librocjitsu.so" ] || [ -f "$bin/../lib64/librocjitsu.so" ]; then
    emulator=$cli
    break
  fi
done
if [ -z "$emulator" ]; then
  echo "moatbridge: the package holds no rocjitsu (or mirage) with its librocjitsu.so" >&2
  exit 1
fi
profile=$(python3 -c {sh_quote(_PROFILE_PICKER)} {gfx} "$(dirname "$(dirname "$emulator")")")
if [ -z "$profile" ]; then
  echo "moatbridge: the emulator has no GPU profile for {gfx}" >&2
  exit 1
fi
echo "moatbridge: the GPU is emulated: {gfx} ($emulator, profile $profile)"
cat > /tmp/gpu-count.cu <<'MOATBRIDGE_CU'
{_GPU_COUNT}MOATBRIDGE_CU
nvcc -o /tmp/gpu-count /tmp/gpu-count.cu
"$emulator" --config "$profile" -- /tmp/gpu-count
"$emulator" --config "$profile" -- sh -ec {sh_quote(tests)}
"""
