from scheduler_core.cluster import volume_controller
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.model import ANN_SELECTED_NODE, ClaimRef
from tests.scheduler_core.builders import make_claim, make_class, make_node, make_volume, storage_snapshot

NODE = make_node("n1", labels={"kubernetes.io/hostname": "host-1"})


# The snapshot's caches are informers of its API server (``snapshot.api``): the controller writes
# there and the caches follow; what it tells the scheduler's handlers waits in cluster_changes.


def labels(snapshot):
    return [(c.event.label, getattr(c.new, "name", None)) for c in snapshot.cluster_changes]


def test_a_claim_the_scheduler_selected_a_node_for_is_provisioned_there_and_bound():
    claim = make_claim("data", storage_class="wffc", uid="u9", annotations={ANN_SELECTED_NODE: "n1"})
    snapshot = storage_snapshot([NODE], claims=[claim], classes=[make_class("wffc", reclaim_policy="Retain")])
    volume_controller.settle(snapshot.api, ObjectWrites(snapshot.api), ["default/data"])
    volume = snapshot.storage.volume("pvc-u9")
    assert (volume.claim_ref, volume.phase, volume.reclaim_policy, volume.csi.driver) == (
        ClaimRef("default", "data", "u9"),
        "Bound",
        "Retain",
        "csi.example.com",
    )
    assert volume.node_affinity.terms[0].match_expressions[0].values == ("host-1",)  # the node's hostname label
    bound = snapshot.storage.claim("default", "data")
    assert (bound.volume_name, bound.phase, bound.is_fully_bound, bound.capacity) == (
        "pvc-u9",
        "Bound",
        True,
        claim.storage_request,
    )
    assert labels(snapshot) == [
        ("PersistentVolumeAdd", "pvc-u9"),
        ("PersistentVolumeUpdate", "pvc-u9"),
        ("PersistentVolumeClaimUpdate", "data"),
    ]


def test_a_volume_the_scheduler_pre_bound_binds_its_claim():
    claim = make_claim("data", storage_class="wffc")
    snapshot = storage_snapshot([NODE], claims=[claim], volumes=[make_volume("pv", claim=claim, phase="Available")])
    volume_controller.settle(snapshot.api, ObjectWrites(snapshot.api), ["default/data"])
    assert snapshot.storage.claim("default", "data").volume_name == "pv"
    assert labels(snapshot) == [("PersistentVolumeUpdate", "pv"), ("PersistentVolumeClaimUpdate", "data")]


def test_an_immediate_claim_stays_unbound():
    claim = make_claim("data", storage_class="now", annotations={ANN_SELECTED_NODE: "n1"})
    snapshot = storage_snapshot([NODE], claims=[claim], classes=[make_class("now", wait=False)])
    volume_controller.settle(snapshot.api, ObjectWrites(snapshot.api), ["default/data"])
    assert snapshot.storage.claim("default", "data").volume_name == "" and snapshot.cluster_changes == []


def test_nothing_is_provisioned_for_a_class_that_does_not_provision():
    claim = make_claim("data", storage_class="local", annotations={ANN_SELECTED_NODE: "n1"})
    snapshot = storage_snapshot(
        [NODE], claims=[claim], classes=[make_class("local", provisioner="kubernetes.io/no-provisioner")]
    )
    volume_controller.settle(snapshot.api, ObjectWrites(snapshot.api), ["default/data"])
    assert snapshot.cluster_changes == []


def test_an_in_tree_provisioner_provisions_under_its_csi_driver_and_names_never_collide():
    claim = make_claim("data", storage_class="gce", uid="", annotations={ANN_SELECTED_NODE: "n1"})
    snapshot = storage_snapshot(
        [NODE],
        claims=[claim],
        volumes=[make_volume("pvc-default-data")],
        classes=[make_class("gce", provisioner="kubernetes.io/gce-pd")],
    )
    volume_controller.settle(snapshot.api, ObjectWrites(snapshot.api), ["default/data"])
    volume = snapshot.storage.volume("pvc-default-data-2")
    assert volume.csi.driver == "pd.csi.storage.gke.io"
