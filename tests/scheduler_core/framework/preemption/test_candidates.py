"""pickOneNodeForPreemption's criteria, in order (pkg/scheduler/framework/preemption, v1.35.4)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import random

import numpy as np
import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeToStatus, StatusesByPosition
from scheduler_core.framework.preemption.candidates import (
    DryRun,
    Candidate,
    _walk,
    best_candidates,
    dry_run_preemption,
    earliest_start_of_highest_priority,
    potential_nodes,
)
from scheduler_core.framework.status import Code, Status
from scheduler_core.framework.preemption.victims import Victims
from scheduler_core.framework.profile import Profile
from scheduler_core.framework.runtime import Framework
from scheduler_core.model import CPU
from scheduler_core.plugins.node_resources import new_fit
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot

T0 = datetime(2026, 11, 1, tzinfo=timezone.utc)


def victim(name: str, priority: int, started: int | None = 0):
    return make_pod(name, priority=priority, start_time=None if started is None else T0 + timedelta(minutes=started))


def candidate(node: str, *pods, violations: int = 0) -> Candidate:
    return Candidate(node, Victims(tuple(pods), violations))


def best(*candidates) -> list[str]:
    return [c.node for c in best_candidates(list(candidates))]


def test_fewest_pdb_violations_first():
    assert best(candidate("n1", victim("a", 1), violations=1), candidate("n2", victim("b", 9))) == ["n2"]


def test_then_the_lowest_highest_priority():
    assert best(candidate("n1", victim("a", 5)), candidate("n2", victim("b", 1), victim("c", 1))) == ["n2"]


def test_then_the_smallest_priority_sum_then_the_fewest_victims():
    assert best(candidate("n1", victim("a", 3), victim("b", 3)), candidate("n2", victim("c", 3), victim("d", -5))) == [
        "n2"
    ]
    assert best(candidate("n1", victim("a", 0), victim("b", 0)), candidate("n2", victim("c", 0))) == ["n2"]


def test_then_the_node_whose_highest_priority_victims_started_latest():
    # GetEarliestPodStartTime among the highest-priority victims; the latest of those wins.
    early = candidate("n1", victim("a", 1, started=0), victim("z", 0, started=50))
    late = candidate("n2", victim("b", 1, started=30), victim("y", 0, started=0))
    assert earliest_start_of_highest_priority(early.victims) == T0
    assert best(early, late) == ["n2"]


def test_victims_without_a_start_time_read_now_and_tie_with_each_other():
    # time.Now() is later than any recorded start: such nodes win, and tie among themselves (the
    # real scheduler's random pick; a run to the end takes the first in node order).
    started = candidate("n1", victim("a", 1, started=0))
    fresh_1, fresh_2 = candidate("n2", victim("b", 1, started=None)), candidate("n3", victim("c", 1, started=None))
    assert best(started, fresh_1, fresh_2) == ["n2", "n3"]


@pytest.mark.parametrize("seed", range(20))
def test_the_best_candidates_are_those_the_explained_walk_keeps(seed):
    rng = random.Random(seed)
    starts = [None, 0, 10, 20]
    candidates = [
        candidate(
            f"n{i}",
            *(victim(f"p{i}-{k}", rng.choice([0, 1, 5]), rng.choice(starts)) for k in range(rng.randint(1, 3))),
            violations=rng.choice([0, 0, 1]),
        )
        for i in range(rng.randint(1, 40))
    ]
    best_nodes = [c.node for c in best_candidates(candidates)]
    assert best_nodes == [c.node for c in _walk(candidates).remaining]
    assert best_candidates(candidates) is not candidates  # a new list, as the walk's


def test_nodes_that_fail_alike_in_the_dry_run_share_one_status():
    # Their FailedScheduling histogram groups statuses by identity (diagnosis.status_groups): three
    # nodes too small for the pod even without their victims answer with one object.
    nodes = [make_node(f"n{i}", cpu=1000) for i in (1, 2, 3)]
    running = [make_pod(f"low-{i}", node=f"n{i}", requests={CPU: 500}, priority=1) for i in (1, 2, 3)]
    snapshot = make_snapshot(nodes, running)
    handle = FakeHandle(snapshot)
    fit = new_fit(None, handle)
    framework = Framework(Profile.of({"preFilter": [fit], "filter": [fit]}, {}, 100), snapshot, False)
    handle.framework = framework
    pod, state = make_pod("big", requests={CPU: 1500}, priority=10), CycleState()
    framework.run_pre_filter(state, pod, snapshot.node_infos)
    dry_run = dry_run_preemption(framework, state, pod, list(snapshot.node_infos))
    statuses = list(dry_run.node_statuses.values())
    assert [s.reasons for s in statuses] == [("Insufficient cpu",)] * 3
    assert statuses[0] is statuses[1] is statuses[2]


@pytest.mark.parametrize("seed", range(20))
def test_potential_nodes_are_those_whose_status_is_unschedulable_in_node_order(seed):
    # NodesForStatusCode(Unschedulable): shared and own statuses, both codes, nodes without one.
    rng = random.Random(seed)
    nodes = make_snapshot([make_node(f"n{i}") for i in range(12)], []).node_infos
    shared = [Status.unschedulable("Insufficient cpu"), Status.unresolvable("node(s) had untolerated taint")]
    explicit = {}
    for info in rng.sample(nodes, rng.randint(0, 12)):
        pick = rng.randint(0, 3)
        explicit[info.name] = shared[pick] if pick < 2 else Status(rng.choice([Code.UNSCHEDULABLE, Code.ERROR]), ("x",))
    absent = Status(rng.choice([Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE]))
    statuses = NodeToStatus(explicit, absent)
    expected = [i.name for i in nodes if statuses.get(i.name).code == Code.UNSCHEDULABLE]
    assert [i.name for i in potential_nodes(nodes, statuses)] == expected
    assert [i.name for i in potential_nodes(iter(nodes), statuses)] == expected
    # The same statuses by position (as a cycle's Filter pass hands them on): evaluated nodes in
    # a rotated order, some without a status; the node list must be the one the positions index.
    start = rng.randrange(12)
    evaluated = np.array([(start + k) % 12 for k in range(12)], dtype=np.int64)
    distinct = list({id(s): s for s in explicit.values()}.values())
    status_of = np.array(
        [next((k for k, s in enumerate(distinct) if s is explicit.get(nodes[p].name)), -1) for p in evaluated]
    )
    names = [info.name for info in nodes]
    order = np.flatnonzero(status_of >= 0)
    by_position = StatusesByPosition(nodes, names, np.array(names, dtype=object), evaluated, status_of, distinct, order)
    positioned = NodeToStatus(None, absent, by_position)
    picked = potential_nodes(nodes, positioned)
    assert [i.name for i in picked] == expected
    # ... and say where they stand in that list (what preemption's kept verdicts are keyed by)
    assert [nodes[p].name for p in picked.positions.tolist()] == expected and picked.table_infos is nodes
    assert positioned._statuses is None  # no name asked
    assert positioned.statuses == explicit and [positioned.get(name) for name in names] == [
        statuses.get(name) for name in names
    ]
    assert [i.name for i in potential_nodes(list(nodes), positioned)] == expected  # another list: by name


def test_a_dry_runs_statuses_are_grouped_once_for_the_errors_and_the_histogram():
    shared, error = Status.unschedulable("Insufficient cpu"), Status.error("boom")
    dry_run = DryRun(node_statuses={"n1": shared, "n2": shared, "n3": Status.unschedulable("Insufficient cpu")})
    groups = dry_run.status_groups()
    # equal statuses that are other objects are other groups (grouped by identity, in C)
    assert [(status.reasons, count) for status, count in groups] == [
        (("Insufficient cpu",), 2),
        (("Insufficient cpu",), 1),
    ]
    assert dry_run.status_groups() is groups and dry_run.errors == []
    failing = DryRun(node_statuses={"n1": shared, "n2": error, "n3": error})
    assert failing.errors == [error, error]


def test_candidates_without_budget_violations_come_first_in_node_order_read_off_each_candidate():
    # DryRun.ordered and the ranking read what they compare off the candidate (its victims' rank,
    # violations and key list, copied once): the same answers as the victims' own.
    low, mid = victim("low", 1), victim("mid", 5)
    candidates = [
        candidate("n1", low, violations=1),
        candidate("n2", mid),
        candidate("n3", low, mid, violations=2),
        candidate("n4", low),
    ]
    for one in candidates:
        victims = one.victims
        assert (one.rank, one.pdb_violations, one.key_list) == (
            victims.rank,
            victims.num_pdb_violations,
            victims.pod_keys,
        )
    ordered = DryRun(list(candidates)).ordered().candidates
    assert [c.node for c in ordered] == ["n2", "n4", "n1", "n3"]
    assert [c.node for c in best_candidates(candidates)] == ["n4"]
    assert DryRun(candidates[1:2] + candidates[3:]).ordered().candidates == [candidates[1], candidates[3]]
