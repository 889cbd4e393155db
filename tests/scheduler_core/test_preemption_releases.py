"""Preemption run to the end, per release: the timeline scenarios of tests/fixtures/releases/
preemption_*.yaml, each with the attempts every release makes, derived from that release's source
(framework/preemption/preemption.go, executor.go in v1.36, plugins/defaultpreemption, and the
queue and event handlers they meet; ../shared/spec/TIMELINE.md for the run's clock and its
kubelet). Each expectation says how it follows from the source.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.encoding.events import ClusterChangeKind, Event, ExtensionPoint
from scheduler_core.encoding.timeline import timeline_summary
from scheduler_core.release import release_named
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.run.loop import run_to_the_end

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "releases"
RELEASES = ["v1.32", "v1.33", "v1.34", "v1.35", "v1.36"]


def _run(name: str, release: str) -> tuple[dict[str, Any], list[Event]]:
    scenario = load_scenario((FIXTURES / f"{name}.yaml").read_bytes(), release=ReleaseRequest(release_named(release)))
    events = list(run_to_the_end(scenario))
    return timeline_summary(iter(events)), events


def _attempts(summary: dict[str, Any]) -> list[tuple[str, Optional[str], Optional[str], list[str]]]:
    """(pod, node, nomination written, victims) per attempt; a nomination left as it was is None."""
    return [(a["pod"], a["nodeName"], a.get("nominatedNodeName"), a.get("victims", [])) for a in summary["attempts"]]


def _order(events: list[Event], wanted: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The events of ``wanted`` ((pod, what): what is an AttemptEnd's attempt number or a
    ClusterChangeKind), in the order the run told them."""
    seen: list[tuple[str, Any]] = []
    for event in events:
        if event.extension_point is ExtensionPoint.ATTEMPT_END:
            what: Any = ("attempt", event.payload.attempt)
        elif event.extension_point is ExtensionPoint.CLUSTER:
            what = event.payload.kind
        else:
            continue
        if (event.pod, what) in wanted:
            seen.append((event.pod, what))
    return seen


# ---------------------------------------------------------------------------- preemption_in_the_cycle
#
# node-1 runs `victim` (cpu 3 of 4, priority 0, zero grace period); node-2 is full with a pod of
# priority 1000. `preemptor` (priority 50, cpu 2) is tried first, then `late` (priority 10, cpu 2,
# preemptionPolicy Never).
#
# v1.32 (SchedulerAsyncPreemption off): Evaluator.Preempt calls prepareCandidate inside PostFilter
# (R32 preemption.go:292, 431-460): the victim is deleted, and with a zero grace period it is gone
# before the failure handler runs; its deletion, seen while the preemptor is in flight, sends the
# preemptor to backoffQ (NodeResourcesFit's hint). `late` is popped next: node-1 is empty but for
# the preemptor's nomination (2 of 4, counted: priority 50 >= 10), so `late` fits and binds there;
# then the preemptor, back from backoffQ, fits its nominated node beside it.
#
# v1.33 on: prepareCandidateAsync starts a goroutine whose calls land once `late`'s attempt is over
# (the run's model of informer latency): `late` still sees the victim (3) plus the nomination (2)
# and fails (not eligible: Never). The victim's deletion then moves both pods to backoffQ; the
# preemptor (higher priority, same back-off) is popped first and binds to node-1, then `late`.
IN_THE_CYCLE = [
    ("default/preemptor", None, "node-1", ["default/victim"]),
    ("default/late", "node-1", None, []),
    ("default/preemptor", "node-1", None, []),
]
IN_A_GOROUTINE = [
    ("default/preemptor", None, "node-1", ["default/victim"]),
    ("default/late", None, None, []),
    ("default/preemptor", "node-1", None, []),
    ("default/late", "node-1", None, []),
]


@pytest.mark.parametrize("release", RELEASES)
def test_victims_are_deleted_in_the_cycle_only_without_async_preemption(release):
    summary, events = _run("preemption_in_the_cycle", release)
    assert _attempts(summary) == (IN_THE_CYCLE if release == "v1.32" else IN_A_GOROUTINE)
    assert summary["final"] == {
        "default/busy": "node-2",
        "default/late": "node-1",
        "default/preemptor": "node-1",
        "default/victim": "deleted",
    }
    # When the deletion is told: before the preemptor's attempt ends (in the cycle), or after the
    # next pod's attempt (the goroutine).
    wanted = [
        ("default/victim", ClusterChangeKind.POD_REMOVED),
        ("default/preemptor", ("attempt", 1)),
        ("default/late", ("attempt", 1)),
    ]
    told = _order(events, wanted)
    assert told == (wanted if release == "v1.32" else [wanted[1], wanted[2], wanted[0]])


# ---------------------------------------------------------------------------- preemption_terminating_victim
#
# node-1 runs `leaving` (cpu 4, priority 0), terminating since before the run (it stays so); node-2
# is full with a pod of priority 1000. `preemptor` (priority 100) is tried first, then `middle` (50)
# and `nominee` (10, nominated to node-1 by its status), both preemptionPolicy Never.
#
# Every release picks node-1 with the victim `leaving` for the preemptor (it ignores `nominee`'s
# nomination: lower priority), and nominates it there; `middle` and `nominee` fail, and, being
# Never, leave their nominations as they were.
# - v1.35 on (kubernetes#134927): the only victim already has a DeletionTimestamp, so
#   prepareCandidateAsync makes no call and starts no goroutine (R354 preemption.go:541-555):
#   `nominee` keeps its nomination to the end.
# - v1.33, v1.34: the victim is not skipped (R34 preemption.go:497-560): the goroutine, started
#   when `middle` is popped, clears the nomination of `nominee` (lower priority, nominated to
#   node-1, in activeQ) and patches the victim's DisruptionTarget condition (its delete changes
#   nothing); `nominee` is then tried without a nomination.
# - v1.32: prepareCandidate does the same inside PostFilter (R32 preemption.go:431-460).
# Only the preemptor ends nominated there.
TERMINATING_ATTEMPTS = [
    ("default/preemptor", None, "node-1", ["default/leaving"]),
    ("default/middle", None, None, []),
    ("default/nominee", None, None, []),
]


@pytest.mark.parametrize("release", RELEASES)
def test_a_victim_already_terminating_still_clears_nominations_before_v1_35(release):
    summary, _ = _run("preemption_terminating_victim", release)
    nominated = {"default/preemptor": "node-1"}
    if release in ("v1.35", "v1.36"):
        nominated["default/nominee"] = "node-1"
    assert summary["nominated"] == nominated
    assert set(summary["final"].values()) == {"node-1", "node-2", None}


# v1.32 makes no MoveAll when a nomination changes (release-diffs B1): the nominee's clear, seen
# while the preemptor is in flight, does not send it back; the attempts come out the same.
@pytest.mark.parametrize("release", RELEASES)
def test_a_victim_already_terminating_attempts(release):
    summary, _ = _run("preemption_terminating_victim", release)
    assert _attempts(summary) == TERMINATING_ATTEMPTS


# ---------------------------------------------------------------------------- preemption_not_helpful
#
# `stranded` carries a nomination to node-1 but fails its node selector everywhere
# (UnschedulableAndUnresolvable): no node is a potential one. Every release ends its attempt with
# the nomination cleared (Preempt returns NewPostFilterResultWithNominatedNode("")). Up to v1.33
# findCandidates clears it itself first (util.ClearNominatedNodeName, R33 preemption.go:317-321), a
# status patch made in the cycle and told before the attempt ends; from v1.34 (kubernetes#131278)
# only the failure handler's patch does, told after it.


@pytest.mark.parametrize("release", RELEASES)
def test_the_nomination_is_cleared_in_the_cycle_before_v1_34(release):
    summary, events = _run("preemption_not_helpful", release)
    assert _attempts(summary) == [("default/stranded", None, "", [])]
    assert "nominated" not in summary or summary["nominated"] == {}
    cleared = ("default/stranded", ClusterChangeKind.NOMINATION_CLEARED)
    ended = ("default/stranded", ("attempt", 1))
    told = _order(events, [cleared, ended])
    assert told == ([cleared, ended] if release in ("v1.32", "v1.33") else [ended, cleared])


# ---------------------------------------------------------------------------- the single pass
#
# The dry run a trace shows (postFilter) is the same code in every release: PodEligibleToPreemptOthers,
# findCandidates/DryRunPreemption with SelectVictimsOnNode (v1.36 collects the victims before
# removing them: the same removals in the same order), the PDB split, pickOneNodeForPreemption and
# the messages are unchanged from v1.32 to v1.36 (diffed); what differs is only how the choice is
# carried out, which a single pass never does (no PreemptionAPI: no call, no nomination cleared).
# The statuses it starts from do differ (NodeResourcesFit's Unresolvable from v1.34): the release
# corpora hold those cases.


@pytest.mark.parametrize("name", ["preemption_in_the_cycle", "preemption_terminating_victim", "preemption_not_helpful"])
def test_the_single_pass_dry_run_is_the_same_in_every_release(name):
    dry_runs = {}
    for release in RELEASES:
        scenario = load_scenario(
            (FIXTURES / f"{name}.yaml").read_bytes(), release=ReleaseRequest(release_named(release))
        )
        trace = trace_summary(simulate(scenario))
        dry_runs[release] = [(cycle["pod"], cycle.get("postFilter")) for cycle in trace["cycles"]]
    assert all(dry_runs[release] == dry_runs["v1.35"] for release in RELEASES)
    assert any(post is not None for _, post in dry_runs["v1.35"])
