"""Version strings found in ROCm, HIP and package-database files (pure)."""

from __future__ import annotations

import re

_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_LEADING_VERSION = re.compile(r"^\s*(\d+(?:\.\d+){1,3})", re.ASCII)


def leading_version(text: str) -> str | None:
    """``6.2.0-66`` -> ``6.2.0``; ``6.4.1`` -> ``6.4.1``; junk -> None."""
    match = _LEADING_VERSION.match(text)
    return match.group(1) if match else None


def rocm_version_from_header(text: str) -> str | None:
    """``rocm_version.h``: ``#define ROCM_VERSION_{MAJOR,MINOR,PATCH} N``."""
    parts: dict[str, str] = {}
    for key, value in re.findall(r"#define\s+ROCM_VERSION_(MAJOR|MINOR|PATCH)\s+(\d+)", text, re.ASCII):
        parts[key] = value
    if "MAJOR" not in parts or "MINOR" not in parts:
        return None
    return ".".join([parts["MAJOR"], parts["MINOR"], parts.get("PATCH", "0")])


def hip_version_from_file(text: str) -> str | None:
    """``bin/.hipVersion`` KEY=VALUE file -> ``major.minor`` (its PATCH is a build number)."""
    values = dict(
        line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#")
    )
    major, minor = values.get("HIP_VERSION_MAJOR"), values.get("HIP_VERSION_MINOR")
    if major and minor and _DIGITS.fullmatch(major.strip()) and _DIGITS.fullmatch(minor.strip()):
        return f"{major.strip()}.{minor.strip()}"
    return None


def dpkg_installed_versions(status_text: str, packages: frozenset[str]) -> dict[str, str]:
    """Versions of the named packages that dpkg's status file marks installed."""
    found: dict[str, str] = {}
    for stanza in status_text.split("\n\n"):
        name = version = None
        installed = False
        for line in stanza.splitlines():
            if line.startswith("Package: "):
                name = line[9:].strip()
                if name not in packages:
                    break
            elif line.startswith("Status: "):
                installed = line.rstrip().endswith(" installed")
            elif line.startswith("Version: "):
                version = line[9:].strip()
        if name in packages and installed and version:
            found[name] = version
    return found


def debian_upstream_version(version: str) -> str:
    """Drop the epoch and Debian revision: ``1:6.12.12.60401-2164967.24.04`` -> ``6.12.12.60401``."""
    no_epoch = version.split(":", 1)[1] if ":" in version else version
    return no_epoch.rsplit("-", 1)[0] if "-" in no_epoch else no_epoch


_ROCM_BUILD = re.compile(r"\.(\d)(\d\d)(\d\d)$", re.ASCII)


def rocm_release_from_build_number(upstream: str) -> str | None:
    """AMD's packages end their version with the ROCm build number: ``...60401`` -> ``6.4.1``."""
    match = _ROCM_BUILD.search(upstream)
    if not match:
        return None
    major, minor, patch = (int(g) for g in match.groups())
    return f"{major}.{minor}.{patch}"


def version_tuple(version: str) -> tuple[int, ...]:
    out: list[int] = []
    for part in version.split("."):
        digits = _DIGITS.match(part)
        if not digits:
            break
        out.append(int(digits.group()))
    return tuple(out)
