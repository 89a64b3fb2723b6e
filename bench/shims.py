"""Warm shim vs `docker run --rm` vs raw `docker exec`, measured in one run.

    python bench/shims.py [--runs N] [--tool hipcc] [--json FILE]

Sets up the open gfx1030 toolchain in a throwaway HOME (the image is reused when it
exists), then times `<tool> --version` three ways. Goals: warm shim
<= 0.35x `docker run --rm IMAGE` and <= 1.2x raw `docker exec`. `nvcc` by default
(the open toolkit's driver); `--tool hipcc` times the HIP compiler driver instead.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOALS = {"shim / docker run": 0.35, "shim / docker exec": 1.2}


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env, cwd=cwd)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--tool", default="nvcc")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="moatbridge-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "MOATBRIDGE_"))}
    env["HOME"] = str(home)
    setup = [sys.executable, "-m", "moatbridge", "setup", "--yes", "--flavour", "open", "--target", "gfx1030",
             "--no-modify-rc"]  # fmt: skip
    subprocess.run(setup, check=True, env=env, stdout=subprocess.DEVNULL)
    data = home / ".local" / "share" / "moatbridge"
    state = json.loads((data / "state.json").read_text())
    image = state["toolchains"][0]["image_id"]
    container = f"moatbridge-open-gfx1030-{os.getuid()}"
    shim = str(data / "cuda" / "bin" / args.tool)
    subprocess.run([shim, "--version"], check=True, env=env, stdout=subprocess.DEVNULL, cwd=home)  # warm up
    # Baselines call the tool by the path activation would give it (hipcc is on PATH anyway).
    tool = f"/opt/moatbridge/targets/gfx1030/bin/{args.tool}" if args.tool == "nvcc" else args.tool
    cases = {
        "warm shim": [shim, "--version"],
        "docker exec": [
            "docker",
            "exec",
            "-u",
            f"{os.getuid()}:{os.getgid()}",
            container,
            tool,
            "--version",
        ],
        "docker run": ["docker", "run", "--rm", "--network", "host", image, tool, "--version"],
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, argv in cases.items():
            # Inside the home, which the warm container mounts (elsewhere shims fall back to docker run).
            samples[name].append(timed(argv, env, home))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    ratios = {
        "shim / docker run": medians["warm shim"] / medians["docker run"],
        "shim / docker exec": medians["warm shim"] / medians["docker exec"],
    }
    for name, value in medians.items():
        print(f"{name:12} {value * 1000:8.1f} ms")
    missed = False
    for name, ratio in ratios.items():
        ok = ratio <= GOALS[name]
        missed |= not ok
        print(f"{name:20} {ratio:5.2f}  (goal <= {GOALS[name]}: {'ok' if ok else 'MISSED'})")
    if args.json:
        Path(args.json).write_text(json.dumps({"median_s": medians, "ratios": ratios}, indent=2) + "\n")
    subprocess.run([sys.executable, "-m", "moatbridge", "uninstall", "--all", "--keep-images"], env=env,
                   stdout=subprocess.DEVNULL, check=False)  # fmt: skip
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
