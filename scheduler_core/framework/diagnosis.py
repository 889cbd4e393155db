"""The FailedScheduling message (framework.FitError.Error), as `kubectl describe pod` shows it.

    0/<N> nodes are available: <why>.[ <preemption part>]

``why`` is the PreFilter rejection's message, or a histogram of the reasons of each node's first
failing Filter plugin (plus the nodes a PreFilterResult left out, counted under one reason),
fragments "<count> <reason>" sorted as plain strings.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping, Optional

from scheduler_core.framework.status import Status

NO_NODES_AVAILABLE = "no nodes available to schedule pods"


def pre_filter_absent_reason(plugins: Iterable[str]) -> str:
    """The reason counted for the nodes a PreFilterResult left out (schedule_one.go's findNodesThatFitPod)."""
    return f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(plugins))}]"


def reason_histogram(
    num_all_nodes: int, node_statuses: Mapping[str, Status], absent_reasons: Iterable[str] = ()
) -> list[str]:
    """Counted, sorted fragments; nodes without an explicit status count under ``absent_reasons``."""
    counts: Counter[str] = Counter()
    # Many nodes share one status object (a plugin's verdict palette): count each object's nodes once.
    by_object: dict[int, tuple[Status, int]] = {}
    for status in node_statuses.values():
        seen = by_object.get(id(status))
        by_object[id(status)] = (status, 1 if seen is None else seen[1] + 1)
    for status, nodes in by_object.values():
        for reason in status.reasons:
            counts[reason] += nodes
    absent = num_all_nodes - len(node_statuses)
    if absent > 0:
        for reason in absent_reasons:
            counts[reason] += absent
    return sorted(f"{count} {reason}" for reason, count in counts.items())


def nodes_available_message(num_all_nodes: int, why: str) -> str:
    return f"0/{num_all_nodes} nodes are available: {why}."


def fit_error_message(
    num_all_nodes: int,
    *,
    pre_filter_message: Optional[str] = None,
    node_statuses: Optional[Mapping[str, Status]] = None,
    absent_reasons: Iterable[str] = (),
    post_filter_message: Optional[str] = None,
) -> str:
    if num_all_nodes == 0:
        return NO_NODES_AVAILABLE
    if pre_filter_message:
        why = pre_filter_message
    else:
        why = ", ".join(reason_histogram(num_all_nodes, node_statuses or {}, absent_reasons))
    message = nodes_available_message(num_all_nodes, why)
    if post_filter_message:
        message += f" {post_filter_message}"
    return message
