"""Who imports whom, read from the source (ast): module-level, function-level and
TYPE_CHECKING imports alike, since each is a dependency a reader must follow."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Import:
    importer: str  # dotted module name
    imported: str  # the module it names (a submodule when `from pkg import sub` names one)
    line: int


def modules(source_root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``source_root`` (the folder holding the package)."""
    found = {}
    for path in sorted((source_root / package).rglob("*.py")):
        parts = path.relative_to(source_root).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def imports(source_root: Path, package: str) -> Iterator[Import]:
    """Each import statement in ``package``, resolved to the module it names."""
    known = modules(source_root, package)
    for name, path in known.items():
        here = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(name, alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[: len(here.split(".")) - node.level + 1]
                    target = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    target = node.module or ""
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    yield Import(name, submodule if submodule in known else target, node.lineno)


# Standard-library packages newer than the Python running the tests (compression: 3.14, whose
# compression.zstd the pruner uses where the image's Python has it).
NEWER_STANDARD_LIBRARY = frozenset({"compression"})


def is_standard_library(module: str) -> bool:
    top = module.split(".")[0]
    return top in sys.stdlib_module_names or top in NEWER_STANDARD_LIBRARY or module == "__future__"


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively),
    plus modules that import themselves."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in edges:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    found.append(sorted(component))
    return found


def graph(source_root: Path, package: str) -> dict[str, set[str]]:
    """Edges between the package's own modules (a package's __init__ is its own node)."""
    known = modules(source_root, package)
    edges: dict[str, set[str]] = {name: set() for name in known}
    for item in imports(source_root, package):
        if item.imported in known and item.imported != item.importer:
            edges[item.importer].add(item.imported)
    return edges
