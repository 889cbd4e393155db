"""The type checker passes (issues 23 and 40): mypy, strict on the whole engine (scheduler_core/:
the framework and its plugin interfaces, the plugins, the loader, the cluster and its controllers,
the run, the answers and the CLI) and on the web app (webui/) with Django's stubs and their plugin,
Celery's and Channels', as configured in pyproject.toml's [tool.mypy], with no engine module
exempted and every `type: ignore` naming the error it silences. Its cache (.mypy_cache) keeps a
re-run to a few seconds."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_it_finds_no_type_error_in_the_strictly_typed_packages():
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("Success: no issues found")


def test_it_checks_the_whole_engine_with_no_module_exempted():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["files"] == ["scheduler_core", "webui"]
    assert config["strict"] is True
    exempted = [o["module"] for o in config.get("overrides", []) if o.get("ignore_errors")]
    assert exempted == [["webui.migrations.*"]]  # Django's generated history, kept as generated


def test_every_type_ignore_in_the_engine_names_its_error_code():
    bare = re.compile(r"#\s*type:\s*ignore(?!\[)|#\s*mypy:\s*ignore-errors")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "scheduler_core").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if bare.search(line)
    ]
    assert found == []


def test_it_reports_a_plugin_method_whose_signature_does_not_match_its_extension_point(tmp_path):
    """A protocol-typed plugin list catches a filter that forgot a parameter."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import ClassVar\n"
        "from scheduler_core.framework.interfaces import FilterPlugin\n"
        "from scheduler_core.framework.status import MaybeStatus\n"
        "class Broken:\n"
        "    name: ClassVar[str] = 'Broken'\n"
        "    def filter(self, pod: object) -> MaybeStatus:\n"
        "        return None\n"
        "plugins: list[FilterPlugin] = [Broken()]\n"
    )
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            str(probe),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 1
    assert 'List item 0 has incompatible type "Broken"; expected "FilterPlugin"' in checked.stdout


def test_it_reads_the_web_app_s_models_and_requests_through_django_s_stubs(tmp_path):
    """With django-stubs and its plugin a model's fields are typed (without them a model is Any)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from webui.models import Run\n"
        "from webui.services.access import ActorRequest\n"
        "def cycles(run: Run) -> str:\n"
        "    return run.cycles\n"
        "def owner(request: ActorRequest) -> str:\n"
        "    return request.auth.user_id\n"
    )
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            str(probe),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert 'Incompatible return value type (got "int", expected "str")' in checked.stdout
    assert 'Incompatible return value type (got "int | None", expected "str")' in checked.stdout
