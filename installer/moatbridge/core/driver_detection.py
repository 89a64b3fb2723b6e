"""The kernel driver and the ROCm installed on a host: the amdgpu module's version, the ROCm
release of a ROCm prefix or of distribution packages, read from files only through a ``Host``
(split out of core/detection.py, which composes them into the HostReport).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from moatbridge.core import versions
from moatbridge.core.host import Host
from moatbridge.core.model import AmdgpuDriver, Rocm

_DRIVER_PACKAGES = frozenset({"amdgpu-dkms"})
_ROCM_PACKAGES = ("rocm-core", "hip-runtime-amd", "libamdhip64-6", "libamdhip64-5")


def kernel_release(host: Host) -> str | None:
    text = host.read_optional("/proc/sys/kernel/osrelease")
    if text and text.strip():
        return text.strip()
    return os.uname().release if host.is_live else None


def dpkg_versions(host: Host) -> dict[str, str]:
    status = host.read_optional("/var/lib/dpkg/status")
    wanted = _DRIVER_PACKAGES | frozenset(_ROCM_PACKAGES)
    return versions.dpkg_installed_versions(status, wanted) if status else {}


def detect_driver(host: Host, kernel: str | None, dpkg: dict[str, str]) -> AmdgpuDriver:
    if not host.isdir("/sys/module/amdgpu"):
        return AmdgpuDriver(loaded=False, version=None, kind=None)
    dkms_version = host.read_optional("/sys/module/amdgpu/version")
    if dkms_version and dkms_version.strip():
        package = dpkg.get("amdgpu-dkms")
        release = (
            versions.rocm_release_from_build_number(versions.debian_upstream_version(package))
            if package
            else None
        )
        return AmdgpuDriver(True, dkms_version.strip(), "dkms", release)
    # The distribution's driver declares no MODULE_VERSION: the kernel is its version.
    return AmdgpuDriver(True, kernel, "in-tree")


def _rocm_prefixes(host: Host, environ: Mapping[str, str]) -> list[str]:
    prefixes = [environ[k] for k in ("ROCM_PATH", "HIP_PATH") if environ.get(k)]
    prefixes.append("/opt/rocm")
    versioned = [n for n in host.listdir("/opt") if re.match(r"rocm-[0-9]", n, re.ASCII)]
    versioned.sort(key=lambda n: versions.version_tuple(n[5:]), reverse=True)
    prefixes.extend(f"/opt/{n}" for n in versioned)
    return list(dict.fromkeys(prefixes))


def detect_rocm(host: Host, environ: Mapping[str, str], dpkg: dict[str, str]) -> Rocm:
    readers: tuple[tuple[str, Callable[[str], str | None]], ...] = (
        (".info/version", versions.leading_version),
        ("include/rocm-core/rocm_version.h", versions.rocm_version_from_header),
        ("include/rocm_version.h", versions.rocm_version_from_header),
        ("bin/.hipVersion", versions.hip_version_from_file),
    )
    for prefix in _rocm_prefixes(host, environ):
        for relative, parse in readers:
            text = host.read_optional(f"{prefix}/{relative}")
            version = parse(text) if text else None
            if version:
                return Rocm(version, prefix, f"{prefix}/{relative}")
    # Distribution packages (Debian/Ubuntu universe) install into /usr with no .info.
    for package in _ROCM_PACKAGES:
        if package in dpkg:
            upstream = versions.debian_upstream_version(dpkg[package])
            release = versions.rocm_release_from_build_number(upstream)
            version = release or versions.leading_version(upstream)
            prefix = "/opt/rocm" if package == "rocm-core" else "/usr"
            return Rocm(version, prefix, f"dpkg:{package}")
    return Rocm(None, None)
