"""`moatbridge doctor`: is this machine ready? Exit 1 when a blocking check fails."""

from __future__ import annotations

import os
from argparse import Namespace

from moatbridge.adapters.console import print_json, safe, stdout_console
from moatbridge.adapters.engine import probe_engine
from moatbridge.commands.arguments import host_from_args
from moatbridge.core.check import Check
from moatbridge.core.checks import nvidia_toolkit_check, run_checks
from moatbridge.core.detection import detect
from moatbridge.core.gfx import is_nvidia_target
from moatbridge.core.toolchains import Toolchain
from moatbridge.services.readiness import installed_toolchains, open_flavour, scale_targets
from moatbridge.services.runtime import nvidia_container_toolkit

_STYLE = {"pass": "green", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def run(args: Namespace) -> int:
    report = detect(host_from_args(args), os.environ)
    engine = probe_engine(os.environ)
    toolchains = installed_toolchains()
    scale = [t for t in toolchains if t.flavour == "scale"]
    checks = run_checks(
        report, engine, open_flavour(), tuple((t.name, t.flavour, t.target) for t in scale),
        scale_targets() if scale else frozenset(),
    )  # fmt: skip
    nvidia_toolchains = sum(is_nvidia_target(t.target) for t in scale)
    if nvidia_toolchains or any(g.vendor == "nvidia" for g in report.gpus):
        checks += nvidia_toolkit_check(report, nvidia_toolchains, nvidia_container_toolkit())
    if scale and engine.reachable:
        from moatbridge.services.scale_diagnostics import scale_tool_checks

        for toolchain in scale:
            checks += scale_tool_checks(toolchain, report)
    checks.append(_emulator_check(toolchains))
    blocking = [c for c in checks if c.status == "fail"]
    if args.json:
        print_json({"ready": not blocking, "checks": [c.to_json() for c in checks]})
    else:
        render(checks)
    return 1 if blocking else 0


def _emulator_check(toolchains: tuple[Toolchain, ...]) -> Check:
    from moatbridge.core.emulator import doctor_check
    from moatbridge.services.emulator_config import look_active

    look = look_active(os.environ)
    targets = tuple(sorted({t for tc in toolchains for t in tc.targets if not is_nvidia_target(t)}))
    problem, fix = (look.problem.message, look.problem.hint) if look.problem else (None, None)
    return doctor_check(look.emulator, problem, targets, look.toolchain if look.setting else None, fix)


def render(checks: list[Check]) -> None:
    from rich.table import Table
    from rich.text import Text

    console = stdout_console()
    table = Table(title="moatbridge doctor", title_justify="left")
    table.add_column("status")
    table.add_column("check")
    table.add_column("detail", overflow="fold")
    for check in checks:
        # Details quote what detection read (GPU names, paths, versions): plain, safe text.
        detail = Text(safe(check.detail))
        if check.fix and check.status in ("warn", "fail"):
            detail.append(f"\nfix: {safe(check.fix)}", style="cyan")
        table.add_row(Text(check.status.upper(), style=_STYLE[check.status]), Text(safe(check.title)), detail)
    console.print(table)
    failed = sum(c.status == "fail" for c in checks)
    warned = sum(c.status == "warn" for c in checks)
    if failed:
        console.print(f"[bold red]Not ready:[/bold red] {failed} blocking problem(s), {warned} warning(s).")
    else:
        console.print(f"[green]Ready[/green] ({warned} warning(s)).")
