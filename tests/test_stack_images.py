"""The sid stack's per-target image, built by moatbridge in this run.

- The catalog's library targets are Debian's own X-Rocm-Gpu-Architecture fields, as the
  built image's dpkg database records them.
- A gfx1201 image keeps rocSOLVER's gfx12-generic code objects (the only code sid's libraries
  have for RDNA4) and nothing any other GPU would load: checked by the pruner's own
  `--verify-only` and, as an outside oracle, by LLVM's clang-offload-bundler listing a kept
  bundle.
"""

from __future__ import annotations

import json
import re
import subprocess
from typing import Any

import pytest

from moatbridge.adapters.records import load_catalog

pytestmark = pytest.mark.engine


def _run(image: str, script: str) -> str:
    result = subprocess.run(
        ["docker", "run", "--rm", "--network", "host", "--entrypoint", "bash", image, "-c", script],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_library_targets_are_the_packages_own_fields(open_devel_sid_gfx1201: dict[str, Any]) -> None:
    image = str(open_devel_sid_gfx1201["reference"])
    out = _run(image, "dpkg-query -W -f '${Package}\\t${X-Rocm-Gpu-Architecture}\\n'")
    fields = {p: f.split() for p, _, f in (line.partition("\t") for line in out.splitlines()) if f.strip()}
    sid = load_catalog().flavour("open").distro("sid")
    compared = []
    for component in sid.components:
        if component.header_only:
            continue
        # Its runtime package: lib<name><soname version>, as Debian names them.
        package = next((p for p in fields if re.fullmatch(rf"lib{component.name}\d+", p)), None)
        if package is None:
            continue  # a wrapper (hipBLAS) or a package without the field (sid's hipBLASLt)
        assert list(component.targets) == fields[package], f"{component.name} vs {package}"
        compared.append(component.name)
    assert {"rocblas", "rocsolver", "rocsparse", "rocrand", "rocfft"} <= set(compared), fields


def test_a_gfx1201_image_keeps_generic_code_and_nothing_else(open_devel_sid_gfx1201: dict[str, Any]) -> None:
    image = str(open_devel_sid_gfx1201["reference"])
    report = json.loads(_run(image, "cat /opt/moatbridge/prune-report.json"))
    text = json.dumps(report)
    assert "gfx12-generic" in text, text[:2000]
    verify = subprocess.run(
        ["docker", "run", "--rm", "-e", "PYTHONPATH=/opt/moatbridge/lib", "--entrypoint", "python3", image,
         "-m", "cudacompat.prune", "--verify-only", "--keep", "gfx1201"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert verify.returncode == 0, verify.stdout[-2000:] + verify.stderr[-2000:]
    narrower = subprocess.run(
        ["docker", "run", "--rm", "-e", "PYTHONPATH=/opt/moatbridge/lib", "--entrypoint", "python3", image,
         "-m", "cudacompat.prune", "--verify-only", "--keep", "gfx1100"],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert narrower.returncode == 1  # gfx12-generic code is there, which gfx1100 cannot load
    # LLVM's own bundler reads the first kept bundle of librocsolver: the host and gfx12-generic.
    listing = _run(
        image,
        "set -e; lib=$(ls /usr/lib/x86_64-linux-gnu/librocsolver.so.*.* | head -1); "
        'llvm-objcopy-21 --dump-section .hip_fatbin=/tmp/fb "$lib" /dev/null; '
        "python3 -c 'import struct, sys\n"
        'b = open("/tmp/fb", "rb").read()\n'
        '(n,) = struct.unpack_from("<Q", b, 24)\n'
        "p, end = 32, 0\n"
        "for _ in range(n):\n"
        '    o, s, l = struct.unpack_from("<QQQ", b, p)\n'
        "    p, end = p + 24 + l, max(end, o + s)\n"
        'open("/tmp/b", "wb").write(b[:end])\'; '
        "/usr/lib/llvm-21/bin/clang-offload-bundler --list --type=o --input=/tmp/b",
    )
    entries = listing.split()
    assert [e for e in entries if not e.startswith("host-")] == ["hipv4-amdgcn-amd-amdhsa--gfx12-generic"], (
        listing
    )
    assert len(entries) == 2, listing


def test_a_preview_stack_records_what_it_installed_and_reports_drift(
    open_devel_sid_gfx1201: dict[str, Any],
) -> None:
    """sid moves daily: drift from the catalog's pins is reported (a warning per package and in
    --json), never fatal, and every pinned package is really in the devel image."""
    import sys

    again = subprocess.run(
        [sys.executable, "-m", "moatbridge", "image", "build", "--flavour", "open", "--distro", "sid",
         "--target", "gfx1201", "--base", "bootstrap", "--json"],
        capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr[-3000:]
    result = json.loads(again.stdout)
    assert result["action"] == "up-to-date"
    pinned = dict(load_catalog().flavour("open").distro("sid").pinned)
    assert result["pinned_checked"] == len(pinned)
    for line in result["pinned_drift"]:
        assert f"warning: package version differs from the catalog: {line}" in again.stderr
    listing = _run(str(result["reference"]), "cat /opt/moatbridge/packages.tsv")
    installed = dict(row.split("\t", 1) for row in listing.splitlines() if "\t" in row)
    assert installed["libamdhip64-6"].startswith("6.4") and "clang-21" in installed


@pytest.mark.parametrize("fixture", ["open_devel_gfx1030", "open_devel_sid_gfx1201"])
def test_the_clang_shims_reach_the_stacks_clang(fixture: str, request: pytest.FixtureRequest) -> None:
    """`clang`/`clang++` (shims of those names are on the host) resolve after activation to the
    stack's own clang, which Debian installs only as clang-N and under /usr/lib/llvm-N/bin."""
    image = str(request.getfixturevalue(fixture)["reference"])
    target = fixture.rsplit("_", 1)[1]
    out = _run(image, f". /opt/moatbridge/bin/activate {target} >/dev/null; . /opt/moatbridge/stack.env; "
                      'echo "want=$CLANG_VERSION"; clang --version; clang++ --version')  # fmt: skip
    want = next(line for line in out.splitlines() if line.startswith("want=")).split("=", 1)[1]
    versions = [line for line in out.splitlines() if "clang version" in line]
    assert len(versions) == 2 and all(f"clang version {want}." in v for v in versions), out
