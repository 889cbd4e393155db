"""The type checker passes (issue 23): mypy, strict on the framework (scheduler_core/framework/, the
plugin interfaces in framework/interfaces.py included), the plugins (scheduler_core/plugins/), the
run's cluster (scheduler_core/cluster/) and the event handlers, but for the modules pyproject.toml
lists as not yet strict, and on the web app (webui/, issue 40) with Django's stubs and their plugin,
Celery's and Channels', as configured in pyproject.toml's [tool.mypy]. Its cache (.mypy_cache) keeps
a re-run to a few seconds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_it_finds_no_type_error_in_the_strictly_typed_packages():
    checked = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("Success: no issues found")


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
    checked = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                              "--cache-dir", str(ROOT / ".mypy_cache"), str(probe)],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
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
    checked = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                              "--cache-dir", str(ROOT / ".mypy_cache"), str(probe)],
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert 'Incompatible return value type (got "int", expected "str")' in checked.stdout
    assert 'Incompatible return value type (got "int | None", expected "str")' in checked.stdout
