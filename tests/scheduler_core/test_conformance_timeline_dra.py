"""Every public DRA timeline case (the real scheduler run to the end with the resourceclaim
controller's stand-in), through the same code path as `python -m scheduler_core timeline FILE --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core import load_scenario
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.encoding.timeline import TIMELINE_READS, timeline_summary
from tests.scheduler_core.conformance import diff

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance-timeline-dra" / "public"
CASES = sorted(p.name[: -len(".yaml")] for p in CORPUS.glob("*.yaml"))


def test_the_public_dra_timeline_corpus_is_present():
    assert len(CASES) >= 16, f"expected the public DRA timeline corpus at {CORPUS}"


# The app reads every event; `timeline --json` has the run write only those its summary reads.
@pytest.mark.parametrize("reads", [None, TIMELINE_READS], ids=["every-event", "timeline-json"])
@pytest.mark.parametrize("case", CASES)
def test_dra_timeline_matches_the_real_scheduler(case, reads):
    scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
    expected = json.loads((CORPUS / f"{case}.expected.json").read_text())
    actual = json.loads(json.dumps(timeline_summary(run_to_the_end(scenario, reads=reads))))
    problems = diff(expected, actual)
    assert not problems, "\n".join(problems[:40])
