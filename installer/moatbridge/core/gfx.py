"""AMD gfx targets: decoding, families, APU classification and HSA overrides.

Pure functions and static tables only. Sources are summarised in
shared/reference/detection.md (sections 2, 6, 7 and 12).
"""

from __future__ import annotations

import re

from cudacompat.targets import GENERIC_TARGETS as GENERIC_TARGETS
from cudacompat.targets import generic_of as generic_of
from cudacompat.targets import is_code_target, is_processor


def decode_gfx_target_version(value: int) -> str | None:
    """Turn KFD's ``gfx_target_version`` into a target name.

    The stepping is printed in hex, exactly as LLVM's amdgpu-arch does:
    90010 -> gfx90a, 100300 -> gfx1030. Zero means "CPU node" (None).
    """
    if value <= 0:
        return None
    major = (value // 10000) % 100
    minor = (value // 100) % 100
    stepping = value % 100
    if major == 0:
        return None
    return f"gfx{major}{minor}{stepping:x}"


def is_gfx_name(text: str) -> bool:
    """A processor name (gfx1030): the toolkit's grammar (cudacompat.targets)."""
    return is_processor(text)


# NVIDIA processors as LLVM and nvcc name them (sm_89, sm_90a, sm_120f): SCALE's NVIDIA mode.
_NVIDIA_RE = re.compile(r"sm_[1-9][0-9]{1,2}[af]?", re.ASCII)


def is_nvidia_target(text: str) -> bool:
    return bool(_NVIDIA_RE.fullmatch(text))


def is_target_name(text: str) -> bool:
    """An AMD processor (gfx1100) or an NVIDIA one (sm_89)."""
    return is_gfx_name(text) or is_nvidia_target(text)


def is_code_target_name(text: str) -> bool:
    """A name device code can be built for: a processor (gfx1100) or a generic one (gfx11-generic)."""
    return is_code_target(text)


def served_by(code_targets: frozenset[str] | tuple[str, ...], gfx: str) -> str | None:
    """Which of ``code_targets`` a ``gfx`` GPU would load: its own, else its generic one."""
    if gfx in code_targets:
        return gfx
    generic = generic_of(gfx)
    return generic if generic is not None and generic in code_targets else None


def concrete_targets(code_targets: frozenset[str] | tuple[str, ...]) -> frozenset[str]:
    """Every processor that ``code_targets`` serves (generic names expanded to their members)."""
    out: set[str] = set()
    for name in code_targets:
        out |= GENERIC_TARGETS.get(name, {name})
    return frozenset(out)


# Family labels as AMD's hardware tables word them (detection.md 7.1).
_FAMILIES: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"gfx700", "gfx701", "gfx702", "gfx703", "gfx704", "gfx705"}), "GCN2"),
    (frozenset({"gfx801", "gfx802", "gfx803", "gfx805", "gfx810"}), "GCN3"),
    (frozenset({"gfx900", "gfx902", "gfx904", "gfx909", "gfx90c"}), "GCN5"),
    (frozenset({"gfx906"}), "GCN5.1"),
    (frozenset({"gfx908"}), "CDNA1"),
    (frozenset({"gfx90a"}), "CDNA2"),
    (frozenset({"gfx940", "gfx941", "gfx942"}), "CDNA3"),
    (frozenset({"gfx950"}), "CDNA4"),
    (frozenset({"gfx1010", "gfx1011", "gfx1012", "gfx1013"}), "RDNA1"),
    (frozenset({f"gfx103{i}" for i in range(7)}), "RDNA2"),
    (frozenset({"gfx1100", "gfx1101", "gfx1102", "gfx1103"}), "RDNA3"),
    (frozenset({"gfx1150", "gfx1151", "gfx1152", "gfx1153"}), "RDNA3.5"),
    (frozenset({"gfx1200", "gfx1201"}), "RDNA4"),
)


def family_of(gfx: str | None) -> str | None:
    if gfx is None:
        return None
    for targets, label in _FAMILIES:
        if gfx in targets:
            return label
    return None


# LLVM AMDGPUUsage's dGPU/APU column; MI300A (gfx942 + 0x74A0) is handled in is_apu().
_APU_TARGETS = frozenset(
    {
        "gfx700", "gfx703", "gfx705", "gfx801", "gfx810", "gfx902", "gfx909", "gfx90c",
        "gfx1013", "gfx1033", "gfx1035", "gfx1036", "gfx1103",
        "gfx1150", "gfx1151", "gfx1152", "gfx1153",
    }
)  # fmt: skip
MI300A_DEVICE_ID = 0x74A0


def is_apu(gfx: str | None, pci_device_id: int | None) -> bool:
    if gfx is None:
        return False
    if gfx == "gfx942":
        return pci_device_id == MI300A_DEVICE_ID
    return gfx in _APU_TARGETS


# Device code shipped in Debian trixie's ROCm 5.7 math libraries (open flavour).
# The image catalog (images/catalog.yaml) becomes the owner of per-toolchain sets;
# detection uses this as the reference set for its override suggestion.
OPEN_LIBRARY_TARGETS = frozenset(
    {"gfx803", "gfx900", "gfx906", "gfx908", "gfx90a",
     "gfx1010", "gfx1030", "gfx1100", "gfx1101", "gfx1102"}
)  # fmt: skip

# Consumer chip -> (override value, ISA whose code objects it then loads).
_OVERRIDES: dict[str, tuple[str, str]] = {
    "gfx1031": ("10.3.0", "gfx1030"),
    "gfx1032": ("10.3.0", "gfx1030"),
    "gfx1033": ("10.3.0", "gfx1030"),
    "gfx1034": ("10.3.0", "gfx1030"),
    "gfx1035": ("10.3.0", "gfx1030"),
    "gfx1036": ("10.3.0", "gfx1030"),
    "gfx1101": ("11.0.0", "gfx1100"),
    "gfx1102": ("11.0.0", "gfx1100"),
    "gfx1103": ("11.0.0", "gfx1100"),
    "gfx1150": ("11.0.0", "gfx1100"),
    "gfx1151": ("11.0.0", "gfx1100"),
    "gfx1152": ("11.0.0", "gfx1100"),
    "gfx90c": ("9.0.0", "gfx900"),
}


def suggest_hsa_override(
    gfx: str | None, shipped_targets: frozenset[str] = OPEN_LIBRARY_TARGETS
) -> str | None:
    """The ``HSA_OVERRIDE_GFX_VERSION`` a chip needs when the toolchain lacks its code.

    Only suggested when the chip itself is missing from ``shipped_targets`` and the
    ISA the override points at is present: setting it blindly breaks HSA init on
    runtimes that have no matching code object.
    """
    if gfx is None or gfx in shipped_targets:
        return None
    entry = _OVERRIDES.get(gfx)
    if entry is None or entry[1] not in shipped_targets:
        return None
    return entry[0]


_OVERRIDE_RE = re.compile(r"^(\d+)\.(\d+)\.(\d+)$", re.ASCII)


def parse_hsa_override(value: str) -> str | None:
    """Validate an ``HSA_OVERRIDE_GFX_VERSION`` value; return the gfx name or None.

    libhsakmt wants three decimal integers (major <= 63, minor and stepping <= 255)
    and fails topology init on anything else.
    """
    match = _OVERRIDE_RE.fullmatch(value.strip())
    if not match:
        return None
    major, minor, stepping = (int(g) for g in match.groups())
    if major > 63 or minor > 255 or stepping > 255 or major == 0:
        return None
    return f"gfx{major}{minor}{stepping:x}"


# PCI device ID -> gfx target, for when KFD is missing or hidden (detection.md 6.2).
# Only a fallback: KFD's gfx_target_version is authoritative when readable.
def _ids(*values: int | tuple[int, int]) -> list[int]:
    out: list[int] = []
    for value in values:
        if isinstance(value, tuple):
            out.extend(range(value[0], value[1] + 1))
        else:
            out.append(value)
    return out


_DEVICE_TABLE: dict[str, list[int]] = {
    "gfx900": _ids((0x6860, 0x6864), (0x6867, 0x686F), 0x687F),
    "gfx902": _ids(0x15DD, 0x15D8),
    "gfx904": _ids((0x69A0, 0x69A3), 0x69AF),
    "gfx906": _ids((0x66A0, 0x66A4), 0x66A7, 0x66AF),
    "gfx908": _ids(0x7388, 0x738C, 0x738E, 0x7390),
    "gfx90a": _ids(0x7408, 0x740C, 0x740F, 0x7410),
    "gfx90c": _ids(0x15E7, 0x1636, 0x1638, 0x164C),
    "gfx942": _ids(0x74A0, 0x74A1, 0x74A2, 0x74A5, 0x74A9, 0x74B5, 0x74B6, 0x74BD),
    "gfx1010": _ids(0x7310, 0x7312, 0x7318, 0x7319, 0x731A, 0x731B, 0x731E, 0x731F),
    "gfx1011": _ids(0x7360, 0x7362),
    "gfx1012": _ids(0x7340, 0x7341, 0x7347, 0x734F),
    "gfx1013": _ids((0x13F9, 0x13FC), 0x13FE, 0x143F, 0x13DB, 0x13F3),
    "gfx1030": _ids((0x73A0, 0x73A3), 0x73A5, 0x73A8, 0x73A9, (0x73AB, 0x73AF), 0x73BF),
    "gfx1031": _ids(0x73C0, 0x73C1, 0x73C3, (0x73DA, 0x73DF)),
    "gfx1032": _ids((0x73E0, 0x73E3), (0x73E8, 0x73ED), 0x73EF, 0x73FF),
    "gfx1033": _ids(0x163F),
    "gfx1034": _ids((0x7420, 0x7424), 0x743F),
    "gfx1035": _ids(0x164D, 0x1681),
    "gfx1036": _ids(0x164E, 0x1506),
    "gfx1100": _ids(0x7448, 0x7449, 0x744A, 0x744C, 0x745E),
    "gfx1101": _ids(0x7470, 0x747E, 0x7460, 0x7461),
    "gfx1102": _ids(0x7480, 0x7483, 0x7489, 0x7499),
    "gfx1103": _ids(0x15BF, 0x15C8, 0x1900, 0x1901),
    "gfx1150": _ids(0x150E),
    "gfx1151": _ids(0x1586),
    "gfx1152": _ids(0x1114),
    "gfx1200": _ids(0x7590),
    "gfx1201": _ids(0x7550, 0x7551),
}
_GFX_BY_DEVICE: dict[int, str] = {device: gfx for gfx, devices in _DEVICE_TABLE.items() for device in devices}


def gfx_from_device_id(device_id: int) -> str | None:
    return _GFX_BY_DEVICE.get(device_id)
