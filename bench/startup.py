"""Start-up cost of the CLI, as ratios against a bare interpreter measured in the same run.

    python bench/startup.py [--runs N] [--json FILE]

Targets: `moatbridge --version` <= 3x `python -c pass`. `detect --json`
is reported for reference (it reads sysfs, so it varies with the machine).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGETS = {"moatbridge --version": 3.0}


def _time_once(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()

    script = shutil.which("moatbridge") or str(Path(sys.executable).with_name("moatbridge"))
    cases = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "moatbridge --version": [script, "--version"],
        "moatbridge detect --json": [script, "detect", "--json"],
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for argv in cases.values():  # warm the page cache once
        _time_once(argv)
    for _ in range(args.runs):  # interleaved, so machine noise hits every case alike
        for name, argv in cases.items():
            samples[name].append(_time_once(argv))

    baseline = statistics.median(samples["python -c pass"])
    results = []
    print(f"{'case':28} {'median ms':>10} {'ratio':>7} {'target':>8}")
    failed = False
    for name, values in samples.items():
        median = statistics.median(values)
        ratio = median / baseline
        target = TARGETS.get(name)
        verdict = "" if target is None else ("ok" if ratio <= target else "MISSED")
        failed |= verdict == "MISSED"
        print(
            f"{name:28} {median * 1000:10.1f} {ratio:7.2f} {(f'<={target}' if target else ''):>8} {verdict}"
        )
        results.append({"case": name, "median_s": median, "ratio": ratio, "target": target})
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
