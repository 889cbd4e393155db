"""unschedulablePods (backend/queue/unschedulable_pods.go): pods waiting for a cluster event,
kept in the order they arrived (the order moves take them out)."""

from __future__ import annotations

from scheduler_core.backend.queue.clock import Instant
from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo
from scheduler_core.backend.queue.unschedulable_pods import UnschedulablePods
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.model import Pod


def _info(name: str) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(Pod(name)), Instant(0, 0))


def test_pods_are_kept_by_key_in_arrival_order_and_updated_in_place():
    pods = UnschedulablePods()
    first, second = _info("b"), _info("a")
    pods.add_or_update(first)
    pods.add_or_update(second)
    newer = _info("b")
    pods.add_or_update(newer)
    assert list(pods.pod_infos) == ["default/b", "default/a"]
    assert pods.get("default/b") is newer and len(pods) == 2


def test_delete_forgets_a_pod_and_ignores_an_unknown_one():
    pods = UnschedulablePods()
    pods.add_or_update(_info("a"))
    pods.delete("default/a")
    pods.delete("default/missing")
    assert len(pods) == 0 and pods.get("default/a") is None
