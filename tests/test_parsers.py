"""Pure parsers and tables, against the documented formats."""

from __future__ import annotations

import pytest

from moatbridge.core import compat, gfx, kfd, names, nvidia, versions

DECODE_TABLE = {
    70000: "gfx700", 80003: "gfx803", 90000: "gfx900", 90006: "gfx906", 90008: "gfx908",
    90010: "gfx90a", 90012: "gfx90c", 90400: "gfx940", 90402: "gfx942", 90500: "gfx950",
    100100: "gfx1010", 100103: "gfx1013", 100300: "gfx1030", 100301: "gfx1031",
    100306: "gfx1036", 110000: "gfx1100", 110003: "gfx1103", 110501: "gfx1151",
    120001: "gfx1201", 120500: "gfx1250",
}  # fmt: skip


@pytest.mark.parametrize(("value", "name"), sorted(DECODE_TABLE.items()))
def test_gfx_decode_uses_hex_stepping(value: int, name: str) -> None:
    assert gfx.decode_gfx_target_version(value) == name


def test_gfx_decode_cpu_node() -> None:
    assert gfx.decode_gfx_target_version(0) is None


@pytest.mark.parametrize(
    ("target", "family"),
    [("gfx900", "GCN5"), ("gfx906", "GCN5.1"), ("gfx908", "CDNA1"), ("gfx90a", "CDNA2"),
     ("gfx942", "CDNA3"), ("gfx950", "CDNA4"), ("gfx1012", "RDNA1"), ("gfx1035", "RDNA2"),
     ("gfx1102", "RDNA3"), ("gfx1151", "RDNA3.5"), ("gfx1201", "RDNA4"), ("gfx1250", None)],
)  # fmt: skip
def test_family(target: str, family: str | None) -> None:
    assert gfx.family_of(target) == family


def test_apu_classification() -> None:
    assert gfx.is_apu("gfx1036", 0x164E)
    assert gfx.is_apu("gfx1151", None)
    assert not gfx.is_apu("gfx1100", 0x744C)
    assert gfx.is_apu("gfx942", 0x74A0)  # MI300A
    assert not gfx.is_apu("gfx942", 0x74A1)  # MI300X


@pytest.mark.parametrize(
    ("target", "override"),
    [("gfx1031", "10.3.0"), ("gfx1032", "10.3.0"), ("gfx1035", "10.3.0"), ("gfx1103", "11.0.0"),
     ("gfx1030", None), ("gfx1100", None), ("gfx942", None), ("gfx1201", None),
     ("gfx1101", None), ("gfx1102", None)],  # the open flavour ships gfx1101/gfx1102 code
)  # fmt: skip
def test_override_against_open_flavour(target: str, override: str | None) -> None:
    assert gfx.suggest_hsa_override(target) == override


def test_override_where_the_toolchain_lacks_the_chip() -> None:
    official = frozenset({"gfx1030", "gfx1100", "gfx90a", "gfx942"})
    assert gfx.suggest_hsa_override("gfx1101", official) == "11.0.0"
    assert gfx.suggest_hsa_override("gfx1102", official) == "11.0.0"
    assert gfx.suggest_hsa_override("gfx1031", frozenset({"gfx1100"})) is None  # nothing to point at


@pytest.mark.parametrize(
    ("value", "target"),
    [("10.3.0", "gfx1030"), ("9.0.10", "gfx90a"), ("11.0", None), ("11.0.0 ", "gfx1100"),
     ("abc", None), ("64.0.0", None), ("10.3.0.1", None)],
)  # fmt: skip
def test_parse_hsa_override(value: str, target: str | None) -> None:
    assert gfx.parse_hsa_override(value) == target


def test_device_table() -> None:
    assert gfx.gfx_from_device_id(0x744C) == "gfx1100"
    assert gfx.gfx_from_device_id(0x73A5) == "gfx1030"
    assert gfx.gfx_from_device_id(0x73AD) == "gfx1030"  # inside the 73AB-73AF range
    assert gfx.gfx_from_device_id(0x7550) == "gfx1201"
    assert gfx.gfx_from_device_id(0x1234) is None


def test_properties_parser_tolerates_damage() -> None:
    props = kfd.parse_properties("simd_count 192\ngarbage\n\nkey -1\ngfx_target_version 110000\ndrm_rend")
    assert props.values == {"simd_count": 192, "gfx_target_version": 110000}
    assert props.bad_lines == 3
    assert kfd.is_gpu_node(props)
    assert not kfd.is_gpu_node(
        kfd.parse_properties("cpu_cores_count 32\nsimd_count 0\ngfx_target_version 0\n")
    )


def test_pci_slot_from_location() -> None:
    assert kfd.pci_slot_from_location(0, 768) == "0000:03:00.0"
    assert kfd.pci_slot_from_location(1, (0xC1 << 8) | (0x1F << 3) | 7) == "0001:c1:1f.7"


AMDGPU_IDS = (
    "# c\n1.0.0\n744C,\tC8,\tAMD Radeon RX 7900 XTX\n744C,\tCC,\tAMD Radeon RX 7900 XT\n74A1,\t00,\tMI300X\n"
)


def test_amdgpu_ids_matches_device_and_revision() -> None:
    assert names.lookup_amdgpu_ids(AMDGPU_IDS, 0x744C, 0xCC) == "AMD Radeon RX 7900 XT"
    assert names.lookup_amdgpu_ids(AMDGPU_IDS, 0x744C, 0x01) is None  # two names: ambiguous
    assert names.lookup_amdgpu_ids(AMDGPU_IDS, 0x74A1, 0x05) == "MI300X"  # one name: safe
    assert names.lookup_amdgpu_ids("garbage\n,,\nXYZ,\t1,\tA\n", 0x744C, 0xC8) is None


PCI_IDS = "1002  AMD\n\t744c  Navi 31\n\t\t1da2 e471  Board\n10de  NVIDIA\n\t2684  AD102 [GeForce RTX 4090]\nC 03  Display\n"


def test_pci_ids_lookup_stays_inside_the_vendor_block() -> None:
    assert names.lookup_pci_ids(PCI_IDS, 0x1002, 0x744C) == "Navi 31"
    assert names.lookup_pci_ids(PCI_IDS, 0x10DE, 0x2684) == "AD102 [GeForce RTX 4090]"
    assert names.lookup_pci_ids(PCI_IDS, 0x1002, 0x2684) is None
    assert names.lookup_pci_ids(PCI_IDS, 0x8086, 0x2684) is None


def test_nvidia_procfs() -> None:
    proprietary = (
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.07  Fri Mar 14 2025\nGCC version: x\n"
    )
    open_module = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.133.07  Release Build\n"
    assert nvidia.parse_driver_version(proprietary) == ("570.133.07", False)
    assert nvidia.parse_driver_version(open_module) == ("570.133.07", True)
    assert nvidia.parse_driver_version("") == (None, None)
    info = nvidia.parse_gpu_information("Model: \t\t NVIDIA A100-SXM4-40GB\nBus Location: \t 0000:01:00.0\n")
    assert info["Model"] == "NVIDIA A100-SXM4-40GB"
    assert nvidia.compute_capability_from_name(info["Model"]) == "8.0"
    assert nvidia.compute_capability_from_name("NVIDIA GeForce RTX 3090") == "8.6"
    assert nvidia.compute_capability_from_name("Tesla T4") == "7.5"
    assert nvidia.compute_capability_from_name("NVIDIA H100 80GB HBM3") == "9.0"
    assert nvidia.compute_capability_from_name("Some Future GPU") is None


def test_rocm_version_files() -> None:
    assert versions.leading_version("6.2.0-66\n") == "6.2.0"
    assert versions.leading_version("garbage") is None
    header = (
        "#define ROCM_VERSION_MAJOR   6\n#define ROCM_VERSION_MINOR   4\n#define ROCM_VERSION_PATCH   1\n"
    )
    assert versions.rocm_version_from_header(header) == "6.4.1"
    assert versions.rocm_version_from_header("#define OTHER 1") is None
    hip = "# x\nHIP_VERSION_MAJOR=6\nHIP_VERSION_MINOR=4\nHIP_VERSION_PATCH=43483\n"
    assert versions.hip_version_from_file(hip) == "6.4"


def test_dpkg_and_build_numbers() -> None:
    status = (
        "Package: amdgpu-dkms\nStatus: install ok installed\nVersion: 1:6.12.12.60401-2164967.24.04\n\n"
        "Package: rocm-core\nStatus: deinstall ok config-files\nVersion: 6.3.0.60300-1\n\n"
        "Package: libamdhip64-5\nStatus: install ok installed\nVersion: 5.7.1-6+deb13u1\n"
    )
    found = versions.dpkg_installed_versions(status, frozenset({"amdgpu-dkms", "rocm-core", "libamdhip64-5"}))
    assert found == {"amdgpu-dkms": "1:6.12.12.60401-2164967.24.04", "libamdhip64-5": "5.7.1-6+deb13u1"}
    upstream = versions.debian_upstream_version(found["amdgpu-dkms"])
    assert upstream == "6.12.12.60401"
    assert versions.rocm_release_from_build_number(upstream) == "6.4.1"
    assert versions.rocm_release_from_build_number("5.7.1") is None


@pytest.mark.parametrize(
    ("driver", "user", "verdict"),
    [("6.1.0", "5.7", "supported"), ("5.5.1", "5.7", "supported"), ("6.4.1", "5.7", "unsupported"),
     ("6.2.0", "7.0", "supported"), ("30.10", "6.1", "unsupported"), ("4.0", "5.7", "unknown"),
     (None, "5.7", "unknown")],
)  # fmt: skip
def test_compat_matrix(driver: str | None, user: str, verdict: str) -> None:
    assert compat.driver_supports(driver, user).verdict == verdict
