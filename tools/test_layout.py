"""The test suite's layout (a development tool; tests/tools/test_test_layout.py runs it on every
`make test`).

    .venv/bin/python tools/test_layout.py

Two rules (issue 23, item 8):

1. Every source module has its test module, at the same path under tests/ with ``test_`` before
   its name: ``scheduler_core/plugins/node_resources/fit.py`` is tested by
   ``tests/scheduler_core/plugins/node_resources/test_fit.py``. Not needed for a package's
   ``__init__.py`` that defines no function or class (it only names or re-exports), for Django
   migrations, and for the few modules in NOTHING_TO_TEST below. A test module for anything else
   (a conformance corpus, a batch variant, a service test) is welcome and not checked.
2. No module under tests/ imports a test module. A *test module* is a file named ``test_*.py``;
   every other file under tests/ (``builders.py``, ``support.py``, ``helpers.py``,
   ``conformance.py``, ``conftest.py``, ``__init__.py``, ...) is a *support module*, where helpers
   shared by several test modules live. Imports inside functions count (tools/import_cycles.py
   reads the imports).

Prints one line per source module without its test module and per import of a test module, then
the counts; exits 1 when there is either.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE_PACKAGES = ("scheduler_core", "webui")
TESTS = "tests"

# Source modules with no behaviour of their own to test (keep this short; each says why).
NOTHING_TO_TEST = frozenset(
    {
        "scheduler_core/__main__.py",  # `python -m scheduler_core`: calls cli.main (tests/scheduler_core/test_cli.py)
        "scheduler_core/model/names.py",  # plugin-name constants only
        "scheduler_core/framework/registry.py",  # two type aliases (mypy checks their use)
        "webui/routing.py",  # one websocket URL pattern (tests/webui/test_consumers.py connects to it)
        "webui/urls.py",  # URL patterns only (the page and API tests request every one)
    }
)

EXEMPT = NOTHING_TO_TEST


def _load_import_cycles():  # tools/ is not a package: load the sibling tool by its path
    name = "import_cycles"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("import_cycles.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the class is made
        spec.loader.exec_module(module)
    return sys.modules[name]


@dataclass(frozen=True)
class Layout:
    untested: list[str]  # source files (relative to the root) without their test module
    test_imports: list[tuple[str, str]]  # (importing module, imported test module), dotted names
    stale_exemptions: list[str]  # exempted sources that are gone or have a test module after all

    @property
    def ok(self) -> bool:
        return not self.untested and not self.test_imports and not self.stale_exemptions


def test_module_for(source: Path) -> Path:
    """``pkg/sub/mod.py`` -> ``tests/pkg/sub/test_mod.py`` (both relative to the root)."""
    return Path(TESTS, *source.parent.parts, f"test_{source.name}")


def _defines_something(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for node in tree.body)


def needs_test_module(root: Path, source: Path, exempt: frozenset[str] = EXEMPT) -> bool:
    if source.as_posix() in exempt or "migrations" in source.parts:
        return False
    if source.name == "__init__.py":
        return _defines_something(root / source)
    return True


def untested_modules(
    root: Path = ROOT, packages: tuple[str, ...] = SOURCE_PACKAGES, exempt: frozenset[str] = EXEMPT
) -> list[str]:
    """Source files that need a test module and have none, as paths relative to the root."""
    found = []
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            source = path.relative_to(root)
            if needs_test_module(root, source, exempt) and not (root / test_module_for(source)).is_file():
                found.append(source.as_posix())
    return found


def is_test_module(dotted: str) -> bool:
    return dotted.rsplit(".", 1)[-1].startswith("test_")


def test_module_imports(root: Path = ROOT) -> list[tuple[str, str]]:
    """(importer, test module) for every module under tests/ that imports a test module."""
    graph = _load_import_cycles().build_graph(root, (TESTS,))
    return sorted(
        (module, target)
        for module, targets in graph.edges.items()
        for target in targets
        if target != module and is_test_module(target)
    )


def stale_exemptions(root: Path = ROOT, exempt: frozenset[str] = EXEMPT) -> list[str]:
    """Exempted sources that no longer exist, or whose test module exists (the entry can go)."""
    return sorted(
        source for source in exempt if not (root / source).is_file() or (root / test_module_for(Path(source))).is_file()
    )


def check(root: Path = ROOT, packages: tuple[str, ...] = SOURCE_PACKAGES, exempt: frozenset[str] = EXEMPT) -> Layout:
    return Layout(untested_modules(root, packages, exempt), test_module_imports(root), stale_exemptions(root, exempt))


def main() -> int:
    layout = check()
    for source in layout.untested:
        print(f"no test module: {source} (expected {test_module_for(Path(source)).as_posix()})")
    for importer, imported in layout.test_imports:
        print(f"test module imported: {importer} imports {imported}")
    for source in layout.stale_exemptions:
        print(f"stale exemption: {source} (gone, or it has its test module now: drop the entry)")
    print(
        f"{len(layout.untested)} source module(s) without a test module, "
        f"{len(layout.test_imports)} import(s) of a test module"
    )
    return 0 if layout.ok else 1


if __name__ == "__main__":
    sys.exit(main())
