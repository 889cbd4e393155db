from dataclasses import replace

import pytest

from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.model import ANN_SELECTED_NODE, Volume
from scheduler_core.plugins.volume_binding.binder import BinderError, PodVolumeClaims, PodVolumes, VolumeBinder
from tests.scheduler_core.builders import (
    claim_volume,
    make_claim,
    make_class,
    make_node,
    make_pod,
    make_volume,
    storage_snapshot,
)

CLASSES = [make_class("wait"), make_class("now", wait=False)]


def binder_for(**objects):
    objects.setdefault("classes", CLASSES)
    snapshot = storage_snapshot([make_node("n1"), make_node("n2")], **objects)
    return VolumeBinder(snapshot, 600, ObjectWrites(snapshot.api)), snapshot


def test_get_pod_volume_claims_sorts_claims_by_state():
    bound = make_claim("bound", volume="pv")
    delayed, immediate = make_claim("delayed", storage_class="wait"), make_claim("immediate", storage_class="now")
    binder, _ = binder_for(
        claims=[bound, delayed, immediate],
        volumes=[make_volume("free", storage_class="wait"), make_volume("other", storage_class="x")],
    )
    pod = make_pod(
        "p",
        volumes=(
            claim_volume("bound", "a"),
            claim_volume("delayed", "b"),
            claim_volume("immediate", "c"),
            Volume("tmp", "emptyDir"),
        ),
    )
    claims = binder.get_pod_volume_claims(pod)
    assert [c.name for c in claims.bound] == ["bound"]
    assert [c.name for c in claims.unbound_delay_binding] == ["delayed"]
    assert [c.name for c in claims.unbound_immediate] == ["immediate"]
    assert {k: [v.name for v in vs] for k, vs in claims.volumes_by_class.items()} == {"wait": ["free"]}


def test_a_claim_selected_for_another_node_stops_the_search_on_this_one():
    selected = make_claim("s", storage_class="wait", annotations={ANN_SELECTED_NODE: "n2"})
    binder, snapshot = binder_for(
        claims=[selected, make_claim("m", storage_class="wait")], volumes=[make_volume("free", storage_class="wait")]
    )
    pod = make_pod("p", volumes=(claim_volume("s", "a"), claim_volume("m", "b")))
    claims = binder.get_pod_volume_claims(pod)
    volumes, reasons = binder.find_pod_volumes(pod, claims, snapshot.get("n1").node)
    assert (volumes.static_bindings, volumes.dynamic_provisions) == ([], [])
    assert reasons == ["node(s) didn't find available persistent volumes to bind"]


def test_provisioning_that_the_controller_undid_fails_pre_bind():
    claim = make_claim("data", storage_class="wait", uid="u")
    binder, snapshot = binder_for(claims=[claim])
    pod = make_pod("p", node="n1", volumes=(claim_volume("data"),))
    volumes, _ = binder.find_pod_volumes(pod, binder.get_pod_volume_claims(pod), snapshot.get("n1").node)
    assert binder.assume_pod_volumes(pod, "n1", volumes) is False
    volumes.dynamic_provisions[0] = replace(
        volumes.dynamic_provisions[0], claim=replace(claim, annotations={ANN_SELECTED_NODE: "n2"})
    )
    with pytest.raises(BinderError, match='binding volumes: provisioning failed for PVC "data"'):
        binder.bind_pod_volumes(pod, volumes)


def test_assume_reports_all_bound_when_every_claim_is_bound():
    claim = make_claim("data", volume="pv")
    binder, _ = binder_for(claims=[claim], volumes=[make_volume("pv", claim=claim)])
    pod = make_pod("p", volumes=(claim_volume("data"), Volume("tmp", "emptyDir")))
    assert binder.assume_pod_volumes(pod, "n1", PodVolumes()) is True


def test_assume_reports_not_all_bound_when_a_claim_is_missing():
    binder, _ = binder_for()
    assert binder.assume_pod_volumes(make_pod("p", volumes=(claim_volume("gone"),)), "n1", PodVolumes()) is False


def test_pre_bind_fails_when_the_bound_volume_does_not_fit_the_node():
    """The stand-in provisioner pins the volume by kubernetes.io/hostname; a node without that label
    (kubelets always set it) then fails PreBind's check, as checkBindings would."""
    claim = make_claim("data", storage_class="wait", uid="u")
    binder, snapshot = binder_for(claims=[claim])
    pod = make_pod("p", node="n1", volumes=(claim_volume("data"),))
    volumes, _ = binder.find_pod_volumes(pod, binder.get_pod_volume_claims(pod), snapshot.get("n1").node)
    binder.assume_pod_volumes(pod, "n1", volumes)
    with pytest.raises(BinderError) as err:
        binder.bind_pod_volumes(pod, volumes)
    assert str(err.value) == (
        'binding volumes: pv "pvc-u" node affinity doesn\'t match node "n1": no matching NodeSelectorTerms'
    )


def test_bound_claim_codes_answer_as_the_node_by_node_check():
    """Every order of every choice among a zone-a volume, a zone-b volume, a volume without affinity
    and a missing one: on each node, the code is what _check_bound_claims answers there (the first claim the node
    fails decides, a missing volume only for the nodes no earlier claim refused)."""
    from itertools import permutations

    from scheduler_core.model import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm
    from scheduler_core.plugins.volume_binding.binder import BOUND_CONFLICT, BOUND_FIT, BOUND_MISSING

    def zonal(zone):
        return NodeSelector((NodeSelectorTerm((NodeSelectorRequirement("zone", "In", (zone,)),)),))

    claims = {name: make_claim(name, volume=f"pv-{name}") for name in ("a", "b", "any", "gone")}
    volumes = [
        make_volume("pv-a", claim=claims["a"], node_affinity=zonal("a")),
        make_volume("pv-b", claim=claims["b"], node_affinity=zonal("b")),
        make_volume("pv-any", claim=claims["any"]),
    ]
    nodes = [make_node("n-a", labels={"zone": "a"}), make_node("n-b", labels={"zone": "b"}), make_node("n-none")]
    snapshot = storage_snapshot(nodes, claims=list(claims.values()), volumes=volumes, classes=CLASSES)
    binder = VolumeBinder(snapshot, 600)
    expected_code = {(True, True): BOUND_FIT, (False, True): BOUND_CONFLICT, (True, False): BOUND_MISSING}
    seen = set()
    orders = [order for size in range(1, 5) for order in permutations(claims.values(), size)]
    for order in orders:
        pod_claims = PodVolumeClaims(bound=list(order))
        codes = binder.bound_claim_codes(pod_claims, snapshot.table)
        assert codes is not None
        for position, info in enumerate(snapshot.table.node_infos):
            answer = binder._check_bound_claims(pod_claims.bound, info.node)
            assert codes[position] == expected_code[answer], ([c.name for c in order], info.name)
            seen.add(int(codes[position]))
    assert seen == {BOUND_FIT, BOUND_CONFLICT, BOUND_MISSING}


def test_bound_claim_codes_leave_claims_to_bind_and_in_tree_volumes_to_the_node_by_node_check():
    from scheduler_core.model import GCEPersistentDisk

    bound, delayed = make_claim("bound", volume="pv"), make_claim("delayed", storage_class="wait")
    disk_claim = make_claim("disk", volume="pd")
    disk = make_volume(
        "pd", claim=disk_claim, csi=None, source_kind="gcePersistentDisk", in_tree=GCEPersistentDisk("d")
    )
    binder, snapshot = binder_for(claims=[bound, delayed, disk_claim], volumes=[make_volume("pv", claim=bound), disk])
    table = snapshot.table
    assert binder.bound_claim_codes(PodVolumeClaims(bound=[bound]), table) is not None
    assert binder.bound_claim_codes(PodVolumeClaims(bound=[bound], unbound_delay_binding=[delayed]), table) is None
    assert binder.bound_claim_codes(PodVolumeClaims(bound=[bound, disk_claim]), table) is None
