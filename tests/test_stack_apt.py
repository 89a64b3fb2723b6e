"""apt and Debian's Release files on the preview stacks, against the real mirror.

Debian signs each suite's Release file with a Valid-Until date. When this was written the
mirror these machines reach served sid's 24 days past it; the test reads what the mirror
serves now and holds moatbridge to the matching behaviour, so it stays true either way:
expired -> `--check-valid-until` stops the build with one clear sentence (exit 4); current ->
the same build gets past apt. The catalog's own setting for sid (`check_valid_until: false`)
is exercised by every sid image build the other tests make.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any

from moatbridge.adapters.records import load_catalog


def _valid_until(mirror: str, suite: str) -> datetime:
    with urllib.request.urlopen(f"{mirror}/dists/{suite}/InRelease", timeout=60) as response:
        text = response.read(1 << 20).decode("utf-8", "replace")
    line = next(line for line in text.splitlines() if line.startswith("Valid-Until:"))
    return parsedate_to_datetime(line.split(":", 1)[1].strip())


def test_an_expired_release_file_is_one_clear_error_and_the_flag_gets_past_it(engine_version: str) -> None:
    sid = load_catalog().flavour("open").distro("sid")
    assert sid.bootstrap is not None
    expired = _valid_until(sid.bootstrap.mirror, "sid") < datetime.now(timezone.utc)
    args = ["image", "build", "--flavour", "open", "--distro", "sid", "--variant", "base",
            "--target", "gfx1030", "--base", "bootstrap", "--json"]  # fmt: skip
    checked = subprocess.run(
        [sys.executable, "-m", "moatbridge", *args, "--check-valid-until"],
        capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    built: list[dict[str, Any]] = []
    try:
        if expired:
            assert checked.returncode == 4, checked.stderr[-3000:]
            first = checked.stderr.strip().splitlines()
            message = next(line for line in first if line.startswith("moatbridge: "))
            assert "Release file for sid has expired" in message and "apt refuses it" in message
            assert "http://deb.debian.org/debian" in message
            hint = next(line for line in first if line.startswith("hint: "))
            assert "--no-check-valid-until" in hint and "--mirror" in hint
            assert "Traceback" not in checked.stderr
        else:
            assert checked.returncode == 0, checked.stderr[-3000:]
            built.append(json.loads(checked.stdout))
        # Without the flag the catalog's choice applies: the build gets past apt, and says so.
        relaxed = subprocess.run(
            [sys.executable, "-m", "moatbridge", *args], capture_output=True, text=True, timeout=3600
        )
        assert relaxed.returncode == 0, relaxed.stderr[-3000:]
        assert "accepts sid's Release files even past their Valid-Until date" in relaxed.stderr
        built.append(json.loads(relaxed.stdout))
        listing = subprocess.run(
            ["docker", "run", "--rm", built[-1]["reference"], "cat", "/opt/moatbridge/packages.tsv"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        installed = dict(line.split("\t", 1) for line in listing.stdout.splitlines() if "\t" in line)
        assert installed.get("libamdhip64-6", "").startswith("6.4"), listing.stdout[-2000:]
    finally:
        for result in built:
            subprocess.run(["docker", "rmi", result["reference"]], capture_output=True)
