"""OpportunisticBatch (framework/runtime/batch.go): when a hint is given, and what is kept."""

from __future__ import annotations

import pytest

from scheduler_core.framework.opportunistic_batch import MAX_BATCH_AGE_MS, OpportunisticBatch

SIG = (("v1.Pod.Spec.SchedulerName", "default-scheduler"),)
OTHER = (("v1.Pod.Spec.SchedulerName", "other"),)


def _full(node: str) -> bool:  # the last pod's node rejects the new pod
    return True


def _kept(nodes=("b", "c"), cycle=1, now=0) -> OpportunisticBatch:
    batch = OpportunisticBatch()
    batch.store(SIG, None, "a", list(nodes), cycle, now)
    return batch


def test_a_full_last_node_hands_out_the_next_node_of_the_kept_ranking():
    batch = _kept()
    assert batch.node_hint(SIG, 2, 0, _full) == "b"
    assert batch.state.sorted_nodes == ["c"]


def test_the_hint_taken_keeps_the_rest_of_the_list_for_the_next_pod():
    batch = _kept()
    hint = batch.node_hint(SIG, 2, 0, _full)
    batch.store(SIG, hint, hint, None, 2, 0)
    assert batch.batched_pods == 1
    assert batch.node_hint(SIG, 3, 0, _full) == "c"
    batch.store(SIG, "c", "c", None, 3, 0)
    assert batch.node_hint(SIG, 4, 0, _full) is None  # the list is used up


@pytest.mark.parametrize(
    "signature, cycle, now, rejects",
    [
        (OTHER, 2, 0, True),  # another signature
        (None, 2, 0, True),  # an unsignable pod
        (SIG, 3, 0, True),  # a cycle came between (another profile, a skipped pod)
        (SIG, 2, MAX_BATCH_AGE_MS + 1, True),  # the list is too old
        (SIG, 2, 0, False),  # the last node still fits: its new score is unknown
    ],
)
def test_no_hint_unless_every_condition_holds(signature, cycle, now, rejects):
    batch = _kept()
    assert batch.node_hint(signature, cycle, now, lambda node: rejects) is None
    assert batch.state.sorted_nodes == ["b", "c"]  # an unusable state is only replaced by the next store


def test_a_list_exactly_at_its_age_limit_is_still_used():
    assert _kept().node_hint(SIG, 2, MAX_BATCH_AGE_MS, _full) == "b"


def test_no_hint_before_any_cycle_succeeded():
    assert OpportunisticBatch().node_hint(SIG, 1, 0, _full) is None


def test_a_failed_cycle_leaves_the_next_pod_without_a_hint():
    batch = _kept(cycle=1)
    # cycle 2 failed (nothing stored); cycle 3 is not the one after the last stored cycle
    assert batch.node_hint(SIG, 3, 0, _full) is None


def test_an_unused_hint_is_replaced_by_the_cycle_own_ranking():
    batch = _kept()
    hint = batch.node_hint(SIG, 2, 0, _full)
    batch.store(SIG, hint, "x", ["y", "z"], 2, 100)
    assert batch.batched_pods == 0
    assert batch.state.sorted_nodes == ["y", "z"] and batch.state.created_ms == 100


@pytest.mark.parametrize("signature, others", [(None, ["y"]), (SIG, None), (SIG, [])])
def test_nothing_is_kept_for_an_unsignable_pod_or_an_empty_ranking(signature, others):
    batch = _kept()
    batch.store(signature, None, "x", others, 2, 0)
    assert batch.state is None
    assert batch.last_cycle.chosen_node == "x" and batch.last_cycle.succeeded
