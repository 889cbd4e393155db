"""kubectl drain's filters (GetPodsForDeletion)."""

from __future__ import annotations

from scheduler_core.cluster.controllers.drain import pods_to_evict
from scheduler_core.model import OwnerReference
from tests.scheduler_core.builders import make_pod


def test_it_skips_daemon_set_and_mirror_pods_and_orders_the_rest_by_namespace_and_name():
    """GetPodsForDeletion: daemonSetFilter (--ignore-daemonsets), mirrorPodFilter."""
    daemon = make_pod("agent", node="n1", owner_references=(OwnerReference("DaemonSet", "agent", controller=True),))
    mirror = make_pod("static", node="n1")
    kept = pods_to_evict(
        [make_pod("b", node="n1"), daemon, mirror, make_pod("a", node="n1")],
        {"default/static": {"metadata": {"annotations": {"kubernetes.io/config.mirror": "x"}}}},
    )
    assert [p.name for p in kept] == ["a", "b"]
