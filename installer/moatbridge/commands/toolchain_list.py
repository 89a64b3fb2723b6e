"""`moatbridge list [--json]`: installed toolchains."""

from __future__ import annotations

import os
from argparse import Namespace
from typing import Any

from moatbridge.adapters.console import markup, print_json, stdout_console
from moatbridge.paths import Paths
from moatbridge.services.toolchains import state_store


def _stack(row: dict[str, Any]) -> str:
    """'sid (ROCm 6.4)': the recorded distribution (older records: the flavour's default)."""
    from moatbridge.adapters.records import load_catalog
    from moatbridge.errors import MoatbridgeError

    try:
        distro = load_catalog().flavour(str(row["flavour"])).distro(row.get("distro"))
    except MoatbridgeError:
        return str(row.get("distro") or "-")
    return f"{distro.name} (ROCm {distro.rocm})"


def run(args: Namespace) -> int:
    state = state_store(Paths.from_environ(os.environ)).read()
    rows = [{**t.to_json(), "default": t.name == state.default} for t in state.toolchains]
    if args.json:
        print_json({"toolchains": rows})
        return 0
    if not rows:
        print("No toolchains installed: moatbridge setup")
        return 0
    from rich.table import Table

    table = Table(title="Toolchains", title_justify="left")
    for column in ("", "name", "flavour", "stack", "targets", "CUDA", "image"):
        table.add_column(column, overflow="fold")
    for row in rows:  # the state file is plain JSON anyone can edit: cells are text, not markup
        cells = (row["name"], row["flavour"], _stack(row), ",".join(row["targets"]), row["cuda_version"],
                 f"{row['image']}\n{row['image_id'][:19]}")  # fmt: skip
        table.add_row("*" if row["default"] else "", *(markup(cell) for cell in cells))
    stdout_console().print(table)
    return 0
