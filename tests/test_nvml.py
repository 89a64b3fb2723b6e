"""NVML on the open flavour: nvml.h and libnvidia-ml.so.1 over ROCm SMI.

* the header: NVIDIA's nvml.h of each mimicked release (Debian's libnvidia-ml-dev for 12.4,
  the nvidia-nvml-dev 13.0 wheel) is the oracle: every function ours declares has NVIDIA's
  signature, every enum ours declares has NVIDIA's enumerators with NVIDIA's values, every
  structure NVIDIA's fields and size, every numeric macro NVIDIA's value; and the queries
  monitoring code makes are all there;
* the library: no machine here has an AMD GPU, so ROCm SMI is replaced by a stand-in library
  (tests/fixtures/nvml/fake_rocm_smi.c, named as such) reporting two GPUs, one of them given
  to the container. A program written against NVIDIA's API, CMake's CUDA::nvml and gpustat
  (PyPI, over nvidia-ml-py) read NVML's units and contracts from it;
* with the real ROCm SMI and no GPU, NVML says the driver is not loaded.
"""

from __future__ import annotations

import json
import re
import shutil
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

from cudacompat.generate import signatures

from conftest import CLANGXX, ast_and_defines, docker_run
from support import nvidia_releases, pypi
from support.open_stacks import MIMICKED, OPEN_STACKS

pytestmark = pytest.mark.engine

FIXTURES = Path(__file__).parent / "fixtures" / "nvml"
TOOLKIT_INCLUDE = "/opt/moatbridge/toolkit/include"

# What monitoring and training code asks NVML (gpustat, nvitop, PyTorch's and Lightning's
# device monitors, DCGM-less exporters): each must be declared with NVIDIA's signature.
MONITORING = {
    "nvmlInit", "nvmlInitWithFlags", "nvmlShutdown", "nvmlErrorString",
    "nvmlSystemGetDriverVersion", "nvmlSystemGetNVMLVersion", "nvmlSystemGetCudaDriverVersion",
    "nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetProcessName",
    "nvmlDeviceGetCount", "nvmlDeviceGetHandleByIndex", "nvmlDeviceGetHandleByPciBusId",
    "nvmlDeviceGetHandleByUUID", "nvmlDeviceGetIndex", "nvmlDeviceGetName", "nvmlDeviceGetUUID",
    "nvmlDeviceGetSerial", "nvmlDeviceGetMinorNumber", "nvmlDeviceGetPciInfo",
    "nvmlDeviceGetMemoryInfo", "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetUtilizationRates",
    "nvmlDeviceGetTemperature", "nvmlDeviceGetTemperatureThreshold", "nvmlDeviceGetPowerUsage",
    "nvmlDeviceGetPowerManagementLimit", "nvmlDeviceGetPowerManagementLimitConstraints",
    "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetTotalEnergyConsumption",
    "nvmlDeviceGetClockInfo", "nvmlDeviceGetMaxClockInfo", "nvmlDeviceGetClock",
    "nvmlDeviceGetFanSpeed", "nvmlDeviceGetCudaComputeCapability",
    "nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses",
    "nvmlDeviceGetComputeMode", "nvmlDeviceGetPerformanceState", "nvmlDeviceGetPersistenceMode",
    "nvmlDeviceGetEccMode", "nvmlDeviceGetEncoderUtilization", "nvmlDeviceGetDecoderUtilization",
}  # fmt: skip
_NUMBER = re.compile(r"\(?-?(?:0x[0-9A-Fa-f]+|\d+)[uUlL]*\)?")


def _ok(result: Any) -> str:
    assert result.returncode == 0, (result.stdout[-3000:], result.stderr[-3000:])
    return str(result.stdout)


# --- reading a header through clang (what the image's clang says it declares) ---------------


class Declared:
    """The nvml* functions, the enums and structures, and the numeric NVML_* macros a header
    makes visible, read from clang's JSON AST and `-dM`."""

    def __init__(self, ast: str, defines: str) -> None:
        self.functions = {s.name: s for s in signatures.signatures(ast, defines, "nvml.h", "nvml")}
        self.enums: dict[str, tuple[str, ...]] = {}
        self.records: dict[str, tuple[tuple[str, str], ...]] = {}
        for document in signatures.json_documents(ast):
            inner = document.get("inner", [])
            if document.get("kind") == "EnumDecl" and document.get("name"):
                self.enums[document["name"]] = tuple(
                    c["name"] for c in inner if c.get("kind") == "EnumConstantDecl"
                )
            if (
                document.get("kind") in ("RecordDecl", "CXXRecordDecl")
                and document.get("name")
                and document.get("completeDefinition")
            ):
                self.records[document["name"]] = tuple(
                    (f["name"], f["type"]["qualType"]) for f in inner if f.get("kind") == "FieldDecl"
                )
        self.macros = {}
        for line in defines.splitlines():
            parts = line.split(None, 2)
            if len(parts) == 3 and parts[1].startswith("NVML_") and _NUMBER.fullmatch(parts[2].strip()):
                self.macros[parts[1]] = parts[2].strip()


def _read_header(image: str, include_option: str, mounts: tuple[str, ...]) -> Declared:
    return Declared(*ast_and_defines(image, ["nvml.h"], include_option, "nvml", *mounts))


def _values(
    image: str, include_option: str, mounts: tuple[str, ...], enumerators: list[str], records: list[str]
) -> dict[str, str]:
    """name -> value: each enumerator, and sizeof of each structure, as a compiled program prints them."""
    lines = ["#include <nvml.h>", "#include <cstdio>", "int main() {"]
    lines += [f'std::printf("%s %lld\\n", "{name}", (long long){name});' for name in enumerators]
    lines += [f'std::printf("%s %zu\\n", "sizeof {name}", sizeof(struct {name}));' for name in records]
    lines += ["return 0;", "}"]
    source = "\n".join(lines) + "\n"
    script = f"cat > /tmp/v.cpp <<'EOF'\n{source}EOF\n{CLANGXX} -std=c++17 {include_option} /tmp/v.cpp -o /tmp/v && /tmp/v"
    out = _ok(docker_run(image, script, *mounts))
    return dict(line.rsplit(" ", 1) for line in out.splitlines() if line.strip())


@pytest.mark.parametrize(("gfx", "fixture", "release"), MIMICKED)
def test_nvml_h_is_nvidias_where_it_declares(
    request: pytest.FixtureRequest, gfx: str, fixture: str, release: str
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    real_mount = ("-v", f"{nvidia_releases.nvml_include_of(release)}:/real:ro")
    real = _read_header(image, "-isystem /real", real_mount)
    ours = _read_header(image, f"-isystem {TOOLKIT_INCLUDE}", ())

    assert set(ours.functions) >= MONITORING, f"not declared: {sorted(MONITORING - set(ours.functions))}"
    for name, declared in ours.functions.items():
        assert name in real.functions, f"{name}: NVIDIA's CUDA {release} nvml.h has no such function"
        assert (declared.result, declared.parameters) == (
            real.functions[name].result,
            real.functions[name].parameters,
        ), name
    for name, members in ours.enums.items():
        assert members == real.enums.get(name), f"enum {name}: {members} != {real.enums.get(name)}"
    for name, fields in ours.records.items():
        assert fields == real.records.get(name), f"struct {name}: {fields} != {real.records.get(name)}"
    for name, value in ours.macros.items():
        assert name in real.macros, f"{name}: not a macro of NVIDIA's CUDA {release} nvml.h"
        assert value.strip("()") == real.macros[name].strip("()"), name

    enumerators = sorted({e for each in ours.enums.values() for e in each})
    records = sorted(ours.records)
    assert len(enumerators) > 100 and len(records) >= 7
    assert _values(image, f"-isystem {TOOLKIT_INCLUDE}", (), enumerators, records) == _values(
        image, "-isystem /real", real_mount, enumerators, records
    )


# --- the library over a stand-in ROCm SMI ----------------------------------------------------

# Written against NVIDIA's API as monitoring code is: every query and its contract
PROGRAM = r"""
#include <nvml.h>
#include <cstdio>
#include <cstring>
#include <unistd.h>
#define SHOW(label, call, fmt, ...) do { nvmlReturn_t r_ = (call); \
    if (r_ == NVML_SUCCESS) std::printf(label " " fmt "\n", __VA_ARGS__); \
    else std::printf(label " error %d %s\n", (int)r_, nvmlErrorString(r_)); } while (0)
int main() {
    unsigned count = 0;
    std::printf("before %d\n", (int)nvmlDeviceGetCount(&count));
    if (nvmlInit() != NVML_SUCCESS) return 1;
    SHOW("count", nvmlDeviceGetCount(&count), "%u", count);
    char text[NVML_DEVICE_NAME_V2_BUFFER_SIZE], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    SHOW("driver", nvmlSystemGetDriverVersion(text, sizeof text), "%s", text);
    int cuda = 0;
    SHOW("cuda", nvmlSystemGetCudaDriverVersion(&cuda), "%d.%d", NVML_CUDA_DRIVER_VERSION_MAJOR(cuda), NVML_CUDA_DRIVER_VERSION_MINOR(cuda));
    for (unsigned i = 0; i < count; ++i) {
        nvmlDevice_t d;
        if (nvmlDeviceGetHandleByIndex(i, &d) != NVML_SUCCESS) return 2;
        unsigned index = 99, u = 0, v = 0;
        SHOW("index", nvmlDeviceGetIndex(d, &index), "%u", index);
        SHOW("name", nvmlDeviceGetName(d, text, sizeof text), "%s", text);
        SHOW("uuid", nvmlDeviceGetUUID(d, uuid, sizeof uuid), "%s", uuid);
        SHOW("serial", nvmlDeviceGetSerial(d, text, sizeof text), "%s", text);
        nvmlPciInfo_t pci;
        SHOW("pci", nvmlDeviceGetPciInfo(d, &pci), "%s %s %08x %08x", pci.busId, pci.busIdLegacy, pci.pciDeviceId, pci.pciSubSystemId);
        nvmlMemory_t m;
        SHOW("memory", nvmlDeviceGetMemoryInfo(d, &m), "%llu %llu %llu", m.total, m.used, m.free);
        nvmlMemory_v2_t m2;
        m2.version = nvmlMemory_v2;
        SHOW("memory_v2", nvmlDeviceGetMemoryInfo_v2(d, &m2), "%llu %llu %llu %llu", m2.total, m2.reserved, m2.used, m2.free);
        m2.version = 1;
        SHOW("memory_v2_badversion", nvmlDeviceGetMemoryInfo_v2(d, &m2), "%llu", m2.total);
        nvmlUtilization_t ut;
        SHOW("utilization", nvmlDeviceGetUtilizationRates(d, &ut), "%u %u", ut.gpu, ut.memory);
        SHOW("temperature", nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &u), "%u", u);
        SHOW("slowdown", nvmlDeviceGetTemperatureThreshold(d, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN, &u), "%u", u);
        SHOW("shutdown_temperature", nvmlDeviceGetTemperatureThreshold(d, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN, &u), "%u", u);
        SHOW("power", nvmlDeviceGetPowerUsage(d, &u), "%u", u);
        SHOW("limit", nvmlDeviceGetEnforcedPowerLimit(d, &u), "%u", u);
        SHOW("default_limit", nvmlDeviceGetPowerManagementDefaultLimit(d, &u), "%u", u);
        SHOW("constraints", nvmlDeviceGetPowerManagementLimitConstraints(d, &u, &v), "%u %u", u, v);
        unsigned long long energy = 0;
        SHOW("energy", nvmlDeviceGetTotalEnergyConsumption(d, &energy), "%llu", energy);
        SHOW("sm_clock", nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &u), "%u", u);
        SHOW("mem_clock", nvmlDeviceGetClockInfo(d, NVML_CLOCK_MEM, &u), "%u", u);
        SHOW("max_graphics_clock", nvmlDeviceGetMaxClockInfo(d, NVML_CLOCK_GRAPHICS, &u), "%u", u);
        SHOW("video_clock", nvmlDeviceGetClockInfo(d, NVML_CLOCK_VIDEO, &u), "%u", u);
        SHOW("fan", nvmlDeviceGetFanSpeed(d, &u), "%u", u);
        int major = 0, minor = 0;
        SHOW("capability", nvmlDeviceGetCudaComputeCapability(d, &major, &minor), "%d.%d", major, minor);
        nvmlComputeMode_t mode;
        SHOW("compute_mode", nvmlDeviceGetComputeMode(d, &mode), "%d", (int)mode);
        nvmlEnableState_t persistence;
        SHOW("persistence", nvmlDeviceGetPersistenceMode(d, &persistence), "%d", (int)persistence);
        unsigned n = 0;
        nvmlReturn_t sizing = nvmlDeviceGetComputeRunningProcesses(d, &n, nullptr);
        std::printf("processes_sizing %d %u\n", (int)sizing, n);
        nvmlProcessInfo_t infos[4];
        n = 4;
        SHOW("processes", nvmlDeviceGetComputeRunningProcesses(d, &n, infos), "%u %s %llu %x",
             n, n && infos[0].pid == (unsigned)getpid() ? "self" : "other", n ? infos[0].usedGpuMemory : 0ull, n ? infos[0].gpuInstanceId : 0u);
        nvmlDevice_t again;
        SHOW("by_uuid", nvmlDeviceGetHandleByUUID(uuid, &again), "%s", again == d ? "same" : "other");
        SHOW("by_bus_id", nvmlDeviceGetHandleByPciBusId(pci.busId, &again), "%s", again == d ? "same" : "other");
        SHOW("by_legacy_bus_id", nvmlDeviceGetHandleByPciBusId(pci.busIdLegacy, &again), "%s", again == d ? "same" : "other");
        char small[4];
        SHOW("small_buffer", nvmlDeviceGetName(d, small, sizeof small), "%s", small);
    }
    nvmlDevice_t none;
    SHOW("by_unknown_uuid", nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &none), "%p", (void *)none);
    SHOW("bad_index", nvmlDeviceGetHandleByIndex(count, &none), "%p", (void *)none);
    unsigned u = 0;
    SHOW("bad_handle", nvmlDeviceGetPowerUsage((nvmlDevice_t)&u, &u), "%u", u);
    std::printf("shutdown %d\n", (int)nvmlShutdown());
    std::printf("after %d %s\n", (int)nvmlDeviceGetCount(&count), nvmlErrorString(nvmlDeviceGetCount(&count)));
    return 0;
}
"""

CMAKE_PROJECT = """cmake_minimum_required(VERSION 3.18)
project(monitor LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
add_executable(monitor monitor.cu)
target_link_libraries(monitor PRIVATE CUDA::nvml)
"""

# the stand-in built with the soname libnvidia-ml.so.1 asks for, first on the loader's path
FAKE_SMI = (
    "set -e; mkdir -p /tmp/fake; "
    "soname=$(readelf -d /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 | sed -n 's/.*(NEEDED).*\\[\\(librocm_smi64[^]]*\\)\\]/\\1/p'); "
    f"{CLANGXX.replace('clang++', 'clang')} -shared -fPIC -O2 -Wall -Werror -o /tmp/fake/$soname -Wl,-soname,$soname /fixtures/fake_rocm_smi.c; "
    "mkdir -p /dev/dri && mknod /dev/dri/renderD128 c 226 128; "
)


def _report(out: str) -> dict[str, str]:
    """label -> the rest of its line, for the first device's lines (labels repeat per device)."""
    found: dict[str, str] = {}
    for line in out.splitlines():
        label, _, rest = line.partition(" ")
        found.setdefault(label, rest)
    return found


@pytest.fixture(scope="module")
def gpustat_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gpustat (sdist: pure Python) with nvidia-ml-py, psutil and blessed's wheels, unpacked."""
    root = tmp_path_factory.mktemp("gpustat")
    with tarfile.open(pypi.download_sdist("gpustat", "1.1.1")) as archive:
        archive.extractall(root / "sdist", filter="data")
    shutil.copytree(root / "sdist" / "gpustat-1.1.1" / "gpustat", root / "site" / "gpustat")
    for requirement in (
        "nvidia-ml-py==13.615.71",
        "psutil==7.2.2",
        "blessed==1.20.0",
        "wcwidth==0.9.5",
        "six==1.17.0",
    ):
        wheel = pypi.download_wheel(
            requirement, "--platform", "manylinux2014_x86_64", "--python-version", "3.13"
        )
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(root / "site")
    return root / "site"


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_nvml_reports_the_gpus_rocm_smi_sees(
    request: pytest.FixtureRequest, gfx: str, fixture: str, tmp_path: Path, gpustat_path: Path
) -> None:
    image = str(request.getfixturevalue(fixture)["reference"])
    (tmp_path / "monitor.cu").write_text(PROGRAM)
    (tmp_path / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    script = (
        FAKE_SMI + f". /opt/moatbridge/bin/activate {gfx} >/dev/null; cd /work; "
        "cmake -S . -B build -G Ninja >/tmp/cmake.log 2>&1 || { cat /tmp/cmake.log; exit 1; }; "
        "cmake --build build >/tmp/build.log 2>&1 || { cat /tmp/build.log; exit 1; }; "
        "export LD_LIBRARY_PATH=/tmp/fake; ./build/monitor; echo '@@'; "
        "PYTHONPATH=/gpustat python3 -m gpustat --json; echo '@@'; "
        "mknod /dev/dri/renderD129 c 226 129; ./build/monitor | grep -E '^(count|pci) '"
    )
    mounts = (
        "-v",
        f"{FIXTURES}:/fixtures:ro",
        "-v",
        f"{tmp_path}:/work",
        "-v",
        f"{gpustat_path}:/gpustat:ro",
    )
    out = _ok(docker_run(image, script, *mounts))
    program, gpustat, both = out.split("@@\n")
    got = _report(program)
    gib = 1024**3
    mib = 1024**2
    # only GPU 0 has its render node in the container
    assert got["before"] == "1" and got["count"] == "1", program
    assert got["driver"] == "6.12.38"
    assert got["cuda"] == "12.4"  # the release the image mimics, as cudaDriverGetVersion says
    assert got["index"] == "0" and got["name"] == "AMD Radeon RX 7900 XTX"
    assert re.fullmatch(r"GPU-12345678-90ab-cdef-0000-000000000300", got["uuid"]), got["uuid"]
    assert got["serial"] == "SN0-0042"
    assert got["pci"] == "00000000:03:00.0 0000:03:00.0 744c1002 0e3b1da2"
    assert got["memory"] == f"{24 * gib} {1536 * mib} {24 * gib - 1536 * mib}"
    assert got["memory_v2"] == f"{24 * gib} 0 {1536 * mib} {24 * gib - 1536 * mib}"
    assert got["memory_v2_badversion"].startswith("error 25 ")
    assert got["utilization"] == "37 12"
    assert (got["temperature"], got["slowdown"], got["shutdown_temperature"]) == ("46", "100", "105")
    # microwatts to milliwatts; the current draw where the average is not reported
    assert (got["power"], got["limit"], got["default_limit"]) == ("123456", "327000", "303000")
    assert got["constraints"] == "190000 402000"
    assert got["energy"] == "15250"  # 1e6 ticks of 15.25 uJ, in mJ
    assert (got["sm_clock"], got["mem_clock"], got["max_graphics_clock"]) == ("1500", "1250", "2500")
    assert got["video_clock"] == "error 3 Not Supported"
    assert got["fan"] == "24"  # 60 of 255
    assert re.fullmatch(r"\d\.\d", got["capability"])
    assert got["compute_mode"] == "0" and got["persistence"] == "error 3 Not Supported"
    assert got["processes_sizing"] == "7 1"  # NVML_ERROR_INSUFFICIENT_SIZE, one process
    assert got["processes"] == f"1 self {512 * mib} ffffffff"
    assert got["by_uuid"] == got["by_bus_id"] == got["by_legacy_bus_id"] == "same"
    assert got["small_buffer"] == "error 7 Insufficient Size"
    assert got["by_unknown_uuid"] == "error 6 Not Found"
    assert got["bad_index"].startswith("error 2 ") and got["bad_handle"].startswith("error 2 ")
    assert got["shutdown"] == "0" and got["after"] == "1 Uninitialized"

    report = json.loads(gpustat)
    (gpu,) = report["gpus"]
    assert report["driver_version"] == "6.12.38"
    assert (gpu["index"], gpu["name"], gpu["uuid"]) == (0, "AMD Radeon RX 7900 XTX", got["uuid"])
    assert (gpu["temperature.gpu"], gpu["fan.speed"], gpu["utilization.gpu"]) == (46, 24, 37)
    assert (gpu["power.draw"], gpu["enforced.power.limit"]) == (123, 327)
    assert (gpu["memory.used"], gpu["memory.total"]) == (1536, 24576)
    assert gpu["utilization.enc"] is None  # not supported, as gpustat shows it for NVIDIA's
    (process,) = gpu["processes"]
    assert process["gpu_memory_usage"] == 512 and "gpustat" in process["full_command"]

    # a second render node: both GPUs, in ROCm SMI's order
    assert both.splitlines() == [
        "count 2",
        "pci 00000000:03:00.0 0000:03:00.0 744c1002 0e3b1da2",
        "pci 00000000:0E:00.0 0000:0E:00.0 164e1002 0e3b1da2",
    ]


@pytest.mark.parametrize(("gfx", "fixture"), OPEN_STACKS)
def test_nvml_without_an_amd_driver_says_so(
    request: pytest.FixtureRequest, gfx: str, fixture: str, tmp_path: Path, gpustat_path: Path
) -> None:
    """The real ROCm SMI on this machine (no amdgpu): initialisation fails as NVIDIA's does
    without its driver, and gpustat says it cannot query the GPUs, with no traceback."""
    image = str(request.getfixturevalue(fixture)["reference"])
    (tmp_path / "init.cu").write_text(
        "#include <nvml.h>\n#include <stdio.h>\n"
        "int main(void) { nvmlReturn_t r = nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS);\n"
        '  printf("%d %s\\n", (int)r, nvmlErrorString(r)); return r == NVML_SUCCESS; }\n'
    )
    script = (
        f". /opt/moatbridge/bin/activate {gfx} >/dev/null; cd /work; "
        'nvcc init.cu -o init -lnvidia-ml && ./init; echo "rc=$?"; '
        'PYTHONPATH=/gpustat python3 -m gpustat; echo "rc=$?"'
    )
    result = docker_run(image, script, "-v", f"{tmp_path}:/work", "-v", f"{gpustat_path}:/gpustat:ro")
    out = result.stdout
    assert "9 Driver Not Loaded\nrc=0" in out, (out, result.stderr[-2000:])
    assert "Error on querying NVIDIA devices" in result.stderr + out, (out, result.stderr[-2000:])
    assert "Traceback" not in result.stderr
