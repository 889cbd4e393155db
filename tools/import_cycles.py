"""Import cycles among the project's own modules (a development tool; tests/tools/test_import_cycles.py
runs it on every `make test`).

    .venv/bin/python tools/import_cycles.py [PACKAGE ...]      # default: scheduler_core webui

Every ``import`` and ``from ... import`` anywhere in a module counts, also inside functions and
``if TYPE_CHECKING:`` blocks (a lazy import only hides a cycle from the interpreter, not from the
reader). Relative imports are resolved. ``from package import name`` points at ``package.name`` when
that is a module, else at ``package``. Importing a module does run its parents' ``__init__`` too,
but that edge is not counted (every module would otherwise sit in a cycle with its package's
``__init__`` re-exports): a cycle here is one written in the modules' own import statements.

Prints one line per cycle (a strongly connected component of two or more modules, or a module
importing itself), largest first, then the count, then every import that runs upward across the
engine's layers (``ENGINE_LAYERS``), then every web module that imports the engine other than its
door (``WEB_ENGINE_DOOR``), then every web import of an engine module other than its published API
(``ENGINE_API``); exits 1 when there is any of them.
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PACKAGES = ("scheduler_core", "webui")

# The engine's packages from the bottom up (issue 40): a package may import its own layer and the
# ones below it, never one above. The top-level modules (``__init__``, ``cli``, ``__main__``) sit
# above every package. docs/ENGINE_INTERNALS.md draws the same map.
ENGINE_LAYERS: tuple[tuple[str, ...], ...] = (
    ("util", "release", "model"),
    ("framework",),
    ("backend", "dra", "volume"),
    ("plugins",),
    ("scenario",),
    ("encoding",),
    ("cluster",),
    ("run",),
    ("answers",),
)
ENGINE_TOP_MODULES = ("scheduler_core", "scheduler_core.api", "scheduler_core.cli", "scheduler_core.__main__")

# The web app reaches the engine through one module only (issue 40): every other module under
# ``webui`` (migrations and imports inside functions included) goes through it.
WEB_ENGINE_DOOR = "webui.services.engine"
# ... and the door imports the engine's published API only (issue 49): nothing of its insides.
ENGINE_API = "scheduler_core.api"


@dataclass(frozen=True)
class ImportGraph:
    modules: frozenset[str]
    edges: dict[str, frozenset[str]]  # module -> the project modules it imports


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under the packages."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_package(module: str, files: dict[str, Path]) -> bool:
    return module in files and files[module].name == "__init__.py"


def _resolve_relative(module: str, level: int, target: str | None, files: dict[str, Path]) -> str:
    """The absolute name of ``from .{level} target import ...`` written in ``module``."""
    base = module.split(".") if _is_package(module, files) else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _targets(module: str, node: ast.AST, files: dict[str, Path]) -> list[str]:
    """The project modules one import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert isinstance(node, ast.ImportFrom)
    source = _resolve_relative(module, node.level, node.module, files) if node.level else node.module or ""
    named = [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in files]
    return named if len(named) == len(node.names) else [source, *named]


def _nearest_module(name: str, files: dict[str, Path]) -> str | None:
    """``a.b.c`` when it is a project module, else its closest project ancestor; None outside."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in files:
            return candidate
        parts.pop()
    return None


def build_graph(root: Path = ROOT, packages: tuple[str, ...] = DEFAULT_PACKAGES) -> ImportGraph:
    files = module_files(root, packages)
    edges: dict[str, frozenset[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        imported: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name in _targets(module, node, files):
                    target = _nearest_module(name, files)
                    if target is not None:
                        imported.add(target)
        edges[module] = frozenset(imported)
    return ImportGraph(frozenset(files), edges)


def cycles(graph: ImportGraph) -> list[list[str]]:
    """Strongly connected components that form a cycle, largest first (Tarjan, iterative)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph.modules):
        if start in index:
            continue
        work: list[tuple[str, list[str]]] = [(start, sorted(graph.edges[start]))]
        index[start] = lowlink[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            if pending:
                child = pending.pop(0)
                if child not in index:
                    index[child] = lowlink[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, sorted(graph.edges[child])))
                elif child in on_stack:
                    lowlink[node] = min(lowlink[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[node])
            if lowlink[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph.edges[node]:
                    found.append(sorted(component))
    return sorted(found, key=lambda c: (-len(c), c))


def imports_between(graph: ImportGraph, importer_prefix: str, imported_prefix: str) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a module under one prefix imports one under the other."""

    def under(module: str, prefix: str) -> bool:
        return module == prefix or module.startswith(prefix + ".")

    return sorted(
        (module, target)
        for module, targets in graph.edges.items()
        if under(module, importer_prefix)
        for target in targets
        if under(target, imported_prefix)
    )


def layer_of(
    module: str, layers: tuple[tuple[str, ...], ...] = ENGINE_LAYERS, root_package: str = "scheduler_core"
) -> int | None:
    """The layer of an engine module (its package under ``root_package``); the top-level modules
    sit above every layer; None outside the engine or in a package no layer names."""
    parts = module.split(".")
    if parts[0] != root_package:
        return None
    if len(parts) == 1 or (len(parts) == 2 and not any(parts[1] in layer for layer in layers)):
        return len(layers)
    return next((index for index, layer in enumerate(layers) if parts[1] in layer), None)


def upward_imports(
    graph: ImportGraph, layers: tuple[tuple[str, ...], ...] = ENGINE_LAYERS, root_package: str = "scheduler_core"
) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a module imports one of a higher layer."""
    found = []
    for module, targets in graph.edges.items():
        here = layer_of(module, layers, root_package)
        if here is None:
            continue
        for target in targets:
            there = layer_of(target, layers, root_package)
            if there is not None and there > here:
                found.append((module, target))
    return sorted(found)


def loose_modules(
    graph: ImportGraph, allowed: tuple[str, ...] = ENGINE_TOP_MODULES, root_package: str = "scheduler_core"
) -> list[str]:
    """Modules at the top of the package that are neither allowed there nor packages of a layer."""
    packages = {name for layer in ENGINE_LAYERS for name in layer}
    return sorted(
        module
        for module in graph.modules
        if module.split(".")[0] == root_package
        and module.count(".") == 1
        and module not in allowed
        and module.split(".")[1] not in packages
    )


def imports_past_the_door(
    graph: ImportGraph, outside: str = "webui", inside: str = "scheduler_core", door: str = WEB_ENGINE_DOOR
) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a module under ``outside`` other than ``door`` imports ``inside``."""
    return [(module, target) for module, target in imports_between(graph, outside, inside) if module != door]


def imports_beside_the_api(
    graph: ImportGraph, outside: str = "webui", inside: str = "scheduler_core", api: str = ENGINE_API
) -> list[tuple[str, str]]:
    """(importer, imported) pairs where a module under ``outside`` imports a module of ``inside``
    other than its published ``api``."""
    return [(module, target) for module, target in imports_between(graph, outside, inside) if target != api]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="*", default=list(DEFAULT_PACKAGES))
    args = parser.parse_args(argv)
    graph = build_graph(ROOT, tuple(args.packages))
    found = cycles(graph)
    for component in found:
        print(f"{len(component)} modules: {' '.join(component)}")
    print(f"{len(found)} import cycle(s), {sum(len(c) for c in found)} modules in them")
    upward = upward_imports(graph)
    for importer, imported in upward:
        print(f"upward: {importer} -> {imported}")
    print(f"{len(upward)} upward import(s) across the engine's layers")
    past = imports_past_the_door(graph)
    for importer, imported in past:
        print(f"past {WEB_ENGINE_DOOR}: {importer} -> {imported}")
    print(f"{len(past)} web module import(s) of the engine past {WEB_ENGINE_DOOR}")
    beside = imports_beside_the_api(graph)
    for importer, imported in beside:
        print(f"beside {ENGINE_API}: {importer} -> {imported}")
    print(f"{len(beside)} web import(s) of the engine's insides (not {ENGINE_API})")
    return 1 if found or upward or past or beside else 0


if __name__ == "__main__":
    sys.exit(main())
