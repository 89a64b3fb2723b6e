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
