"""kubelet.py: the stand-in kubelet (spec/TIMELINE.md) removes preemption's victims one at a time,
in the order they were marked, each 300 ms after its marking and after the previous removal."""

from __future__ import annotations

from scheduler_core.kubelet import GRACE_MS, StandInKubelet
from tests.scheduler_core.builders import make_pod


def test_victims_go_one_at_a_time_in_key_order_spaced_by_the_grace():
    kubelet = StandInKubelet()
    kubelet.mark([make_pod("b"), make_pod("a")], now_ms=1000)
    assert kubelet.next_removal_ms() == 1000 + GRACE_MS
    assert kubelet.remove_due(1299) is None
    assert kubelet.remove_due(1300).name == "a"
    assert kubelet.next_removal_ms() == 1600  # 300 ms after the previous removal
    assert kubelet.remove_due(1700).name == "b"
    assert kubelet.next_removal_ms() is None and kubelet.remove_due(5000) is None


def test_a_later_marking_waits_for_its_own_grace():
    kubelet = StandInKubelet()
    kubelet.mark([make_pod("a")], now_ms=0)
    assert kubelet.remove_due(300).name == "a"
    kubelet.mark([make_pod("b")], now_ms=2000)
    assert kubelet.next_removal_ms() == 2300


def test_forgotten_pods_are_not_removed():
    kubelet = StandInKubelet()
    kubelet.mark([make_pod("a"), make_pod("b")], now_ms=0)
    kubelet.forget({"default/a"})
    assert kubelet.remove_due(300).name == "b"
