"""QueuedPodInfo (framework.QueuedPodInfo): what the queue knows of a pending pod."""

from __future__ import annotations

from scheduler_core.backend.queue.clock import Instant
from scheduler_core.backend.queue.queued_pod_info import QueuedPodInfo
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.model import Pod


def test_it_names_its_pod_and_its_rejectors():
    info = QueuedPodInfo(PodInfo(Pod("p", namespace="ns")), Instant(5, 1))
    assert (info.key, info.pod.name, info.gated) == ("ns/p", "p", False)
    info.unschedulable_plugins = {"NodeResourcesFit"}
    info.pending_plugins = {"VolumeBinding"}
    assert info.rejector_plugins == {"NodeResourcesFit", "VolumeBinding"}
    info.gating_plugin = "SchedulingGates"
    assert info.gated


def test_two_infos_of_one_pod_are_distinct_entries():
    """eq=False: the heaps track entries by identity and key, never by field equality."""
    pod_info = PodInfo(Pod("p"))
    first, second = QueuedPodInfo(pod_info, Instant(0, 0)), QueuedPodInfo(pod_info, Instant(0, 0))
    assert first != second and first.unschedulable_plugins is not second.unschedulable_plugins
    assert repr(first) == "QueuedPodInfo(default/p, attempts=0)"
