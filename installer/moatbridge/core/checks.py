"""Doctor's readiness checks: facts in, verdicts out (pure).

Each check says pass / warn / fail / skip with one line of detail and, when it
is not a pass, a one-line fix. Any "fail" makes ``doctor`` exit non-zero.
"""

from __future__ import annotations

from collections.abc import Iterator

from moatbridge.core.catalog import Flavour
from moatbridge.core.check import Check
from moatbridge.core.compat import driver_supports
from moatbridge.core.engine_checks import engine_checks
from moatbridge.core.gfx import parse_hsa_override
from moatbridge.core.model import DeviceNode, EngineFacts, HostReport
from moatbridge.core.stacks import coverage, describe

# ROCm user space inside the open flavour's image (Debian trixie).
OPEN_FLAVOUR_ROCM = "5.7"


def _describe_gpus(report: HostReport) -> str:
    parts = []
    for gpu in report.amd_gpus:
        label = gpu.gfx_target or "unknown target"
        parts.append(f"{label} ({gpu.name or gpu.pci_device_id or 'unnamed'})")
    return ", ".join(parts)


def gpu_checks(report: HostReport) -> Iterator[Check]:
    amd = report.amd_gpus
    usable = [g for g in amd if g.usable]
    nvidia = [g for g in report.gpus if g.vendor == "nvidia"]
    if usable:
        yield Check("gpu", "AMD GPU", "pass", _describe_gpus(report))
    elif amd:
        yield Check(
            "gpu", "AMD GPU", "fail", f"found on PCI but not usable: {_describe_gpus(report)}",
            "load the amdgpu driver (sudo modprobe amdgpu) or pass the GPU into this container",
        )  # fmt: skip
    else:
        extra = f"; NVIDIA GPUs found: {len(nvidia)} (not used by moatbridge)" if nvidia else ""
        yield Check(
            "gpu", "AMD GPU", "warn", f"no AMD GPU detected{extra}",
            "you can still build (cross-compile) for any AMD target; running kernels needs an AMD GPU",
        )  # fmt: skip

    if report.hidden_kfd_nodes:
        nodes = ", ".join(str(n) for n in report.hidden_kfd_nodes)
        yield Check(
            "gpu-hidden", "GPUs hidden from this process", "warn",
            f"KFD node(s) {nodes} refuse reads (device cgroup)",
            "pass the matching /dev/dri/renderD* into the container if you need them",
        )  # fmt: skip

    apus = [g for g in usable if g.apu]
    if apus and len(apus) < len(usable):
        discrete = [i for i, g in enumerate(usable) if not g.apu]
        yield Check(
            "igpu", "Integrated GPU next to a discrete one", "warn",
            f"{', '.join(g.gfx_target or '?' for g in apus)} is an APU; ROCm may crash enumerating it",
            f"export ROCR_VISIBLE_DEVICES={','.join(map(str, discrete))} (or disable the iGPU in firmware)",
        )  # fmt: skip

    override = dict(report.environment).get("HSA_OVERRIDE_GFX_VERSION")
    if override is not None:
        target = parse_hsa_override(override)
        if target is None:
            yield Check(
                "hsa-override", "HSA_OVERRIDE_GFX_VERSION", "fail",
                f"{override!r} is not MAJOR.MINOR.STEPPING; ROCm will refuse to start",
                "unset HSA_OVERRIDE_GFX_VERSION, or set e.g. 10.3.0",
            )  # fmt: skip
        else:
            yield Check(
                "hsa-override", "HSA_OVERRIDE_GFX_VERSION", "warn",
                f"set to {override}: every GPU will load {target} code",
                "unset it unless a GPU needs it (moatbridge sets it per toolchain)",
            )  # fmt: skip
    yield from _device_checks(report, bool(usable))
    yield from _driver_checks(report, bool(amd))


def _node_check(check_id: str, title: str, node: DeviceNode, needed: bool) -> Check:
    if not node.exists:
        status = "fail" if needed else "skip"
        return Check(
            check_id, title, status, f"{node.path} does not exist",
            "load amdgpu (sudo modprobe amdgpu), or start the container with --device " + node.path,
        )  # fmt: skip
    group = node.group or (str(node.gid) if node.gid is not None else "?")
    if node.accessible and node.membership == "needs-relogin":
        return Check(
            check_id, title, "warn",
            f"{node.path} readable now, but group {group} is not active in this session",
            "log out and back in (or run: newgrp " + group + ")",
        )  # fmt: skip
    if node.accessible:
        how = "group " + group if node.membership == "active" else "file mode or ACL"
        return Check(check_id, title, "pass", f"{node.path} read-write via {how}")
    if node.membership == "needs-relogin":
        fix = f"log out and back in so group {group} takes effect (or: newgrp {group})"
    else:
        fix = f"sudo usermod -aG {group} $USER, then log in again"
    return Check(check_id, title, "fail" if needed else "warn", f"{node.path} is not read-write for you", fix)


def _device_checks(report: HostReport, gpu_usable: bool) -> Iterator[Check]:
    if not gpu_usable and not report.kfd.exists:
        yield Check("dev-kfd", "/dev/kfd", "skip", "no usable AMD GPU")
        return
    yield _node_check("dev-kfd", "/dev/kfd", report.kfd, gpu_usable)
    wanted = {g.render_node for g in report.amd_gpus if g.usable and g.render_node}
    for node in report.render_nodes:
        yield _node_check(f"dev-{node.path.rsplit('/', 1)[-1]}", node.path, node, node.path in wanted)


def _driver_checks(report: HostReport, amd_present: bool) -> Iterator[Check]:
    driver = report.amdgpu_driver
    if not driver.loaded:
        status = "fail" if amd_present else "skip"
        yield Check(
            "amdgpu-driver", "amdgpu kernel driver", status, "not loaded",
            "sudo modprobe amdgpu (install linux-firmware / amdgpu-dkms if it fails)",
        )  # fmt: skip
        return
    if driver.kind == "dkms":
        verdict = driver_supports(driver.rocm_release, OPEN_FLAVOUR_ROCM)
        status = {"supported": "pass", "unsupported": "warn"}.get(verdict.verdict, "warn")
        yield Check(
            "amdgpu-driver", "amdgpu kernel driver vs image ROCm", status,
            f"AMD DKMS driver {driver.version}: {verdict.detail}",
            None if status == "pass" else "use a toolchain image whose ROCm is within the driver's window",
        )  # fmt: skip
    else:
        yield Check(
            "amdgpu-driver", "amdgpu kernel driver vs image ROCm", "pass",
            f"in-tree driver of kernel {driver.version}; ROCm {OPEN_FLAVOUR_ROCM} user space comes "
            "from the image (AMD publishes no matrix for in-tree drivers)",
        )  # fmt: skip
    if report.rocm.version:
        yield Check(
            "host-rocm", "Host ROCm", "pass",
            f"{report.rocm.version} at {report.rocm.path}; not needed, the image brings its own",
        )  # fmt: skip


def security_checks(report: HostReport) -> Iterator[Check]:
    sec = report.security
    if sec.selinux == "enforcing":
        yield Check(
            "selinux", "SELinux", "warn", "enforcing: containers cannot open /dev/kfd by default",
            "moatbridge runs GPU containers with --security-opt label=disable; or: "
            "setsebool -P container_use_devices=true",
        )  # fmt: skip
    else:
        state = sec.selinux or "absent"
        yield Check("selinux", "SELinux", "pass", f"{state}; no device labelling to work around")
    if sec.apparmor:
        yield Check("apparmor", "AppArmor", "pass", "enabled; docker-default allows GPU device nodes")
    if report.problems:
        yield Check(
            "detection", "Detection", "warn", "; ".join(report.problems),
            "run 'moatbridge detect --json' and report the files named here",
        )  # fmt: skip


def stack_checks(report: HostReport, open_flavour: Flavour) -> Iterator[Check]:
    """Which of the open flavour's stacks serves each detected GPU (core/stacks.py's table)."""
    for target in report.amd_targets:
        cover = coverage(open_flavour, target)
        title = f"Open flavour stack for {target}"
        default = open_flavour.distros[0]
        if default.name in cover.served_by:
            yield Check(f"stack-{target}", title, "pass", cover.advice())
        elif cover.served_by:
            stack = open_flavour.distro(cover.recommended)
            driver = report.amdgpu_driver
            window = ""
            if driver.kind == "dkms":  # AMD's DKMS drivers state which ROCm releases they carry
                window = f"; driver: {driver_supports(driver.rocm_release, stack.rocm).detail}"
            yield Check(
                f"stack-{target}", title, "warn",
                f"{default.name} (ROCm {default.rocm}) has no library code for {target}; "
                f"{describe(stack)} does{window}",
                f"setup picks it for {target}; or: moatbridge setup --distro {stack.name} --target {target}",
            )  # fmt: skip
        elif cover.compile_only:
            yield Check(
                f"stack-{target}", title, "warn",
                f"kernels compile for {target} ({', '.join(cover.compile_only)}), but no stack's "
                "math libraries carry code for it",
                "programs using cuBLAS/cuFFT/... will fail on this GPU; the scale flavour may serve it",
            )  # fmt: skip
        else:
            yield Check(
                f"stack-{target}", title, "warn", f"no stack of the open flavour compiles for {target}",
                "see 'moatbridge detect' and the scale flavour",
            )  # fmt: skip


def override_advice(
    target: str, open_override: str | None, flavour: str, scale_targets: frozenset[str]
) -> str:
    """What one flavour needs for one AMD GPU, as to HSA_OVERRIDE_GFX_VERSION (pure).

    ``open_override`` is detection's suggestion, made from the open flavour's library table;
    SCALE carries its own code per target (its catalog list), so that table says nothing
    about it, and SCALE is not documented to honour the override at all."""
    if flavour == "scale":
        if target in scale_targets:
            return f"scale flavour: SCALE supports {target} natively (no HSA_OVERRIDE_GFX_VERSION)"
        return (
            f"scale flavour: {target} is not among SCALE's targets (and the override is not known to help it)"
        )
    if open_override:
        return (
            f"open flavour: {target} has no code in trixie's libraries: run with "
            f"HSA_OVERRIDE_GFX_VERSION={open_override}"
        )
    return f"open flavour: {target} needs no HSA_OVERRIDE_GFX_VERSION"


def toolchain_gpu_checks(
    report: HostReport, toolchains: tuple[tuple[str, str, str], ...], scale_targets: frozenset[str]
) -> Iterator[Check]:
    """Per installed SCALE toolchain (name, flavour, target): does SCALE serve this machine's
    GPUs natively, and is an HSA_OVERRIDE_GFX_VERSION in the environment needless for it."""
    override = dict(report.environment).get("HSA_OVERRIDE_GFX_VERSION")
    for name, flavour, target in toolchains:
        if flavour != "scale" or not target.startswith("gfx"):
            continue
        for gpu in (g for g in report.amd_gpus if g.usable and g.gfx_target):
            gfx = gpu.gfx_target or ""
            advice = override_advice(gfx, gpu.hsa_override_gfx_version, "scale", scale_targets)
            native = gfx in scale_targets
            if native and override is not None:
                yield Check(
                    f"scale-override-{name}-{gfx}", f"Toolchain {name} on {gfx}", "warn",
                    f"{advice}; HSA_OVERRIDE_GFX_VERSION={override} is set and not needed",
                    "unset HSA_OVERRIDE_GFX_VERSION for SCALE toolchains",
                )  # fmt: skip
            elif native:
                yield Check(f"scale-override-{name}-{gfx}", f"Toolchain {name} on {gfx}", "pass", advice)
            else:
                yield Check(
                    f"scale-override-{name}-{gfx}", f"Toolchain {name} on {gfx}", "warn", advice,
                    "use the open flavour for this GPU" + (
                        f" (with HSA_OVERRIDE_GFX_VERSION={gpu.hsa_override_gfx_version})"
                        if gpu.hsa_override_gfx_version else ""
                    ),
                )  # fmt: skip


def nvidia_toolkit_check(report: HostReport, nvidia_toolchains: int, toolkit: str | None) -> Iterator[Check]:
    """SCALE's NVIDIA mode runs programs through docker's --gpus, which needs the NVIDIA
    container toolkit; asked only where NVIDIA GPUs or sm_NN toolchains are."""
    nvidia = [g for g in report.gpus if g.vendor == "nvidia" and g.usable]
    if not nvidia and not nvidia_toolchains:
        return
    title = "NVIDIA container toolkit (SCALE's NVIDIA mode)"
    if toolkit:
        yield Check("nvidia-toolkit", title, "pass", f"found: {toolkit}; runs get --gpus all")
        return
    yield Check(
        "nvidia-toolkit", title, "warn",
        "neither nvidia-container-runtime nor nvidia-ctk is on PATH, and the engine has no nvidia "
        "runtime: sm_NN toolchains compile, but their programs cannot reach the GPU",
        "install nvidia-container-toolkit, then: sudo nvidia-ctk runtime configure --runtime=docker "
        "and restart docker",
    )  # fmt: skip


def run_checks(
    report: HostReport,
    engine: EngineFacts,
    open_flavour: Flavour | None = None,
    toolchains: tuple[tuple[str, str, str], ...] = (),
    scale_targets: frozenset[str] = frozenset(),
) -> list[Check]:
    stacks = list(stack_checks(report, open_flavour)) if open_flavour is not None else []
    per_toolchain = list(toolchain_gpu_checks(report, toolchains, scale_targets))
    return [*engine_checks(engine), *gpu_checks(report), *stacks, *per_toolchain, *security_checks(report)]
