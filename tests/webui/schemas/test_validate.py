"""webui/schemas/validate.py: what the engine's check says of a text (problems, summary, notices,
findings) validates against the schema with nothing dropped, so a renamed engine field fails here."""

from __future__ import annotations

import json

from scheduler_core.scenario.errors import ScenarioError
from tests.webui import support
from webui.schemas.validate import ScenarioErrorOut, SummaryOut, ValidationOut
from webui.services import engine


def _as_json(schema_object) -> dict:
    return json.loads(schema_object.model_dump_json())


def test_a_scenario_problem_keeps_every_field_it_is_given():
    problem = engine.error_json(ScenarioError("Node n1", "status.capacity", 4, "more than 1 nodes (Limits.max_nodes)"))
    assert _as_json(ScenarioErrorOut.model_validate(problem)) == problem
    assert problem["code"] == "limit_exceeded" and problem["limit"] == "max_nodes"


def test_a_check_of_invalid_text_fits_the_validation_schema():
    check = engine.check("apiVersion: v1\nkind: Node\nmetadata: {}\n")
    out = ValidationOut(valid=check.valid, errors=check.errors, summary=None)
    assert not out.valid and [e.message for e in out.errors] == ["Required value"]
    assert out.errors[0].path == "metadata.name"


def test_a_check_of_a_dump_keeps_its_notices_and_findings():
    check = engine.check(support.dump_as_stream())
    out = ValidationOut(
        valid=check.valid,
        errors=check.errors,
        summary=SummaryOut(**vars(check.summary)),
        notices=check.notices,
        objects=check.objects,
        findings=check.findings,
        fetch=check.fetch,
    )
    dumped = _as_json(out)
    assert dumped["notices"] == check.notices and dumped["findings"] == check.findings
    summary = check.summary
    assert dumped["summary"] == {"nodes": summary.nodes, "pods": summary.pods, "pendingPods": summary.pending_pods}
    assert dumped["objects"] == check.objects
