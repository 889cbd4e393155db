"""webui/schemas.py: the API's JSON contract. Inputs are bounded as declared; what the engine and
the services hand the API (problems, checks, explanations, "why here?") validates against the
output schemas with nothing dropped, so a renamed engine field fails here rather than in a browser."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from scheduler_core.scenario.errors import ScenarioError
from tests.scheduler_core.builders import node_text, numbers_scenario, pod_text
from tests.webui import support
from webui import schemas
from webui.services import engine


def _as_json(schema_object) -> dict:
    return json.loads(schema_object.model_dump_json())


def test_a_scenario_needs_a_name_of_at_most_200_characters():
    assert schemas.ScenarioIn(name="web").text == ""
    for name in ("", "x" * 201):
        with pytest.raises(ValidationError):
            schemas.ScenarioIn(name=name)
    assert schemas.ScenarioUpdateIn(text="a: 1").name is None
    with pytest.raises(ValidationError):
        schemas.ForkIn(name="")
    with pytest.raises(ValidationError):
        schemas.ShareIn.model_validate({"step": "x" * 201})


def test_a_scenario_problem_keeps_every_field_it_is_given():
    problem = engine.error_json(ScenarioError("Node n1", "status.capacity", 4, "more than 1 nodes (Limits.max_nodes)"))
    assert _as_json(schemas.ScenarioErrorOut.model_validate(problem)) == problem
    assert problem["code"] == "limit_exceeded" and problem["limit"] == "max_nodes"


def test_a_check_of_invalid_text_fits_the_validation_schema():
    check = engine.check("apiVersion: v1\nkind: Node\nmetadata: {}\n")
    out = schemas.ValidationOut(valid=check.valid, errors=check.errors, summary=None)
    assert not out.valid and [e.message for e in out.errors] == ["Required value"]
    assert out.errors[0].path == "metadata.name"


def test_a_check_of_a_dump_keeps_its_notices_and_findings():
    check = engine.check(support.dump_as_stream())
    out = schemas.ValidationOut(valid=check.valid, errors=check.errors, summary=schemas.SummaryOut(**vars(check.summary)),
                                notices=check.notices, objects=check.objects, findings=check.findings, fetch=check.fetch)
    dumped = _as_json(out)
    assert dumped["notices"] == check.notices and dumped["findings"] == check.findings
    assert dumped["summary"] == vars(check.summary) and dumped["objects"] == check.objects


def _cycle_events(text: str) -> list[dict]:
    events = [json.loads(json.dumps(e.to_json())) for e in engine.simulate_events(engine.load(text), engine.MODE_SINGLE)]
    return [e for e in events if e["cycle"] == events[0]["cycle"]]


def test_an_unschedulable_cycles_explanation_fits_its_schema_whole():
    explanation = engine.explain(_cycle_events(numbers_scenario())).to_json()
    out = schemas.CycleExplanationOut.model_validate(explanation)
    assert _as_json(out) == explanation
    assert out.pod == "default/big" and out.filter is not None


def test_a_scheduled_cycles_explanation_fits_its_schema_whole():
    text = "---\n".join([node_text("n1", cpu="2"), node_text("n2", cpu="8"), pod_text("p")])
    explanation = engine.explain(_cycle_events(text)).to_json()
    out = schemas.CycleExplanationOut.model_validate(explanation)
    assert _as_json(out) == explanation and out.winner is not None


def test_why_here_fits_its_schema_whole():
    scenario = engine.load(support.dump_as_stream())
    answer = engine.explain_pod(scenario, "kube-system/coredns-6d4b-x7k2p").to_json()
    out = schemas.ExplainPodOut.model_validate(answer)
    assert _as_json(out) == answer and out.outcome == "moves"
