"""tools/file_refs.py: every file a comment, docstring or page of the checkout names exists (issue 40,
item 5: comments point only to files that exist)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[2] / "tools" / "file_refs.py"
spec = importlib.util.spec_from_file_location("file_refs_tool", TOOL)
file_refs = importlib.util.module_from_spec(spec)
sys.modules["file_refs_tool"] = file_refs  # dataclasses look their module up while the class is made
spec.loader.exec_module(file_refs)


def _checkout(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "checkout"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (tmp_path / "shared" / "spec").mkdir(parents=True)
    (tmp_path / "shared" / "spec" / "TIMELINE.md").write_text("# the spec\n")
    return root


def test_every_file_the_checkout_names_exists():
    assert [str(missing) for missing in file_refs.check()] == []


def test_it_names_a_missing_page_and_a_spec_named_without_the_shared_folder(tmp_path):
    root = _checkout(
        tmp_path,
        {
            "docs/A.md": "See docs/B.md and ../shared/spec/TIMELINE.md.\n",
            "scheduler_core/x.py": '"""The run (spec/TIMELINE.md)."""\n# see docs/A.md\n',
        },
    )
    missing = [(m.source, m.line, m.reference) for m in file_refs.check(root)]
    assert missing == [("scheduler_core/x.py", 1, "spec/TIMELINE.md"), ("docs/A.md", 1, "docs/B.md")]


def test_it_leaves_other_repositories_paths_and_example_trees_alone(tmp_path):
    root = _checkout(
        tmp_path,
        {
            "docs/A.md": "openshift/insights-operator `docs/gathered-data.md` lists it; tests/pkg/test_a.py is made.\n",
            "CHANGELOG.md": "Moved from docs/OLD.md.\n",
        },
    )
    assert file_refs.check(root) == []


def test_a_shared_path_resolves_beside_the_checkout(tmp_path):
    root = _checkout(tmp_path, {"tools/t.py": "# ../shared/spec/TIMELINE.md, ../shared/spec/CHANGES.md\n"})
    assert [m.reference for m in file_refs.check(root)] == ["../shared/spec/CHANGES.md"]
