"""Wheels from PyPI for tests (CMake releases, Meson), downloaded once into the test cache."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

CACHE = Path(os.environ.get("MOATBRIDGE_TEST_CACHE", "/var/tmp/moatbridge-test-cache"))


def download_wheel(requirement: str, *pip_options: str) -> Path:
    """The wheel pip picks for `requirement` (e.g. `cmake==3.25.2`, `meson`), in CACHE/wheels."""
    directory = CACHE / "wheels"
    directory.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
         *pip_options, requirement, "-d", str(directory)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    # pip says "Saved <path>" or "File was already downloaded <path>"
    saved = [
        line.split()[-1]
        for line in result.stdout.splitlines()
        if line.strip().startswith(("Saved", "File was"))
    ]
    assert saved and saved[-1].endswith(".whl"), result.stdout
    return directory / Path(saved[-1]).name


def download_sdist(project: str, version: str) -> Path:
    """The source distribution of `project` `version` from PyPI's simple index (its JSON form;
    `pip download` would build the metadata, and so need the project's build backend),
    checked against the index's sha256 and kept in CACHE/sdists."""
    request = urllib.request.Request(
        f"https://pypi.org/simple/{project}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    stem = f"{project.replace('-', '_')}-{version}"
    sdist = next(f for f in files if f["filename"] in (f"{stem}.tar.gz", f"{stem}.zip"))
    target = CACHE / "sdists" / Path(sdist["filename"]).name
    expected = sdist["hashes"]["sha256"]
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == expected:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with urllib.request.urlopen(sdist["url"], timeout=600) as response:
        data = response.read()
    assert hashlib.sha256(data).hexdigest() == expected, f"{sdist['url']}: sha256 differs from the index"
    partial = target.with_name(target.name + ".partial")
    partial.write_bytes(data)
    partial.replace(target)
    return target
