"""NVIDIA's real CUDA toolkit as Debian packages it (trixie non-free, CUDA 12.4): the oracle
that the open toolkit's nvcc and headers are measured against.

The packages are fetched with a private apt configuration (its own sources list, lists and
cache directories under the test cache) and unpacked with `dpkg-deb -x`: nothing is
installed, and the machine's own apt sources never gain `contrib`/`non-free`. Only this
test process reads the unpacked files; none of their text goes into the repository.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

CACHE = Path(os.environ.get("MOATBRIDGE_TEST_CACHE", "/var/tmp/moatbridge-test-cache"))
MIRROR = os.environ.get("MOATBRIDGE_DEBIAN_MIRROR", "http://deb.debian.org/debian")
SUITE = "trixie"
# nvcc alone (its --dryrun and --help need no GPU, no headers and no libraries).
COMPILER_PACKAGES = ("nvidia-cuda-toolkit",)
# The public headers (include/, crt/, cooperative_groups/, nvtx3/, the CUDA-X libraries').
HEADER_PACKAGES = ("nvidia-cuda-dev", "libcub-dev", "libthrust-dev", "libcu++-dev")
SAMPLE_PACKAGES = ("nvidia-cuda-samples",)


T = TypeVar("T")


class ToolkitUnavailable(RuntimeError):
    """The Debian mirror could not provide the packages."""


def required(fetch: Callable[[], T]) -> T:
    """`fetch()` for a test: packages that cannot be had fail it under CI=true, skip it elsewhere."""
    import pytest

    try:
        return fetch()
    except ToolkitUnavailable as error:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI=true but NVIDIA's packages could not be fetched: {error}")
        pytest.skip(str(error))


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def _apt_options(root: Path) -> list[str]:
    return [
        "-o", f"Dir::Etc::sourcelist={root / 'sources.list'}",
        "-o", "Dir::Etc::sourceparts=-",
        "-o", f"Dir::State::Lists={root / 'lists'}",
        "-o", f"Dir::Cache={root / 'cache'}",
        "-o", "Dir::State::status=/dev/null",
        "-o", "APT::Sandbox::User=root",
        "-o", "Debug::NoLocking=1",
    ]  # fmt: skip


def _apt(root: Path, *args: str, cwd: Path | None = None) -> None:
    result = subprocess.run(
        ["apt-get", "-q", *_apt_options(root), *args], capture_output=True, text=True, cwd=cwd, timeout=1800
    )
    if result.returncode != 0:
        raise ToolkitUnavailable(f"apt-get {' '.join(args)} failed:\n{result.stderr[-3000:]}")


def unpacked(packages: tuple[str, ...], name: str, keep: str | None = None) -> Path:
    """Download `packages` (no dependencies) and unpack them into CACHE/name; returns that root.
    With `keep` (a directory such as "usr/include"), everything else is deleted after unpacking."""
    target = CACHE / name
    marker = target / ".complete"
    with _locked(CACHE / f"{name}.lock"):
        wanted = " ".join(packages) + (f" keep={keep}" if keep else "")
        if marker.exists() and marker.read_text() == wanted:
            return target
        apt_root = CACHE / "apt-nonfree"
        for sub in ("lists/partial", "cache/archives/partial", "debs"):
            (apt_root / sub).mkdir(parents=True, exist_ok=True)
        (apt_root / "sources.list").write_text(f"deb {MIRROR} {SUITE} main contrib non-free\n")
        lists = apt_root / "lists"
        if not any(lists.glob("*_Packages*")):
            _apt(apt_root, "update")
        debs = apt_root / "debs"
        missing = [p for p in packages if not any(debs.glob(f"{_deb_prefix(p)}_*.deb"))]
        if missing:
            _apt(apt_root, "download", *missing, cwd=debs)
        staging = CACHE / f"{name}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        for package in packages:
            (deb,) = sorted(debs.glob(f"{_deb_prefix(package)}_*.deb"))[-1:]
            subprocess.run(["dpkg-deb", "-x", str(deb), str(staging)], check=True, timeout=1800)
        if keep is not None:  # e.g. nvidia-cuda-dev's 2.5 GB are libraries; the headers are 50 MB
            kept = CACHE / f"{name}.kept"
            shutil.rmtree(kept, ignore_errors=True)
            (staging / keep).rename(kept)
            shutil.rmtree(staging)
            (staging / keep).parent.mkdir(parents=True)
            kept.rename(staging / keep)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
        marker.write_text(wanted)
        return target


def _deb_prefix(package: str) -> str:
    return package.replace("+", "?")  # glob: libcu++-dev files are named libcu++-dev_...


def real_nvcc() -> Path:
    """The real nvcc driver (Debian wraps it in /usr/bin/nvcc; the binary lives here)."""
    root = unpacked(COMPILER_PACKAGES, "nvidia-cuda-toolkit")
    return root / "usr/lib/nvidia-cuda-toolkit/bin/nvcc"


def real_include_dir() -> Path:
    return unpacked(HEADER_PACKAGES, "nvidia-cuda-headers", keep="usr/include") / "usr/include"


def real_curand_library() -> Path:
    """NVIDIA's libcurand (Debian's libcurand10): its host API runs without a GPU."""
    root = unpacked(("libcurand10",), "nvidia-curand", keep="usr/lib/x86_64-linux-gnu")
    return root / "usr/lib/x86_64-linux-gnu/libcurand.so.10"


def real_nvrtc_library() -> Path:
    """NVIDIA's NVRTC (Debian's libnvrtc12 and its builtins): it compiles without a GPU."""
    root = unpacked(("libnvrtc12", "libnvrtc-builtins12.4"), "nvidia-nvrtc", keep="usr/lib/x86_64-linux-gnu")
    return root / "usr/lib/x86_64-linux-gnu/libnvrtc.so.12"


def real_nvml_include_dir() -> Path:
    """nvml.h of CUDA 12.4 (Debian's libnvidia-ml-dev; the library itself comes with the driver)."""
    return unpacked(("libnvidia-ml-dev",), "nvidia-nvml-headers", keep="usr/include") / "usr/include"


def samples_dir() -> Path:
    """NVIDIA's cuda-samples as Debian ships them (Makefile projects, unmodified)."""
    root = unpacked(SAMPLE_PACKAGES, "nvidia-cuda-samples")
    return root / "usr/share/doc/nvidia-cuda-toolkit/examples"
