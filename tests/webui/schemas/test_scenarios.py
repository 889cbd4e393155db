"""webui/schemas/scenarios.py: inputs bounded as declared; "why here?" (the engine's answer) validates
against its schema with nothing dropped."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from tests.webui import support
from webui.schemas.scenarios import ExplainPodOut, ForkIn, ScenarioIn, ScenarioOut, ScenarioUpdateIn
from webui.services import engine


def _as_json(schema_object) -> dict:
    return json.loads(schema_object.model_dump_json())


def test_a_scenario_needs_a_name_of_at_most_200_characters():
    assert ScenarioIn(name="web").text == ""
    for name in ("", "x" * 201):
        with pytest.raises(ValidationError):
            ScenarioIn(name=name)
    assert ScenarioUpdateIn(text="a: 1").name is None
    with pytest.raises(ValidationError):
        ForkIn(name="")


def test_a_scenario_s_fork_is_written_as_forked_from_in_camel_case():
    fields = {
        "id": 1,
        "name": "n",
        "description": "",
        "version": 1,
        "demo": False,
        "owned": True,
        "updated": "2026-01-01T00:00:00Z",
        "created": "2026-01-01T00:00:00Z",
        "text": "",
        "forked_from": 7,
        "valid": True,
        "errors": [],
        "summary": {"nodes": 1, "pods": 2, "pendingPods": 1},
    }
    dumped = _as_json(ScenarioOut(**fields))
    assert dumped["forkedFrom"] == 7 and dumped["summary"] == {"nodes": 1, "pods": 2, "pendingPods": 1}
    assert "forked_from" not in dumped


def test_why_here_fits_its_schema_whole():
    scenario = engine.load(support.dump_as_stream())
    answer = {
        **engine.explain_pod(scenario, "kube-system/coredns-6d4b-x7k2p").to_json(),
        "release": scenario.release.to_json(),  # the service says the release it re-ran the cycle as
    }
    out = ExplainPodOut.model_validate(answer)
    assert _as_json(out) == answer and out.outcome == "moves"
