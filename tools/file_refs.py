"""Every file a comment, docstring or page names exists (a development tool; tests/tools/test_file_refs.py
runs it on every `make test`).

    .venv/bin/python tools/file_refs.py

Code and pages point readers to the specs and to our own pages: ``../shared/spec/TIMELINE.md``,
``docs/CHANGES.md``, ``tools/perf_table.py``. A pointer to a file that is not there (a page renamed,
a spec named without the ``../shared/`` it lives under) sends the reader nowhere, so every such
reference is checked:

- ``../shared/...`` is read beside the checkout (where CI and the README put the shared folder);
- ``docs/``, ``tools/``, ``examples/``, ``static/``, ``scheduler_core/``, ``webui/`` and ``tests/`` paths
  from the checkout's root, as the README and the code write them;
- a bare spec path (``spec/`` then a page) is always wrong here: the specs live in ``../shared/spec/``.

Not checked: made-up paths that tests and docstrings use as examples (a throw-away package in a
temporary folder, EXAMPLES), a path named as another repository's (``openshift/insights-operator
docs/...``), and CHANGELOG.md, whose history names files as they were then.

Prints one line per missing file (where it is named, line and text) and exits 1 when there is one.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("scheduler_core", "webui", "static/js", "tools", "tests", "docs", "examples")
SCANNED_FILES = ("README.md", "Makefile", "pyproject.toml", ".ci/run")  # CHANGELOG.md: history, as it was
SUFFIXES = frozenset({".py", ".js", ".md", ".html", ".yaml", ".toml"})
SKIPPED_FILES = frozenset({"tests/tools/test_file_refs.py"})  # its cases name made-up files on purpose
SKIPPED_DIRS = frozenset({"codemirror", "vendor", "__pycache__", "migrations", "screenshots"})
ROOTED = ("docs", "tools", "examples", "static", "scheduler_core", "webui", "tests")
# A path as prose writes it: a known first folder, then name characters, ending in a file suffix.
# "owner/repository path": a file of another repository (the path follows the repository's name).
OTHER_REPOSITORY = re.compile(r"[\w.-]+/[\w.-]+[`']?\s+[`']?$")
# Example trees the layout tools' tests build in a temporary folder, named in their docstrings.
EXAMPLES = ("tests/pkg/", "scheduler_core/a/", "tests/scheduler_core/a/")
REFERENCE = re.compile(
    r"(?<![\w./-])((?:\.\./shared/|spec/|(?:%s)/)[\w./-]*\.(?:md|py|yaml|json|js|css|toml))" % "|".join(ROOTED)
)


@dataclass(frozen=True)
class MissingFile:
    source: str  # the file naming it, relative to the checkout
    line: int
    reference: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: names {self.reference}, which does not exist"


def references(text: str) -> list[tuple[int, str]]:
    """(line, path) of every file path the text names."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for match in REFERENCE.finditer(line):
            if not OTHER_REPOSITORY.search(line[: match.start()]):
                found.append((number, match.group(1).rstrip(".")))
    return found


def resolves(reference: str, root: Path) -> bool:
    if reference.startswith(EXAMPLES):
        return True
    if reference.startswith("spec/"):
        return False  # the specs are ../shared/spec/...: a bare spec/ path points nowhere
    if reference.startswith("../"):
        return (root / reference).resolve().exists()
    return (root / reference).exists() or any(
        # "tests/…/test_x.py" named as a pattern ("test_*.py") is a glob, not a file
        "*" in part
        for part in reference.split("/")
    )


def scanned_files(root: Path) -> list[Path]:
    files = [root / name for name in SCANNED_FILES if (root / name).exists()]
    for folder in SCANNED:
        for path in sorted((root / folder).rglob("*")):
            if (
                path.suffix in SUFFIXES
                and path.is_file()
                and not SKIPPED_DIRS.intersection(path.parts)
                and str(path.relative_to(root)) not in SKIPPED_FILES
            ):
                files.append(path)
    return files


def check(root: Path = ROOT) -> list[MissingFile]:
    missing = []
    for path in scanned_files(root):
        text = path.read_text(encoding="utf-8", errors="replace")
        for line, reference in references(text):
            if not resolves(reference, root):
                missing.append(MissingFile(str(path.relative_to(root)), line, reference))
    return missing


def main() -> int:
    missing = check()
    for item in missing:
        print(item)
    print(f"{len(missing)} reference(s) to missing files")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
