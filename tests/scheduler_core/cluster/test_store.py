"""cluster/store.py: the run's API server — every write a new version with the next
resourceVersion, never a change in place; no-op writes are no writes; watchers get old and new,
in write order, a write made during delivery after those already on their way; deletes as the API
server does them."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from scheduler_core import load_scenario
from scheduler_core.cluster.store import KIND_NODE, KIND_POD, Action, Cluster, WatchEvent
from scheduler_core.loop import SchedulerLoop
from scheduler_core.events import ClusterChangeKind as Change
from scheduler_core.model import PodScheduledCondition
from tests.scheduler_core.builders import make_node, make_pod

EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def cluster() -> Cluster:
    pods = [make_pod("bound", node="n1"), make_pod("pending", nominated_node_name="n1"),
            make_pod("quick", node="n1", termination_grace_period_seconds=0)]
    return Cluster(pods, [make_node("n1")], EPOCH, lambda: 1500)


def heard(cluster: Cluster, kind: str = KIND_POD) -> list[WatchEvent]:
    events: list[WatchEvent] = []
    cluster.watch(kind, events.append)
    return events


def test_a_write_is_a_new_version_with_the_next_resource_version_and_the_old_one_untouched(cluster):
    events = heard(cluster)
    before = cluster.pod("default/pending")
    first = cluster.patch_pod_status("default/pending", Change.POD_STATUS, condition=PodScheduledCondition("False", "Unschedulable", "x"))
    second = cluster.patch_pod_status("default/pending", Change.POD_STATUS, nominated_node_name="")
    assert before.scheduled_condition is None and before.nominated_node_name == "n1"  # never changed in place
    assert (first.resource_version, second.resource_version) == (1, 2)
    assert [(e.action, e.old, e.new) for e in events] == [(Action.MODIFIED, before, first), (Action.MODIFIED, first, second)]
    assert cluster.pod("default/pending") is second


def test_a_write_that_changes_nothing_is_no_write(cluster):
    events = heard(cluster)
    assert cluster.patch_pod_status("default/pending", Change.POD_STATUS, nominated_node_name="n1") is None
    assert cluster.patch_pod_status("default/gone", Change.POD_STATUS, nominated_node_name="") is None
    assert events == []


def test_the_binding_sets_the_node_and_clears_the_nomination(cluster):
    bound = cluster.bind("default/pending", "n1")
    assert (bound.node_name, bound.nominated_node_name, bound.scheduled_condition.status) == ("n1", "", "True")


def test_watchers_hear_in_subscription_order_and_a_write_made_while_delivering_comes_after(cluster):
    order: list[str] = []

    def first(event: WatchEvent) -> None:
        order.append(f"first {event.current.name} {event.action.value}")
        if event.current.name == "pending" and event.action is Action.MODIFIED:
            cluster.delete_pod("default/bound", Change.POD_TERMINATING)  # a watcher that writes

    cluster.watch(KIND_POD, first)
    cluster.watch(KIND_POD, lambda event: order.append(f"second {event.current.name} {event.action.value}"))
    cluster.patch_pod_status("default/pending", Change.POD_STATUS, nominated_node_name="")
    assert order == ["first pending Modified", "second pending Modified", "first bound Modified", "second bound Modified"]


@pytest.mark.parametrize(("pod", "graceful", "action"), [
    pytest.param("bound", True, Action.MODIFIED, id="a bound pod deleted with grace stays, terminating"),
    pytest.param("bound", False, Action.DELETED, id="a delete without grace removes it at once"),
    pytest.param("pending", True, Action.DELETED, id="a pod no node runs is removed at once"),
    pytest.param("quick", True, Action.DELETED, id="a zero grace period and no finalizers removes it at once"),
])
def test_deletes_are_what_the_api_server_makes_of_them(cluster, pod, graceful, action):
    events = heard(cluster)
    cluster.delete_pod(f"default/{pod}", Change.POD_TERMINATING, graceful=graceful)
    [event] = events
    assert event.action is action
    if action is Action.MODIFIED:
        assert event.new.deletion_timestamp == EPOCH + timedelta(milliseconds=1500)
        assert event.change is Change.POD_TERMINATING
    else:
        assert cluster.pod(f"default/{pod}") is None and event.change is Change.POD_DELETED


def test_deleting_a_terminating_pod_again_changes_nothing(cluster):
    cluster.delete_pod("default/bound", Change.POD_TERMINATING)
    events = heard(cluster)
    cluster.delete_pod("default/bound", Change.POD_TERMINATING)
    assert events == []


def test_a_node_update_names_its_change_from_the_old_and_new_versions(cluster):
    events = heard(cluster, KIND_NODE)
    old = cluster.node("n1")
    cluster.update_node(dataclasses.replace(old, unschedulable=True), lambda a, b: f"{a.unschedulable}->{b.unschedulable}")
    [event] = events
    assert (event.old, event.new.unschedulable, event.detail) == (old, True, "False->True")
    cluster.delete_node("n1")
    assert cluster.node("n1") is None and events[-1].action is Action.DELETED


SHARED = Path(__file__).resolve().parents[4] / "shared"
RUNS = sorted([*(SHARED / "conformance-timeline" / "public").glob("*.yaml"),
               *(SHARED / "conformance-timeline-dra" / "public").glob("*.yaml"),
               *(SHARED / "conformance-steps" / "public").glob("*.yaml"),
               *(Path(__file__).resolve().parents[2] / "fixtures" / "changes").glob("*.yaml")])


def test_the_corpora_are_there_to_audit():
    assert len(RUNS) >= 35 + 16 + 12


@pytest.mark.parametrize("path", RUNS, ids=lambda path: path.stem)
def test_no_run_changes_an_object_of_the_cluster_in_place(path):
    """Only the cluster writes pods and nodes: every version it handed out during a whole run
    (the scheduler's writes, the kubelet's, the controllers' and the steps') is as it was then."""
    loop = SchedulerLoop(load_scenario(path.read_bytes()), audit_writes=True)
    for _ in loop.run():
        pass
    assert loop.cluster.changed_in_place() == []


def test_the_audit_sees_a_change_made_in_place(cluster):
    audited = Cluster([make_pod("p", node="n1")], [], EPOCH, lambda: 0, audit=True)
    audited.pod("default/p").node_name = "n2"
    assert audited.changed_in_place() == ["Pod default/p: node_name"]
