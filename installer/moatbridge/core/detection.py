"""Host detection: GPUs, driver, ROCm, device nodes — by reading files only.

Everything goes through a ``Host`` (the root-relative file seam) and an
``Identity`` (who we are and our groups), so a fixture tree or a mounted system can
be inspected exactly like the live machine. Nothing here spawns a process; a missing
or unreadable file is normal and ends up in ``problems`` or as a ``None`` field.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from moatbridge.core import gfx as gfxmod
from moatbridge.core import names, nvidia
from moatbridge.core.driver_detection import detect_driver, detect_rocm, dpkg_versions, kernel_release
from moatbridge.core.host import Host, Identity
from moatbridge.core.kfd import Properties, is_gpu_node, parse_properties, pci_slot_from_location
from moatbridge.core.model import (
    DeviceNode,
    Gpu,
    HostReport,
    NvidiaDriver,
    Security,
)
from moatbridge.core.textsafe import parse_hex, parse_uint

KFD_NODES = "/sys/class/kfd/kfd/topology/nodes"
PCI_DEVICES = "/sys/bus/pci/devices"
AMD_VENDOR = 0x1002
NVIDIA_VENDOR = 0x10DE
# Classes amdgpu binds (VGA, other display, processing accelerator); NVIDIA adds 3D.
AMD_GPU_CLASSES = frozenset({0x030000, 0x038000, 0x120000})
NVIDIA_GPU_CLASSES = frozenset({0x030000, 0x030200, 0x038000})
AMDGPU_IDS_PATHS = ("/usr/share/libdrm/amdgpu.ids", "/opt/amdgpu/share/libdrm/amdgpu.ids")
PCI_IDS_PATHS = ("/usr/share/hwdata/pci.ids", "/usr/share/misc/pci.ids")
ENVIRONMENT_KEYS = (
    "HSA_OVERRIDE_GFX_VERSION",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "ROCM_PATH",
    "HIP_PATH",
)
_SLOT_RE = re.compile(r"^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$", re.ASCII)
_RENDER_RE = re.compile(r"^renderD(\d+)$", re.ASCII)


@dataclass(frozen=True)
class PciDevice:
    slot: str
    vendor: int
    device: int
    revision: int | None
    pci_class: int
    driver: str | None
    vram_bytes: int | None


_hex = parse_hex  # sysfs's "0x1002\n": ASCII hex only, else None
_int = parse_uint


def scan_pci(host: Host, vendors: frozenset[int]) -> dict[str, PciDevice]:
    """Display/accelerator functions of the given vendors, keyed by PCI slot."""
    found: dict[str, PciDevice] = {}
    for slot in host.listdir(PCI_DEVICES):
        base = f"{PCI_DEVICES}/{slot}"
        vendor = _hex(host.read_optional(f"{base}/vendor"))
        if vendor not in vendors:
            continue
        pci_class = _hex(host.read_optional(f"{base}/class"))
        device = _hex(host.read_optional(f"{base}/device"))
        if pci_class is None or device is None or vendor is None:
            continue
        # Keep only GPU-ish classes; this drops e.g. AMD's HDMI audio function.
        if pci_class >> 16 not in (0x03, 0x12):
            continue
        found[slot] = PciDevice(
            slot=slot,
            vendor=vendor,
            device=device,
            revision=_hex(host.read_optional(f"{base}/revision")),
            pci_class=pci_class,
            driver=host.link_name(f"{base}/driver"),
            vram_bytes=_int(host.read_optional(f"{base}/mem_info_vram_total")),
        )
    return found


class _NameBook:
    """Marketing-name lookups, reading each table at most once and only if needed."""

    def __init__(self, host: Host) -> None:
        self._host = host
        self._cache: dict[tuple[str, ...], str | None] = {}

    def _text(self, paths: tuple[str, ...]) -> str | None:
        if paths not in self._cache:
            self._cache[paths] = next(
                (t for t in (self._host.read_optional(p) for p in paths) if t is not None), None
            )
        return self._cache[paths]

    def amd(self, device: int, revision: int | None) -> str | None:
        ids = self._text(AMDGPU_IDS_PATHS)
        if ids is not None:
            name = names.lookup_amdgpu_ids(ids, device, revision)
            if name:
                return name
        pci_ids = self._text(PCI_IDS_PATHS)
        if pci_ids is not None:
            name = names.lookup_pci_ids(pci_ids, AMD_VENDOR, device)
            if name:
                return name
        return names.BUILTIN_AMD_NAMES.get(device)

    def pci(self, vendor: int, device: int) -> str | None:
        pci_ids = self._text(PCI_IDS_PATHS)
        return names.lookup_pci_ids(pci_ids, vendor, device) if pci_ids is not None else None


def _read_kfd(host: Host, problems: list[str]) -> tuple[list[tuple[int, Properties]], list[int]]:
    """Readable GPU nodes in node order, plus the node numbers hidden from us (EPERM)."""
    gpu_nodes: list[tuple[int, Properties]] = []
    hidden: list[int] = []
    numbered = ((parse_uint(n), n) for n in host.listdir(KFD_NODES) if n.isascii())
    for node, entry in sorted((number, n) for number, n in numbered if number is not None):
        try:
            text = host.read_text(f"{KFD_NODES}/{entry}/properties")
        except PermissionError:
            # The device cgroup hides GPUs the container was not given.
            hidden.append(node)
            continue
        except OSError as exc:
            problems.append(f"KFD node {node}: properties unreadable ({exc.strerror})")
            continue
        props = parse_properties(text)
        if "gfx_target_version" not in props.values and "simd_count" not in props.values:
            problems.append(f"KFD node {node}: properties has no usable fields")
            continue
        if props.bad_lines:
            problems.append(f"KFD node {node}: {props.bad_lines} malformed line(s) in properties")
        if is_gpu_node(props):
            gpu_nodes.append((node, props))
    return gpu_nodes, hidden


def _amd_gpu_from_kfd(
    host: Host, node: int, props: Properties, pci: dict[str, PciDevice], book: _NameBook
) -> Gpu:
    minor = props.get("drm_render_minor", 0) or 0
    slot = host.link_name(f"/sys/class/drm/renderD{minor}/device") if minor else None
    if slot is None or not _SLOT_RE.fullmatch(slot):
        location = props.get("location_id")
        slot = pci_slot_from_location(props.get("domain") or 0, location) if location else None
    device_info = pci.get(slot) if slot else None
    device_id = props.get("device_id") or (device_info.device if device_info else None)
    revision = device_info.revision if device_info else None
    gfx = gfxmod.decode_gfx_target_version(props.get("gfx_target_version", 0) or 0)
    if gfx is None and device_id:
        gfx = gfxmod.gfx_from_device_id(device_id)  # kernels before ~5.15
    return Gpu(
        vendor="amd",
        name=book.amd(device_id, revision) if device_id else None,
        gfx_target=gfx,
        family=gfxmod.family_of(gfx),
        apu=gfxmod.is_apu(gfx, device_id),
        pci_slot=slot,
        pci_device_id=f"0x{device_id:04x}" if device_id else None,
        render_node=f"/dev/dri/renderD{minor}" if minor else (slot and _render_node_of(host, slot)),
        kfd_node=node,
        compute_capability=None,
        hsa_override_gfx_version=gfxmod.suggest_hsa_override(gfx),
        source="kfd",
        usable=True,
        vram_bytes=device_info.vram_bytes if device_info else None,
        pci_driver=device_info.driver if device_info else None,
    )


def _render_node_of(host: Host, slot: str) -> str | None:
    for entry in host.listdir(f"{PCI_DEVICES}/{slot}/drm"):
        if _RENDER_RE.fullmatch(entry):
            return f"/dev/dri/{entry}"
    return None


def _amd_gpu_from_pci(host: Host, dev: PciDevice, book: _NameBook) -> Gpu:
    gfx = gfxmod.gfx_from_device_id(dev.device)
    return Gpu(
        vendor="amd",
        name=book.amd(dev.device, dev.revision),
        gfx_target=gfx,
        family=gfxmod.family_of(gfx),
        apu=gfxmod.is_apu(gfx, dev.device),
        pci_slot=dev.slot,
        pci_device_id=f"0x{dev.device:04x}",
        render_node=_render_node_of(host, dev.slot),
        kfd_node=None,
        compute_capability=None,
        hsa_override_gfx_version=gfxmod.suggest_hsa_override(gfx),
        source="pci",
        usable=False,
        vram_bytes=dev.vram_bytes,
        pci_driver=dev.driver,
    )


def _detect_amd(host: Host, book: _NameBook, problems: list[str]) -> tuple[list[Gpu], list[int]]:
    pci = scan_pci(host, frozenset({AMD_VENDOR}))
    amd_pci = {slot: d for slot, d in pci.items() if d.pci_class in AMD_GPU_CLASSES}
    gpu_nodes, hidden = _read_kfd(host, problems)
    gpus = [_amd_gpu_from_kfd(host, node, props, pci, book) for node, props in gpu_nodes]
    claimed = {g.pci_slot for g in gpus}
    for index, gpu in enumerate(gpus):
        # A node too damaged to name its PCI device: adopt the one unclaimed
        # device with the same ID rather than listing the GPU twice.
        if gpu.pci_slot is None:
            same = [
                s for s, d in amd_pci.items() if s not in claimed and gpu.pci_device_id == f"0x{d.device:04x}"
            ]
            if len(same) == 1:
                gpus[index] = replace(
                    gpu, pci_slot=same[0], render_node=gpu.render_node or _render_node_of(host, same[0])
                )
                claimed.add(same[0])
    # PCI fallback: GPUs without a readable KFD node (no amdgpu/KFD, or hidden by a
    # container's device cgroup) are still reported, marked unusable.
    gpus.extend(_amd_gpu_from_pci(host, d, book) for s, d in amd_pci.items() if s not in claimed)
    return gpus, hidden


def _detect_nvidia(host: Host, book: _NameBook, problems: list[str]) -> tuple[list[Gpu], NvidiaDriver]:
    version_text = host.read_optional("/proc/driver/nvidia/version")
    version, open_module = nvidia.parse_driver_version(version_text) if version_text else (None, None)
    if version_text is not None and version is None:
        problems.append("/proc/driver/nvidia/version: no driver version in it")
    gpus: list[Gpu] = []
    listed: set[str] = set()
    pci = scan_pci(host, frozenset({NVIDIA_VENDOR}))
    for slot in host.listdir("/proc/driver/nvidia/gpus"):
        info_text = host.read_optional(f"/proc/driver/nvidia/gpus/{slot}/information")
        if info_text is None:
            continue
        info = nvidia.parse_gpu_information(info_text)
        model = info.get("Model")
        dev = pci.get(slot)
        listed.add(slot)
        gpus.append(_nvidia_gpu(slot, model, dev, "nvidia-procfs", usable=True))
    for slot, dev in pci.items():
        if slot not in listed and dev.pci_class in NVIDIA_GPU_CLASSES:
            model = book.pci(NVIDIA_VENDOR, dev.device)
            gpus.append(_nvidia_gpu(slot, model, dev, "pci", usable=False))
    return gpus, NvidiaDriver(version, open_module)


def _nvidia_gpu(slot: str, model: str | None, dev: PciDevice | None, source: str, usable: bool) -> Gpu:
    return Gpu(
        vendor="nvidia",
        name=model,
        gfx_target=None,
        family=None,
        apu=False,
        pci_slot=slot,
        pci_device_id=f"0x{dev.device:04x}" if dev else None,
        render_node=None,
        kfd_node=None,
        compute_capability=nvidia.compute_capability_from_name(model),
        hsa_override_gfx_version=None,
        source=source,
        usable=usable,
        vram_bytes=None,
        pci_driver=dev.driver if dev else None,
    )


def _device_node(host: Host, path: str, identity: Identity | None) -> DeviceNode:
    if not host.exists(path):
        return DeviceNode(path, exists=False, accessible=False, group=None, gid=None)
    gid = host.owner_gid(path)
    return DeviceNode(
        path=path,
        exists=True,
        accessible=host.can_read_write(path),
        group=identity.group_name(gid) if identity and gid is not None else None,
        gid=gid,
        membership=identity.membership(gid) if identity and gid is not None else None,
    )


def detect_devices(host: Host, gpus: list[Gpu]) -> tuple[DeviceNode, tuple[DeviceNode, ...]]:
    present = [f"/dev/dri/{n}" for n in host.listdir("/dev/dri") if _RENDER_RE.fullmatch(n)]
    expected = [g.render_node for g in gpus if g.vendor == "amd" and g.render_node]
    paths = sorted(
        dict.fromkeys(present + expected),
        key=lambda p: int(_RENDER_RE.fullmatch(os.path.basename(p)).group(1)),  # type: ignore[union-attr]
    )
    gids = {gid for gid in (host.owner_gid(p) for p in ["/dev/kfd", *paths]) if gid is not None}
    identity = host.identity(gids)
    kfd = _device_node(host, "/dev/kfd", identity)
    return kfd, tuple(_device_node(host, p, identity) for p in paths)


def detect_security(host: Host) -> Security:
    enforce = host.read_optional("/sys/fs/selinux/enforce")
    selinux = None
    if enforce is not None:
        selinux = "enforcing" if enforce.strip() == "1" else "permissive"
    apparmor = (host.read_optional("/sys/module/apparmor/parameters/enabled") or "").strip() == "Y"
    return Security(selinux, apparmor)


def detect(host: Host, environ: Mapping[str, str]) -> HostReport:
    problems: list[str] = []
    book = _NameBook(host)
    amd, hidden = _detect_amd(host, book, problems)
    nv, nvidia_driver = _detect_nvidia(host, book, problems)
    kernel = kernel_release(host)
    dpkg = dpkg_versions(host)
    kfd, render_nodes = detect_devices(host, amd)
    return HostReport(
        root=host.root,
        gpus=tuple(amd + nv),
        amdgpu_driver=detect_driver(host, kernel, dpkg),
        rocm=detect_rocm(host, environ, dpkg),
        kfd=kfd,
        render_nodes=render_nodes,
        nvidia_driver=nvidia_driver,
        kernel_release=kernel,
        security=detect_security(host),
        hidden_kfd_nodes=tuple(hidden),
        environment=tuple((k, environ[k]) for k in ENVIRONMENT_KEYS if k in environ),
        problems=tuple(problems),
    )
