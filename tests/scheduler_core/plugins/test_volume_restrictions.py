import pytest

from scheduler_core.framework.cluster_events import ActionType, EventResource, QueueingHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.model import (
    AWSElasticBlockStore,
    GCEPersistentDisk,
    ISCSIVolume,
    RBDVolume,
    Volume,
)
from scheduler_core.plugins import volume_restrictions
from scheduler_core.release import rules_for
from scheduler_core.release.versions import release_named
from scheduler_core.plugins.volume_restrictions import claim_added_hint, pod_deleted_hint
from tests.scheduler_core.builders import claim_volume, make_claim, make_node, make_pod, storage_snapshot, FakeHandle

DISK_CONFLICT = Status.unschedulable("node(s) had no available disk")
RWOP_CONFLICT = Status.unschedulable(
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
)


KINDS = {
    GCEPersistentDisk: "gcePersistentDisk",
    AWSElasticBlockStore: "awsElasticBlockStore",
    RBDVolume: "rbd",
    ISCSIVolume: "iscsi",
}


def disk(source, name="d"):
    return Volume(name, KINDS[type(source)], in_tree=source)


def gce(pd, read_only=False):
    return disk(GCEPersistentDisk(pd, read_only=read_only))


def aws(volume_id, read_only=False):
    return disk(AWSElasticBlockStore(volume_id, read_only=read_only))


def rbd(monitors, image="img", pool="rbd", read_only=False):
    return disk(RBDVolume(tuple(monitors), image, pool, read_only))


def iscsi(iqn, read_only=False):
    return disk(ISCSIVolume("127.0.0.1:3260", iqn, 0, read_only))


def run_filter(wanted, existing, claims=(), running=(), release=None):
    """PreFilter then Filter on node n1, where a pod with ``existing`` volumes runs (as ``release``
    words it: "v1.33"; the default release when None)."""
    pods = [make_pod("old", node="n1", volumes=tuple(existing))] + list(running)
    snapshot = storage_snapshot([make_node("n1"), make_node("n2")], pods, claims=claims)
    if release is None:
        plugin = volume_restrictions.new(None, FakeHandle(snapshot))
    else:
        plugin = volume_restrictions.new(None, FakeHandle(snapshot), rules_for(release_named(release)).features)
    state, pod = CycleState(), make_pod("p", volumes=tuple(wanted))
    _, status = plugin.pre_filter(state, pod, snapshot.node_infos)
    if status is not None:
        return "PreFilter", status
    return "Filter", plugin.filter(state, pod, snapshot.get("n1"))


@pytest.mark.parametrize(
    "wanted, existing, expected",
    [
        pytest.param(
            [gce("foo")], [gce("foo")], DISK_CONFLICT, id="the same GCE PD mounted read-write twice conflicts"
        ),
        pytest.param([gce("foo", True)], [gce("foo", True)], None, id="the same GCE PD read-only on both sides fits"),
        pytest.param(
            [gce("foo", True)], [gce("foo")], DISK_CONFLICT, id="a GCE PD read-only on one side only conflicts"
        ),
        pytest.param([gce("foo")], [gce("bar")], None, id="different GCE PDs fit"),
        pytest.param(
            [aws("vol-1", True)],
            [aws("vol-1", True)],
            DISK_CONFLICT,
            id="the same AWS EBS volume conflicts even read-only",
        ),
        pytest.param([aws("vol-1")], [aws("vol-2")], None, id="different AWS EBS volumes fit"),
        pytest.param(
            [rbd(["a", "b"])],
            [rbd(["b", "c"])],
            DISK_CONFLICT,
            id="an RBD image in the same pool behind a shared monitor conflicts",
        ),
        pytest.param([rbd(["a"])], [rbd(["c"])], None, id="RBD images behind disjoint monitors fit"),
        pytest.param([rbd(["a"], pool="p1")], [rbd(["a"], pool="p2")], None, id="RBD images in different pools fit"),
        pytest.param(
            [rbd(["a"], read_only=True)],
            [rbd(["a"], read_only=True)],
            None,
            id="an RBD image read-only on both sides fits",
        ),
        pytest.param(
            [iscsi("iqn.2016-12.server:storage.target01")],
            [iscsi("iqn.2016-12.server:storage.target01")],
            DISK_CONFLICT,
            id="the same iSCSI IQN read-write conflicts",
        ),
        pytest.param([iscsi("iqn.a", True)], [iscsi("iqn.a", True)], None, id="the same iSCSI IQN read-only fits"),
        pytest.param([gce("foo")], [aws("foo")], None, id="sources of different kinds never conflict"),
    ],
)
def test_disk_conflicts(wanted, existing, expected):
    assert run_filter(wanted, existing) == ("Filter", expected)


def test_a_pod_without_restricted_volumes_or_read_write_once_pod_claims_is_skipped():
    claim = make_claim("data", volume="pv", modes=("ReadWriteOnce",))
    assert run_filter([claim_volume("data")], [], claims=[claim]) == ("PreFilter", SKIP)


def test_a_missing_claim_is_unresolvable_at_pre_filter():
    assert run_filter([claim_volume("gone")], []) == (
        "PreFilter",
        Status.unresolvable('persistentvolumeclaim "gone" not found'),
    )


def test_a_read_write_once_pod_claim_in_use_by_a_scheduled_pod_rejects_every_node():
    claim = make_claim("solo", volume="pv", modes=("ReadWriteOncePod",))
    user = make_pod("user", node="n2", volumes=(claim_volume("solo"),))
    assert run_filter([claim_volume("solo")], [], claims=[claim], running=[user]) == ("Filter", RWOP_CONFLICT)


@pytest.mark.parametrize("release", ["v1.32", "v1.33"])
def test_before_v1_34_the_read_write_once_pod_reason_has_its_older_words(release):
    claim = make_claim("solo", volume="pv", modes=("ReadWriteOncePod",))
    user = make_pod("user", node="n2", volumes=(claim_volume("solo"),))
    older = Status.unschedulable(
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
    )
    assert run_filter([claim_volume("solo")], [], claims=[claim], running=[user], release=release) == (
        "Filter",
        older,
    )
    assert run_filter([claim_volume("solo")], [], claims=[claim], running=[user], release="v1.34") == (
        "Filter",
        RWOP_CONFLICT,
    )


def test_a_read_write_once_pod_claim_nobody_uses_is_skipped():
    claim = make_claim("solo", volume="pv", modes=("ReadWriteOncePod",))
    assert run_filter([claim_volume("solo")], [], claims=[claim]) == ("PreFilter", SKIP)


def test_remove_pod_and_add_pod_update_the_conflict_count_for_preemption():
    claim = make_claim("solo", volume="pv", modes=("ReadWriteOncePod",))
    user = make_pod("user", node="n1", volumes=(claim_volume("solo"),))
    snapshot = storage_snapshot([make_node("n1")], [user], claims=[claim])
    plugin = volume_restrictions.new(None, FakeHandle(snapshot))
    state, pod = CycleState(), make_pod("p", volumes=(claim_volume("solo"),))
    plugin.pre_filter(state, pod, snapshot.node_infos)
    node = snapshot.get("n1").clone()
    removed = node.remove_pod(user)
    assert plugin.remove_pod(state, pod, removed, node) is None
    assert plugin.filter(state, pod, node) is None
    assert plugin.add_pod(state, pod, PodInfo(user), node) is None
    assert plugin.filter(state, pod, node) == RWOP_CONFLICT


def test_filter_without_pre_filter_state_is_an_error():
    snapshot = storage_snapshot([make_node("n1")])
    plugin = volume_restrictions.new(None, FakeHandle(snapshot))
    status = plugin.filter(CycleState(), make_pod("p"), snapshot.get("n1"))
    assert status == Status(Code.ERROR, ('cannot read "PreFilterVolumeRestrictions" from cycleState',))


@pytest.mark.parametrize(
    "deleted, wanted, expected",
    [
        pytest.param(
            make_pod("old", node="n1", volumes=(gce("foo"),)),
            [gce("foo")],
            QueueingHint.QUEUE,
            id="a deleted pod holding the same disk queues",
        ),
        pytest.param(
            make_pod("old", node="n1", volumes=(claim_volume("solo"),)),
            [claim_volume("solo")],
            QueueingHint.QUEUE,
            id="a deleted pod using the same claim queues",
        ),
        pytest.param(
            make_pod("old", node="n1", volumes=(claim_volume("other"),)),
            [claim_volume("solo")],
            QueueingHint.QUEUE_SKIP,
            id="a deleted pod using another claim is skipped",
        ),
        pytest.param(
            make_pod("old", namespace="other", node="n1", volumes=(gce("foo"),)),
            [gce("foo")],
            QueueingHint.QUEUE_SKIP,
            id="a deleted pod of another namespace is skipped",
        ),
    ],
)
def test_pod_deleted_hint(deleted, wanted, expected):
    assert pod_deleted_hint(make_pod("p", volumes=tuple(wanted)), deleted, None) == expected


@pytest.mark.parametrize(
    "claim, expected",
    [
        pytest.param(make_claim("solo"), QueueingHint.QUEUE, id="the claim the pod names queues"),
        pytest.param(make_claim("other"), QueueingHint.QUEUE_SKIP, id="another claim is skipped"),
        pytest.param(
            make_claim("solo", namespace="ns2"),
            QueueingHint.QUEUE_SKIP,
            id="a claim of the same name in another namespace is skipped",
        ),
    ],
)
def test_claim_added_hint(claim, expected):
    assert claim_added_hint(make_pod("p", volumes=(claim_volume("solo"),)), None, claim) == expected


def test_events_to_register_are_the_releases():
    registered = [
        (e.event.resource, e.event.action, e.hint is not None)
        for e in volume_restrictions.new(None, None).events_to_register()
    ]
    assert registered == [
        (EventResource.POD, ActionType.DELETE, True),
        (EventResource.NODE, ActionType.ADD, False),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, True),
    ]
