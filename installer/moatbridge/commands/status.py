"""`moatbridge status [--json] [--root DIR]` (and `moatbridge` alone): a first look.

The installed toolchains, the default and the active one, each warm container, the
engine, the GPUs found and the next command to try. Quick and read-only: the engine is
asked once with a short timeout ("engine not running" when it does not answer). The facts
are gathered by services/status_facts.py; this module renders them.
"""

from __future__ import annotations

import os
from argparse import Namespace

from moatbridge.adapters.console import markup, print_json, stdout_console
from moatbridge.commands.arguments import host_from_args
from moatbridge.core.emulator import found_by
from moatbridge.core.status import RUNNING, Overview, overview
from moatbridge.services.status_facts import gather


def run(args: Namespace) -> int:
    view = overview(gather(lambda: host_from_args(args)))
    if args.json:
        print_json(view.to_json())
    else:
        render(view)
    return 0


def render(view: Overview) -> None:
    from rich.table import Table

    from moatbridge import __version__

    console = stdout_console()

    def line(text: str) -> None:  # commands and paths stay whole on narrow terminals
        console.print(text, soft_wrap=True)

    line(f"[bold]moatbridge {__version__}[/bold]  home: {markup(view.home)}")
    if view.toolchains:
        table = Table(title="Toolchains", title_justify="left")
        for column in ("", "name", "flavour", "targets", "CUDA", "warm container"):
            table.add_column(column, overflow="fold")
        for t in view.toolchains:  # from the state file: text, never markup
            warm = f"[green]{t.warm}[/green]" if t.warm == RUNNING else markup(t.warm)
            table.add_row("*" if t.default else "", markup(t.name), markup(t.flavour),
                          markup(",".join(t.targets)), markup(t.cuda_version), warm)  # fmt: skip
        console.print(table)
        line("[dim]* the default toolchain[/dim]")
    else:
        line("[bold]Toolchains:[/bold] none installed yet")
    if view.active:
        line(f"[bold]Active:[/bold] {markup(view.active)} (from {markup(view.active_from)})")
    engine = view.engine
    via = f" from {markup(engine.source)}" if engine.source else ""  # a docker context, DOCKER_HOST
    if engine.reachable:
        line(f"[bold]Engine:[/bold] running ({markup(engine.endpoint or '')}){via}")
    elif engine.endpoint is None:  # a broken docker context or config.json: the problem names it
        line(f"[bold]Engine:[/bold] [yellow]{markup(engine.problem)}[/yellow] Warm containers unknown.")
    else:
        line(
            f"[bold]Engine:[/bold] [yellow]{markup(engine.problem)}[/yellow] "
            f"({markup(engine.endpoint)}){via}; warm containers unknown"
        )
    for index, gpu in enumerate(view.gpus):
        usable = "" if gpu.usable else " [yellow]not usable here[/yellow]"
        line(f"[bold]GPU {index}:[/bold] {markup(gpu.name)} ({markup(gpu.target or '?')}){usable}")
    if not view.gpus:
        line("[bold]GPUs:[/bold] none detected (toolchains compile here; programs run on a GPU)")
    if view.emulator is not None:
        emulator = view.emulator
        version = f" {emulator.version}" if emulator.version else ""
        gpus = ", ".join(emulator.targets) or "no profiles"
        name = os.path.basename(emulator.cli) + version
        setting = view.emulator_setting
        how = found_by(emulator, setting.toolchain if setting else None)
        line(
            f"[bold]Emulator:[/bold] {markup(name)} ({markup(emulator.cli)}, found by {markup(how)}); "
            f"GPUs: {markup(gpus)}"
        )
    if view.toolchains:
        shims = "on PATH" if view.shims_on_path else "[yellow]not on PATH in this shell[/yellow]"
        line(f"[bold]Shims (nvcc ...):[/bold] {shims}")
    for problem in view.problems:
        line(f"[yellow]note:[/yellow] {markup(problem)}")
    for index, step in enumerate(view.next_steps):
        label = "[bold]Next:[/bold]" if index == 0 else "  then:"
        why = f"   [dim]# {markup(step.why)}[/dim]" if step.why else ""
        line(f"{label} {markup(step.command)}{why}")
    line("[dim]moatbridge --help lists every command[/dim]")
