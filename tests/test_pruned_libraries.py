"""The open toolkit's pruner on the real ROCm libraries of a full open image built by
moatbridge: only the kept targets' code remains, nothing else changes (LLVM's own
clang-offload-bundler, readelf and cmp are the judges) and programs still link and load.
The pruner's own tests, on synthetic files, are the toolkit's (images/open/toolkit/tests).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO

TOOLKIT_SOURCE = REPO / "images" / "open" / "toolkit" / "src"
HOST = "host-x86_64-unknown-linux--"
GFX = "hipv4-amdgcn-amd-amdhsa--"

IN_IMAGE = r"""
set -eu
L=/usr/lib/x86_64-linux-gnu T=$(mktemp -d)
O=$T/out LLVM=/usr/lib/llvm-17/bin
mkdir -p "$T/lib" "$T/orig" "$O"
for f in librocfft.so.0.1 librocrand.so.1.1; do cp "$L/$f" "$T/lib/"; cp "$L/$f" "$T/orig/"; done
ln -s librocrand.so.1.1 "$T/lib/librocrand.so"
ln -s librocrand.so.1.1 "$T/lib/librocrand.so.1"
run() { name=$1; shift; set +e; "$@" >"$O/$name.out" 2>&1; echo $? >"$O/$name.rc"; set -e; }
run prune env PYTHONPATH=/x python3 -S -m cudacompat.prune --keep gfx1030,gfx1100 --lib-dir "$T/lib" --report "$O/report.json"
run verify env PYTHONPATH=/x python3 -S -m cudacompat.prune --verify-only --keep gfx1030,gfx1100 --lib-dir "$T/lib"
run verify_narrower env PYTHONPATH=/x python3 -S -m cudacompat.prune --verify-only --keep gfx1100 --lib-dir "$T/lib"
for lib in librocfft.so.0.1 librocrand.so.1.1; do
  for side in orig lib; do
    "$LLVM/llvm-objcopy" --dump-section ".hip_fatbin=$T/fatbin" "$T/$side/$lib" /dev/null
    python3 -S -c 'import struct, sys
b = open(sys.argv[1], "rb").read()
(n,) = struct.unpack_from("<Q", b, 24)
p, end = 32, 0
for _ in range(n):
    o, s, l = struct.unpack_from("<QQQ", b, p)
    p, end = p + 24 + l, max(end, o + s)
open(sys.argv[2], "wb").write(b[:end])' "$T/fatbin" "$T/$side.bundle"
    "$LLVM/llvm-readelf" -W -h -S -l -d "$T/$side/$lib" >"$O/readelf-$side-$lib.out"
    stat -c %s "$T/$side/$lib" >"$O/size-$side-$lib.out"
  done
  run "list-$lib" "$LLVM/clang-offload-bundler" --list --type=o --input="$T/lib.bundle"
  for gfx in gfx1030 gfx1100; do
    for side in orig lib; do
      "$LLVM/clang-offload-bundler" --unbundle --type=o --input="$T/$side.bundle" \
        --targets="hipv4-amdgcn-amd-amdhsa--$gfx" --output="$T/$side.$gfx.co"
    done
    run "same-$lib-$gfx" cmp "$T/orig.$gfx.co" "$T/lib.$gfx.co"
  done
done
cmp -l "$T/orig/librocfft.so.0.1" "$T/lib/librocfft.so.0.1" | awk 'NR == 1 {lo = $1} {hi = $1} END {print NR, lo - 1, hi - 1}' >"$O/diff-librocfft.so.0.1.out"
printf '%s\n' 'extern "C" int rocrand_get_version(int* version);' '#include <cstdio>' \
  'int main() { int v = 0; int rc = rocrand_get_version(&v); std::printf("rocrand %d\n", v); return rc; }' >"$T/t.cpp"
run link clang++-17 "$T/t.cpp" -L"$T/lib" -lrocrand -o "$T/t"
run start env LD_LIBRARY_PATH="$T/lib" "$T/t"
python3 -S -c 'import json, pathlib, sys
print(json.dumps({p.name: p.read_text() for p in sorted(pathlib.Path(sys.argv[1]).iterdir())}))' "$O"
"""


@pytest.fixture(scope="module")
def in_image(open_devel_all: dict[str, Any]) -> dict[str, str]:
    """Prune copies of librocfft and librocrand inside the full open image (built by
    moatbridge itself) with the toolkit's pruner from this tree; every tool's output by name."""
    image = str(open_devel_all["reference"])
    argv = ["docker", "run", "--rm", "--network", "host", "-v", f"{TOOLKIT_SOURCE}:/x:ro", image,
            "bash", "-c", IN_IMAGE]  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"{shlex.join(argv[:-1])} failed:\n{result.stderr}"
    outputs: dict[str, str] = json.loads(result.stdout.splitlines()[-1])
    return outputs


@pytest.mark.engine
def test_real_libraries_list_only_the_kept_targets(in_image: dict[str, str]) -> None:
    assert in_image["prune.rc"] == "0\n", in_image["prune.out"]
    assert in_image["prune.out"].count("proof passed") == 2
    for lib in ("librocfft.so.0.1", "librocrand.so.1.1"):
        assert sorted(in_image[f"list-{lib}.out"].split()) == [GFX + "gfx1030", GFX + "gfx1100", HOST]
    assert in_image["verify.rc"] == "0\n", in_image["verify.out"]
    assert in_image["verify_narrower.rc"] == "1\n"
    report = json.loads(in_image["report.json"])
    assert {Path(f["path"]).name: f["entries_kept"] for f in report["files"]} == {
        "librocfft.so.0.1": {"gfx1030": 1, "gfx1100": 1, "host": 1},
        "librocrand.so.1.1": {"gfx1030": 1, "gfx1100": 1, "host": 1},
    }


@pytest.mark.engine
def test_real_libraries_change_only_dropped_code(in_image: dict[str, str]) -> None:
    for lib in ("librocfft.so.0.1", "librocrand.so.1.1"):
        assert in_image[f"size-orig-{lib}.out"] == in_image[f"size-lib-{lib}.out"]
        assert in_image[f"readelf-orig-{lib}.out"] == in_image[f"readelf-lib-{lib}.out"]
        for gfx in ("gfx1030", "gfx1100"):  # LLVM's bundler extracts the same code objects
            assert in_image[f"same-{lib}-{gfx}.rc"] == "0\n", in_image[f"same-{lib}-{gfx}.out"]
    # Every changed byte of librocfft lies inside .hip_fatbin.
    row = next(
        line for line in in_image["readelf-orig-librocfft.so.0.1.out"].splitlines() if " .hip_fatbin " in line
    )
    offset, size = (int(field, 16) for field in row.split("]", 1)[1].split()[3:5])
    changed, first, last = map(int, in_image["diff-librocfft.so.0.1.out"].split())
    assert changed > 100_000 and offset <= first <= last < offset + size


@pytest.mark.engine
def test_programs_link_against_and_load_a_pruned_library(in_image: dict[str, str]) -> None:
    assert in_image["link.rc"] == "0\n", in_image["link.out"]
    assert in_image["start.rc"] == "0\n", in_image["start.out"]
    assert in_image["start.out"].startswith("rocrand ")
