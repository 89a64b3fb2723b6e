"""Compile-time overhead of the open toolkit's nvcc over calling clang directly, in one run.

    python bench/nvcc_overhead.py [--image REF] [--runs N] [--json FILE]

Inside the open image (gfx1030 by default), a small CUDA kernel file is compiled with -c,
alternating three ways, and the median times compared:

  nvcc        targets/gfx1030/bin/nvcc -c saxpy.cu
  its clang   the exact clang command that nvcc runs (from `nvcc --dryrun`), run directly:
              what the Python driver itself costs (goal: nvcc <= 1.10x this)
  plain HIP   the same kernel written against HIP, `clang++-17 -x hip --offload-arch=gfx1030
              -O3 -c`: what the driver plus the CUDA compatibility headers cost
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

GOAL = 1.10

IN_IMAGE = r"""
import json, shlex, statistics, subprocess, sys, time
runs = int(sys.argv[1])
cuda = '''#include <cstdio>
__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
int launch(int n, float a, const float* x, float* y) {
    saxpy<<<(n + 255) / 256, 256>>>(n, a, x, y);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
'''
hip = cuda.replace('cudaGetLastError', 'hipGetLastError').replace('cudaSuccess', 'hipSuccess')
hip = '#include <hip/hip_runtime.h>\n' + hip
open('/tmp/saxpy.cu', 'w').write(cuda)
open('/tmp/saxpy.hip', 'w').write(hip)
nvcc = ['/opt/moatbridge/targets/gfx1030/bin/nvcc', '-c', '/tmp/saxpy.cu', '-o', '/tmp/a.o']
dry = subprocess.run(nvcc + ['--dryrun'], capture_output=True, text=True, check=True).stderr
line = [l for l in dry.splitlines() if l.startswith('#$ /usr/bin/clang++-17')][-1]
clang = shlex.split(line[3:])
plain = ['/usr/bin/clang++-17', '-x', 'hip', '--offload-arch=gfx1030', '-O3', '-c', '/tmp/saxpy.hip',
         '-o', '/tmp/c.o']
commands = {'nvcc': nvcc, 'its clang': clang, 'plain HIP': plain}
times = {name: [] for name in commands}
for name, argv in commands.items():
    subprocess.run(argv, check=True)  # warm the page cache
for _ in range(runs):
    for name, argv in commands.items():
        start = time.perf_counter()
        subprocess.run(argv, check=True)
        times[name].append(time.perf_counter() - start)
print(json.dumps({name: statistics.median(values) for name, values in times.items()}))
"""


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--image", default="moatbridge/open:12.4-devel-trixie-gfx1030")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    result = subprocess.run(
        ["docker", "run", "--rm", "--network", "host", args.image, "python3", "-c", IN_IMAGE, str(args.runs)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        return 1
    medians = json.loads(result.stdout)
    ratios = {
        "nvcc / its clang": medians["nvcc"] / medians["its clang"],
        "nvcc / plain HIP": medians["nvcc"] / medians["plain HIP"],
    }
    for name, seconds in medians.items():
        print(f"{name:>10}: {seconds * 1000:7.1f} ms (median of {args.runs})")
    for name, ratio in ratios.items():
        verdict = (
            ("meets" if ratio <= GOAL else "misses") + f" goal <= {GOAL:.2f}x"
            if name.endswith("clang")
            else ""
        )
        print(f"{name:>18}: {ratio:.3f}x {verdict}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"medians_s": medians, "ratios": ratios, "goal": GOAL}, handle, indent=2)
    return 0 if ratios["nvcc / its clang"] <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
