import pytest

from scheduler_core.framework.cluster_events import ActionType, EventResource, QueueingHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.model import LABEL_REGION, LABEL_REGION_BETA, LABEL_ZONE, LABEL_ZONE_BETA
from scheduler_core.plugins import volume_zone
from scheduler_core.plugins.volume_zone import claim_hint, storage_class_added_hint, volume_hint
from tests.scheduler_core.builders import (
    FakeHandle,
    claim_volume,
    make_claim,
    make_class,
    make_node,
    make_pod,
    make_volume,
    storage_snapshot,
)

CONFLICT = Status.unresolvable("node(s) had no available volume zone")
CLAIM = make_claim("data", volume="pv", storage_class="fast")


def verdict(volume_labels, node_labels, claims=(CLAIM,), volumes=None, classes=()):
    """PreFilter, then Filter on a node with ``node_labels``."""
    volumes = [make_volume("pv", labels=volume_labels, claim=CLAIM)] if volumes is None else volumes
    node = make_node("n1", labels=node_labels)
    snapshot = storage_snapshot([node], claims=claims, volumes=volumes, classes=classes)
    plugin = volume_zone.new(None, FakeHandle(snapshot))
    state, pod = CycleState(), make_pod("p", volumes=(claim_volume("data"),))
    _, status = plugin.pre_filter(state, pod, snapshot.node_infos)
    if status is not None:
        return "PreFilter", status
    return "Filter", plugin.filter(state, pod, snapshot.get("n1"))


@pytest.mark.parametrize(
    "volume_labels, node_labels, expected",
    [
        pytest.param({LABEL_ZONE: "a"}, {LABEL_ZONE: "a"}, None, id="a node in the volume's zone fits"),
        pytest.param({LABEL_ZONE: "a"}, {LABEL_ZONE: "b"}, CONFLICT, id="a node in another zone conflicts"),
        pytest.param({LABEL_ZONE: "a"}, {}, None, id="a node without any topology label fits (one-zone cluster)"),
        pytest.param(
            {LABEL_ZONE: "a"},
            {LABEL_REGION: "r"},
            CONFLICT,
            id="a node with a region label but no zone label conflicts",
        ),
        pytest.param({LABEL_ZONE: "a__b"}, {LABEL_ZONE: "b"}, None, id="a multi-zone volume fits any of its zones"),
        pytest.param(
            {LABEL_ZONE_BETA: "a"},
            {LABEL_ZONE: "a"},
            None,
            id="a volume's beta zone label is matched by the node's GA label",
        ),
        pytest.param(
            {LABEL_ZONE: "a"},
            {LABEL_ZONE_BETA: "a"},
            CONFLICT,
            id="a volume's GA zone label is not matched by the node's beta label",
        ),
        pytest.param(
            {LABEL_REGION_BETA: "r1", LABEL_ZONE: "a"},
            {LABEL_REGION: "r2", LABEL_ZONE: "a"},
            CONFLICT,
            id="the region must match too",
        ),
        pytest.param(
            {LABEL_ZONE: "a__"},
            {LABEL_ZONE: "b"},
            None,
            id="an unreadable zone label (empty entry) is ignored, so the pod is skipped at PreFilter",
        ),
    ],
)
def test_volume_zone(volume_labels, node_labels, expected):
    stage, status = verdict(volume_labels, node_labels)
    if expected is None and stage == "PreFilter":
        assert status == SKIP
    else:
        assert (stage, status) == ("Filter", expected)


def test_a_volume_without_topology_labels_is_skipped():
    assert verdict({}, {LABEL_ZONE: "a"}) == ("PreFilter", SKIP)


@pytest.mark.parametrize(
    "claims, volumes, classes, expected",
    [
        pytest.param([], [], [], Status.unresolvable('persistentvolumeclaim "data" not found'), id="a missing claim"),
        pytest.param(
            [CLAIM],
            [],
            [],
            Status.unresolvable('persistentvolume "pv" not found'),
            id="a claim bound to a missing volume",
        ),
        pytest.param(
            [make_claim("data")],
            [],
            [],
            Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name"),
            id="an unbound claim without a class",
        ),
        pytest.param(
            [make_claim("data", storage_class="gone")],
            [],
            [],
            Status.unresolvable('storageclass.storage.k8s.io "gone" not found'),
            id="an unbound claim of a missing class",
        ),
        pytest.param(
            [make_claim("data", storage_class="fast")],
            [],
            [make_class("fast", wait=False)],
            Status.unresolvable("PersistentVolume had no name"),
            id="an unbound Immediate claim",
        ),
        pytest.param(
            [make_claim("data", storage_class="fast")],
            [],
            [make_class("fast")],
            SKIP,
            id="an unbound WaitForFirstConsumer claim is skipped",
        ),
    ],
)
def test_pre_filter_statuses(claims, volumes, classes, expected):
    assert verdict({}, {}, claims, volumes, classes) == ("PreFilter", expected)


def test_pre_filter_state_lists_the_volume_topologies():
    snapshot = storage_snapshot(
        [make_node("n1")], claims=[CLAIM], volumes=[make_volume("pv", labels={LABEL_ZONE: "b__a"}, claim=CLAIM)]
    )
    plugin = volume_zone.new(None, FakeHandle(snapshot))
    state = CycleState()
    plugin.pre_filter(state, make_pod("p", volumes=(claim_volume("data"),)), snapshot.node_infos)
    assert plugin.pre_filter_state_json(state) == {
        "volumeTopologies": [{"volume": "pv", "key": LABEL_ZONE, "values": ["a", "b"]}]
    }


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(None, make_volume("pv"), QueueingHint.QUEUE, id="a new volume queues"),
        pytest.param(
            make_volume("pv", labels={LABEL_ZONE: "a"}),
            make_volume("pv", labels={LABEL_ZONE: "b"}),
            QueueingHint.QUEUE,
            id="a changed zone label queues",
        ),
        pytest.param(
            make_volume("pv", labels={LABEL_ZONE: "a"}),
            make_volume("pv", labels={LABEL_ZONE: "a", "x": "y"}),
            QueueingHint.QUEUE_SKIP,
            id="other label changes are skipped",
        ),
    ],
)
def test_volume_hint(old, new, expected):
    assert volume_hint(make_pod("p"), old, new) == expected


@pytest.mark.parametrize(
    "storage_class, expected",
    [
        pytest.param(make_class("c"), QueueingHint.QUEUE, id="a new WaitForFirstConsumer class queues"),
        pytest.param(make_class("c", wait=False), QueueingHint.QUEUE_SKIP, id="a new Immediate class is skipped"),
    ],
)
def test_storage_class_added_hint(storage_class, expected):
    assert storage_class_added_hint(make_pod("p"), None, storage_class) == expected


def test_claim_hint_queues_for_the_pods_claims_only():
    pod = make_pod("p", volumes=(claim_volume("data"),))
    assert claim_hint(pod, None, make_claim("data")) == QueueingHint.QUEUE
    assert claim_hint(pod, make_claim("other"), make_claim("other")) == QueueingHint.QUEUE_SKIP


def test_events_to_register_are_the_releases():
    registered = [
        (e.event.resource, e.event.action, e.hint is not None) for e in volume_zone.new(None, None).events_to_register()
    ]
    assert registered == [
        (EventResource.STORAGE_CLASS, ActionType.ADD, True),
        (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, False),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE, True),
        (EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE, True),
    ]
