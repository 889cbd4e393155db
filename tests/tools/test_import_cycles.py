"""tools/import_cycles.py: the project's modules import each other without a cycle (imports inside
functions and under TYPE_CHECKING count), the framework imports no plugin (issue 23), the engine's
packages import only downward, nothing is loose at its top, and the web app reaches the engine through
webui/services/engine.py alone (issue 40), which imports the engine's published API
(scheduler_core/api.py) and nothing else (issue 49)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "import_cycles.py"
spec = importlib.util.spec_from_file_location("import_cycles", TOOL)
import_cycles = importlib.util.module_from_spec(spec)
sys.modules["import_cycles"] = import_cycles  # dataclasses look their module up while the class is made
spec.loader.exec_module(import_cycles)


@pytest.fixture(scope="module")
def project_graph():
    return import_cycles.build_graph()


@pytest.mark.parametrize("package", ["scheduler_core", "webui"])
def test_it_finds_no_import_cycle_in_the_package(project_graph, package):
    inside = [c for c in import_cycles.cycles(project_graph) if any(m.split(".")[0] == package for m in c)]
    assert inside == []


def test_the_framework_imports_no_plugin(project_graph):
    assert import_cycles.imports_between(project_graph, "scheduler_core.framework", "scheduler_core.plugins") == []


def test_the_engine_s_layers_only_import_downward(project_graph):
    assert import_cycles.upward_imports(project_graph) == []


def test_nothing_is_loose_at_the_top_of_the_engine(project_graph):
    assert import_cycles.loose_modules(project_graph) == []


def test_an_import_of_a_higher_layer_is_named_and_the_top_modules_sit_above_all(tmp_path):
    _write(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/cli.py": "from eng.high import h\n",
            "eng/low/__init__.py": "",
            "eng/low/a.py": "def f():\n    from eng.high.b import g\n",
            "eng/high/__init__.py": "",
            "eng/high/b.py": "from eng.low.a import f\ndef g(): pass\n",
        },
    )
    graph = import_cycles.build_graph(tmp_path, ("eng",))
    layers = (("low",), ("high",))
    assert import_cycles.upward_imports(graph, layers, "eng") == [("eng.low.a", "eng.high.b")]
    assert import_cycles.layer_of("eng.cli", layers, "eng") == 2


def test_the_engine_imports_nothing_of_the_web_app(project_graph):
    assert import_cycles.imports_between(project_graph, "scheduler_core", "webui") == []


def test_the_web_app_reaches_the_engine_through_its_one_door(project_graph):
    assert import_cycles.imports_past_the_door(project_graph) == []
    assert import_cycles.imports_between(project_graph, "webui", "scheduler_core") == [
        ("webui.services.engine", "scheduler_core.api")
    ]


def test_the_web_app_imports_the_engine_s_published_api_and_nothing_of_its_insides(project_graph, tmp_path):
    assert import_cycles.imports_beside_the_api(project_graph) == []
    _write(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/api.py": "from eng.inside import thing\n",
            "eng/inside.py": "thing = 1\n",
            "web/__init__.py": "",
            "web/door.py": "from eng.api import thing\ndef later():\n    from eng.inside import thing\n",
        },
    )
    graph = import_cycles.build_graph(tmp_path, ("eng", "web"))
    assert import_cycles.imports_beside_the_api(graph, "web", "eng", "eng.api") == [("web.door", "eng.inside")]


def test_an_engine_import_past_the_door_is_named_even_inside_a_function_or_a_migration(tmp_path):
    _write(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/answers.py": "def answer(): pass\n",
            "web/__init__.py": "",
            "web/door.py": "from eng.answers import answer\n",
            "web/routers.py": "def view():\n    import eng.answers\n",
            "web/migrations/__init__.py": "",
            "web/migrations/0001_x.py": "def forward(apps, editor):\n    from eng import answers\n",
            "web/through.py": "from web.door import answer\n",
        },
    )
    graph = import_cycles.build_graph(tmp_path, ("eng", "web"))
    assert import_cycles.imports_past_the_door(graph, "web", "eng", "web.door") == [
        ("web.migrations.0001_x", "eng.answers"),
        ("web.routers", "eng.answers"),
    ]


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_it_finds_a_cycle_hidden_in_a_function_and_one_under_type_checking(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "def f():\n    from pkg import b\n",
            "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import f\n",
            "pkg/c.py": "import pkg.a\n",
        },
    )
    graph = import_cycles.build_graph(tmp_path, ("pkg",))
    assert import_cycles.cycles(graph) == [["pkg.a", "pkg.b"]]


def test_it_resolves_relative_imports_from_modules_and_packages(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "from .sub import thing\n",
            "pkg/sub/__init__.py": "from . import leaf\nthing = 1\n",
            "pkg/sub/leaf.py": "from ..other import x\nfrom .. import sub\n",
            "pkg/other.py": "x = 1\n",
        },
    )
    graph = import_cycles.build_graph(tmp_path, ("pkg",))
    assert graph.edges["pkg"] == {"pkg.sub"}
    assert graph.edges["pkg.sub"] == {"pkg.sub.leaf"}
    assert graph.edges["pkg.sub.leaf"] == {"pkg.other", "pkg.sub"}
    assert import_cycles.cycles(graph) == [["pkg.sub", "pkg.sub.leaf"]]


def test_it_counts_a_module_importing_itself_and_ignores_outside_modules(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "import os\nimport yaml\nfrom pkg import a\n"})
    graph = import_cycles.build_graph(tmp_path, ("pkg",))
    assert graph.edges["pkg.a"] == {"pkg.a"}
    assert import_cycles.cycles(graph) == [["pkg.a"]]


def test_it_names_who_imports_across_two_layers(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/framework/__init__.py": "",
            "pkg/framework/core.py": "def f():\n    import pkg.plugins.p\n",
            "pkg/plugins/__init__.py": "",
            "pkg/plugins/p.py": "from pkg.framework import core\n",
        },
    )
    graph = import_cycles.build_graph(tmp_path, ("pkg",))
    assert import_cycles.imports_between(graph, "pkg.framework", "pkg.plugins") == [
        ("pkg.framework.core", "pkg.plugins.p")
    ]
