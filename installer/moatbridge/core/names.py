"""Marketing names from libdrm's amdgpu.ids, hwdata's pci.ids, or a built-in table (pure)."""

from __future__ import annotations

from moatbridge.core.textsafe import parse_hex


def lookup_amdgpu_ids(text: str, device_id: int, revision: int | None) -> str | None:
    """libdrm's table matches device *and* PCI revision.

    Without a revision match we still answer when every entry for the device agrees
    on the name, so a card with an unlisted revision gets a name that cannot be wrong.
    """
    names_for_device: list[str] = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        fields = line.split(",", 2)
        if len(fields) != 3:
            continue
        dev, rev = parse_hex(fields[0]), parse_hex(fields[1])
        if dev is None or rev is None:
            continue
        if dev != device_id:
            continue
        name = fields[2].strip()
        if revision is not None and rev == revision:
            return name
        names_for_device.append(name)
    if names_for_device and len(set(names_for_device)) == 1:
        return names_for_device[0]
    return None


def lookup_pci_ids(text: str, vendor_id: int, device_id: int) -> str | None:
    """Find ``<vendor>`` at column 0, then ``\\t<device>  Name`` inside its block.

    pci.ids is ~1.3 MB; a string search avoids splitting all of it into lines.
    """
    vendor_line = f"{vendor_id:04x}  "
    if text.startswith(vendor_line):
        start = 0
    else:
        found = text.find("\n" + vendor_line)
        if found < 0:
            return None
        start = found + 1
    # The vendor block ends at the next line that starts without a TAB (or '#').
    pos = text.find("\n", start)
    device_key = f"\t{device_id:04x}  "
    while pos >= 0:
        line_start = pos + 1
        line_end = text.find("\n", line_start)
        line = text[line_start : line_end if line_end >= 0 else len(text)]
        if line and not line.startswith("\t") and not line.startswith("#"):
            return None
        if line.startswith(device_key):
            return line[len(device_key) :].strip() or None
        pos = line_end
    return None


# A small built-in table for when neither file exists (common in minimal containers).
BUILTIN_AMD_NAMES: dict[int, str] = {
    0x744C: "AMD Radeon RX 7900 XT/XTX",
    0x7448: "AMD Radeon Pro W7900",
    0x747E: "AMD Radeon RX 7800 XT/7700 XT",
    0x7480: "AMD Radeon RX 7600",
    0x73BF: "AMD Radeon RX 6800/6800 XT/6900 XT",
    0x73DF: "AMD Radeon RX 6700/6700 XT/6750 XT",
    0x73FF: "AMD Radeon RX 6600/6600 XT",
    0x7550: "AMD Radeon RX 9070/9070 XT",
    0x7551: "AMD Radeon AI PRO R9700",
    0x74A0: "AMD Instinct MI300A",
    0x74A1: "AMD Instinct MI300X",
    0x74A5: "AMD Instinct MI325X",
    0x7408: "AMD Instinct MI250X",
    0x740C: "AMD Instinct MI250X/MI250",
    0x740F: "AMD Instinct MI210",
    0x738C: "AMD Instinct MI100",
    0x66AF: "AMD Radeon VII",
    0x15BF: "AMD Radeon 780M Graphics",
    0x1586: "AMD Radeon 8060S Graphics",
    0x150E: "AMD Radeon 890M Graphics",
    0x1114: "AMD Radeon 860M Graphics",
    0x1681: "AMD Radeon 680M",
    0x164E: "AMD Radeon 610M",
}


# Well-known products per gfx target, for people who know their card's name and not its ISA
# (the setup wizard's target picker searches these). Abbreviated: "RX 7900 XTX/XT/GRE" is three
# cards. Sources: LLVM's AMDGPUUsage processor table ("Example Products"), AMD's ROCm "GPU
# hardware specifications" tables, and libdrm's amdgpu.ids for the device names; a target whose
# products are not on record there has no entry (the picker then shows its family only).
GFX_PRODUCTS: dict[str, str] = {
    # GCN2 (Sea Islands)
    "gfx700": "Kaveri APUs (A8-7600, A10-7850K, FX-7600P)",
    "gfx701": "FirePro W8100/W9100, S9150/S9170",
    "gfx702": "Radeon R9 290/290X, R9 390/390X",
    "gfx703": "Kabini/Mullins APUs (Athlon 5350, E1-2500)",
    "gfx704": "Radeon HD 7790, R7 260/260X",
    # GCN3 (Volcanic Islands) and GCN4 (Polaris)
    "gfx801": "Carrizo APUs (A10-8700P, FX-8800P)",
    "gfx802": "Radeon R9 285/380/380X, FirePro W7100",
    "gfx803": "Radeon RX 470/480/570/580/590, RX 460/560, R9 Fury/Nano",
    "gfx805": "FirePro S7150/S7100",
    "gfx810": "Stoney Ridge APUs (A6-9220, A9-9420)",
    # GCN5 (Vega)
    "gfx900": "Radeon RX Vega 56/64, Vega Frontier Edition, Instinct MI25",
    "gfx902": "Raven Ridge APUs (Ryzen 5 2400G, Ryzen 7 2700U; Vega 8/11)",
    "gfx904": "Radeon Pro Vega 16/20",
    "gfx906": "Radeon VII, Radeon Pro VII, Instinct MI50/MI60",
    "gfx909": "Raven2 APUs (Ryzen 3 3200U, Athlon 300U)",
    "gfx90c": "Renoir/Cezanne APUs (Ryzen 7 4800U, Ryzen 7 5700G)",
    # CDNA
    "gfx908": "Instinct MI100",
    "gfx90a": "Instinct MI210/MI250/MI250X",
    "gfx940": "Instinct MI300 (pre-production)",
    "gfx941": "Instinct MI300 (pre-production)",
    "gfx942": "Instinct MI300X/MI300A/MI325X",
    "gfx950": "Instinct MI350X/MI355X",
    # RDNA1
    "gfx1010": "Radeon RX 5700 XT/5700/5600 XT, PRO W5700",
    "gfx1011": "Radeon Pro V520, Pro 5600M",
    "gfx1012": "Radeon RX 5500 XT/5500/5300, PRO W5500",
    "gfx1013": "Cyan Skillfish APU (AMD BC-250)",
    # RDNA2
    "gfx1030": "Radeon RX 6950 XT/6900 XT/6800 XT/6800, PRO W6800/V620",
    "gfx1031": "Radeon RX 6750 XT/6700 XT/6700, RX 6800M",
    "gfx1032": "Radeon RX 6650 XT/6600 XT/6600, PRO W6600",
    "gfx1033": "Van Gogh APU (Steam Deck)",
    "gfx1034": "Radeon RX 6500 XT/6400, PRO W6400",
    "gfx1035": "Rembrandt APUs (Radeon 680M/660M, Ryzen 6000)",
    "gfx1036": "Raphael APUs (Radeon 610M, Ryzen 7000)",
    # RDNA3 and RDNA3.5
    "gfx1100": "Radeon RX 7900 XTX/XT/GRE, PRO W7900/W7800",
    "gfx1101": "Radeon RX 7800 XT/7700 XT, PRO W7700",
    "gfx1102": "Radeon RX 7600 XT/7600, PRO W7600/W7500",
    "gfx1103": "Phoenix APUs (Radeon 780M/760M/740M, Ryzen 7040/8040)",
    "gfx1150": "Strix Point APUs (Radeon 890M/880M, Ryzen AI 300)",
    "gfx1151": "Strix Halo APUs (Radeon 8060S/8050S, Ryzen AI Max)",
    "gfx1152": "Krackan Point APUs (Radeon 860M/840M)",
    # RDNA4
    "gfx1200": "Radeon RX 9060 XT/9060",
    "gfx1201": "Radeon RX 9070 XT/9070/9070 GRE, AI PRO R9700",
}
