"""PodTopologySpread PreFilter/Filter: domains counted, skew checked, preemption updates."""

from __future__ import annotations

import msgspec

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.model import (
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
)
from scheduler_core.plugins import pod_topology_spread
from scheduler_core.plugins.pod_topology_spread.filtering import (
    ConstraintCounts,
    REASON_CONSTRAINTS_NOT_MATCH,
    REASON_NODE_LABEL_NOT_MATCH,
)
from scheduler_core.plugins.pod_topology_spread.plugin import _PRE_FILTER_STATE as PTS_STATE
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot

FOO = LabelSelector(match_labels=(("foo", "bar"),))
REJECTED = Status.unschedulable(REASON_CONSTRAINTS_NOT_MATCH)
MISSING_LABEL = Status.unresolvable(REASON_NODE_LABEL_NOT_MATCH)


def hard(key: str, max_skew: int = 1, selector=FOO, **fields) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(
        max_skew=max_skew, topology_key=key, when_unsatisfiable="DoNotSchedule", label_selector=selector, **fields
    )


def seed_nodes(count: int = 4):
    """The seed document's cluster: node1, node2 in zoneA, node3, node4 in zoneB."""
    zones = ["zoneA", "zoneA", "zoneB", "zoneB"]
    return [
        make_node(f"node{i}", {"kubernetes.io/hostname": f"node{i}", "node": f"node{i}", "zone": zones[i - 1]})
        for i in range(1, count + 1)
    ]


def running(placement: dict[str, int], labels=None, namespace: str = "default"):
    pods = []
    for node, count in placement.items():
        pods += [make_pod(f"{node}-p{i}", namespace, labels or {"foo": "bar"}, node=node) for i in range(count)]
    return pods


def run_filters(nodes, pods, pod, args=None):
    snapshot = make_snapshot(nodes, pods)
    plugin = pod_topology_spread.new(args, FakeHandle(snapshot))
    state = CycleState()
    _, status = plugin.pre_filter(state, pod, snapshot.node_infos)
    if status is not None:
        return plugin, state, status, {}
    verdicts = {info.name: plugin.filter(state, pod, info) for info in snapshot.node_infos}
    return plugin, state, None, verdicts


FILTER_CASES = [
    pytest.param(
        seed_nodes(),
        running({"node1": 1, "node2": 1, "node3": 1}),
        [hard("zone")],
        {"node1": REJECTED, "node2": REJECTED, "node3": None, "node4": None},
        id="one zone constraint leaves only zoneB feasible (seed example)",
    ),
    pytest.param(
        seed_nodes(),
        running({"node1": 1, "node2": 1, "node3": 1}),
        [hard("zone"), hard("node")],
        {"node1": REJECTED, "node2": REJECTED, "node3": REJECTED, "node4": None},
        id="zone and node constraints together leave only node4 (seed example)",
    ),
    pytest.param(
        seed_nodes(3),
        running({"node1": 2, "node2": 1, "node3": 2}),
        [hard("zone"), hard("node")],
        {"node1": REJECTED, "node2": REJECTED, "node3": REJECTED},
        id="a conflicting pair of constraints leaves the pod pending (seed example)",
    ),
    pytest.param(
        [*seed_nodes(3), make_node("node4", {"node": "node4"})],
        running({"node1": 1}),
        [hard("zone")],
        {"node1": REJECTED, "node2": REJECTED, "node3": None, "node4": MISSING_LABEL},
        id="a node without the topology key is unresolvable",
    ),
    pytest.param(
        seed_nodes(),
        running({"node1": 1, "node2": 1, "node3": 1}),
        [hard("zone", selector=None)],
        {"node1": None, "node2": None, "node3": None, "node4": None},
        id="a constraint without a selector counts nothing and the pod does not match itself",
    ),
    pytest.param(
        seed_nodes(),
        running({"node1": 1, "node3": 1}, namespace="other"),
        [hard("zone")],
        {"node1": None, "node2": None, "node3": None, "node4": None},
        id="pods of another namespace are not counted",
    ),
]


@pytest.mark.parametrize("nodes, pods, constraints, expected", FILTER_CASES)
def test_filter_verdicts(nodes, pods, constraints, expected):
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=tuple(constraints))
    _, _, status, verdicts = run_filters(nodes, pods, pod)
    assert status is None
    assert verdicts == expected


def test_pre_filter_state_picture_has_domains_counts_and_global_minimum():
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone"), hard("node")))
    plugin, state, _, _ = run_filters(seed_nodes(), running({"node1": 1, "node2": 1, "node3": 1}), pod)
    assert plugin.pre_filter_state_json(state) == [
        {"topologyKey": "zone", "maxSkew": 1, "minDomains": 1, "matchNum": {"zoneA": 2, "zoneB": 1}, "minMatchNum": 1},
        {
            "topologyKey": "node",
            "maxSkew": 1,
            "minDomains": 1,
            "matchNum": {"node1": 1, "node2": 1, "node3": 1, "node4": 0},
            "minMatchNum": 0,
        },
    ]


@pytest.mark.parametrize(
    "constraints",
    [
        pytest.param((), id="a pod without constraints skips"),
        pytest.param(
            (TopologySpreadConstraint(1, "zone", "ScheduleAnyway", FOO),), id="a pod with only soft constraints skips"
        ),
    ],
)
def test_pre_filter_skips_without_hard_constraints(constraints):
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=constraints)
    plugin, state, status, _ = run_filters(seed_nodes(), [], pod)
    assert status == SKIP
    assert plugin.pre_filter_state_json(state) is None


@pytest.mark.parametrize(
    "min_domains, expected_min, node3_verdict",
    [
        pytest.param(None, 2, None, id="without minDomains the global minimum is the smallest domain count"),
        pytest.param(3, 0, REJECTED, id="with fewer domains than minDomains the global minimum is zero"),
        pytest.param(2, 2, None, id="with exactly minDomains domains the smallest count is the minimum"),
    ],
)
def test_min_domains(min_domains, expected_min, node3_verdict):
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone", min_domains=min_domains),))
    plugin, state, _, verdicts = run_filters(seed_nodes(), running({"node1": 2, "node3": 2}), pod)
    assert plugin.pre_filter_state_json(state)[0]["minMatchNum"] == expected_min
    # Both zones hold 2 matching pods: node3 passes only when the minimum is 2.
    assert verdicts["node3"] == node3_verdict


def test_min_domains_makes_the_only_domain_reject_once_it_is_full():
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone", min_domains=2),))
    nodes = [make_node("a", {"zone": "z1"}), make_node("b", {"zone": "z1"})]
    _, _, _, verdicts = run_filters(nodes, running({"a": 1}), pod)
    assert verdicts == {"a": REJECTED, "b": REJECTED}


@pytest.mark.parametrize(
    "policy, expected_match_num",
    [
        pytest.param(None, {"zoneA": 2}, id="nodeAffinityPolicy Honor (default) counts only nodes the pod may use"),
        pytest.param("Ignore", {"zoneA": 2, "zoneB": 5}, id="nodeAffinityPolicy Ignore counts every node"),
    ],
)
def test_node_affinity_policy(policy, expected_match_num):
    pod = make_pod(
        "mypod",
        labels={"foo": "bar"},
        node_selector={"disk": "ssd"},
        topology_spread_constraints=(hard("zone", node_affinity_policy=policy),),
    )
    nodes = [make_node("a", {"zone": "zoneA", "disk": "ssd"}), make_node("b", {"zone": "zoneB"})]
    plugin, state, _, _ = run_filters(nodes, running({"a": 2, "b": 5}), pod)
    assert plugin.pre_filter_state_json(state)[0]["matchNum"] == expected_match_num


def test_node_affinity_policy_honours_required_node_affinity_terms():
    term = NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("zoneB",)),))
    pod = make_pod(
        "mypod",
        labels={"foo": "bar"},
        affinity=Affinity(node_affinity=NodeAffinity(required=NodeSelector((term,)))),
        topology_spread_constraints=(hard("zone"),),
    )
    nodes = [make_node("a", {"zone": "zoneA"}), make_node("b", {"zone": "zoneB"})]
    plugin, state, _, _ = run_filters(nodes, running({"a": 2, "b": 5}), pod)
    assert plugin.pre_filter_state_json(state)[0]["matchNum"] == {"zoneB": 5}


@pytest.mark.parametrize(
    "policy, tolerations, expected_match_num",
    [
        pytest.param(
            None, (), {"zoneA": 2, "zoneB": 5, "zoneC": 1}, id="nodeTaintsPolicy Ignore (default) counts tainted nodes"
        ),
        pytest.param(
            "Honor",
            (),
            {"zoneA": 2, "zoneC": 1},
            id="nodeTaintsPolicy Honor leaves out nodes with untolerated NoSchedule taints",
        ),
        pytest.param(
            "Honor",
            (Toleration("dedicated", "Exists"),),
            {"zoneA": 2, "zoneB": 5, "zoneC": 1},
            id="nodeTaintsPolicy Honor keeps nodes whose taints the pod tolerates",
        ),
    ],
)
def test_node_taints_policy(policy, tolerations, expected_match_num):
    pod = make_pod(
        "mypod",
        labels={"foo": "bar"},
        tolerations=tolerations,
        topology_spread_constraints=(hard("zone", node_taints_policy=policy),),
    )
    nodes = [
        make_node("a", {"zone": "zoneA"}),
        make_node("b", {"zone": "zoneB"}, taints=(Taint("dedicated", "x", "NoSchedule"),)),
        make_node("c", {"zone": "zoneC"}, taints=(Taint("soft", "x", "PreferNoSchedule"),)),
    ]
    plugin, state, _, _ = run_filters(nodes, running({"a": 2, "b": 5, "c": 1}), pod)
    assert plugin.pre_filter_state_json(state)[0]["matchNum"] == expected_match_num


def test_nodes_must_carry_every_hard_constraint_key_to_be_counted():
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone"), hard("rack")))
    nodes = [make_node("a", {"zone": "zoneA", "rack": "r1"}), make_node("b", {"zone": "zoneB"})]
    plugin, state, _, verdicts = run_filters(nodes, running({"a": 1, "b": 3}), pod)
    assert [c["matchNum"] for c in plugin.pre_filter_state_json(state)] == [{"zoneA": 1}, {"r1": 1}]
    assert verdicts["b"] == MISSING_LABEL


@pytest.mark.parametrize(
    "pod_labels, expected",
    [
        pytest.param(
            {"foo": "bar", "version": "v2"},
            {"zoneA": 1, "zoneB": 0},
            id="matchLabelKeys narrows the selector to the pod's own value",
        ),
        pytest.param(
            {"foo": "bar"}, {"zoneA": 3, "zoneB": 0}, id="matchLabelKeys is ignored for a key the pod does not carry"
        ),
    ],
)
def test_match_label_keys(pod_labels, expected):
    pods = [
        make_pod("v1-a", labels={"foo": "bar", "version": "v1"}, node="a"),
        make_pod("v1-b", labels={"foo": "bar", "version": "v1"}, node="a"),
        make_pod("v2-a", labels={"foo": "bar", "version": "v2"}, node="a"),
    ]
    pod = make_pod(
        "mypod", labels=pod_labels, topology_spread_constraints=(hard("zone", match_label_keys=("version",)),)
    )
    nodes = [make_node("a", {"zone": "zoneA"}), make_node("b", {"zone": "zoneB"})]
    plugin, state, _, _ = run_filters(nodes, pods, pod)
    assert plugin.pre_filter_state_json(state)[0]["matchNum"] == expected


def test_list_defaulting_applies_hard_default_constraints_with_the_service_selector():
    from scheduler_core.model import Service

    args = {
        "defaultingType": "List",
        "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
    }
    nodes = seed_nodes()
    snapshot = make_snapshot(
        nodes, running({"node1": 2}, labels={"app": "web"}), services=[Service("default", "web", {"app": "web"})]
    )
    plugin = pod_topology_spread.new(args, FakeHandle(snapshot))
    pod = make_pod("mypod", labels={"app": "web"})
    state = CycleState()
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, None)
    assert plugin.pre_filter_state_json(state)[0]["matchNum"] == {"zoneA": 2, "zoneB": 0}
    assert plugin.filter(state, pod, snapshot.by_name["node1"]) == REJECTED


def test_preemption_updates_work_on_a_clone_and_move_the_minimum():
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone"),))
    pods = running({"node1": 2, "node3": 1})
    plugin, state, _, verdicts = run_filters(seed_nodes(), pods, pod)
    snapshot = plugin._handle.snapshot
    assert verdicts["node1"] == REJECTED

    trial = state.clone()
    victim = snapshot.by_name["node1"].pods[0]
    assert plugin.remove_pod(trial, pod, victim, snapshot.by_name["node1"]) is None
    assert plugin.filter(trial, pod, snapshot.by_name["node1"]) is None
    assert plugin.pre_filter_state_json(trial)[0]["matchNum"] == {"zoneA": 1, "zoneB": 1}
    # The original state is untouched.
    assert plugin.pre_filter_state_json(state)[0]["matchNum"] == {"zoneA": 2, "zoneB": 1}

    added = PodInfo(make_pod("new", labels={"foo": "bar"}, node="node4"))
    assert plugin.add_pod(trial, pod, added, snapshot.by_name["node4"]) is None
    assert plugin.pre_filter_state_json(trial)[0] == {
        "topologyKey": "zone",
        "maxSkew": 1,
        "minDomains": 1,
        "matchNum": {"zoneA": 1, "zoneB": 2},
        "minMatchNum": 1,
    }


def test_preemption_updates_ignore_pods_of_other_namespaces_and_non_matching_pods():
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone"),))
    plugin, state, _, _ = run_filters(seed_nodes(), running({"node1": 1}), pod)
    node1 = plugin._handle.snapshot.by_name["node1"]
    plugin.add_pod(state, pod, PodInfo(make_pod("x", "other", {"foo": "bar"}, node="node1")), node1)
    plugin.add_pod(state, pod, PodInfo(make_pod("y", labels={"foo": "baz"}, node="node1")), node1)
    assert plugin.pre_filter_state_json(state)[0]["matchNum"] == {"zoneA": 1, "zoneB": 0}


def test_counts_follow_pods_bound_between_cycles():
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone"),))
    plugin, state, _, _ = run_filters(seed_nodes(), running({"node1": 1}), pod)
    snapshot = plugin._handle.snapshot
    snapshot.bind(make_pod("late", labels={"foo": "bar"}), "node3")
    snapshot.bind(make_pod("later", labels={"foo": "bar"}), "node4")
    fresh = CycleState()
    plugin.pre_filter(fresh, pod, snapshot.node_infos)
    assert plugin.pre_filter_state_json(fresh)[0]["matchNum"] == {"zoneA": 1, "zoneB": 2}


@pytest.mark.parametrize(
    "selector, expected",
    [
        pytest.param(
            LabelSelector(match_labels=(("foo", "bar"), ("tier", "web"))),
            {"zoneA": 1, "zoneB": 1},
            id="a selector with two equalities counts only pods carrying both",
        ),
        pytest.param(
            LabelSelector(match_expressions=(LabelSelectorRequirement("tier", "NotIn", ("db",)),)),
            {"zoneA": 2, "zoneB": 2},
            id="a selector without equalities is counted by scanning",
        ),
        pytest.param(
            LabelSelector(), {"zoneA": 3, "zoneB": 2}, id="an empty selector counts every pod of the namespace"
        ),
    ],
)
def test_counting_stays_right_as_pods_bind(selector, expected):
    pods = [
        make_pod("a", labels={"foo": "bar", "tier": "web"}, node="node1"),
        make_pod("b", labels={"foo": "bar", "tier": "db"}, node="node1"),
        make_pod("c", labels={"foo": "bar"}, node="node2"),
    ]
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone", selector=selector),))
    plugin, state, _, _ = run_filters(seed_nodes(), pods, pod)
    snapshot = plugin._handle.snapshot
    snapshot.bind(make_pod("d", labels={"foo": "bar", "tier": "web"}), "node3")
    snapshot.bind(make_pod("e", labels={"other": "x"}), "node4")
    fresh = CycleState()
    plugin.pre_filter(fresh, pod, snapshot.node_infos)
    assert plugin.pre_filter_state_json(fresh)[0]["matchNum"] == expected


def test_the_pre_filter_state_is_written_as_its_declaration_says():
    """Each constraint's keys in the order ConstraintCounts declares them, and read back it is the same JSON."""
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone"), hard("node")))
    plugin, state, _, _ = run_filters(seed_nodes(), running({"node1": 1}), pod)
    written = plugin.pre_filter_state_json(state)
    keys = [info.encode_name for info in msgspec.structs.fields(ConstraintCounts)]
    assert [list(constraint) for constraint in written] == [keys, keys]
    assert [ConstraintCounts.from_json(constraint).to_json() for constraint in written] == written


def test_a_clone_shares_the_domain_counts_until_either_side_changes_them():
    # The dry run clones the state for every potential node: match_num is copied only by the side
    # that changes it first, whichever it is, and a change never shows on the other side.
    pod = make_pod("mypod", labels={"foo": "bar"}, topology_spread_constraints=(hard("zone"),))
    plugin, state, _, _ = run_filters(seed_nodes(), running({"node1": 2, "node3": 1}), pod)
    snapshot = plugin._handle.snapshot
    node1, node4 = snapshot.by_name["node1"], snapshot.by_name["node4"]
    original = state.read(PTS_STATE)

    untouched = state.clone()
    other = PodInfo(make_pod("other", labels={"foo": "baz"}, node="node1"))
    assert plugin.remove_pod(untouched, pod, other, node1) is None  # not selected: nothing copied
    assert untouched.read(PTS_STATE).match_num is original.match_num

    trial = state.clone()
    assert plugin.remove_pod(trial, pod, node1.pods[0], node1) is None
    assert plugin.pre_filter_state_json(trial)[0]["matchNum"] == {"zoneA": 1, "zoneB": 1}

    # the original changed after cloning: the clone that shared its counts keeps what it had
    assert plugin.add_pod(state, pod, PodInfo(make_pod("new", labels={"foo": "bar"}, node="node4")), node4) is None
    assert plugin.pre_filter_state_json(state)[0]["matchNum"] == {"zoneA": 2, "zoneB": 2}
    assert plugin.pre_filter_state_json(untouched)[0]["matchNum"] == {"zoneA": 2, "zoneB": 1}
    assert plugin.pre_filter_state_json(trial)[0]["matchNum"] == {"zoneA": 1, "zoneB": 1}
