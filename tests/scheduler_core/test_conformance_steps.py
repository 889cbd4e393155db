"""Every public steps case (the real scheduler with stand-in controllers, ../shared/spec/CHANGES.md),
through the same code path as `python -m scheduler_core timeline FILE --json`.

As the corpus README says: `at` and `name` of each step are not compared; `created`, `evicted` and
`blocked` are compared in order, `deleted`, `succeeded` and `pending` as sets; a key left out counts
as an empty list."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scheduler_core import load_scenario
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.encoding.timeline import TIMELINE_READS, timeline_summary
from tests.scheduler_core.conformance import diff

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance-steps" / "public"
CASES = sorted(p.name[: -len(".yaml")] for p in CORPUS.glob("*.yaml"))
IN_ORDER = ("created", "evicted", "blocked")
AS_SETS = ("deleted", "succeeded", "pending")


def comparable(timeline: dict[str, Any]) -> dict[str, Any]:
    """The timeline with each step reduced to what the corpus compares."""
    steps = []
    for step in timeline.get("steps", []):
        entry: dict[str, Any] = {"step": step["step"]}
        entry.update({key: list(step.get(key, [])) for key in IN_ORDER})
        entry.update({key: sorted(step.get(key, [])) for key in AS_SETS})
        steps.append(entry)
    return {**{k: v for k, v in timeline.items() if k != "steps"}, "steps": steps}


def test_the_public_steps_corpus_is_present():
    assert len(CASES) >= 12, f"expected the public steps corpus at {CORPUS}"


def test_comparable_keeps_order_where_the_corpus_does_and_forgets_it_where_it_does_not():
    timeline = {
        "steps": [
            {
                "step": 1,
                "name": "x",
                "at": "0:01.000",
                "created": ["b", "a"],
                "deleted": ["d", "c"],
                "pending": ["f", "e"],
            }
        ]
    }
    assert comparable(timeline)["steps"] == [
        {
            "step": 1,
            "created": ["b", "a"],
            "evicted": [],
            "blocked": [],
            "deleted": ["c", "d"],
            "succeeded": [],
            "pending": ["e", "f"],
        }
    ]


# The app reads every event; `timeline --json` has the run write only those its summary reads.
@pytest.mark.parametrize("reads", [None, TIMELINE_READS], ids=["every-event", "timeline-json"])
@pytest.mark.parametrize("case", CASES)
def test_steps_timeline_matches_the_real_scheduler(case, reads):
    scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
    expected = json.loads((CORPUS / f"{case}.expected.json").read_text())
    actual = json.loads(json.dumps(timeline_summary(run_to_the_end(scenario, reads=reads))))
    problems = diff(comparable(expected), comparable(actual))
    assert not problems, "\n".join(problems[:40])
