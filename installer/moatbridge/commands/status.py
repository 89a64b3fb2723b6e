"""`moatbridge status [--json] [--root DIR]` (and `moatbridge` alone): a first look.

The installed toolchains, the default and the active one, each warm container, the
engine, the GPUs found and the next command to try. Quick and read-only: the engine is
asked once with a short timeout ("engine not running" when it does not answer).
"""

from __future__ import annotations

import os
import shutil
from argparse import Namespace

from moatbridge.adapters.console import markup, print_json, stdout_console
from moatbridge.adapters.engine_status import engine_view
from moatbridge.commands.arguments import host_from_args
from moatbridge.core.status import RUNNING, Facts, GpuView, Overview, overview
from moatbridge.core.toolchains import State, choose_toolchain
from moatbridge.errors import MoatbridgeError
from moatbridge.paths import Paths
from moatbridge.services.toolchains import pin_here, state_store


def _active(state: State, notes: list[str]) -> tuple[str, str] | None:
    """The toolchain shims would use here, by the rule of resolve_toolchain, and why."""
    try:
        pin = pin_here()
    except MoatbridgeError as error:  # a pin file that names nothing, or cannot be read
        notes.append(error.message)
        pin = None
    except OSError:  # the working directory was deleted under the shell: no pin to find
        notes.append("The working directory no longer exists, so no pin file was looked for.")
        pin = None
    return choose_toolchain(None, pin, os.environ, state.default)


def _gpus(args: Namespace) -> tuple[GpuView, ...]:
    from moatbridge.core.detection import detect
    from moatbridge.core.nvidia import gpu_target

    views = []
    for gpu in detect(host_from_args(args), os.environ).gpus:
        name = gpu.name or gpu.pci_device_id or gpu.vendor
        views.append(GpuView(gpu.vendor, name, gpu_target(gpu), gpu.usable))
    return tuple(views)


def gather(args: Namespace) -> Facts:
    paths = Paths.from_environ(os.environ)
    state = state_store(paths).read()
    notes: list[str] = []
    return Facts(
        home=paths.home,
        state=state,
        active=_active(state, notes),
        engine=engine_view(os.environ, notes),
        gpus=_gpus(args),
        uid=os.getuid(),
        nvcc=shutil.which("nvcc"),
        notes=tuple(notes),
    )


def run(args: Namespace) -> int:
    view = overview(gather(args))
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
