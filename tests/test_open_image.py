"""The open flavour's images, built for real from a debootstrapped Debian base.

Without a GPU the HIP runtime answers "no ROCm-capable device is detected": that is
the expected end of every run here.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from conftest import build_image, docker_run

pytestmark = pytest.mark.engine

VECTOR_ADD = r"""
#include <hip/hip_runtime.h>
#include <cstdio>
__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
int main() {
  int devices = 0;
  hipError_t err = hipGetDeviceCount(&devices);
  if (err != hipSuccess) { std::printf("hip: %s\n", hipGetErrorString(err)); return 3; }
  const int n = 1 << 20;
  float *a, *b, *c;
  if (hipMalloc(&a, n * sizeof(float)) != hipSuccess || hipMalloc(&b, n * sizeof(float)) != hipSuccess ||
      hipMalloc(&c, n * sizeof(float)) != hipSuccess) return 5;
  hipLaunchKernelGGL(add, dim3(n / 256), dim3(256), 0, 0, a, b, c, n);
  return hipDeviceSynchronize() == hipSuccess ? 0 : 4;
}
"""

# A shell function: `first_bundle LIB` prints the targets of LIB's first offload bundle.
FIRST_BUNDLE = r"""
first_bundle() {
python3 - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", data, 0x28)
size, count, strndx = struct.unpack_from("<HHH", data, 0x3A)
headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * size) for i in range(count)]
names = headers[strndx][4]
for h in headers:
    if data[names + h[0]:data.index(b"\0", names + h[0])] == b".hip_fatbin":
        start = h[4]
        n, = struct.unpack_from("<Q", data, start + 24)
        # Hand the first bundle to the real bundler, the way a user would inspect it.
        pos, last = start + 32, 0
        for _ in range(n):
            off, sz, tl = struct.unpack_from("<QQQ", data, pos)
            pos += 24 + tl
            last = max(last, off + sz)
        open("/tmp/bundle.bin", "wb").write(data[start:start + last])
PY
/usr/lib/llvm-17/bin/clang-offload-bundler --list --type=o --input=/tmp/bundle.bin | sort | tr '\n' ' '
}
"""


def labels(reference: str) -> dict[str, str]:
    import subprocess

    out = subprocess.run(["docker", "inspect", reference], capture_output=True, text=True, check=True).stdout
    return dict(json.loads(out)[0]["Config"]["Labels"])


def test_labels(open_devel_gfx1030: dict[str, Any]) -> None:
    found = labels(open_devel_gfx1030["reference"])
    assert found["io.moatbridge.flavour"] == "open"
    assert found["io.moatbridge.variant"] == "devel"
    assert found["io.moatbridge.targets"] == "gfx1030"
    assert found["io.moatbridge.library-targets"] == "gfx1030"
    assert found["io.moatbridge.cuda-version"] == "12.4"
    assert found["io.moatbridge.licence"] == "open-components"
    assert found["io.moatbridge.recipe-digest"] == open_devel_gfx1030["recipe_digest"]
    assert found["io.moatbridge.managed"] == "1"
    assert found["org.opencontainers.image.title"].startswith("moatbridge open devel")


def test_rebuild_with_nothing_changed_is_skipped(open_devel_gfx1030: dict[str, Any]) -> None:
    again = build_image("--flavour", "open", "--target", "gfx1030")
    assert again["action"] == "up-to-date"
    assert again["recipe_digest"] == open_devel_gfx1030["recipe_digest"]


def test_installed_versions_are_checked_against_the_catalog(open_devel_gfx1030: dict[str, Any]) -> None:
    from moatbridge.adapters.records import load_catalog

    pinned = dict(load_catalog().flavour("open").distro("trixie").pinned)
    again = build_image("--flavour", "open", "--target", "gfx1030")
    # The devel image holds every pinned package, each at exactly the pinned version: a drift
    # line here means the mirror moved on and images/catalog.yaml's pins need a refresh.
    assert again["pinned_checked"] == len(pinned) == 17
    assert again["pinned_drift"] == []


def test_vector_add_for_two_targets(open_devel_gfx1030: dict[str, Any]) -> None:
    script = (
        f"cat > /tmp/vadd.hip <<'EOF'\n{VECTOR_ADD}\nEOF\n"
        "cd /tmp && hipcc --offload-arch=gfx1030 --offload-arch=gfx1100 -o vadd vadd.hip\n"
        f"{FIRST_BUNDLE}\nfirst_bundle /tmp/vadd\n"
        "echo; ./vadd; echo exit=$?"
    )
    result = docker_run(open_devel_gfx1030["reference"], script)
    assert result.returncode == 0, result.stderr
    assert (
        "hipv4-amdgcn-amd-amdhsa--gfx1030 hipv4-amdgcn-amd-amdhsa--gfx1100 host-x86_64-unknown-linux--"
        in result.stdout
    )
    assert "no ROCm-capable device is detected" in result.stdout + result.stderr
    assert "exit=3" in result.stdout


def test_libraries_keep_only_the_chosen_target(open_devel_gfx1030: dict[str, Any]) -> None:
    lib = "/usr/lib/x86_64-linux-gnu"
    script = (
        f"{FIRST_BUNDLE}\n"
        "for l in librocblas.so.0.1 librocsolver.so.0.1 librocsparse.so.0.1 librccl.so.1.0; do "
        f"first_bundle {lib}/$l; echo; done\n"
        f"ls {lib}/rocblas/*/library | tr '\\n' ' '; echo\n"
        "PYTHONPATH=/opt/moatbridge/lib python3 -m cudacompat.prune --verify-only --keep gfx1030 && echo verified\n"
        "python3 -c 'import json; r = json.load(open(\"/opt/moatbridge/prune-report.json\")); print(sorted(r))'\n"
        "cat > /tmp/link.cpp <<'EOF'\n#include <rocblas/rocblas.h>\n#include <rocsolver/rocsolver.h>\n"
        "int main() { rocblas_handle h; return rocblas_create_handle(&h) == rocblas_status_success ? 0 : 5; }\nEOF\n"
        "hipcc -o /tmp/link /tmp/link.cpp -lrocblas -lrocsolver && echo linked && (/tmp/link; echo exit=$?)"
    )
    result = docker_run(open_devel_gfx1030["reference"], script)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    for line in lines[:4]:
        assert line.strip() == "hipv4-amdgcn-amd-amdhsa--gfx1030 host-x86_64-unknown-linux--", line
    tensile = lines[4].split()
    assert "TensileLibrary.dat" in tensile
    assert all("gfx1030" in name for name in tensile if name != "TensileLibrary.dat"), tensile
    assert "verified" in result.stdout
    assert "linked" in result.stdout


def test_full_image_keeps_every_target(open_devel_all: dict[str, Any]) -> None:
    lib = "/usr/lib/x86_64-linux-gnu/librocblas.so.0.1"
    result = docker_run(open_devel_all["reference"], f"{FIRST_BUNDLE}\nfirst_bundle {lib}")
    assert result.returncode == 0, result.stderr
    listed = result.stdout.split()
    assert len(listed) == 11  # host + the ten targets Debian builds rocBLAS for
    assert "hipv4-amdgcn-amd-amdhsa--gfx90a" in listed


@pytest.mark.parametrize(
    ("variant", "present", "absent"),
    [
        ("runtime",
         ["/usr/lib/x86_64-linux-gnu/libamdhip64.so.5", "/usr/lib/x86_64-linux-gnu/librocblas.so.0",
          "/usr/lib/x86_64-linux-gnu/librocsolver.so.0", "/usr/bin/rocminfo"],
         ["/usr/bin/hipcc", "/usr/bin/clang++-17", "/usr/include/hip/hip_runtime.h", "/usr/bin/cmake",
          "/usr/include/rocblas/rocblas.h"]),
        ("base",
         ["/usr/lib/x86_64-linux-gnu/libamdhip64.so.5", "/usr/bin/rocminfo"],
         ["/usr/bin/hipcc", "/usr/lib/x86_64-linux-gnu/librocblas.so.0", "/usr/include/hip/hip_runtime.h"]),
    ],
)  # fmt: skip
def test_runtime_and_base_variants(
    engine_version: str, variant: str, present: list[str], absent: list[str]
) -> None:
    built = build_image("--flavour", "open", "--variant", variant, "--target", "gfx1030")
    checks = " ".join(f"test -e {p} && echo have:{p};" for p in present + absent)
    result = docker_run(built["reference"], checks)
    have = {line.split(":", 1)[1] for line in result.stdout.splitlines() if line.startswith("have:")}
    assert have == set(present)
    assert labels(built["reference"])["io.moatbridge.variant"] == variant


def test_an_apt_mirror_is_where_the_images_packages_come_from(engine_version: str) -> None:
    """--apt-mirror reaches the recipe: the image's apt names it for the stack's suite, and the
    packages came through it. The catalog's own mirror, spelled with its port so that the line
    cannot be the base image's own."""
    from moatbridge.adapters.records import load_catalog

    bootstrap = load_catalog().flavour("open").distro("trixie").bootstrap
    assert bootstrap is not None
    mirror = bootstrap.mirror.replace(".org/", ".org:80/")
    assert ":80/" in mirror
    # Its own target, so the base image other tests share (gfx1030's) keeps its tag.
    built = build_image(
        "--flavour", "open", "--variant", "base", "--target", "gfx1100", "--apt-mirror", mirror
    )  # fmt: skip
    try:
        result = docker_run(
            built["reference"], "cat /etc/apt/sources.list; test -e /usr/bin/rocminfo && echo installed"
        )
    finally:
        subprocess.run(["docker", "rmi", built["reference"]], capture_output=True)
    assert result.returncode == 0, result.stderr
    assert f"deb {mirror} trixie main" in result.stdout.splitlines()
    assert "installed" in result.stdout.splitlines()
