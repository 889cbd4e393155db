import numpy as np
import pytest

from scheduler_core.framework.cluster_events import ActionType, EventResource, QueueingHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.model import (
    ANN_MIGRATED_PLUGINS,
    AWSElasticBlockStore,
    AzureDiskVolume,
    CSINode,
    CSINodeDriver,
    GCEPersistentDisk,
    OwnerReference,
    PortworxVolume,
    Volume,
    VolumeAttachment,
)
from scheduler_core.plugins import node_volume_limits
from scheduler_core.plugins.node_volume_limits import (
    attachment_deleted_hint,
    claim_added_hint,
    csi_node_updated_hint,
    pod_deleted_hint,
)
from tests.scheduler_core.builders import (
    FakeHandle,
    assert_filter_same,
    claim_volume,
    make_claim,
    make_class,
    make_node,
    make_pod,
    make_volume,
    storage_snapshot,
)

EXCEEDED = Status.unschedulable("node(s) exceed max volume count")
EBS = "ebs.csi.aws.com"


def csi_node(limit=2, driver=EBS, annotations=None):
    return CSINode("n1", (CSINodeDriver(driver, "id", limit),), dict(annotations or {}))


def bound(name, driver=EBS):
    """A claim bound to a CSI volume of ``driver``."""
    claim = make_claim(name, volume=f"pv-{name}")
    return claim, make_volume(f"pv-{name}", claim=claim, driver=driver)


def verdict(wanted, running=(), claims=(), volumes=(), csi_nodes=(), classes=(), attachments=()):
    snapshot = storage_snapshot(
        [make_node("n1")],
        list(running),
        claims=claims,
        volumes=volumes,
        csi_nodes=csi_nodes,
        classes=classes,
        attachments=attachments,
    )
    plugin = node_volume_limits.new(None, FakeHandle(snapshot))
    state, pod = CycleState(), make_pod("p", volumes=tuple(wanted), uid="pod-uid")
    _, status = plugin.pre_filter(state, pod, snapshot.node_infos)
    if status is not None:
        return "PreFilter", status
    return "Filter", plugin.filter(state, pod, snapshot.get("n1"))


def pod_on_node(name, *volumes):
    return make_pod(name, node="n1", volumes=tuple(volumes))


A, PV_A = bound("a")
B, PV_B = bound("b")
C, PV_C = bound("c")


@pytest.mark.parametrize(
    "limit, running, expected",
    [
        pytest.param(
            2,
            [pod_on_node("x", claim_volume("a")), pod_on_node("y", claim_volume("b"))],
            EXCEEDED,
            id="a third volume on a node that attaches two exceeds the limit",
        ),
        pytest.param(
            3,
            [pod_on_node("x", claim_volume("a")), pod_on_node("y", claim_volume("b"))],
            None,
            id="a third volume fits a limit of three",
        ),
        pytest.param(
            2,
            [pod_on_node("x", claim_volume("a"), claim_volume("c", "w"))],
            None,
            id="a volume already attached on the node is not counted again",
        ),
        pytest.param(
            None,
            [pod_on_node("x", claim_volume("a")), pod_on_node("y", claim_volume("b"))],
            None,
            id="a driver without allocatable.count has no limit",
        ),
    ],
)
def test_limits_from_csinode(limit, running, expected):
    assert verdict([claim_volume("c")], running, [A, B, C], [PV_A, PV_B, PV_C], [csi_node(limit)]) == (
        "Filter",
        expected,
    )


def test_a_node_without_csinode_has_no_limit():
    running = [pod_on_node("x", claim_volume("a")), pod_on_node("y", claim_volume("b"))]
    assert verdict([claim_volume("c")], running, [A, B, C], [PV_A, PV_B, PV_C]) == ("Filter", None)


def test_volumes_of_another_driver_do_not_count_against_the_limit():
    other, pv_other = bound("o", driver="other.csi")
    running = [pod_on_node("x", claim_volume("o")), pod_on_node("y", claim_volume("a"))]
    assert verdict([claim_volume("c")], running, [A, C, other], [PV_A, PV_C, pv_other], [csi_node(2)]) == (
        "Filter",
        None,
    )


def test_an_unbound_claim_counts_under_its_class_provisioner():
    pending = make_claim("new", storage_class="ebs")
    running = [pod_on_node("x", claim_volume("a")), pod_on_node("y", claim_volume("b"))]
    status = verdict(
        [claim_volume("new")],
        running,
        [A, B, pending],
        [PV_A, PV_B],
        [csi_node(2)],
        classes=[make_class("ebs", provisioner=EBS)],
    )
    assert status == ("Filter", EXCEEDED)


def test_an_unbound_claim_without_class_is_not_counted():
    pending = make_claim("new")
    running = [pod_on_node("x", claim_volume("a")), pod_on_node("y", claim_volume("b"))]
    assert verdict([claim_volume("new")], running, [A, B, pending], [PV_A, PV_B], [csi_node(2)]) == ("Filter", None)


def test_a_missing_claim_of_the_new_pod_is_unresolvable():
    assert verdict([claim_volume("gone")], csi_nodes=[csi_node()]) == (
        "Filter",
        Status.unresolvable('looking up PVC default/gone: persistentvolumeclaim "gone" not found'),
    )


def test_a_running_pods_missing_claim_is_not_counted():
    running = [pod_on_node("x", claim_volume("gone")), pod_on_node("y", claim_volume("a"))]
    assert verdict([claim_volume("c")], running, [A, C], [PV_A, PV_C], [csi_node(2)]) == ("Filter", None)


def test_volume_attachments_on_the_node_count():
    attachments = [VolumeAttachment("va", EBS, "n1", "pv-b")]
    running = [pod_on_node("x", claim_volume("a"))]
    assert verdict(
        [claim_volume("c")], running, [A, B, C], [PV_A, PV_B, PV_C], [csi_node(2)], attachments=attachments
    ) == ("Filter", EXCEEDED)


def test_a_volume_attachment_of_a_volume_a_pod_uses_is_counted_once():
    attachments = [VolumeAttachment("va", EBS, "n1", "pv-a")]
    running = [pod_on_node("x", claim_volume("a"))]
    assert verdict([claim_volume("c")], running, [A, C], [PV_A, PV_C], [csi_node(2)], attachments=attachments) == (
        "Filter",
        None,
    )


def inline(source, name="d"):
    return Volume(name, "inline", in_tree=source)


def test_inline_aws_ebs_volumes_count_under_the_ebs_csi_driver():
    running = [pod_on_node("x", inline(AWSElasticBlockStore("vol-1"))), pod_on_node("y", claim_volume("a"))]
    status = verdict([inline(AWSElasticBlockStore("aws://us-east-1a/vol-3"))], running, [A], [PV_A], [csi_node(2)])
    assert status == ("Filter", EXCEEDED)


def test_the_same_inline_ebs_volume_is_one_volume_whatever_its_id_form():
    running = [pod_on_node("x", inline(AWSElasticBlockStore("vol-1"))), pod_on_node("y", claim_volume("a"))]
    status = verdict([inline(AWSElasticBlockStore("aws:///vol-1"))], running, [A], [PV_A], [csi_node(2)])
    assert status == ("Filter", None)


def test_in_tree_persistent_volumes_count_under_the_driver_they_migrate_to():
    claim = make_claim("g", volume="pv-g")
    gce_pv = make_volume(
        "pv-g", claim=claim, csi=None, source_kind="gcePersistentDisk", in_tree=GCEPersistentDisk("disk-1")
    )
    gce_node = csi_node(1, driver="pd.csi.storage.gke.io")
    running = [pod_on_node("x", claim_volume("g"))]
    status = verdict([inline(GCEPersistentDisk("disk-2"))], running, [claim], [gce_pv], [gce_node])
    assert status == ("Filter", EXCEEDED)


def test_portworx_counts_only_where_the_node_lists_it_as_migrated():
    portworx = csi_node(0, driver="pxd.portworx.com")
    wanted = [inline(PortworxVolume("px-1"))]
    assert verdict(wanted, csi_nodes=[portworx]) == ("Filter", None)
    listed = csi_node(0, driver="pxd.portworx.com", annotations={ANN_MIGRATED_PLUGINS: "kubernetes.io/portworx-volume"})
    assert verdict(wanted, csi_nodes=[listed]) == ("Filter", EXCEEDED)


def test_one_cycle_counts_the_new_pods_volumes_per_csinode_of_each_node():
    """One PreFilter, then Filter node after node (as the walk asks, and back again): each node
    answers with its own CSINode's counting (Portworx migrated on n1 only), as a fresh cycle per
    node answers; nodes without a CSINode share theirs."""
    names = ("n1", "n2", "n3", "n4")
    migrated = {ANN_MIGRATED_PLUGINS: "kubernetes.io/portworx-volume"}
    csi_nodes = [
        CSINode("n1", (CSINodeDriver("pxd.portworx.com", "id", 0),), migrated),
        CSINode("n2", (CSINodeDriver("pxd.portworx.com", "id", 0),), {}),
    ]
    snapshot = storage_snapshot([make_node(name) for name in names], csi_nodes=csi_nodes)
    plugin = node_volume_limits.new(None, FakeHandle(snapshot))
    pod = make_pod("p", volumes=(inline(PortworxVolume("px-1")),))

    def fresh(name):
        state = CycleState()
        plugin.pre_filter(state, pod, snapshot.node_infos)
        return plugin.filter(state, pod, snapshot.get(name))

    state = CycleState()
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, None)
    walked = [(name, plugin.filter(state, pod, snapshot.get(name))) for name in (*names, *reversed(names))]
    assert walked == [(name, fresh(name)) for name, _ in walked]
    assert dict(walked) == {"n1": EXCEEDED, "n2": None, "n3": None, "n4": None}


def test_an_inline_azure_disk_of_the_default_kind_cannot_be_translated():
    status = verdict([inline(AzureDiskVolume("disk", "uri"))], csi_nodes=[csi_node()])
    assert status == (
        "Filter",
        Status(
            Code.ERROR, ("converting volume(d) from inline to csi: kind(Shared) is not supported in csi migration",)
        ),
    )


def test_an_ephemeral_volume_counts_its_claim_when_the_pod_owns_it():
    owned = make_claim(
        "p-scratch", storage_class="ebs", owner_references=(OwnerReference("Pod", "p", "v1", True, "pod-uid"),)
    )
    ephemeral = Volume("scratch", "ephemeral")
    running = [pod_on_node("x", claim_volume("a")), pod_on_node("y", claim_volume("b"))]
    classes = [make_class("ebs", provisioner=EBS)]
    assert verdict([ephemeral], running, [A, B, owned], [PV_A, PV_B], [csi_node(2)], classes) == ("Filter", EXCEEDED)


def test_an_ephemeral_volume_whose_claim_the_pod_does_not_own_is_an_error():
    foreign = make_claim("p-scratch", storage_class="ebs")
    status = verdict([Volume("scratch", "ephemeral")], claims=[foreign], csi_nodes=[csi_node()])
    assert status == (
        "Filter",
        Status(Code.ERROR, ("PVC default/p-scratch was not created for pod default/p (pod is not owner)",)),
    )


@pytest.mark.parametrize(
    "volumes, expected",
    [
        pytest.param([Volume("tmp", "emptyDir")], SKIP, id="a pod with only an emptyDir is skipped"),
        pytest.param([claim_volume("a")], None, id="a claim runs Filter"),
        pytest.param([Volume("e", "ephemeral")], None, id="an ephemeral volume runs Filter"),
        pytest.param([inline(GCEPersistentDisk("d"))], None, id="a migratable in-tree volume runs Filter"),
    ],
)
def test_pre_filter(volumes, expected):
    plugin = node_volume_limits.new(None, FakeHandle(storage_snapshot([make_node("n1")])))
    assert plugin.pre_filter(CycleState(), make_pod("p", volumes=tuple(volumes)), []) == (None, expected)


@pytest.mark.parametrize(
    "deleted, expected",
    [
        pytest.param(
            make_pod("d", node="n1", volumes=(claim_volume("a"),)),
            QueueingHint.QUEUE,
            id="a scheduled pod with a claim queues",
        ),
        pytest.param(
            make_pod("d", volumes=(claim_volume("a"),)),
            QueueingHint.QUEUE_SKIP,
            id="an unscheduled, unnominated pod is skipped",
        ),
        pytest.param(
            make_pod("d", nominated_node_name="n1", volumes=(claim_volume("a"),)),
            QueueingHint.QUEUE,
            id="a nominated pod with a claim queues",
        ),
        pytest.param(
            make_pod("d", node="n1", volumes=(Volume("tmp", "emptyDir"),)),
            QueueingHint.QUEUE_SKIP,
            id="a pod with only an emptyDir is skipped",
        ),
    ],
)
def test_pod_deleted_hint(deleted, expected):
    assert pod_deleted_hint(make_pod("p"), deleted, None) == expected


def test_claim_added_hint_knows_ephemeral_claim_names():
    pod = make_pod("p", volumes=(Volume("scratch", "ephemeral"),))
    assert claim_added_hint(pod, None, make_claim("p-scratch")) == QueueingHint.QUEUE
    assert claim_added_hint(pod, None, make_claim("scratch")) == QueueingHint.QUEUE_SKIP


@pytest.mark.parametrize(
    "volumes, attacher, expected",
    [
        pytest.param([claim_volume("a")], "anything", QueueingHint.QUEUE, id="a pod with a claim queues"),
        pytest.param(
            [inline(AWSElasticBlockStore("vol-1"))],
            EBS,
            QueueingHint.QUEUE,
            id="an inline EBS volume queues on an EBS attachment",
        ),
        pytest.param(
            [inline(AWSElasticBlockStore("vol-1"))],
            "other",
            QueueingHint.QUEUE_SKIP,
            id="an inline EBS volume is skipped on another driver's attachment",
        ),
    ],
)
def test_attachment_deleted_hint(volumes, attacher, expected):
    attachment = VolumeAttachment("va", attacher, "n1", "pv")
    assert attachment_deleted_hint(make_pod("p", volumes=tuple(volumes)), attachment, None) == expected


@pytest.mark.parametrize(
    "old_limit, new_limit, expected",
    [
        pytest.param(1, 2, QueueingHint.QUEUE, id="a raised limit queues"),
        pytest.param(2, 2, QueueingHint.QUEUE_SKIP, id="an unchanged limit is skipped"),
        pytest.param(None, 1, QueueingHint.QUEUE, id="a limit appearing counts as raised from zero"),
    ],
)
def test_csi_node_updated_hint(old_limit, new_limit, expected):
    assert csi_node_updated_hint(make_pod("p"), csi_node(old_limit), csi_node(new_limit)) == expected


def test_events_to_register_are_the_releases():
    registered = [
        (e.event.resource, e.event.action, e.hint is not None)
        for e in node_volume_limits.new(None, None).events_to_register()
    ]
    assert registered == [
        (EventResource.CSI_NODE, ActionType.ADD, False),
        (EventResource.CSI_NODE, ActionType.UPDATE, True),
        (EventResource.POD, ActionType.DELETE, True),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, True),
        (EventResource.VOLUME_ATTACHMENT, ActionType.DELETE, True),
    ]


# ---------------------------------------------------------------------- Filter in batch


def _judged_both_ways(pod, csi_nodes, running=(), claims=(), volumes=()):
    """filter_batch against filter node by node on four nodes, some with the given CSINodes."""
    snapshot = storage_snapshot(
        [make_node(name) for name in ("n1", "n2", "n3", "n4")],
        list(running),
        claims=claims,
        volumes=volumes,
        csi_nodes=csi_nodes,
    )
    plugin = node_volume_limits.new(None, FakeHandle(snapshot))
    state = CycleState()
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, None)
    assert_filter_same(plugin, state, pod, snapshot.table, np.array([2, 0, 3, 1]))
    verdicts = plugin.filter_batch(state, pod, snapshot.table, np.arange(4))
    return None if verdicts is None else [None if c < 0 else verdicts.palette[c] for c in verdicts.choice.tolist()]


def test_in_batch_nodes_with_a_csinode_are_judged_on_their_own_the_others_pass():
    pod = make_pod("p", volumes=(inline(PortworxVolume("px-1")),))
    migrated = {ANN_MIGRATED_PLUGINS: "kubernetes.io/portworx-volume"}
    csi_nodes = [CSINode("n1", (CSINodeDriver("pxd.portworx.com", "id", 0),), migrated)]
    assert _judged_both_ways(pod, csi_nodes) == [EXCEEDED, None, None, None]


def test_in_batch_without_csinodes_every_node_passes():
    running = [pod_on_node("x", claim_volume("a")), pod_on_node("y", claim_volume("b"))]
    pod = make_pod("p", volumes=(claim_volume("c"),))
    assert _judged_both_ways(pod, [], running, [A, B, C], [PV_A, PV_B, PV_C]) is None


def test_in_batch_a_missing_claim_refuses_every_node_with_or_without_a_csinode():
    pod = make_pod("p", volumes=(claim_volume("gone"),))
    missing = Status.unresolvable('looking up PVC default/gone: persistentvolumeclaim "gone" not found')
    assert _judged_both_ways(pod, []) == [missing] * 4
    assert _judged_both_ways(pod, [csi_node()]) == [missing] * 4
