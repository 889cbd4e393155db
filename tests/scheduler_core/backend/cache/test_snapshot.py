"""The cache's Snapshot (scheduler_core.backend.cache.snapshot): binds keep NodeInfo, the NodeTable and
the affinity node lists in step; assumed pods; nodes that come, change and go."""

from __future__ import annotations

from dataclasses import replace as replace_fields
from pathlib import Path

from scheduler_core import load_scenario
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.framework.node_info import PodInfo
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


def _dump_pod(
    name: str,
    node: str,
    cpu: str = "1",
    status: str = "",
    extra_spec: str = "",
    labels: str = "{app: w}",
    container: str = "",
) -> str:
    """A running pod as kubectl dumps it: its own service-account volume, its container named apart
    (as copies of a workload can be) and a container status."""
    container = container or f"app-{name}"
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {labels}}}
spec:
  nodeName: {node}
  containers:
  - name: {container}
    resources: {{requests: {{cpu: "{cpu}"}}}}
    ports: [{{containerPort: 80, hostPort: 8080}}]
    volumeMounts: [{{name: kube-api-access-{name}, mountPath: /var/run/secrets}}]
  volumes: [{{name: kube-api-access-{name}, projected: {{sources: []}}}}]
{extra_spec}status:
  phase: Running
  containerStatuses:
  - name: {container}
    allocatedResources: {{cpu: "{cpu}"}}
{status}"""


ANTI_AFFINITY = """  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {labelSelector: {matchLabels: {app: w}}, topologyKey: kubernetes.io/hostname}
"""


def _infos(*pods: str) -> dict:
    nodes = [node_text(f"n{i}") for i in range(len(pods))]
    snapshot = Snapshot.from_scenario(load_scenario(scenario_text(*nodes, *pods)))
    return {info.pod.name: info for node in snapshot.node_infos for info in node.pods}


def test_pods_of_a_real_dump_share_computed_parts_when_everything_podinfo_reads_is_equal():
    """Each pod of a kubectl dump mounts its own volume and has a status: equal by value, not by
    identity. A status without `resources` (no resize under way) and the containers' names do not count."""
    infos = _infos(
        _dump_pod("a", "n0"),
        _dump_pod("b", "n1"),
        _dump_pod("c", "n2", cpu="2"),
        _dump_pod("d", "n3", extra_spec=ANTI_AFFINITY),
        _dump_pod("e", "n4", extra_spec=ANTI_AFFINITY),
        _dump_pod("f", "n5", extra_spec=ANTI_AFFINITY, labels="{app: w, tier: x}"),
    )
    assert infos["a"].requests is infos["b"].requests and infos["a"].host_ports == (("0.0.0.0", "TCP", 8080),)
    assert infos["c"].requests is not infos["a"].requests and infos["c"].requests["cpu"] == 2000
    assert infos["d"].required_anti_affinity_terms is infos["e"].required_anti_affinity_terms
    assert infos["f"].required_anti_affinity_terms is not infos["d"].required_anti_affinity_terms  # its own labels
    assert infos["d"].requests == infos["a"].requests and infos["d"].pod.name == "d"


def test_pods_being_resized_share_only_with_the_same_resize_state():
    actuated = "    resources: {{requests: {{cpu: {cpu}}}}}\n"
    infos = _infos(
        _dump_pod("a", "n0", status=actuated.format(cpu='"3"'), container="app"),
        _dump_pod("b", "n1", status=actuated.format(cpu='"3"'), container="app"),
        _dump_pod("c", "n2", status=actuated.format(cpu='"2"'), container="app"),
        _dump_pod("d", "n3", status=actuated.format(cpu='"3"')),  # its container named apart
        _dump_pod("e", "n4", container="app"),
    )
    assert infos["a"].requests is infos["b"].requests and infos["a"].requests["cpu"] == 3000
    assert infos["c"].requests["cpu"] == 2000 and infos["e"].requests["cpu"] == 1000
    assert infos["d"].requests is not infos["a"].requests and infos["d"].requests == infos["a"].requests


FILES = Path(__file__).resolve().parents[3] / "fixtures" / "dumps"
SHARED = Path(__file__).resolve().parents[4].parent / "shared"
TERMS = (
    "required_affinity_terms",
    "required_anti_affinity_terms",
    "preferred_affinity_terms",
    "preferred_anti_affinity_terms",
)


def test_every_podinfo_of_the_real_dumps_and_the_corpora_is_what_the_pod_alone_gives():
    """Shared or not, a running pod's PodInfo holds what PodInfo(pod) computes for it."""
    paths = [*FILES.glob("*.yaml"), *FILES.glob("*.json"), *(SHARED / "conformance" / "public").glob("*.yaml")]
    assert len(paths) > 100
    for path in paths:
        scenario = load_scenario(path.read_bytes())
        snapshot = Snapshot.from_scenario(scenario)
        for node in snapshot.node_infos:
            for info in node.pods:
                alone = PodInfo(info.pod)
                for part in ("requests", "non_zero_requests", "host_ports", "claim_keys"):
                    assert getattr(info, part) == getattr(alone, part), (path.name, info.pod.key, part)
                for part in TERMS:  # compile_selector is memoized: equal selectors are one Matcher, one repr
                    assert repr(getattr(info, part)) == repr(getattr(alone, part)), (path.name, info.pod.key, part)
