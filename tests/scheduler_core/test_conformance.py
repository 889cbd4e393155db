"""Every public conformance case, through the same code path as `python -m scheduler_core trace --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core import load_scenario, simulate, trace_summary
from tests.scheduler_core.conformance import diff_traces

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "public"
CASES = sorted(p.name[: -len(".yaml")] for p in CORPUS.glob("*.yaml"))


def test_the_public_corpus_is_present():
    assert len(CASES) >= 134, f"expected the public conformance corpus at {CORPUS}"


@pytest.mark.parametrize("case", CASES)
def test_trace_matches_the_real_scheduler(case):
    scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
    expected = json.loads((CORPUS / f"{case}.expected.json").read_text())
    actual = json.loads(json.dumps(trace_summary(simulate(scenario)), sort_keys=True))
    problems = diff_traces(expected, actual)
    assert not problems, "\n".join(problems[:40])
