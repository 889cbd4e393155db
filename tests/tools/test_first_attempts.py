"""tools/first_attempts.py: it counts the attempts asked for from the first one's start, and its
digest tells attempts that decided differently apart."""

from __future__ import annotations

import sys
from pathlib import Path

from scheduler_core.encoding.events import CycleEnd, Event, ExtensionPoint, PostFilterOutcome

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import first_attempts  # noqa: E402


def _stream(nodes: list[str | None], consumed: list[int], set_up: int = 0):
    for _ in range(set_up):  # the run's start and the informers' first list, before any attempt
        consumed.append(-1)
        yield Event(0, "default/p", ExtensionPoint.QUEUE_MOVE, None, None)
    for cycle, node in enumerate(nodes):
        consumed.append(cycle)
        yield Event(cycle, f"default/p{cycle}", ExtensionPoint.CYCLE_START, None, None)
        if node is None:
            yield Event(cycle, f"default/p{cycle}", ExtensionPoint.POST_FILTER, "DefaultPreemption", _outcome())
        message = None if node else "0/3 nodes are available"
        yield Event(cycle, f"default/p{cycle}", ExtensionPoint.CYCLE_END, None, CycleEnd(node, message))


def _outcome() -> PostFilterOutcome:
    return PostFilterOutcome("Unschedulable", ["preemption: 0/3 nodes are available"], None, [], {})


def test_it_stops_after_the_attempts_asked_for_counting_from_the_first_start():
    consumed: list[int] = []
    result = first_attempts.first_attempts(_stream(["n1", "n2", None, "n3"], consumed, set_up=3), 2)
    assert result.count == 2 and consumed[:3] == [-1, -1, -1] and consumed[-1] == 1
    assert result.cpu_seconds >= 0 and result.ms_per_attempt >= 0


def test_the_digest_follows_the_nodes_the_messages_and_the_preemptions():
    def digest(nodes):
        return first_attempts.first_attempts(_stream(nodes, []), 10).digest

    assert digest(["n1", None, "n2"]) == digest(["n1", None, "n2"])
    assert digest(["n1", None, "n2"]) != digest(["n1", None, "n3"])
    assert digest(["n1", None]) != digest(["n1", ""])  # a preemption and its message count


def test_a_stream_without_an_attempt_has_none():
    result = first_attempts.first_attempts(iter(()), 5)
    assert result.count == 0 and result.cpu_seconds == 0.0
