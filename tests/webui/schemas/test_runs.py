"""webui/schemas/runs.py: the engine's explanations of a cycle validate against their schema with
nothing dropped (camelCase names read and written as the engine's JSON has them)."""

from __future__ import annotations

import json

from tests.scheduler_core.builders import node_text, numbers_scenario, pod_text
from webui.schemas.runs import CycleExplanationOut, CycleOut
from webui.services import engine


def _as_json(schema_object) -> dict:
    return json.loads(schema_object.model_dump_json())


def _cycle_events(text: str) -> list[dict]:
    events = [
        json.loads(json.dumps(e.to_json())) for e in engine.simulate_events(engine.load(text), engine.MODE_SINGLE)
    ]
    return [e for e in events if e["cycle"] == events[0]["cycle"]]


def test_an_unschedulable_cycles_explanation_fits_its_schema_whole():
    explanation = engine.explain(_cycle_events(numbers_scenario())).to_json()
    out = CycleExplanationOut.model_validate(explanation)
    assert _as_json(out) == explanation
    assert out.pod == "default/big" and out.filter is not None


def test_a_scheduled_cycles_explanation_fits_its_schema_whole():
    text = "---\n".join([node_text("n1", cpu="2"), node_text("n2", cpu="8"), pod_text("p")])
    explanation = engine.explain(_cycle_events(text)).to_json()
    out = CycleExplanationOut.model_validate(explanation)
    assert _as_json(out) == explanation and out.winner is not None


def test_a_cycle_s_seq_range_is_written_in_camel_case():
    out = CycleOut(
        cycle=0, pod="default/p", node_name=None, first_seq=0, end_seq=9, failed_scheduling_message="0/1 nodes"
    )
    assert _as_json(out) == {
        "cycle": 0,
        "pod": "default/p",
        "nodeName": None,
        "firstSeq": 0,
        "endSeq": 9,
        "failedSchedulingMessage": "0/1 nodes",
    }
