from dataclasses import replace

import pytest

from scheduler_core.model import (
    ANN_BOUND_BY_CONTROLLER,
    ClaimRef,
    LabelSelector,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    TopologySelectorRequirement,
)
from scheduler_core.volume import helpers
from tests.scheduler_core.builders import make_claim, make_class, make_pod, make_volume

CLAIM = make_claim("c", size_gi=5, storage_class="fast")
N1 = {"kubernetes.io/hostname": "n1"}


def fast(name, **fields):
    return make_volume(name, storage_class="fast", **fields)


@pytest.mark.parametrize(
    "volumes, expected",
    [
        pytest.param(
            [fast("big", size_gi=50), fast("small", size_gi=6), fast("tiny", size_gi=1)],
            "small",
            id="the smallest volume at least as big as the request",
        ),
        pytest.param([fast("a", size_gi=6), fast("b", size_gi=6)], "a", id="the first of equally small volumes"),
        pytest.param(
            [fast("mine", size_gi=50, claim=CLAIM, phase="Bound"), fast("small", size_gi=6)],
            "mine",
            id="a volume pre-bound to the claim wins, whatever its size",
        ),
        pytest.param(
            [fast("mine", size_gi=50, claim=CLAIM, node="n2"), fast("small", size_gi=6)],
            None,
            id="a pre-bound volume that misses the node means no match at all",
        ),
        pytest.param([fast("taken", size_gi=6, claim=make_claim("other"))], None, id="a volume bound to another claim"),
        pytest.param([fast("pending", size_gi=6, phase="Pending")], None, id="a volume not Available"),
        pytest.param([make_volume("other", size_gi=6, storage_class="slow")], None, id="a volume of another class"),
        pytest.param([fast("far", size_gi=6, node="n2")], None, id="a volume whose node affinity misses the node"),
        pytest.param([fast("rox", size_gi=6, modes=("ReadOnlyMany",))], None, id="a volume without the access modes"),
        pytest.param([fast("block", size_gi=6, volume_mode="Block")], None, id="a volume of another volume mode"),
        pytest.param([fast("going", size_gi=6, terminating=True)], None, id="a volume being deleted"),
        pytest.param(
            [fast("vac", size_gi=6, volume_attributes_class_name="gold")],
            None,
            id="a volume of another volume attributes class",
        ),
    ],
)
def test_find_matching_volume(volumes, expected):
    found = helpers.find_matching_volume(CLAIM, volumes, N1, {})
    assert (found.name if found else None) == expected


def test_find_matching_volume_skips_excluded_volumes_and_honours_the_selector():
    selective = replace(CLAIM, selector=LabelSelector((("tier", "gold"),)))
    gold, plain = fast("gold", size_gi=9, labels={"tier": "gold"}), fast("plain", size_gi=6)
    assert helpers.find_matching_volume(selective, [plain, gold], N1, {}).name == "gold"
    assert helpers.find_matching_volume(selective, [plain, gold], N1, {"gold": gold}) is None


@pytest.mark.parametrize(
    "selector, labels, expected",
    [
        pytest.param(None, {}, True, id="no node affinity fits every node"),
        pytest.param(
            NodeSelector((NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("a",)),)),)),
            {"zone": "a"},
            True,
            id="a matching term fits",
        ),
        pytest.param(
            NodeSelector((NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("a",)),)),)),
            {"zone": "b"},
            False,
            id="no matching term does not fit",
        ),
        pytest.param(NodeSelector((NodeSelectorTerm(),)), {"zone": "a"}, False, id="an empty term matches nothing"),
        pytest.param(
            NodeSelector((NodeSelectorTerm((), (NodeSelectorRequirement("metadata.name", "In", ("other",)),)),)),
            {},
            True,
            id="match fields are not checked: the node is known by its labels only",
        ),
    ],
)
def test_check_node_affinity(selector, labels, expected):
    assert helpers.check_node_affinity(make_volume("v", node_affinity=selector), labels) is expected


def test_bind_volume_to_claim_sets_the_claim_ref_and_the_bound_by_controller_annotation():
    volume, dirty = helpers.bind_volume_to_claim(fast("v"), CLAIM)
    assert dirty and volume.claim_ref == ClaimRef("default", "c", "uid-c")
    assert volume.annotations == {ANN_BOUND_BY_CONTROLLER: "yes"}
    assert helpers.bind_volume_to_claim(volume, CLAIM) == (volume, False)


def test_a_user_pre_bound_volume_is_not_marked_bound_by_controller():
    pre_bound = fast("v", claim=CLAIM)
    volume, dirty = helpers.bind_volume_to_claim(pre_bound, CLAIM)
    assert (volume, dirty) == (pre_bound, False)


@pytest.mark.parametrize(
    "terms, labels, expected",
    [
        pytest.param((), {}, True, id="no allowed topologies allow every node"),
        pytest.param(((TopologySelectorRequirement("zone", ("a", "b")),),), {"zone": "b"}, True, id="a value listed"),
        pytest.param(((TopologySelectorRequirement("zone", ("a",)),),), {"zone": "b"}, False, id="a value not listed"),
        pytest.param(
            ((TopologySelectorRequirement("zone", ("a",)), TopologySelectorRequirement("rack", ("1",))),),
            {"zone": "a"},
            False,
            id="every expression of a term must hold",
        ),
        pytest.param(
            ((), (TopologySelectorRequirement("zone", ("a",)),)),
            {"zone": "a"},
            True,
            id="terms are ORed and an empty term matches nothing",
        ),
    ],
)
def test_match_topology_selector_terms(terms, labels, expected):
    assert helpers.match_topology_selector_terms(terms, labels) is expected


@pytest.mark.parametrize(
    "classes, claim, expected",
    [
        pytest.param([make_class("fast")], CLAIM, True, id="a WaitForFirstConsumer class delays binding"),
        pytest.param([make_class("fast", wait=False)], CLAIM, False, id="an Immediate class does not"),
        pytest.param([], CLAIM, False, id="a missing class binds immediately"),
        pytest.param([make_class("fast")], make_claim("x"), False, id="no class binds immediately"),
        pytest.param(
            [make_class("beta")],
            make_claim("x", storage_class="fast", annotations={"volume.beta.kubernetes.io/storage-class": "beta"}),
            True,
            id="the beta class annotation wins over spec.storageClassName",
        ),
    ],
)
def test_is_delay_binding_mode(classes, claim, expected):
    assert helpers.is_delay_binding_mode(claim, {c.name: c for c in classes}) is expected


def test_ephemeral_claim_must_be_controlled_by_the_pod():
    pod = make_pod("p", uid="u1")
    owned = make_claim("p-v", owner_references=(OwnerReference("Pod", "p", "v1", True, "u1"),))
    not_controller = make_claim("p-v", owner_references=(OwnerReference("Pod", "p", "v1", False, "u1"),))
    assert helpers.ephemeral_claim_error(pod, owned) is None
    assert (
        helpers.ephemeral_claim_error(pod, not_controller)
        == "PVC default/p-v was not created for pod default/p (pod is not owner)"
    )
