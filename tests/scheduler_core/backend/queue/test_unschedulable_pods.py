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


def _rejected(
    name: str, *plugins: str, pending: tuple[str, ...] = (), gate: str = "", scheduler: str = "default-scheduler"
) -> QueuedPodInfo:
    info = QueuedPodInfo(PodInfo(Pod(name, scheduler_name=scheduler)), Instant(0, 0))
    info.unschedulable_plugins, info.pending_plugins, info.gating_plugin = set(plugins), set(pending), gate
    return info


def test_an_event_concerns_the_pods_its_plugins_rejected_and_those_every_event_looks_at():
    """concerned_by: in arrival order, the pods one of the event's plugins rejected (or left
    pending), gated pods, pods no plugin rejected and pods of another profile; a pod re-added
    under other rejectors, or deleted, is found under its new ones only."""
    pods = UnschedulablePods(["default-scheduler"])
    for info in (
        _rejected("fit", "NodeResourcesFit"),
        _rejected("gated", "SchedulingGates", gate="SchedulingGates"),
        _rejected("spread", "PodTopologySpread"),
        _rejected("nobody"),
        _rejected("pending", pending=("DynamicResources",)),
        _rejected("other", "NodeResourcesFit", scheduler="other-scheduler"),
    ):
        pods.add_or_update(info)

    def names(*plugins: str) -> list[str]:
        return [info.pod.name for info in pods.concerned_by(plugins)]

    assert names("InterPodAffinity") == ["gated", "nobody", "other"]
    assert names("PodTopologySpread", "DynamicResources") == ["gated", "spread", "nobody", "pending", "other"]
    pods.add_or_update(_rejected("fit", "InterPodAffinity"))
    assert names("NodeResourcesFit") == ["gated", "nobody", "other"]
    assert names("InterPodAffinity") == ["fit", "gated", "nobody", "other"]
    pods.delete("default/gated")
    assert names() == ["nobody", "other"]
