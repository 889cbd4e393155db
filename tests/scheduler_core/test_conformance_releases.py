"""Every public single-pass case as each other release traces it (../shared/conformance-v1.3X),
through the same code path as `python -m scheduler_core trace --json --release v1.3X`; and the
v1.35.4 corpus with --release v1.35 asked for explicitly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core import simulate, trace_summary
from scheduler_core.release.choice import ReleaseRequest, ReleaseSource
from scheduler_core.release.versions import release_named
from scheduler_core.scenario.loader import load_scenario
from tests.scheduler_core.conformance import diff_traces

SHARED = Path(__file__).resolve().parents[3] / "shared"
CORPORA = {
    "v1.36": SHARED / "conformance-v1.36" / "public",
    "v1.35": SHARED / "conformance" / "public",
    "v1.34": SHARED / "conformance-v1.34" / "public",
    "v1.33": SHARED / "conformance-v1.33" / "public",
    "v1.32": SHARED / "conformance-v1.32" / "public",
}
CASES = [
    (release, p.name[: -len(".yaml")]) for release, corpus in CORPORA.items() for p in sorted(corpus.glob("*.yaml"))
]


@pytest.mark.parametrize("release", sorted(CORPORA))
def test_each_release_corpus_is_present(release):
    assert len(list(CORPORA[release].glob("*.yaml"))) >= 134, f"expected the {release} corpus at {CORPORA[release]}"


@pytest.mark.parametrize(("release", "case"), CASES)
def test_trace_matches_the_release(release, case):
    corpus = CORPORA[release]
    scenario = load_scenario((corpus / f"{case}.yaml").read_bytes(), release=ReleaseRequest(release_named(release)))
    assert scenario.release.source is ReleaseSource.ASKED and scenario.release.release.name == release
    expected = json.loads((corpus / f"{case}.expected.json").read_text())
    actual = json.loads(json.dumps(trace_summary(simulate(scenario)), sort_keys=True))
    problems = diff_traces(expected, actual)
    assert not problems, "\n".join(problems[:40])
