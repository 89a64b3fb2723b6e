"""The container engine's readiness checks: CLI, daemon, version, storage driver, disk (pure).

Setup runs them before it asks anything (an engine that is not ready stops it with its fix);
doctor runs them with the rest (core/checks.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from moatbridge.core.check import Check
from moatbridge.core.model import EngineFacts
from moatbridge.core.versions import version_tuple

GB = 1_000_000_000
# What to run when the system's own engine (nothing chose another) is not running, and why.
START_SYSTEM_DAEMON = (
    "sudo systemctl start docker",
    "the engine is not running; moatbridge doctor says more",
)
# The core compiler image is ~1.3 GB and needs room to unpack; the full
# multi-target open image is 8.06 GB on disk (shared/reference/open-stack.md).
DISK_MINIMUM = 3 * GB
DISK_RECOMMENDED = 12 * GB
MIN_DOCKER = (20, 10)
MIN_PODMAN = (4, 0)
GOOD_STORAGE = frozenset({"overlay2", "overlay", "btrfs", "zfs", "fuse-overlayfs"})


def _gb(n: int) -> str:
    return f"{n / GB:.1f} GB"


def engine_checks(engine: EngineFacts) -> Iterator[Check]:
    if engine.docker_cli or engine.podman_cli:
        tools = ", ".join(p for p in (engine.docker_cli, engine.podman_cli) if p)
        yield Check("engine-cli", "Container engine CLI", "pass", tools)
    else:
        yield Check(
            "engine-cli", "Container engine CLI", "fail", "neither docker nor podman is on PATH",
            "sudo apt-get install docker.io (or podman)",
        )  # fmt: skip

    # The address with what chose it, as the docker CLI the shims run would use it.
    at = f"{engine.endpoint} ({engine.endpoint_source})" if engine.endpoint_source else engine.endpoint
    if engine.reachable:
        yield Check(
            "engine-daemon", "Engine reachable", "pass",
            f"{engine.product} at {at}" + (" (rootless)" if engine.rootless else ""),
        )  # fmt: skip
        yield Check("engine-access", "Permission to use the engine", "pass", "API answered")
    elif engine.failure == "permission":
        yield Check("engine-daemon", "Engine reachable", "pass", f"daemon at {at}")
        yield Check(
            "engine-access", "Permission to use the engine", "fail",
            f"permission denied on {at}",
            "sudo usermod -aG docker $USER, then log in again (or use rootless Docker/Podman)",
        )  # fmt: skip
    elif engine.failure == "config":  # the docker context named is missing or broken: no address
        yield Check("engine-daemon", "Engine reachable", "fail", engine.failure_detail or "", engine.fix)
    else:
        yield Check(
            "engine-daemon", "Engine reachable", "fail",
            f"no answer from {at or 'any known socket'}: {engine.failure_detail}",
            engine.fix or "start it: sudo systemctl start docker (or: sudo dockerd &)",
        )  # fmt: skip
    if not engine.reachable:
        for check_id, title in (
            ("engine-version", "Engine version"),
            ("storage-driver", "Storage driver"),
            ("disk-space", "Free disk for images"),
        ):
            yield Check(check_id, title, "skip", "engine not reachable")
        return

    minimum = MIN_PODMAN if engine.product == "podman" else MIN_DOCKER
    version = engine.server_version or "unknown"
    if version_tuple(version)[:2] >= minimum:
        yield Check(
            "engine-version", "Engine version", "pass",
            f"{engine.product} {version}, API {engine.api_version}",
        )  # fmt: skip
    else:
        yield Check(
            "engine-version", "Engine version", "warn",
            f"{engine.product} {version} is older than {minimum[0]}.{minimum[1]}",
            f"upgrade {engine.product} to {minimum[0]}.{minimum[1]} or newer",
        )  # fmt: skip

    driver = engine.storage_driver or "unknown"
    if driver in GOOD_STORAGE:
        yield Check("storage-driver", "Storage driver", "pass", driver)
    else:
        yield Check(
            "storage-driver", "Storage driver", "warn",
            f"{driver}: multi-GB toolchain images will be slow and use extra disk",
            'use overlay2: set "storage-driver": "overlay2" in /etc/docker/daemon.json',
        )  # fmt: skip

    where = engine.root_dir or "the engine's data directory"
    if engine.free_bytes is None:
        yield Check(
            "disk-space", "Free disk for images", "warn", f"could not measure free space at {where}",
            f"make sure {where} has {_gb(DISK_RECOMMENDED)} free",
        )  # fmt: skip
    elif engine.free_bytes < DISK_MINIMUM:
        yield Check(
            "disk-space", "Free disk for images", "fail",
            f"{_gb(engine.free_bytes)} free at {where}; at least {_gb(DISK_MINIMUM)} is needed",
            f"free space under {where} or move the engine's data-root",
        )  # fmt: skip
    elif engine.free_bytes < DISK_RECOMMENDED:
        yield Check(
            "disk-space", "Free disk for images", "warn",
            f"{_gb(engine.free_bytes)} free at {where}: enough for a per-target image, "
            f"not for the full multi-target one ({_gb(DISK_RECOMMENDED)})",
            f"free space under {where} for the full image",
        )  # fmt: skip
    else:
        yield Check("disk-space", "Free disk for images", "pass", f"{_gb(engine.free_bytes)} free at {where}")
