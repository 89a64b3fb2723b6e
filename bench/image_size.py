"""Full multi-target open image vs a per-target one: size on disk, compressed stream
size (what a registry pull or an air-gapped bundle moves), and build time warm vs cold.

    python bench/image_size.py [--target gfx1030] [--cold] [--json FILE]

Goal (issue 3): per-target compressed <= 30% of the full image's compressed size.
`--cold` also times a --no-cache rebuild of the per-target image (minutes: it
downloads every package again); without it only the warm rebuild is timed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

GOAL = 0.30
GB = 1_000_000_000


def moatbridge(*args: str) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-m", "moatbridge", "image", "build", "--base", "bootstrap", "--json", *args],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if result.returncode != 0:
        sys.exit(f"build failed: {result.stderr[-2000:]}")
    return dict(json.loads(result.stdout))


def timed_build(*args: str) -> tuple[dict[str, object], float]:
    start = time.perf_counter()
    built = moatbridge(*args)
    return built, time.perf_counter() - start


def on_disk(reference: str) -> int:
    out = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Size}}", reference],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip())


def compressed(reference: str) -> int:
    """Bytes of `docker save REF | zstd -1`, counted as they stream (nothing written to disk)."""
    save = subprocess.Popen(["docker", "save", reference], stdout=subprocess.PIPE)
    zstd = subprocess.Popen(["zstd", "-1", "-T0", "-c"], stdin=save.stdout, stdout=subprocess.PIPE)
    assert save.stdout is not None and zstd.stdout is not None
    save.stdout.close()
    total = 0
    while chunk := zstd.stdout.read(1 << 20):
        total += len(chunk)
    if zstd.wait() != 0 or save.wait() != 0:
        sys.exit(f"docker save | zstd failed for {reference}")
    return total


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--target", default="gfx1030")
    parser.add_argument("--cold", action="store_true", help="also time a --no-cache build (slow)")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()

    full, _ = timed_build("--flavour", "open")
    slim, _ = timed_build("--flavour", "open", "--target", args.target)
    rows = {}
    for name, built in (("full", full), (args.target, slim)):
        reference = str(built["reference"])
        rows[name] = {
            "reference": reference,
            "on_disk": on_disk(reference),
            "compressed": compressed(reference),
        }

    # Warm: the image is gone but every layer is cached (what a second machine of a
    # team with a shared cache, or a re-run after `image remove`, sees).
    subprocess.run(["docker", "rmi", str(slim["reference"])], capture_output=True, check=False)
    _, warm = timed_build("--flavour", "open", "--target", args.target)
    _, skipped = timed_build("--flavour", "open", "--target", args.target)
    cold = None
    if args.cold:
        _, cold = timed_build("--flavour", "open", "--target", args.target, "--no-cache")

    full_row, slim_row = rows["full"], rows[args.target]
    disk_ratio = slim_row["on_disk"] / full_row["on_disk"]
    stream_ratio = slim_row["compressed"] / full_row["compressed"]
    print(f"{'image':10} {'on disk':>10} {'zstd -1 stream':>15}")
    for name, row in rows.items():
        print(f"{name:10} {row['on_disk'] / GB:9.2f}G {row['compressed'] / GB:14.2f}G")
    print(f"per-target / full: on disk {disk_ratio:.2f}, compressed {stream_ratio:.2f} "
          f"(goal <= {GOAL:.2f}: {'ok' if stream_ratio <= GOAL else 'MISSED'})")  # fmt: skip
    print(f"build {args.target}: recipe unchanged (skipped) {skipped:.1f} s, warm layer cache {warm:.1f} s"
          + (f", cold --no-cache {cold:.1f} s (warm/cold {warm / cold:.3f})" if cold else ""))  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"rows": rows, "disk_ratio": disk_ratio, "stream_ratio": stream_ratio,
             "seconds": {"skipped": skipped, "warm": warm, "cold": cold}}, indent=2) + "\n")  # fmt: skip
    return 0 if stream_ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
