"""/api/comparisons (webui/routers/comparisons.py): two finished runs side by side."""

import json
from pathlib import Path

import pytest
from django.test import Client

from webui.models import Run
from webui.services import events
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def finished_run(client: Client, scenario_id: int) -> dict:
    """A run of the scenario's latest version, run to the end as a worker runs it."""
    run = client.post(f"/api/scenarios/{scenario_id}/runs").json()
    execute_run.apply(args=[run["id"]])
    return run


def test_it_compares_two_runs_of_two_configurations(owner: Client):
    here = FIXTURES / "compare"
    text = (here / "two_nodes.yaml").read_text()
    created = owner.post("/api/scenarios", {"name": "cmp", "text": text}, content_type=JSON).json()
    first = finished_run(owner, created["id"])
    owner.put(
        f"/api/scenarios/{created['id']}",
        {"text": text + "---\n" + (here / "most_allocated.yaml").read_text()},
        content_type=JSON,
    )
    second = finished_run(owner, created["id"])
    result = owner.get(f"/api/comparisons?a={first['id']}&b={second['id']}&pod=default/web").json()
    assert result["summary"] == "1 pod(s) land elsewhere in B than in A."
    assert {"pod": "default/web", "a": "n2", "b": "n1"} in result["pods"]  # LeastAllocated, then MostAllocated
    assert result["scores"]["pod"] == "default/web" and result["modes"] == ["timeline", "timeline"]


def test_it_refuses_to_compare_a_run_that_has_not_finished(owner: Client, scenario: dict):
    finished = finished_run(owner, scenario["id"])
    queued = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    response = owner.get(f"/api/comparisons?a={finished['id']}&b={queued['id']}")
    assert response.status_code == 400 and "have not succeeded" in response.json()["error"]["message"]


TOLERATING_POD = (
    "---\napiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: default}\n"
    "spec: {tolerations: [{operator: Exists}], containers: [{name: c}]}\n"
)


def test_a_comparison_is_the_engine_s_answer_as_typed_with_the_keys_it_has(owner: Client):
    """ComparisonOut: every key of events.comparison kept, and `aWhy`/`bWhy` only where a run left the pod pending."""
    text = (FIXTURES / "whatif" / "tainted.yaml").read_text() + TOLERATING_POD
    created = owner.post("/api/scenarios", {"name": "cmp", "text": text}, content_type=JSON).json()
    a, b = finished_run(owner, created["id"]), finished_run(owner, created["id"])
    body = owner.get(f"/api/comparisons?a={a['id']}&b={b['id']}&pod=default/p").json()
    expected = events.comparison(Run.objects.get(pk=a["id"]), Run.objects.get(pk=b["id"]), "default/p")
    assert body == json.loads(json.dumps(expected))
    [pending] = [row for row in body["pods"] if row["pod"] == "default/p"]
    assert pending["a"] is None and pending["aWhy"] and pending["bWhy"]
    assert not any("aWhy" in row for row in body["pods"] if row["a"] is not None)


def test_a_comparison_names_the_release_each_run_was_replayed_as(owner: Client):
    text = (FIXTURES / "compare" / "two_nodes.yaml").read_text()
    created = owner.post("/api/scenarios", {"name": "cmp", "text": text}, content_type=JSON).json()
    a = finished_run(owner, created["id"])
    b = owner.post(f"/api/scenarios/{created['id']}/runs?release=v1.36").json()
    execute_run.apply(args=[b["id"]])
    releases = owner.get(f"/api/comparisons?a={a['id']}&b={b['id']}").json()["releases"]
    assert (releases["a"]["version"], releases["b"]["version"], releases["same"]) == ("v1.35.4", "v1.36.3", False)
    assert releases["b"]["sentence"] == "replayed as kube-scheduler v1.36.3 (asked for)"
    again = finished_run(owner, created["id"])
    assert owner.get(f"/api/comparisons?a={a['id']}&b={again['id']}").json()["releases"]["same"] is True
    Run.objects.filter(pk=again["id"]).update(release_choice=None)  # a run from before releases were chosen
    before = owner.get(f"/api/comparisons?a={a['id']}&b={again['id']}&pod=default/web").json()["releases"]
    assert before["b"] is None and before["same"] is False
