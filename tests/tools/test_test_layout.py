"""tools/test_layout.py: every source module has its test module at the same path under tests/, and
no module under tests/ imports a test module (issue 23, item 8)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "test_layout.py"
spec = importlib.util.spec_from_file_location("test_layout_tool", TOOL)
test_layout = importlib.util.module_from_spec(spec)
sys.modules["test_layout_tool"] = test_layout  # dataclasses look their module up while the class is made
spec.loader.exec_module(test_layout)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_project_keeps_its_test_layout():
    layout = test_layout.check()
    assert layout.untested == []
    assert layout.test_imports == []
    assert layout.stale_exemptions == []


def test_a_module_is_tested_at_the_same_path_under_tests():
    assert test_layout.test_module_for(Path("pkg/sub/mod.py")) == Path("tests/pkg/sub/test_mod.py")
    assert test_layout.test_module_for(Path("pkg/top.py")) == Path("tests/pkg/test_top.py")


def test_it_names_a_module_without_its_test_module_even_when_a_flat_one_exists(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "pkg/sub/fit.py": "def fits(): return True\n",
            "pkg/sub/tested.py": "def f(): return 1\n",
            "tests/pkg/test_sub_fit.py": "",  # the flat name does not count: the path must match
            "tests/pkg/sub/test_tested.py": "",
        },
    )
    assert test_layout.untested_modules(tmp_path, ("pkg",), frozenset()) == ["pkg/sub/fit.py"]


def test_an_init_needs_a_test_module_only_when_it_defines_something(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/__init__.py": '"""Re-exports."""\nfrom pkg.a import f\n__all__ = ["f"]\n',
            "pkg/a.py": "def f(): return 1\n",
            "pkg/logic/__init__.py": "class Thing:\n    pass\n",
            "pkg/migrations/0001_initial.py": "x = 1\n",
            "pkg/constants.py": "X = 1\n",
            "tests/pkg/test_a.py": "",
        },
    )
    untested = test_layout.untested_modules(tmp_path, ("pkg",), frozenset({"pkg/constants.py"}))
    assert untested == ["pkg/logic/__init__.py"]


def test_it_names_a_test_module_imported_by_a_test_or_support_module_also_inside_a_function(tmp_path):
    _write(
        tmp_path,
        {
            "tests/__init__.py": "",
            "tests/pkg/__init__.py": "",
            "tests/pkg/builders.py": "def make(): return 1\n",
            "tests/pkg/test_a.py": "from tests.pkg.builders import make\ndef helper(): return make()\n",
            "tests/pkg/test_b.py": "def test_b():\n    from tests.pkg.test_a import helper\n",
            "tests/pkg/test_c.py": "from . import test_a\n",
            "tests/pkg/conftest.py": "import tests.pkg.test_b\n",
        },
    )
    assert test_layout.test_module_imports(tmp_path) == [
        ("tests.pkg.conftest", "tests.pkg.test_b"),
        ("tests.pkg.test_b", "tests.pkg.test_a"),
        ("tests.pkg.test_c", "tests.pkg.test_a"),
    ]


def test_an_exemption_goes_stale_when_its_module_is_gone_or_gets_a_test_module(tmp_path):
    _write(
        tmp_path,
        {
            "pkg/urls.py": "patterns = []\n",
            "pkg/settings.py": "DEBUG = False\n",
            "tests/pkg/test_settings.py": "",
        },
    )
    exempt = frozenset({"pkg/urls.py", "pkg/settings.py", "pkg/removed.py"})
    assert test_layout.stale_exemptions(tmp_path, exempt) == ["pkg/removed.py", "pkg/settings.py"]
    layout = test_layout.check(tmp_path, ("pkg",), exempt)
    assert layout.untested == [] and not layout.ok
