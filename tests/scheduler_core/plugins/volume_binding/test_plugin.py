"""VolumeBinding, in the style of the release's volume_binding_test.go: PreFilter, Filter on each
node, then Reserve / PreBind on the chosen one."""

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from scheduler_core.framework.cluster_events import ActionType, EventResource, QueueingHint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.status import SKIP, Code, Status
from scheduler_core.model import (
    ANN_MIGRATED_PLUGINS,
    ANN_SELECTED_NODE,
    LABEL_ZONE,
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    GCEPersistentDisk,
    LabelSelector,
    OwnerReference,
    TopologySelectorRequirement,
    Volume,
)
from scheduler_core.plugins import volume_binding
from scheduler_core.release import rules_for
from scheduler_core.release.versions import release_named
from scheduler_core.plugins.volume_binding.plugin import (
    capacity_hint,
    claim_hint,
    csi_driver_hint,
    csi_node_hint,
    storage_class_hint,
)
from tests.scheduler_core.builders import (
    GI,
    FakeHandle,
    claim_volume,
    make_claim,
    make_class,
    make_node,
    make_pod,
    make_volume,
    storage_snapshot,
)

NODE_CONFLICT = "node(s) didn't match PersistentVolume's node affinity"
BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"

NODES = [
    make_node("n1", labels={"kubernetes.io/hostname": "n1", LABEL_ZONE: "a"}),
    make_node("n2", labels={"kubernetes.io/hostname": "n2", LABEL_ZONE: "b"}),
]
WAIT = make_class("wait", provisioner="kubernetes.io/no-provisioner")
PROVISION = make_class("provision", provisioner="csi.example.com")
IMMEDIATE = make_class("immediate", wait=False)


class Run:
    """One cycle of the plugin: PreFilter, Filter on every node."""

    def __init__(self, pod_volumes, args=None, pod_uid="pod-uid", features=None, per_node=True, **objects):
        objects.setdefault("classes", [WAIT, PROVISION, IMMEDIATE])
        self.snapshot = storage_snapshot(NODES, **objects)
        if features is None:
            self.plugin = volume_binding.new(args, FakeHandle(self.snapshot))
        else:
            self.plugin = volume_binding.new(args, FakeHandle(self.snapshot), features)
        self.pod = make_pod("p", volumes=tuple(pod_volumes), uid=pod_uid)
        self.state = CycleState()
        _, self.pre_filter = self.plugin.pre_filter(self.state, self.pod, self.snapshot.node_infos)
        self.filter = {}
        if self.pre_filter is None and per_node:
            self.filter = {n.name: self.plugin.filter(self.state, self.pod, self.snapshot.get(n.name)) for n in NODES}

    def bind_on(self, node):
        """Reserve then PreBind on ``node``, as the scheduler does after assuming the pod there."""
        self.snapshot.bind(self.pod, node)
        return self.plugin.reserve(self.state, self.pod, node), self.plugin.pre_bind(self.state, self.pod, node)


def unresolvable(*reasons):
    return Status.unresolvable(*reasons)


# ---------------------------------------------------------------------- PreFilter


def test_a_pod_without_claims_is_skipped():
    assert Run([Volume("tmp", "emptyDir")]).pre_filter == SKIP


@pytest.mark.parametrize(
    "volumes, claims, expected",
    [
        pytest.param([claim_volume("gone")], [], 'persistentvolumeclaim "gone" not found', id="a missing claim"),
        pytest.param(
            [Volume("scratch", "ephemeral")],
            [],
            'waiting for ephemeral volume controller to create the persistentvolumeclaim "p-scratch"',
            id="a generic ephemeral volume whose claim is not created yet",
        ),
        pytest.param(
            [claim_volume("lost")],
            [make_claim("lost", volume="pv-x", phase="Lost", bound=False)],
            'persistentvolumeclaim "lost" bound to non-existent persistentvolume "pv-x"',
            id="a lost claim",
        ),
        pytest.param(
            [claim_volume("going")],
            [make_claim("going", terminating=True)],
            'persistentvolumeclaim "going" is being deleted',
            id="a claim being deleted",
        ),
        pytest.param(
            [Volume("scratch", "ephemeral")],
            [make_claim("p-scratch")],
            "PVC default/p-scratch was not created for pod default/p (pod is not owner)",
            id="an ephemeral volume's claim the pod does not own",
        ),
        pytest.param(
            [claim_volume("unbound")],
            [make_claim("unbound", storage_class="immediate")],
            "pod has unbound immediate PersistentVolumeClaims",
            id="an unbound Immediate claim",
        ),
        pytest.param(
            [claim_volume("classless")],
            [make_claim("classless")],
            "pod has unbound immediate PersistentVolumeClaims",
            id="an unbound claim without a class binds immediately",
        ),
        pytest.param(
            [claim_volume("prebound")],
            [make_claim("prebound", storage_class="wait", volume="pv", bound=False)],
            "pod has unbound immediate PersistentVolumeClaims",
            id="a claim pre-bound to a volume but not bound yet counts as immediate",
        ),
    ],
)
def test_pre_filter_rejections(volumes, claims, expected):
    assert Run(volumes, claims=claims).pre_filter == unresolvable(expected)


def test_an_ephemeral_volume_whose_claim_the_pod_owns_passes_pre_filter():
    owned = make_claim("p-scratch", volume="pv", owner_references=(OwnerReference("Pod", "p", "v1", True, "pod-uid"),))
    run = Run([Volume("scratch", "ephemeral")], claims=[owned], volumes=[make_volume("pv", claim=owned)])
    assert run.pre_filter is None
    assert run.filter == {"n1": None, "n2": None}


# ---------------------------------------------------------------------- Filter: bound claims


def test_a_bound_claims_volume_node_affinity_picks_the_node():
    claim = make_claim("data", volume="pv")
    run = Run([claim_volume("data")], claims=[claim], volumes=[make_volume("pv", claim=claim, node="n2")])
    assert run.filter == {"n1": unresolvable(NODE_CONFLICT), "n2": None}


def test_v1_32_words_the_node_affinity_conflict_as_its_code_did():
    claim = make_claim("data", volume="pv")
    v132 = rules_for(release_named("v1.32")).features
    run = Run(
        [claim_volume("data")], features=v132, claims=[claim], volumes=[make_volume("pv", claim=claim, node="n2")]
    )
    assert run.filter == {"n1": unresolvable("node(s) had volume node affinity conflict"), "n2": None}
    # the facts behind the reason (explanations) name it in the same words
    [fact] = run.plugin.filter_detail(run.state, run.pod, run.snapshot.get("n1"))
    assert fact.reason == "node(s) had volume node affinity conflict"


def test_a_claim_bound_to_a_missing_volume_rejects_every_node():
    run = Run([claim_volume("data")], claims=[make_claim("data", volume="gone")])
    assert run.filter == {"n1": unresolvable(PV_NOT_EXIST), "n2": unresolvable(PV_NOT_EXIST)}


def test_a_migrated_in_tree_volume_is_checked_after_translation():
    """A zonal GCE PD on a node whose CSINode lists the plugin as migrated: the translated affinity
    asks for topology.gke.io/zone, which n1 lacks and n2 has."""
    claim = make_claim("data", volume="pd")
    disk = make_volume(
        "pd",
        claim=claim,
        csi=None,
        source_kind="gcePersistentDisk",
        labels={LABEL_ZONE: "a"},
        in_tree=GCEPersistentDisk("disk"),
    )
    migrated = {ANN_MIGRATED_PLUGINS: "kubernetes.io/gce-pd"}
    nodes = [make_node("n1", labels={LABEL_ZONE: "a"}), make_node("n2", labels={"topology.gke.io/zone": "a"})]
    snapshot = storage_snapshot(
        nodes,
        claims=[claim],
        volumes=[disk],
        csi_nodes=[CSINode("n1", annotations=migrated), CSINode("n2", annotations=migrated)],
    )
    plugin = volume_binding.new(None, FakeHandle(snapshot))
    state, pod = CycleState(), make_pod("p", volumes=(claim_volume("data"),))
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, None)
    assert plugin.filter(state, pod, snapshot.get("n1")) == unresolvable(NODE_CONFLICT)
    assert plugin.filter(state, pod, snapshot.get("n2")) is None


def test_an_untranslatable_migrated_volume_is_an_error():
    claim = make_claim("data", volume="pd")
    disk = make_volume(
        "pd",
        claim=claim,
        csi=None,
        source_kind="gcePersistentDisk",
        labels={LABEL_ZONE: "zone-a__zone-b"},
        in_tree=GCEPersistentDisk("disk"),
    )
    run = Run(
        [claim_volume("data")],
        claims=[claim],
        volumes=[disk],
        csi_nodes=[CSINode("n1", annotations={ANN_MIGRATED_PLUGINS: "kubernetes.io/gce-pd"})],
    )
    assert run.filter["n1"] == Status(
        Code.ERROR,
        (
            "could not translate pv: failed to get region from zones: zone in unexpected format, expected: "
            "{locale}-{region}-{zone}, got: zone-a",
        ),
    )
    assert run.filter["n2"] is None  # no CSINode: not migrated there


# ---------------------------------------------------------------------- Filter: WaitForFirstConsumer


def test_an_available_volume_on_the_node_is_found():
    claim = make_claim("data", storage_class="wait")
    run = Run([claim_volume("data")], claims=[claim], volumes=[make_volume("local", storage_class="wait", node="n1")])
    assert run.filter == {"n1": None, "n2": unresolvable(BIND_CONFLICT)}


def test_two_claims_need_two_volumes():
    claims = [make_claim("a", storage_class="wait"), make_claim("b", storage_class="wait")]
    volumes = [
        make_volume("v1", storage_class="wait", node="n1"),
        make_volume("v2", storage_class="wait", node="n1"),
        make_volume("v3", storage_class="wait", node="n2"),
    ]
    run = Run([claim_volume("a", "va"), claim_volume("b", "vb")], claims=claims, volumes=volumes)
    assert run.filter == {"n1": None, "n2": unresolvable(BIND_CONFLICT)}


def test_the_smallest_claim_picks_first_and_takes_the_smallest_fitting_volume():
    claims = [make_claim("big", size_gi=5, storage_class="wait"), make_claim("small", size_gi=1, storage_class="wait")]
    volumes = [make_volume("v5", size_gi=5, storage_class="wait"), make_volume("v2", size_gi=2, storage_class="wait")]
    run = Run([claim_volume("big", "vb"), claim_volume("small", "vs")], claims=claims, volumes=volumes)
    assert run.filter == {"n1": None, "n2": None}
    assert run.plugin.binding_state_json(run.state, "n1") == {
        "allBound": False,
        "dynamicProvisions": [],
        "staticBindings": [{"claim": "default/small", "volume": "v2"}, {"claim": "default/big", "volume": "v5"}],
    }


def test_both_reasons_when_a_bound_volume_and_an_unbound_claim_fail():
    bound = make_claim("bound", volume="pv")
    claims = [bound, make_claim("wants", storage_class="wait")]
    run = Run(
        [claim_volume("bound", "vb"), claim_volume("wants", "vw")],
        claims=claims,
        volumes=[make_volume("pv", claim=bound, node="n2")],
    )
    assert run.filter["n1"] == unresolvable(NODE_CONFLICT, BIND_CONFLICT)


@pytest.mark.parametrize(
    "storage_class, expected",
    [
        pytest.param(PROVISION, {"n1": None, "n2": None}, id="a class that provisions fits every node"),
        pytest.param(
            replace(PROVISION, allowed_topologies=((TopologySelectorRequirement(LABEL_ZONE, ("b",)),),)),
            {"n1": unresolvable(BIND_CONFLICT), "n2": None},
            id="allowedTopologies limit provisioning",
        ),
        pytest.param(
            replace(PROVISION, provisioner="kubernetes.io/no-provisioner"),
            {"n1": unresolvable(BIND_CONFLICT), "n2": unresolvable(BIND_CONFLICT)},
            id="no-provisioner cannot provision",
        ),
    ],
)
def test_dynamic_provisioning(storage_class, expected):
    claim = make_claim("data", storage_class="provision")
    assert Run([claim_volume("data")], claims=[claim], classes=[storage_class]).filter == expected


def test_a_claim_being_provisioned_for_another_node_fits_only_that_node():
    claim = make_claim("data", storage_class="provision", annotations={ANN_SELECTED_NODE: "n2"})
    assert Run([claim_volume("data")], claims=[claim]).filter == {"n1": unresolvable(BIND_CONFLICT), "n2": None}


def capacity(size_gi, zone, max_size_gi=None):
    return CSIStorageCapacity(
        "kube-system",
        f"cap-{zone}",
        "provision",
        LabelSelector(((LABEL_ZONE, zone),)),
        Fraction(size_gi * GI),
        Fraction(max_size_gi * GI) if max_size_gi is not None else None,
    )


@pytest.mark.parametrize(
    "capacities, expected",
    [
        pytest.param(
            [capacity(10, "a"), capacity(1, "b")],
            {"n1": None, "n2": unresolvable(NOT_ENOUGH_SPACE)},
            id="only the node whose capacity is large enough fits",
        ),
        pytest.param(
            [capacity(100, "a", max_size_gi=2)],
            {"n1": unresolvable(NOT_ENOUGH_SPACE), "n2": unresolvable(NOT_ENOUGH_SPACE)},
            id="maximumVolumeSize wins over capacity; no capacity object means no space",
        ),
    ],
)
def test_storage_capacity_tracking(capacities, expected):
    claim = make_claim("data", size_gi=5, storage_class="provision")
    run = Run(
        [claim_volume("data")],
        claims=[claim],
        csi_drivers=[CSIDriver("csi.example.com", storage_capacity=True)],
        capacities=capacities,
    )
    assert run.filter == expected


def test_capacity_is_not_checked_for_a_driver_that_does_not_track_it():
    claim = make_claim("data", size_gi=5, storage_class="provision")
    run = Run(
        [claim_volume("data")], claims=[claim], csi_drivers=[CSIDriver("csi.example.com", storage_capacity=False)]
    )
    assert run.filter == {"n1": None, "n2": None}


# ---------------------------------------------------------------------- Reserve, PreBind, Unreserve


def test_reserve_assumes_a_static_binding_and_pre_bind_binds_it():
    claim = make_claim("data", storage_class="wait")
    run = Run([claim_volume("data")], claims=[claim], volumes=[make_volume("local", storage_class="wait", node="n1")])
    storage = run.snapshot.storage
    run.snapshot.bind(run.pod, "n1")
    assert run.plugin.reserve(run.state, run.pod, "n1") is None
    assert storage.assumed_volume("local").claim_ref.name == "data"
    assert storage.volume("local").claim_ref is None  # the informer does not see an assumption
    assert run.plugin.pre_bind_pre_flight(run.state, run.pod, "n1") is None
    assert run.plugin.pre_bind(run.state, run.pod, "n1") is None
    assert storage.claim("default", "data").volume_name == "local"
    assert storage.claim("default", "data").is_fully_bound
    assert storage.volume("local").phase == "Bound"
    changes = [(c.event.resource, c.event.action) for c in run.snapshot.cluster_changes]
    assert changes == [
        (EventResource.PERSISTENT_VOLUME, ActionType.UPDATE),
        (EventResource.PERSISTENT_VOLUME, ActionType.UPDATE),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.UPDATE),
    ]


def test_pre_bind_provisions_a_volume_pinned_to_the_node():
    claim = make_claim("data", storage_class="provision", uid="u1")
    run = Run([claim_volume("data")], claims=[claim])
    assert run.bind_on("n2") == (None, None)
    bound = run.snapshot.storage.claim("default", "data")
    assert bound.annotations[ANN_SELECTED_NODE] == "n2" and bound.volume_name == "pvc-u1"
    volume = run.snapshot.storage.volume("pvc-u1")
    assert volume.node_affinity.terms[0].match_expressions[0].values == ("n2",)
    assert volume.capacity == claim.storage_request and volume.claim_ref.uid == "u1"
    changes = [c.event.label for c in run.snapshot.cluster_changes]
    assert changes == [
        "PersistentVolumeClaimUpdate",
        "PersistentVolumeAdd",
        "PersistentVolumeUpdate",
        "PersistentVolumeClaimUpdate",
    ]


def test_a_later_pod_sees_the_volume_an_earlier_pod_reserved():
    claims = [make_claim("first", storage_class="wait"), make_claim("second", storage_class="wait")]
    volumes = [make_volume("only", storage_class="wait", node="n1")]
    run = Run([claim_volume("first")], claims=claims, volumes=volumes)
    run.snapshot.bind(run.pod, "n1")
    run.plugin.reserve(run.state, run.pod, "n1")
    later = make_pod("q", volumes=(claim_volume("second"),))
    state = CycleState()
    run.plugin.pre_filter(state, later, run.snapshot.node_infos)
    assert run.plugin.filter(state, later, run.snapshot.get("n1")) == unresolvable(BIND_CONFLICT)


def test_unreserve_reverts_the_assumed_volume():
    claim = make_claim("data", storage_class="wait")
    run = Run([claim_volume("data")], claims=[claim], volumes=[make_volume("local", storage_class="wait", node="n1")])
    run.plugin.reserve(run.state, run.pod, "n1")
    run.plugin.unreserve(run.state, run.pod, "n1")
    assert run.snapshot.storage.assumed_volume("local").claim_ref is None


def test_a_pod_whose_claims_are_bound_skips_pre_bind():
    claim = make_claim("data", volume="pv")
    run = Run([claim_volume("data")], claims=[claim], volumes=[make_volume("pv", claim=claim)])
    assert run.bind_on("n1") == (None, None)
    assert run.plugin.pre_bind_pre_flight(run.state, run.pod, "n1") == SKIP
    assert run.snapshot.cluster_changes == []


def test_a_bind_timeout_of_zero_fails_pre_bind():
    claim = make_claim("data", storage_class="provision")
    run = Run([claim_volume("data")], args={"bindTimeoutSeconds": 0}, claims=[claim])
    reserve, pre_bind = run.bind_on("n1")
    assert reserve is None
    assert pre_bind == Status(Code.ERROR, ("binding volumes: context deadline exceeded",))


# ---------------------------------------------------------------------- Filter in batch


def _batch(run):
    """filter_batch on every node, as {node: status} (None: passes)."""
    positions = np.arange(len(NODES))
    verdicts = run.plugin.filter_batch(run.state, run.pod, run.snapshot.table, positions)
    if verdicts is None:
        return {n.name: None for n in NODES}
    return {
        n.name: None if choice < 0 else verdicts.palette[choice] for n, choice in zip(NODES, verdicts.choice.tolist())
    }


BOUND_CASES = {
    "a volume on n2": lambda claim: [make_volume("pv", claim=claim, node="n2")],
    "a volume anywhere": lambda claim: [make_volume("pv", claim=claim)],
    "a missing volume": lambda claim: [],
}


@pytest.mark.parametrize("volumes", BOUND_CASES.values(), ids=BOUND_CASES.keys())
def test_claims_all_bound_are_judged_in_batch_as_node_by_node(volumes):
    claim = make_claim("data", volume="pv")
    one_by_one = Run([claim_volume("data")], claims=[claim], volumes=volumes(claim))
    batch = Run([claim_volume("data")], claims=[claim], volumes=volumes(claim), per_node=False)
    assert batch.plugin.judges_in_batch(batch.state, batch.pod)
    assert _batch(batch) == one_by_one.filter


def test_conflict_and_missing_volume_keep_the_order_the_nodes_first_answer_them():
    claim = make_claim("data", volume="pv")
    run = Run(
        [claim_volume("data")], claims=[claim], volumes=[make_volume("pv", claim=claim, node="n2")], per_node=False
    )
    verdicts = run.plugin.filter_batch(run.state, run.pod, run.snapshot.table, np.array([1, 0]))
    assert verdicts.choice.tolist() == [-1, 0] and verdicts.palette == [unresolvable(NODE_CONFLICT)]


def test_a_claim_to_bind_is_judged_node_by_node():
    run = Run([claim_volume("data")], claims=[make_claim("data", storage_class="wait")], per_node=False)
    assert run.pre_filter is None
    assert not run.plugin.judges_in_batch(run.state, run.pod)


def test_a_node_found_to_fit_in_batch_reserves_and_binds_as_one_filtered_alone():
    claim = make_claim("data", volume="pv")
    run = Run([claim_volume("data")], claims=[claim], volumes=[make_volume("pv", claim=claim)], per_node=False)
    _batch(run)
    alone = Run([claim_volume("data")], claims=[claim], volumes=[make_volume("pv", claim=claim)])
    assert run.plugin.binding_state_json(run.state, "n1") == alone.plugin.binding_state_json(alone.state, "n1")
    assert run.plugin.binding_state_json(run.state, "n1") is not None
    assert run.bind_on("n1") == (None, None)
    assert run.plugin.pre_bind_pre_flight(run.state, run.pod, "n1") == SKIP


def test_a_node_not_judged_has_nothing_to_bind():
    claim = make_claim("data", volume="pv")
    run = Run([claim_volume("data")], claims=[claim], volumes=[make_volume("pv", claim=claim)], per_node=False)
    run.plugin.filter_batch(run.state, run.pod, run.snapshot.table, np.array([0]))
    assert run.plugin.binding_state_json(run.state, "n1") is not None
    assert run.plugin.binding_state_json(run.state, "n2") is None


def test_filter_without_pre_filter_state_is_an_error():
    run = Run([])
    assert run.plugin.filter(CycleState(), run.pod, run.snapshot.get("n1")) == Status(Code.ERROR, ("not found",))


def test_volume_binding_never_scores_at_the_releases_gates():
    run = Run([])
    assert run.plugin.pre_score(run.state, run.pod, run.snapshot.node_infos) == SKIP


def test_pre_filter_state_shows_the_claims():
    claims = [make_claim("bound", volume="pv"), make_claim("wants", storage_class="wait")]
    run = Run(
        [claim_volume("bound", "vb"), claim_volume("wants", "vw")],
        claims=claims,
        volumes=[make_volume("pv", claim=claims[0]), make_volume("free", storage_class="wait")],
    )
    assert run.plugin.pre_filter_state_json(run.state) == {
        "boundClaims": [{"claim": "default/bound", "volume": "pv"}],
        "delayedClaims": [{"claim": "default/wants", "storageClass": "wait", "candidateVolumes": ["free"]}],
    }


# ---------------------------------------------------------------------- queueing hints


def test_claim_hint_queues_for_the_pods_claims_including_ephemeral_ones():
    pod = make_pod("p", volumes=(claim_volume("data"), Volume("scratch", "ephemeral")))
    assert claim_hint(pod, None, make_claim("data")) == QueueingHint.QUEUE
    assert claim_hint(pod, None, make_claim("p-scratch")) == QueueingHint.QUEUE
    assert claim_hint(pod, None, make_claim("other")) == QueueingHint.QUEUE_SKIP
    assert claim_hint(pod, None, make_claim("data", namespace="ns2")) == QueueingHint.QUEUE_SKIP


def test_storage_class_hint_queues_on_creation_or_new_allowed_topologies():
    changed = replace(PROVISION, allowed_topologies=((TopologySelectorRequirement(LABEL_ZONE, ("b",)),),))
    assert storage_class_hint(make_pod("p"), None, PROVISION) == QueueingHint.QUEUE
    assert storage_class_hint(make_pod("p"), PROVISION, changed) == QueueingHint.QUEUE
    assert (
        storage_class_hint(make_pod("p"), PROVISION, replace(PROVISION, reclaim_policy="Retain"))
        == QueueingHint.QUEUE_SKIP
    )


def test_csi_node_hint_queues_on_creation_or_a_new_migrated_plugins_annotation():
    plain, migrated = CSINode("n1"), CSINode("n1", annotations={ANN_MIGRATED_PLUGINS: "kubernetes.io/gce-pd"})
    assert csi_node_hint(make_pod("p"), None, plain) == QueueingHint.QUEUE
    assert csi_node_hint(make_pod("p"), plain, migrated) == QueueingHint.QUEUE
    assert csi_node_hint(make_pod("p"), plain, plain) == QueueingHint.QUEUE_SKIP


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(None, capacity(1, "a"), QueueingHint.QUEUE, id="a new capacity queues"),
        pytest.param(capacity(1, "a"), capacity(2, "a"), QueueingHint.QUEUE, id="a larger capacity queues"),
        pytest.param(capacity(2, "a"), capacity(1, "a"), QueueingHint.QUEUE_SKIP, id="a smaller capacity is skipped"),
        pytest.param(
            capacity(5, "a", 1),
            capacity(9, "a", 1),
            QueueingHint.QUEUE_SKIP,
            id="the maximum volume size decides when present",
        ),
    ],
)
def test_capacity_hint(old, new, expected):
    assert capacity_hint(make_pod("p"), old, new) == expected


def test_csi_driver_hint_queues_an_inline_csi_volume_when_capacity_tracking_stops():
    pod = make_pod("p", volumes=(Volume("inline", "csi", csi_driver="csi.example.com"),))
    tracking, not_tracking = CSIDriver("csi.example.com", storage_capacity=True), CSIDriver("csi.example.com")
    assert csi_driver_hint(pod, tracking, not_tracking) == QueueingHint.QUEUE
    assert csi_driver_hint(pod, not_tracking, tracking) == QueueingHint.QUEUE_SKIP
    assert csi_driver_hint(make_pod("q"), tracking, not_tracking) == QueueingHint.QUEUE_SKIP


def test_events_to_register_are_the_releases():
    registered = [
        (e.event.resource, e.event.action, e.hint is not None)
        for e in volume_binding.new(None, None).events_to_register()
    ]
    assert registered == [
        (EventResource.STORAGE_CLASS, ActionType.ADD | ActionType.UPDATE, True),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD | ActionType.UPDATE, True),
        (EventResource.PERSISTENT_VOLUME, ActionType.ADD | ActionType.UPDATE, False),
        (EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL, False),
        (EventResource.CSI_NODE, ActionType.ADD | ActionType.UPDATE, True),
        (EventResource.CSI_DRIVER, ActionType.UPDATE, True),
        (EventResource.CSI_STORAGE_CAPACITY, ActionType.ADD | ActionType.UPDATE, True),
    ]
