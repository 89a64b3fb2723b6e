"""Unit tests of images/scale/apt-sources.awk, the program Dockerfile.apt edits apt sources with.

Only the vendor's entries (a URI on one of SCALE_VENDOR_HOSTS) may change; every other
byte stays. Run with the host's awk, and with mawk and gawk when present (Ubuntu's
default awk is mawk). The recipe tests (test_scale_recipe.py) run it inside the image.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

PROGRAM = Path(__file__).resolve().parent.parent / "images" / "scale" / "apt-sources.awk"
HOSTS = "pkgs.scale-lang.com  nonfree-pkgs.scale-lang.com\tunstable-pkgs.scale-lang.com"
PROXY = "http://127.0.0.1:40123/tok&en"
AWKS = [awk for awk in dict.fromkeys(["awk", "mawk", "gawk", "busybox"]) if shutil.which(awk)]

ONE_LINE = """\
# deb https://pkgs.scale-lang.com/deb noble main
deb [signed-by=/usr/share/keyrings/scale.gpg] https://pkgs.scale-lang.com/deb noble main
deb-src https://PKGS.Scale-Lang.com/deb noble main
  deb [ arch=amd64 signed-by=/k.gpg ] https://customer@nonfree-pkgs.scale-lang.com:443/acme/deb noble main
deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/30.10/ubuntu noble main
deb https://pkgs.scale-lang.com.example.org/deb noble main
deb file:/srv/pkgs.scale-lang.com noble main

"""

DEB822 = """\
Types: deb
URIs: https://pkgs.scale-lang.com/deb
Suites: noble
Components: main
Signed-By: /usr/share/keyrings/scale.gpg

# AMD
Types: deb
uris: https://repo.radeon.com/rocm/apt/6.4  https://unstable-pkgs.scale-lang.com/deb
Suites: noble
Components: main
"""


def _run(awk: str, mode: str, text: str, tmp_path: Path) -> str:
    source = tmp_path / "source"
    source.write_text(text)
    argv = [awk] if awk != "busybox" else ["busybox", "awk"]
    argv += [
        "-v",
        f"mode={mode}",
        "-v",
        f"hosts={HOSTS}",
        "-v",
        f"repo={PROXY}",
        "-f",
        str(PROGRAM),
        str(source),
    ]
    result = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.fixture(params=AWKS)
def awk(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_rewrite_points_only_vendor_lines_at_the_repository(awk: str, tmp_path: Path) -> None:
    lines = ONE_LINE.splitlines(keepends=True)
    expected = lines.copy()
    expected[1] = f"deb [signed-by=/usr/share/keyrings/scale.gpg] {PROXY} noble main\n"
    expected[2] = f"deb-src {PROXY} noble main\n"
    expected[3] = f"  deb [ arch=amd64 signed-by=/k.gpg ] {PROXY} noble main\n"
    assert _run(awk, "rewrite", ONE_LINE, tmp_path) == "".join(expected)


def test_strip_drops_only_vendor_lines(awk: str, tmp_path: Path) -> None:
    lines = ONE_LINE.splitlines(keepends=True)
    assert _run(awk, "strip", ONE_LINE, tmp_path) == "".join([lines[0], *lines[4:]])


def test_deb822_rewrite_replaces_vendor_uris_only(awk: str, tmp_path: Path) -> None:
    expected = DEB822.replace("URIs: https://pkgs.scale-lang.com/deb", f"URIs: {PROXY}").replace(
        "uris: https://repo.radeon.com/rocm/apt/6.4  https://unstable-pkgs.scale-lang.com/deb",
        f"uris: https://repo.radeon.com/rocm/apt/6.4 {PROXY}",
    )
    assert _run(awk, "rewrite", DEB822, tmp_path) == expected


def test_deb822_strip_drops_vendor_stanzas_and_uris(awk: str, tmp_path: Path) -> None:
    expected = (
        "\n# AMD\nTypes: deb\nuris: https://repo.radeon.com/rocm/apt/6.4\nSuites: noble\nComponents: main\n"
    )
    assert _run(awk, "strip", DEB822, tmp_path) == expected


def test_no_vendor_entry_means_identical_output(awk: str, tmp_path: Path) -> None:
    text = "deb http://deb.debian.org/debian trixie main\n#\n\nTypes: deb\nURIs: http://x.invalid/\n"
    for mode in ("rewrite", "strip"):
        assert _run(awk, mode, text, tmp_path) == text
