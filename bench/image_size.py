"""Full multi-target open image vs a per-target one: size on disk, compressed stream
size (what a registry pull or an air-gapped bundle moves), and build time warm vs cold.

    python bench/image_size.py [--stack trixie:gfx1030 ...] [--cold] [--remove] [--json FILE]

Goal: per-target compressed <= 30% of the same stack's full image's
compressed size, for every stack (trixie, sid, experimental), measured in the same run.
`--cold` also times a --no-cache rebuild of the per-target image (minutes: it
downloads every package again); without it only the warm rebuild is timed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
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


@dataclass(frozen=True)
class Image:
    reference: str
    on_disk: int
    compressed: int


@dataclass(frozen=True)
class StackResult:
    stack: str
    target: str
    full: Image
    per_target: Image
    seconds: dict[str, float | None]

    @property
    def disk_ratio(self) -> float:
        return self.per_target.on_disk / self.full.on_disk

    @property
    def stream_ratio(self) -> float:
        return self.per_target.compressed / self.full.compressed

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "disk_ratio": self.disk_ratio, "stream_ratio": self.stream_ratio}


def _image(built: dict[str, object]) -> Image:
    reference = str(built["reference"])
    return Image(reference, on_disk(reference), compressed(reference))


def measure_stack(stack: str, target: str, cold: bool) -> StackResult:
    """Full vs per-target image of one stack, both built in this run."""
    distro = ("--distro", stack)
    full = _image(timed_build("--flavour", "open", *distro)[0])
    slim = _image(timed_build("--flavour", "open", *distro, "--target", target)[0])
    # Warm: the image is gone but every layer is cached (what a second machine of a
    # team with a shared cache, or a re-run after `image remove`, sees).
    subprocess.run(["docker", "rmi", slim.reference], capture_output=True, check=False)
    # Every layer is cached: the space estimate (made for a first build) does not apply.
    _, warm = timed_build("--flavour", "open", *distro, "--target", target, "--no-space-check")
    _, skipped = timed_build("--flavour", "open", *distro, "--target", target)
    cold_s = timed_build("--flavour", "open", *distro, "--target", target, "--no-cache")[1] if cold else None
    return StackResult(stack, target, full, slim, {"skipped": skipped, "warm": warm, "cold": cold_s})


def remove_stack_images(result: StackResult) -> None:
    """Make room for the next stack (each full image is 6-10 GB); layers go with them."""
    for image in (result.full, result.per_target):
        subprocess.run(["docker", "rmi", image.reference], capture_output=True, check=False)
    subprocess.run(["docker", "image", "prune", "-f"], capture_output=True, check=False)


def report(result: StackResult) -> None:
    print(f"== {result.stack}")
    print(f"{'image':10} {'on disk':>10} {'zstd -1 stream':>15}")
    for name, image in (("full", result.full), (result.target, result.per_target)):
        print(f"{name:10} {image.on_disk / GB:9.2f}G {image.compressed / GB:14.2f}G")
    verdict = "ok" if result.stream_ratio <= GOAL else "MISSED"
    print(f"per-target / full: on disk {result.disk_ratio:.2f}, compressed {result.stream_ratio:.2f} "
          f"(goal <= {GOAL:.2f}: {verdict})")  # fmt: skip
    seconds = result.seconds
    cold = f", cold --no-cache {seconds['cold']:.1f} s" if seconds["cold"] else ""
    print(f"build {result.target}: recipe unchanged (skipped) {seconds['skipped']:.1f} s, "
          f"warm layer cache {seconds['warm']:.1f} s{cold}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--stack", action="append", metavar="STACK:TARGET",
        help="a stack and the per-target image to compare with its full image, repeatable "
        "(default trixie:gfx1030), e.g. --stack sid:gfx1201 --stack experimental:gfx942",
    )  # fmt: skip
    parser.add_argument("--cold", action="store_true", help="also time a --no-cache build (slow)")
    parser.add_argument("--remove", action="store_true", help="remove each stack's images after measuring")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()

    results = []
    for spec in args.stack or ["trixie:gfx1030"]:
        stack, _, target = spec.partition(":")
        result = measure_stack(stack, target or "gfx1030", args.cold)
        results.append(result)
        report(result)
        if args.remove:
            remove_stack_images(result)
    if args.json:
        Path(args.json).write_text(json.dumps({"stacks": [r.to_json() for r in results]}, indent=2) + "\n")
    return 0 if all(r.stream_ratio <= GOAL for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
