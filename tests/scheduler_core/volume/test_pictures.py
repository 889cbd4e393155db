import msgspec

from scheduler_core.model import LABEL_ZONE, GCEPersistentDisk, Volume
from scheduler_core.volume.pictures import (
    PodVolumePicture,
    cluster_volume,
    cluster_volume_json,
    pod_volume,
    pod_volume_json,
    pod_volumes,
    pod_volumes_json,
)
from tests.scheduler_core.builders import (
    claim_volume,
    make_claim,
    make_class,
    make_node,
    make_pod,
    make_volume,
    storage_snapshot,
)


def test_a_pods_volumes_picture_shows_each_claim_its_state_and_its_volume():
    bound = make_claim("bound", volume="pv", storage_class="wffc")
    waiting = make_claim("waiting", storage_class="wffc")
    snapshot = storage_snapshot(
        [make_node("n1")],
        claims=[bound, waiting],
        classes=[make_class("wffc")],
        volumes=[make_volume("pv", claim=bound, node="n1", labels={LABEL_ZONE: "a"})],
    )
    pod = make_pod(
        "p",
        volumes=(
            claim_volume("bound", "a"),
            claim_volume("waiting", "b"),
            claim_volume("gone", "c"),
            Volume("disk", "gcePersistentDisk", in_tree=GCEPersistentDisk("pd")),
            Volume("tmp", "emptyDir"),
        ),
    )
    pictures = pod_volumes_json(pod, snapshot.storage)
    assert [p["volume"] for p in pictures] == ["a", "b", "c", "disk"]  # the emptyDir is left out
    first = pictures[0]
    assert (first["state"], first["bindingMode"], first["requestBytes"]) == ("bound", "WaitForFirstConsumer", 1 << 30)
    assert first["persistentVolume"]["nodeAffinity"] == [
        [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]
    ]
    assert first["persistentVolume"]["topologyLabels"] == {LABEL_ZONE: "a"}
    assert (pictures[1]["state"], pictures[2]) == (
        "unbound",
        {"volume": "c", "kind": "persistentVolumeClaim", "claim": "default/gone", "state": "missing"},
    )
    assert pictures[3]["migratesTo"] == "pd.csi.storage.gke.io"


def test_a_volumes_domains_merge_its_zone_labels_and_its_node_affinity():
    from scheduler_core.volume.pictures import cluster_volume_json, volume_domains

    bound = make_claim("data", volume="pv")
    zonal = make_volume("pv", claim=bound, node="n1", labels={LABEL_ZONE: "a__b"})
    assert volume_domains(zonal) == {LABEL_ZONE: ["a", "b"], "kubernetes.io/hostname": ["n1"]}
    assert volume_domains(make_volume("anywhere")) == {}
    picture = cluster_volume_json(zonal)
    assert (picture["claim"], picture["domains"][LABEL_ZONE]) == ("default/data", ["a", "b"])


def test_a_volume_in_the_cluster_view_is_written_as_cluster_volume_declares_it():
    """Every key in declaration order (a class it lacks and a claim it has not: null), as msgspec writes it."""
    volume = make_volume("anywhere")
    picture = cluster_volume_json(volume)
    assert list(picture) == ["name", "phase", "storageClass", "claim", "domains", "capacityBytes"][: len(picture)]
    assert picture == msgspec.json.decode(msgspec.json.encode(cluster_volume(volume)))
    assert picture["claim"] is None


def test_a_pod_volume_is_written_as_pod_volume_declares_it_a_claims_nulls_kept_and_absent_keys_left_out():
    """A claim that exists writes its class, binding mode and provisioner even when null; a missing
    claim and a volume without one write none of them (UNSET), nor what they lack (None): as msgspec
    writes the declaration, keys in its order, and read back the same."""
    bound = make_claim("bound", volume="pv")  # no class: storageClass, bindingMode, provisioner null
    snapshot = storage_snapshot([make_node("n1")], claims=[bound], volumes=[make_volume("pv", claim=bound, node="n1")])
    pod = make_pod(
        "p",
        volumes=(
            claim_volume("bound", "a"),
            claim_volume("gone", "b"),
            Volume("inline", "csi", csi_driver="inline.example.com"),
        ),
    )
    typed = pod_volumes(pod, snapshot.storage)
    pictures = pod_volumes_json(pod, snapshot.storage)
    assert [list(p) for p in pictures] == [
        [
            "volume",
            "kind",
            "claim",
            "state",
            "phase",
            "storageClass",
            "accessModes",
            "bindingMode",
            "provisioner",
            "requestBytes",
            "persistentVolume",
        ],
        ["volume", "kind", "claim", "state"],
        ["volume", "kind", "driver"],
    ]
    assert (pictures[0]["storageClass"], pictures[0]["bindingMode"], pictures[0]["provisioner"]) == (None, None, None)
    assert list(pictures[0]["persistentVolume"]) == [
        "name",
        "phase",
        "storageClass",
        "accessModes",
        "nodeAffinity",
        "topologyLabels",
        "source",
        "capacityBytes",
        "driver",
    ]
    assert pictures == [msgspec.json.decode(msgspec.json.encode(p)) for p in typed]
    assert [PodVolumePicture.from_json(p) for p in pictures] == typed
    assert (
        pod_volume_json(pod, pod.volumes[2], snapshot.storage)
        == pod_volume(pod, pod.volumes[2], snapshot.storage).to_json()
    )
