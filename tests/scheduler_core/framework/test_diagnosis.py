"""The FailedScheduling message (FitError.Error)."""

from __future__ import annotations

from scheduler_core.framework.diagnosis import MANY_STATUSES, fit_error_message, reason_histogram, status_groups
from scheduler_core.framework.status import Status


def test_the_histogram_sorts_fragments_as_plain_strings():
    statuses = {f"n{i}": Status.unschedulable("Insufficient cpu") for i in range(10)}
    statuses["x"] = Status.unschedulable("Insufficient memory")
    statuses["y"] = Status.unschedulable("Insufficient memory")
    assert reason_histogram(12, statuses) == ["10 Insufficient cpu", "2 Insufficient memory"]


def test_a_status_with_two_reasons_counts_each():
    statuses = {"a": Status.unschedulable("Insufficient cpu", "Insufficient memory")}
    assert (
        fit_error_message(1, node_statuses=statuses)
        == "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory."
    )


def test_nodes_left_out_by_a_pre_filter_result_count_under_the_absent_reason():
    statuses = {"a": Status.unresolvable("node(s) didn't match Pod's node affinity/selector")}
    message = fit_error_message(
        3,
        node_statuses=statuses,
        absent_reasons=["node(s) didn't satisfy plugin(s) [NodeAffinity]"],
        post_filter_message="preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    )
    assert message == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, "
        "2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are "
        "available: 3 Preemption is not helpful for scheduling."
    )


def test_a_pre_filter_rejection_gives_its_message_without_counts():
    assert (
        fit_error_message(5, pre_filter_message="pod affinity terms conflict")
        == "0/5 nodes are available: pod affinity terms conflict."
    )


def test_an_empty_cluster_has_its_own_message():
    assert fit_error_message(0) == "no nodes available to schedule pods"


def test_statuses_grouped_once_give_the_same_message_as_the_statuses_of_every_node():
    cpu, memory = Status.unschedulable("Insufficient cpu"), Status.unschedulable("Insufficient memory")
    statuses = {"a": memory, "b": cpu, "c": memory, "d": Status.unschedulable("Insufficient cpu")}
    groups = status_groups(statuses.values())
    assert [(status.reasons, count) for status, count in groups] == [
        (("Insufficient memory",), 2),
        (("Insufficient cpu",), 1),
        (("Insufficient cpu",), 1),
    ]  # by object, in the order first met
    absent = ["node(s) didn't satisfy plugin(s) [NodeAffinity]"]
    assert fit_error_message(6, grouped=(groups, len(statuses)), absent_reasons=absent) == fit_error_message(
        6, node_statuses=statuses, absent_reasons=absent
    )


def test_thousands_of_statuses_are_grouped_as_a_few_are():
    # From MANY_STATUSES on the identities are grouped by NumPy: the same groups, in the order first
    # met, told apart by object (two equal statuses are two groups, as the Counter's way has them).
    cpu, memory, taint = (
        Status.unschedulable(reason) for reason in ("Insufficient cpu", "Insufficient memory", "taint")
    )
    other_cpu = Status.unschedulable("Insufficient cpu")
    pattern = [taint, memory, taint, other_cpu, taint, cpu]
    many = [pattern[(i * 7) % 6] for i in range(MANY_STATUSES * 4 + 3)]
    groups = status_groups(many)
    assert [status for status, _ in groups] == [taint, memory, other_cpu, cpu]
    assert [status is expected for (status, _), expected in zip(groups, [taint, memory, other_cpu, cpu])] == [True] * 4
    assert [count for _, count in groups] == [
        sum(s is status for s in many) for status in (taint, memory, other_cpu, cpu)
    ]
    fewer = many[: MANY_STATUSES - 1]
    assert [(id(s), n) for s, n in status_groups(fewer)] == [
        (id(s), sum(x is s for x in fewer)) for s in (taint, memory, other_cpu, cpu)
    ]
