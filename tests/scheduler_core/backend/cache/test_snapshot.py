"""The cache's Snapshot (scheduler_core.backend.cache.snapshot): binds keep NodeInfo, the NodeTable and
the affinity node lists in step; assumed pods; nodes that come, change and go."""

from __future__ import annotations

from dataclasses import replace as replace_fields

from scheduler_core import load_scenario
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.model import (
    Affinity,
    LabelSelector,
    PodAffinity,
    PodAffinityTerm,
    Volume,
)
from tests.scheduler_core.builders import (
    make_node,
    make_pod,
    make_snapshot,
    node_text,
    pinned_spec,
    pod_text,
    scenario_text,
)


def _anti_affinity_pod(name: str):
    term = PodAffinityTerm(LabelSelector((("app", "x"),)), "kubernetes.io/hostname")
    return make_pod(
        name,
        labels={"app": "x"},
        requests={"cpu": 100},
        affinity=Affinity(pod_anti_affinity=PodAffinity(required=(term,))),
    )


def test_bind_and_unbind_keep_the_affinity_lists_in_snapshot_order():
    snapshot = make_snapshot([make_node(f"n{i}") for i in range(4)])
    assert snapshot.have_pods_with_affinity() == []
    for node in ("n2", "n0", "n3"):
        snapshot.bind(_anti_affinity_pod(f"p-{node}"), node)
    assert [n.name for n in snapshot.have_pods_with_affinity()] == ["n0", "n2", "n3"]
    assert [n.name for n in snapshot.have_pods_with_required_anti_affinity()] == ["n0", "n2", "n3"]
    pod = snapshot.by_name["n2"].pods[0].pod
    snapshot.unbind(pod)
    assert [n.name for n in snapshot.have_pods_with_affinity()] == ["n0", "n3"]
    assert pod.node_name == ""


def test_bind_and_unbind_keep_the_node_table_equal_to_the_node_infos():
    snapshot = make_snapshot([make_node("a"), make_node("b")])
    table = snapshot.table
    pod = make_pod("p", requests={"cpu": 250, "memory": 1 << 20})
    snapshot.bind(pod, "b")
    assert table.requested_of("cpu").tolist() == [0, 250]
    assert table.pod_count.tolist() == [0, 1]
    snapshot.unbind(pod)
    assert table.requested_of("cpu").tolist() == [0, 0]
    assert table.pod_count.tolist() == [0, 0]
    assert table.non_zero_cpu.tolist() == [0, 0]


def test_nodes_count_the_claims_their_pods_use_for_is_pvc_used_by_pods():
    user = make_pod("user", volumes=(Volume("a", "persistentVolumeClaim", claim_name="data"), Volume("b", "ephemeral")))
    snapshot = make_snapshot([make_node("n1"), make_node("n2")])
    snapshot.bind(user, "n2")
    assert snapshot.get("n2").pvc_ref_counts == {"default/data": 1}  # ephemeral volumes are not counted
    assert snapshot.is_pvc_used_by_pods("default/data") and not snapshot.is_pvc_used_by_pods("other/data")
    clone = snapshot.get("n2").clone()
    clone.remove_pod(user)
    assert clone.pvc_ref_counts == {} and snapshot.get("n2").pvc_ref_counts == {"default/data": 1}
    snapshot.unbind(user)
    assert not snapshot.is_pvc_used_by_pods("default/data")


def test_the_snapshot_adds_updates_and_removes_nodes_and_rebuilds_its_views():
    """The cache's AddNode / UpdateNode / RemoveNode (runs with steps): a new node list, so views
    compared by identity (the NodeTable, plugins' per-table caches) are rebuilt."""
    snapshot = make_snapshot([make_node("a"), make_node("b")], [make_pod("p", node="b")])
    before, table = snapshot.node_infos, snapshot.table
    snapshot.add_node(make_node("c"))
    assert [i.name for i in snapshot.node_infos] == ["a", "b", "c"] and snapshot.node_infos is not before
    assert snapshot.table is not table and snapshot.table.names == ["a", "b", "c"]
    snapshot.update_node(replace_fields(snapshot.get("b").node, labels={"zone": "z"}))
    assert snapshot.get("b").node.labels == {"zone": "z"} and len(snapshot.get("b").pods) == 1
    assert snapshot.table.labels("zone").values == ["z"]
    snapshot.remove_node("b")
    assert snapshot.get("b") is None and snapshot.position == {"a": 0, "c": 1}


def test_an_updated_node_keeps_the_name_maps_and_image_states_a_rebuilt_snapshot_would_have():
    """UpdateNode copies the name maps and keeps the image states when the node's images did not
    change (a cordon): the same as every view built anew; a changed image list is indexed again."""
    from scheduler_core.model import ContainerImage

    image = ContainerImage(("img:1",), 300)
    nodes = [make_node("a", images=(image,)), make_node("b", images=(image,)), make_node("c")]
    snapshot = make_snapshot(nodes)
    by_name, position = snapshot.by_name, snapshot.position
    snapshot.update_node(replace_fields(snapshot.get("b").node, unschedulable=True))
    assert snapshot.by_name == by_name and snapshot.by_name is not by_name and snapshot.position == position
    assert snapshot.get("a").image_sizes == {"img:1": (300, 2)} == snapshot.get("b").image_sizes
    snapshot.update_node(replace_fields(snapshot.get("c").node, images=(image,)))
    assert [snapshot.get(n).image_sizes for n in "abc"] == [{"img:1": (300, 3)}] * 3
    snapshot.update_node(replace_fields(snapshot.get("a").node, images=()))
    rebuilt = make_snapshot([info.node for info in snapshot.node_infos])
    assert [i.image_sizes for i in snapshot.node_infos] == [i.image_sizes for i in rebuilt.node_infos]
    assert snapshot.get("a").image_sizes == {} and snapshot.get("b").image_sizes == {"img:1": (300, 2)}


def test_the_cache_gives_back_an_assumed_pod_on_its_node_until_it_is_forgotten():
    # The cache's GetPod for an assumed pod (handleAssumedPodDeletion reads it).
    snapshot = make_snapshot([make_node("n1"), make_node("n2")])
    pod = make_pod("p")
    snapshot.bind(pod, "n2")
    assumed = snapshot.assumed_pod("default/p")
    assert assumed is pod and assumed.node_name == "n2"
    snapshot.unbind(assumed)
    assert snapshot.assumed_pod("default/p") is None and snapshot.get("n2").pods == []


def test_running_pods_of_one_template_share_their_computed_requests_but_not_their_pod():
    text = scenario_text(
        node_text("n0"),
        node_text("n1"),
        pod_text("a", cpu="1", node_name="n0"),
        pod_text("b", cpu="1", node_name="n1"),
        pod_text("c", cpu="2", node_name="n1"),
        pod_text("d", cpu="1", node_name="n1", labels="{app: x}", spec=pinned_spec("n1")),
    )
    snapshot = Snapshot.from_scenario(load_scenario(text))
    infos = {info.pod.name: info for node in snapshot.node_infos for info in node.pods}
    assert [infos[name].pod.name for name in "abcd"] == list("abcd")
    assert infos["a"].requests is infos["b"].requests  # one spec, decoded once: summed once
    assert infos["c"].requests is not infos["a"].requests and infos["c"].requests["cpu"] == 2000
    assert infos["d"].requests == infos["a"].requests  # another spec (node affinity): its own
    assert snapshot.by_name["n1"].requested["cpu"] == 4000
