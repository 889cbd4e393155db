"""kubelet.py: the stand-in kubelet (../shared/spec/TIMELINE.md) watches the cluster's pods and removes those
deleted gracefully one at a time, in the order the deletes came, each 300 ms after its delete and
after the previous removal; pods gone otherwise are forgotten, and pods terminating from the start
are never removed."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from scheduler_core.cluster.store import KIND_POD, Cluster
from scheduler_core.encoding.events import ClusterChangeKind
from scheduler_core.cluster.kubelet import GRACE_MS, StandInKubelet
from tests.scheduler_core.builders import make_pod

EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


class Clock:
    ms = 0


@pytest.fixture
def world():
    clock = Clock()
    pods = [make_pod(name, node="n1") for name in ("a", "b")]
    pods.append(make_pod("old", node="n1", deletion_timestamp=EPOCH))
    cluster = Cluster(pods, [], EPOCH, lambda: clock.ms)
    kubelet = StandInKubelet(cluster)
    cluster.watch(KIND_POD, kubelet.on_pod)
    return cluster, kubelet, clock


def _delete(cluster: Cluster, name: str, graceful: bool = True) -> None:
    cluster.delete_pod(f"default/{name}", ClusterChangeKind.POD_TERMINATING, graceful=graceful)


def test_deleted_pods_go_one_at_a_time_in_delete_order_spaced_by_the_grace(world):
    cluster, kubelet, clock = world
    clock.ms = 1000
    _delete(cluster, "b")
    _delete(cluster, "a")
    assert kubelet.next_removal_ms() == 1000 + GRACE_MS
    assert kubelet.remove_due(1299) is None
    clock.ms = 1300
    assert kubelet.remove_due(1300).name == "b" and cluster.pod("default/b") is None
    assert kubelet.next_removal_ms() == 1600  # 300 ms after the previous removal
    assert kubelet.remove_due(1700).name == "a"
    assert kubelet.next_removal_ms() is None and kubelet.remove_due(5000) is None


def test_a_later_delete_waits_for_its_own_grace(world):
    cluster, kubelet, clock = world
    _delete(cluster, "a")
    assert kubelet.remove_due(300).name == "a"
    clock.ms = 2000
    _delete(cluster, "b")
    assert kubelet.next_removal_ms() == 2300


def test_pods_gone_otherwise_are_not_removed_again(world):
    cluster, kubelet, _ = world
    _delete(cluster, "a")
    _delete(cluster, "b")
    _delete(cluster, "a", graceful=False)  # its node was lost: gone at once
    assert kubelet.remove_due(300).name == "b"
    assert kubelet.next_removal_ms() is None


def test_a_pod_terminating_from_the_start_stays(world):
    _, kubelet, _ = world
    assert kubelet.next_removal_ms() is None
