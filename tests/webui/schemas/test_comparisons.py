"""webui/schemas/comparisons.py: the engine's comparison of two runs validates against its schema with
nothing dropped and no key added (`aWhy`/`bWhy`, `scores` stay absent where the engine has none)."""

from __future__ import annotations

import json
from pathlib import Path

from webui.schemas.comparisons import ComparisonOut
from webui.services import engine

COMPARE = Path(__file__).resolve().parents[2] / "fixtures" / "compare"


def _run_events(text: str) -> list[dict]:
    return [json.loads(json.dumps(event.to_json())) for event in engine.simulate_events(engine.load(text))]


def test_a_comparison_of_two_configurations_fits_its_schema_whole():
    text = (COMPARE / "two_nodes.yaml").read_text()
    most_allocated = text + "---\n" + (COMPARE / "most_allocated.yaml").read_text()
    compared = engine.compare(_run_events(text), _run_events(most_allocated), pod="default/web")
    answer = json.loads(
        json.dumps({"a": 1, "b": 2, "modes": ["timeline", "timeline"], **compared})
    )  # as events.comparison
    out = ComparisonOut.model_validate(answer)
    assert json.loads(out.model_dump_json(exclude_unset=True)) == answer
    assert out.first_divergence is not None and out.scores is not None and out.counts.elsewhere == 1
