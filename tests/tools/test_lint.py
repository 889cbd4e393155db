"""The linter passes (issue 40): ruff's rules as pyproject.toml's [tool.ruff] sets them, over the
engine, the web app, the tests and the tools."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("scheduler_core", "webui", "tests", "tools")


def test_ruff_finds_nothing_in_the_project():
    checked = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *CHECKED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_ruff_reports_an_unused_import_with_its_file_and_line(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\n")
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--output-format",
            "concise",
            "--config",
            str(ROOT / "pyproject.toml"),
            str(probe),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 1 and "probe.py:1:8: F401" in checked.stdout


def _format_check(*paths: str) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "ruff",
        "format",
        "--check",
        "--no-cache",
        "--config",
        str(ROOT / "pyproject.toml"),
    ]
    return subprocess.run([*command, *paths], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_every_python_file_is_as_the_formatter_writes_it():
    """One layout for all the code (`ruff format`, pyproject.toml's line length): run it before committing."""
    checked = _format_check(*CHECKED, "manage.py")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_format_check_names_a_file_the_formatter_would_change(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("x = {  'a':1 }\n")
    checked = _format_check(str(probe))
    assert checked.returncode == 1 and "probe.py" in checked.stdout
