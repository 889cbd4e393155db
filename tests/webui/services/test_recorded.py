"""webui.services.recorded: a finished run's recorded answers beside its replay."""

import pytest

from tests.webui import support
from webui.models import Run, RunMode, RunStatus
from webui.services import engine, events, recorded, runs, scenarios
from webui.services.access import Actor
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
OWNER = Actor(session_key="owner-session")


def finished(text: str, mode: str = RunMode.TIMELINE) -> Run:
    saved = scenarios.create(OWNER, "dump", text)
    run = runs.start(OWNER, saved.scenario, mode)
    execute_run.apply(args=[run.pk])
    return Run.objects.get(pk=run.pk)


@pytest.mark.parametrize("mode", [RunMode.TIMELINE, RunMode.SINGLE])
def test_each_pending_pod_with_a_condition_is_compared(mode):
    run = finished(support.dump_as_stream(), mode)
    comparison = recorded.of_run(run, events.story(run))
    # Without the node taints the NotReady worker-2 takes the first pod (3 of its 4 CPUs): neither agrees.
    assert [(o.pod, o.agrees, o.replayed.node) for o in comparison.outcomes] == [
        ("default/web-7f9c-a", False, "worker-2"),
        ("default/web-7f9c-b", False, None),
    ]
    assert comparison.outcomes[1].replayed.message.startswith("0/2 nodes are available: 2 Insufficient cpu")
    assert comparison.summary.startswith("the replay agrees with your cluster on 0 of 2 pending pod(s)")


def test_a_text_without_pod_scheduled_conditions_is_never_loaded(small_text, monkeypatch):
    run = finished(small_text)
    monkeypatch.setattr(engine, "load_valid", lambda text, *release: pytest.fail("loaded"))
    assert recorded.of_run(run, events.story(run)) is None


def test_an_unfinished_run_has_none():
    run = finished(support.dump_as_stream())
    Run.objects.filter(pk=run.pk).update(status=RunStatus.RUNNING)
    assert recorded.of_run(Run.objects.get(pk=run.pk), {}) is None
