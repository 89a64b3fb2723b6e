"""`moatbridge detect`: what GPUs, driver, ROCm and device access this machine has."""

from __future__ import annotations

import os
from argparse import Namespace

from moatbridge.adapters.console import markup, print_json, stdout_console
from moatbridge.commands.arguments import host_from_args
from moatbridge.core.checks import override_advice
from moatbridge.core.detection import detect
from moatbridge.core.model import DeviceNode, HostReport
from moatbridge.core.nvidia import gpu_target
from moatbridge.core.stacks import TargetCoverage, coverage
from moatbridge.services.readiness import open_flavour, scale_targets


def run(args: Namespace) -> int:
    report = detect(host_from_args(args), os.environ)
    targets = report.amd_targets
    # The catalog (and PyYAML) only when there is a GPU to advise on: `detect --json` stays quick.
    flavour = open_flavour() if targets else None
    covers = [coverage(flavour, t) for t in targets] if flavour is not None else []
    if args.json:
        data = report.to_json()
        data["open_stacks"] = [c.to_json() for c in covers]
        print_json(data)
    else:
        render(report, {c.target: c for c in covers})
    return 0


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def _node_row(node: DeviceNode) -> tuple[str, str, str, str, str]:
    group = node.group or (str(node.gid) if node.gid is not None else "-")
    if node.gid is not None and node.group:
        group = f"{node.group} ({node.gid})"
    return (
        markup(node.path),
        _yes_no(node.exists),
        _yes_no(node.accessible) if node.exists else "-",
        markup(group),
        markup(node.membership or "-"),
    )


def render(report: HostReport, covers: dict[str, TargetCoverage] | None = None) -> None:
    from rich.table import Table

    console = stdout_console()
    if report.root != "/":
        console.print(f"[bold]System tree:[/bold] {markup(report.root)}")
    gpus = Table(title="GPUs", title_justify="left")
    gpus.add_column("#", no_wrap=True)
    gpus.add_column("GPU", overflow="fold")
    gpus.add_column("target", no_wrap=True)
    gpus.add_column("notes", overflow="fold")
    footnotes: list[str] = []
    scale = scale_targets() if any(g.hsa_override_gfx_version for g in report.gpus) else frozenset()
    for index, gpu in enumerate(report.gpus):
        where = " · ".join(
            x for x in (gpu.pci_slot, gpu.render_node and gpu.render_node.rsplit("/", 1)[-1]) if x
        )
        target = gpu_target(gpu) or "-"
        kind = " ".join(x for x in (gpu.family, "APU" if gpu.apu else None) if x)
        notes = []
        cover = (covers or {}).get(gpu.gfx_target or "")
        if cover is not None:
            notes.append(cover.advice().partition(": ")[2])
        if gpu.hsa_override_gfx_version and gpu.gfx_target:
            notes.append(f"open flavour: override {gpu.hsa_override_gfx_version} (below)")
            native = (
                f"; or use the {cover.served_by[0]} stack, which has code for it"
                if cover and cover.served_by
                else ""
            )
            # The override is the open flavour's advice (its library table); SCALE has its own.
            footnotes.append(
                f"GPU {index}, "
                + override_advice(gpu.gfx_target, gpu.hsa_override_gfx_version, "open", scale)
                + native
            )
            footnotes.append(
                f"GPU {index}, "
                + override_advice(gpu.gfx_target, gpu.hsa_override_gfx_version, "scale", scale)
            )
        if not gpu.usable:
            notes.append("not usable here")
        name = gpu.name or gpu.pci_device_id or gpu.vendor
        # Names, slots and targets come from sysfs and libdrm's tables: text, never markup.
        gpus.add_row(
            str(index),
            f"{markup(name)}\n[dim]{markup(gpu.vendor)} {markup(where)}[/dim]",
            f"{markup(target)}\n[dim]{markup(kind)}[/dim]" if kind else markup(target),
            markup("\n".join(notes)),
        )
    if report.gpus:
        console.print(gpus)
        for note in footnotes:
            console.print(markup(note))
    else:
        console.print("[bold]GPUs:[/bold] none detected")

    driver = report.amdgpu_driver
    facts = Table(title="Driver and runtime", title_justify="left", show_header=False)
    facts.add_column("what")
    facts.add_column("value")
    if driver.loaded:
        facts.add_row("amdgpu driver", markup(f"{driver.kind} {driver.version or ''}".strip()))
    else:
        facts.add_row("amdgpu driver", "not loaded")
    rocm = report.rocm
    facts.add_row("host ROCm", markup(f"{rocm.version} at {rocm.path}") if rocm.version else "none")
    if report.nvidia_driver.version:
        facts.add_row("NVIDIA driver", markup(report.nvidia_driver.version))
    facts.add_row("kernel", markup(report.kernel_release or "unknown"))
    if report.hidden_kfd_nodes:
        facts.add_row("hidden KFD nodes", ", ".join(map(str, report.hidden_kfd_nodes)))
    for key, value in report.environment:
        facts.add_row(key, markup(value))
    console.print(facts)

    nodes = Table(title="Device nodes", title_justify="left")
    for column in ("path", "exists", "read-write", "group", "membership"):
        nodes.add_column(column)
    for node in (report.kfd, *report.render_nodes):
        nodes.add_row(*_node_row(node))
    console.print(nodes)
    for problem in report.problems:
        console.print(f"[yellow]note:[/yellow] {markup(problem)}")
