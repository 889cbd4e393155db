"""The volumes_* cases of the timeline corpus: each pod's first attempt, from the single-pass run.

The timeline corpus records the real scheduler run to the end (retries, preemptions carried out).
This branch has no run loop, but the pending pods are first tried in queue order, one after the
other, and nothing changes the cluster between those first attempts except the pods bound (and
their volumes bound or provisioned) by the attempts before. So, up to the first attempt that
changes the cluster in another way — a preemption that picks victims or nominates a node — or the
first retry, each attempt is exactly the single-pass cycle of that pod: same node, or the same
FailedScheduling message. After that point the single pass no longer sees what the real scheduler
saw (victims terminating, nominated pods), so those attempts are left to the timeline tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.encoding.events import ExtensionPoint

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "conformance-timeline" / "public"
CASES = sorted(p.name[: -len(".yaml")] for p in CORPUS.glob("volumes_*.yaml"))


def plain_first_attempts(attempts: list[dict]) -> list[dict]:
    """The leading attempts made in plain queue order: each pod's first, until a retry or an
    attempt whose preemption changed the cluster (victims, or a node nominated)."""
    plain, seen = [], set()
    for attempt in attempts:
        if attempt["pod"] in seen:
            break
        seen.add(attempt["pod"])
        plain.append(attempt)
        if attempt.get("victims") or attempt.get("nominatedNodeName"):
            break
    return plain


def single_pass(case: str) -> tuple[list[tuple[str, object]], dict[str, dict]]:
    """Each cycle's CycleEnd payload in queue order, and the trace's cycles by pod."""
    events = list(simulate(load_scenario((CORPUS / f"{case}.yaml").read_bytes())))
    ends = [(e.pod, e.payload) for e in events if e.extension_point is ExtensionPoint.CYCLE_END]
    return ends, {cycle["pod"]: cycle for cycle in trace_summary(events)["cycles"]}


def test_the_volumes_cases_are_present():
    assert len(CASES) >= 11, f"expected the volumes_* timeline cases at {CORPUS}"


@pytest.mark.parametrize("case", CASES)
def test_each_first_attempt_in_queue_order_matches_the_real_scheduler(case):
    expected = json.loads((CORPUS / f"{case}.expected.json").read_text())["attempts"]
    plain = plain_first_attempts(expected)
    ends, cycles = single_pass(case)
    assert [pod for pod, _ in ends[: len(plain)]] == [a["pod"] for a in plain], "queue order differs"
    for attempt, (pod, end) in zip(plain, ends):
        assert end.error is None, f"{pod}: {end.error}"
        assert end.node_name == attempt["nodeName"], pod
        assert end.failed_scheduling_message == attempt.get("failedSchedulingMessage"), pod
        preemption = cycles[pod].get("postFilter")
        if "victims" in attempt:  # the dry run picks the victims and the node the real run nominated
            assert (preemption["victims"], preemption["nominatedNodeName"]) == (
                attempt["victims"],
                attempt["nominatedNodeName"],
            ), pod
        elif attempt.get("nominatedNodeName") == "":  # preemption was tried and found no candidate
            assert preemption is not None and not preemption["victims"], pod


def test_an_attempt_that_preempted_ends_the_comparable_prefix():
    attempts = [
        {"pod": "a", "nodeName": None, "victims": ["x"], "nominatedNodeName": "n1"},
        {"pod": "b", "nodeName": None},
    ]
    assert plain_first_attempts(attempts) == attempts[:1]


def test_a_retry_ends_the_comparable_prefix():
    attempts = [
        {"pod": "a", "nodeName": None, "nominatedNodeName": ""},
        {"pod": "b", "nodeName": "n1"},
        {"pod": "a", "nodeName": "n2"},
    ]
    assert plain_first_attempts(attempts) == attempts[:2]
