"""webui.services.whatif: the engine's suggestions for a run's pod, read against the cluster the run
left, and one of them saved as the scenario's next version with the engine's own text edit."""

from pathlib import Path

import pytest

from scheduler_core.answers.whatif_text import apply_to_text
from webui.models import Run
from webui.services import runs, scenarios, whatif
from webui.services.access import Actor
from webui.services.errors import DomainError
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
TAINTED = (Path(__file__).resolve().parents[2] / "fixtures" / "whatif" / "tainted.yaml").read_text()
OWNER = Actor(session_key="owner-session")


def finished_run(text: str) -> Run:
    saved = scenarios.create(OWNER, "what if", text)
    run = runs.start(OWNER, saved.scenario)
    execute_run.apply(args=[run.pk])
    return Run.objects.get(pk=run.pk)


def test_the_suggestions_name_the_run_and_its_version():
    run = finished_run(TAINTED)
    answer = whatif.suggestions(run, "default/p")
    assert (answer["run"], answer["version"], answer["pod"]) == (run.pk, 1, "default/p")
    assert [s["kind"] for s in answer["suggestions"]] == ["toleration"]


def test_a_pod_the_scheduler_would_not_try_is_a_domain_error_naming_it():
    with pytest.raises(DomainError) as raised:
        whatif.suggestions(finished_run(TAINTED), "default/nobody")
    assert raised.value.status == 400 and raised.value.details == {"pod": "default/nobody"}


def test_applying_saves_the_engine_s_text_edit_as_the_next_version():
    run = finished_run(TAINTED)
    [suggestion] = whatif.suggestions(run, "default/p")["suggestions"]
    saved = whatif.apply(OWNER, run, "default/p", 0)
    assert (saved.scenario.pk, saved.version.number) == (run.version.scenario_id, 2)
    assert saved.version.text == apply_to_text(TAINTED, "default/p", suggestion)


def test_applying_a_suggestion_that_is_not_there_saves_nothing():
    run = finished_run(TAINTED)
    with pytest.raises(DomainError) as raised:
        whatif.apply(OWNER, run, "default/p", 1)
    assert raised.value.details == {"suggestions": 1}
    assert run.version.scenario.versions.count() == 1
