"""Static checks as part of the suite, so CI and laptops enforce the same bar."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import import_graph

REPO = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    path = Path(sys.executable).with_name(name)
    found = str(path) if path.exists() else shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


@pytest.mark.parametrize(
    "argv",
    [
        ["ruff", "check", "installer", "tests", "bench", "images"],
        ["ruff", "format", "--check", "installer", "tests", "bench", "images"],
        ["mypy"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_static_checks(argv: list[str]) -> None:
    result = subprocess.run([_tool(argv[0]), *argv[1:]], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


INSTALLER = REPO / "installer"
TOOLKIT = REPO / "images" / "open" / "toolkit" / "src"
# commands/ holds verbs, and these modules the verbs share (argument helpers, setup's questions).
SHARED_BY_VERBS = {"moatbridge.commands.arguments", "moatbridge.commands.setup_wizard"}


def _floor(module: str) -> str:
    """moatbridge.core.gfx -> core; moatbridge.cli -> cli; moatbridge -> moatbridge."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _verb_modules() -> set[str]:
    """The modules the CLI dispatches commands to (cli.main: parser.MODULES, else the name)."""
    import argparse

    from moatbridge.parser import MODULES, build_parser

    verbs = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    names = {MODULES.get(name, name) for name in verbs.choices} | set(MODULES.values())
    return {f"moatbridge.commands.{name}" for name in names}


def test_each_floor_imports_only_the_floors_below_it() -> None:
    """cli -> commands (verbs) -> services (use cases) -> core (pure) and adapters (side
    effects). core imports neither side (its I/O comes in through protocols such as
    core.host.Host); adapters import no use case or verb; services import no verb, parser or CLI."""
    forbidden = {
        "core": {"adapters", "services", "commands", "cli", "parser"},
        "adapters": {"services", "commands", "cli", "parser"},
        "services": {"commands", "cli", "parser"},
    }
    offences = [
        f"{item.importer}:{item.line} imports {item.imported}"
        for item in import_graph.imports(INSTALLER, "moatbridge")
        if item.imported.startswith("moatbridge.")
        and _floor(item.imported) in forbidden.get(_floor(item.importer), set())
    ]
    assert offences == []


def test_commands_holds_verbs_and_no_verb_imports_another() -> None:
    verbs = _verb_modules()
    modules = set(import_graph.modules(INSTALLER, "moatbridge"))
    in_commands = {m for m in modules if m.startswith("moatbridge.commands.")}
    assert in_commands - verbs - SHARED_BY_VERBS == set(), "a module in commands/ that is not a verb"
    assert verbs <= in_commands, "a command dispatched to a module that does not exist"
    offences = [
        f"{item.importer}:{item.line} imports {item.imported}"
        for item in import_graph.imports(INSTALLER, "moatbridge")
        if item.importer in in_commands and item.imported in in_commands and item.imported != item.importer
        and item.imported not in SHARED_BY_VERBS
    ]  # fmt: skip
    assert offences == []


def test_no_module_imports_another_ones_private_names() -> None:
    """A name with a leading underscore is its module's own: imported elsewhere, it is a use
    case hiding in the wrong place (as setup's _ensure_image once was for upgrade)."""
    import ast

    offences = []
    for root, package in ((INSTALLER, "moatbridge"), (TOOLKIT, "cudacompat")):
        for name, path in import_graph.modules(root, package).items():
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package):
                    private = [
                        a.name for a in node.names if a.name.startswith("_") and a.name != "__version__"
                    ]
                    offences += [f"{name}:{node.lineno} imports {node.module}.{p}" for p in private]
    assert offences == []


def test_the_installer_takes_only_the_target_names_from_the_toolkit() -> None:
    offences = [
        f"{item.importer}:{item.line} imports {item.imported}"
        for item in import_graph.imports(INSTALLER, "moatbridge")
        if item.imported.split(".")[0] == "cudacompat"
        and item.imported not in ("cudacompat", "cudacompat.targets")
    ]
    assert offences == []


def test_the_toolkit_imports_only_the_standard_library_and_itself() -> None:
    """It runs on the image's Python (python3-minimal in runtime variants), nothing installed."""
    offences = [
        f"{item.importer}:{item.line} imports {item.imported}"
        for item in import_graph.imports(TOOLKIT, "cudacompat")
        if not (
            item.imported.split(".")[0] == "cudacompat" or import_graph.is_standard_library(item.imported)
        )
    ]
    assert offences == []


@pytest.mark.parametrize(("root", "package"), [(INSTALLER, "moatbridge"), (TOOLKIT, "cudacompat")])
def test_no_import_cycles(root: Path, package: str) -> None:
    assert import_graph.cycles(import_graph.graph(root, package)) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    """The check above could pass by finding nothing: here it must find each cycle."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": set()}
    assert sorted(import_graph.cycles(edges)) == [["a", "b", "c"], ["d", "e"]]
