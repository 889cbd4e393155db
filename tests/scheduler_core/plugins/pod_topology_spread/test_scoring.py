"""PodTopologySpread PreScore → Score → NormalizeScore, in the framework's order."""

from __future__ import annotations


import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.status import SKIP
from scheduler_core.model import LabelSelector, OwnerReference, Service, TopologySpreadConstraint, Workload
from scheduler_core.plugins import pod_topology_spread
from scheduler_core.plugins.pod_topology_spread.common import go_log, go_round
from scheduler_core.plugins.pod_topology_spread.scoring import PreScoreCounts, topology_normalizing_weight
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot

HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
WEB = LabelSelector(match_labels=(("app", "web"),))


def soft(key: str, max_skew: int = 1, selector=WEB, **fields) -> TopologySpreadConstraint:
    return TopologySpreadConstraint(
        max_skew=max_skew, topology_key=key, when_unsatisfiable="ScheduleAnyway", label_selector=selector, **fields
    )


def node(name: str, zone: str | None = None, **labels):
    base = {HOST: name}
    if zone is not None:
        base[ZONE] = zone
    return make_node(name, {**base, **labels})


def web_pods(placement: dict[str, int], namespace: str = "default"):
    return [
        make_pod(f"{n}-{i}", namespace, {"app": "web"}, node=n) for n, count in placement.items() for i in range(count)
    ]


def run_scoring(nodes, pods, pod, args=None, feasible=None, **snapshot_fields):
    """PreScore over the feasible nodes, Score each, NormalizeScore: (status, raw, normalized, picture)."""
    snapshot = make_snapshot(nodes, pods, **snapshot_fields)
    plugin = pod_topology_spread.new(args, FakeHandle(snapshot))
    infos = [snapshot.by_name[n] for n in feasible] if feasible else snapshot.node_infos
    state = CycleState()
    status = plugin.pre_score(state, pod, infos)
    if status is not None:
        return status, {}, {}, plugin.pre_score_state_json(state)
    raw = {}
    for info in infos:
        score, score_status = plugin.score(state, pod, info)
        assert score_status is None
        raw[info.name] = score
    scores = [NodeScore(name, value) for name, value in raw.items()]
    assert plugin.normalize_score(state, pod, scores) is None
    return None, raw, {s.name: s.score for s in scores}, plugin.pre_score_state_json(state)


SCORE_CASES = [
    pytest.param(
        [node("a"), node("b"), node("c")],
        web_pods({"a": 2, "b": 1}),
        (soft(HOST),),
        {"a": 3, "b": 2, "c": 0},
        {"a": 0, "b": 33, "c": 100},
        id="hostname spreading counts per node and prefers the emptiest node",
    ),
    pytest.param(
        [node("a", "z1"), node("b", "z2"), node("c")],
        web_pods({"a": 1}),
        (soft(ZONE, max_skew=2),),
        {"a": 2, "b": 1, "c": 0},
        {"a": 50, "b": 100, "c": 0},
        id="a node without the key is ignored and normalised to zero",
    ),
    pytest.param(
        [node("a", "z1"), node("b", "z1"), node("c", "z2")],
        [],
        (soft(ZONE),),
        {"a": 0, "b": 0, "c": 0},
        {"a": 100, "b": 100, "c": 100},
        id="all-zero raw scores normalise to the maximum",
    ),
    pytest.param(
        [node("a", "z1"), node("b", "z2")],
        web_pods({"a": 3}, namespace="other"),
        (soft(ZONE),),
        {"a": 0, "b": 0},
        {"a": 100, "b": 100},
        id="pods of another namespace do not count",
    ),
]


@pytest.mark.parametrize("nodes, pods, constraints, raw, normalized", SCORE_CASES)
def test_scores(nodes, pods, constraints, raw, normalized):
    pod = make_pod("web-new", labels={"app": "web"}, topology_spread_constraints=constraints)
    status, got_raw, got_normalized, _ = run_scoring(nodes, pods, pod)
    assert status is None
    assert (got_raw, got_normalized) == (raw, normalized)


def test_pre_score_picture_lists_domain_counts_weights_and_ignored_nodes():
    pod = make_pod("web-new", labels={"app": "web"}, topology_spread_constraints=(soft(ZONE, max_skew=2),))
    nodes = [node("a", "z1"), node("b", "z2"), node("c"), node("d", "z3")]
    # d is not feasible: its domain is not scored, so its pods are not counted.
    _, _, _, picture = run_scoring(nodes, web_pods({"a": 1, "d": 4}), pod, feasible=["a", "b", "c"])
    assert picture == {
        "constraints": [{"topologyKey": ZONE, "maxSkew": 2, "counts": {"z1": 1, "z2": 0}, "weight": go_log(4.0)}],
        "ignoredNodes": ["c"],
    }


def test_hostname_picture_is_keyed_by_scored_node_name():
    pod = make_pod("web-new", labels={"app": "web"}, topology_spread_constraints=(soft(HOST), soft(ZONE)))
    nodes = [node("a", "z1"), node("b", "z1"), node("c")]
    _, _, _, picture = run_scoring(nodes, web_pods({"a": 1, "c": 2}), pod)
    assert picture == {
        "constraints": [
            {"topologyKey": HOST, "maxSkew": 1, "counts": {"a": 1, "b": 0}, "weight": go_log(4.0)},
            {"topologyKey": ZONE, "maxSkew": 1, "counts": {"z1": 1}, "weight": go_log(3.0)},
        ],
        "ignoredNodes": ["c"],
    }


def test_pre_score_skips_without_soft_constraints():
    pod = make_pod(
        "web-new",
        labels={"app": "web"},
        topology_spread_constraints=(TopologySpreadConstraint(1, ZONE, "DoNotSchedule", WEB),),
    )
    status, _, _, picture = run_scoring([node("a", "z1")], [], pod)
    assert (status, picture) == (SKIP, None)


SYSTEM_DEFAULT_CASES = [
    pytest.param(
        dict(services=[Service("default", "web", {"app": "web"})]),
        {},
        id="a Service selecting the pod turns on system default spreading",
    ),
    pytest.param(
        dict(workloads=[Workload("ReplicaSet", "default", "web-rs", WEB)]),
        dict(owner_references=(OwnerReference("ReplicaSet", "web-rs", "apps/v1", controller=True),)),
        id="a controlling ReplicaSet turns on system default spreading",
    ),
    pytest.param(
        dict(workloads=[Workload("StatefulSet", "default", "web-ss", WEB)]),
        dict(owner_references=(OwnerReference("StatefulSet", "web-ss", "apps/v1", controller=True),)),
        id="a controlling StatefulSet turns on system default spreading",
    ),
    pytest.param(
        dict(workloads=[Workload("ReplicationController", "default", "web-rc", WEB)]),
        dict(owner_references=(OwnerReference("ReplicationController", "web-rc", "v1", controller=True),)),
        id="a controlling ReplicationController turns on system default spreading",
    ),
]


@pytest.mark.parametrize("snapshot_fields, pod_fields", SYSTEM_DEFAULT_CASES)
def test_system_default_spreading(snapshot_fields, pod_fields):
    pod = make_pod("web-new", labels={"app": "web"}, **pod_fields)
    nodes = [node("a", "z1"), node("b", "z1"), node("c")]
    status, raw, normalized, picture = run_scoring(nodes, web_pods({"a": 2, "c": 1}), pod, **snapshot_fields)
    assert status is None
    # A node without a zone is not ignored under system defaulting: its zone domain is "".
    assert picture == {
        "constraints": [
            {"topologyKey": HOST, "maxSkew": 3, "counts": {"a": 2, "b": 0, "c": 1}, "weight": go_log(5.0)},
            {"topologyKey": ZONE, "maxSkew": 5, "counts": {"": 1, "z1": 2}, "weight": go_log(4.0)},
        ]
    }
    assert raw == {"a": 12, "b": 9, "c": 4}
    assert normalized == {"a": 33, "b": 58, "c": 100}


@pytest.mark.parametrize(
    "snapshot_fields, pod_fields",
    [
        pytest.param({}, {}, id="a pod no Service or controller selects gets no default spreading"),
        pytest.param(
            dict(services=[Service("other", "web", {"app": "web"})]),
            {},
            id="a Service of another namespace does not count",
        ),
        pytest.param(
            dict(services=[Service("default", "db", {"app": "db"})]),
            {},
            id="a Service that does not select the pod does not count",
        ),
        pytest.param(
            dict(workloads=[Workload("ReplicaSet", "default", "web-rs", WEB)]),
            dict(owner_references=(OwnerReference("ReplicaSet", "web-rs", "apps/v1", controller=False),)),
            id="an owner that is not the controller does not count",
        ),
        pytest.param(
            dict(workloads=[Workload("ReplicaSet", "default", "web-rs", WEB)]),
            dict(owner_references=(OwnerReference("ReplicaSet", "web-rs", "extensions/v1beta1", controller=True),)),
            id="a controller of an unsupported apiVersion does not count",
        ),
    ],
)
def test_no_default_spreading(snapshot_fields, pod_fields):
    pod = make_pod("web-new", labels={"app": "web"}, **pod_fields)
    status, _, _, _ = run_scoring([node("a", "z1")], web_pods({"a": 1}), pod, **snapshot_fields)
    assert status == SKIP


def test_list_defaulting_requires_every_key_and_ignores_nodes_without_it():
    args = {
        "defaultingType": "List",
        "defaultConstraints": [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}],
    }
    pod = make_pod("web-new", labels={"app": "web"})
    status, _, normalized, picture = run_scoring(
        [node("a", "z1"), node("b")],
        web_pods({"a": 1}),
        pod,
        args=args,
        services=[Service("default", "web", {"app": "web"})],
    )
    assert status is None
    assert picture["ignoredNodes"] == ["b"]
    assert normalized == {"a": 100, "b": 0}


def test_list_defaulting_without_constraints_never_spreads():
    pod = make_pod("web-new", labels={"app": "web"})
    status, _, _, _ = run_scoring(
        [node("a", "z1")],
        [],
        pod,
        args={"defaultingType": "List"},
        services=[Service("default", "web", {"app": "web"})],
    )
    assert status == SKIP


@pytest.mark.parametrize(
    "size, weight",
    [
        pytest.param(1, 1.0986122886681096, id="one domain weighs ln 3 as Go computes it (one ulp below C's)"),
        pytest.param(2, 1.3862943611198906, id="two domains weigh ln 4"),
        pytest.param(12, 2.639057329615259, id="twelve domains weigh ln 14 as Go computes it"),
    ],
)
def test_topology_normalizing_weight_is_go_math_log(size, weight):
    assert topology_normalizing_weight(size) == weight


@pytest.mark.parametrize(
    "value, rounded",
    [
        pytest.param(2.5, 3, id="a half rounds away from zero"),
        pytest.param(-2.5, -3, id="a negative half rounds away from zero"),
        pytest.param(0.49999999999999994, 0, id="the float just below a half rounds down"),
        pytest.param(3.2188758248682006, 3, id="a fraction below a half rounds down"),
    ],
)
def test_go_round(value, rounded):
    assert go_round(value) == rounded


def test_the_pre_score_state_is_written_as_its_declaration_says():
    """Its keys in PreScoreCounts' order (ignoredNodes last, only when there are some), and read back
    it is the same JSON."""
    pod = make_pod("web-new", labels={"app": "web"}, topology_spread_constraints=(soft(HOST), soft(ZONE)))
    for nodes in ([node("a", "z1"), node("b", "z1"), node("c")], [node("a", "z1"), node("b", "z2")]):
        _, _, _, picture = run_scoring(nodes, web_pods({"a": 1}), pod)
        assert PreScoreCounts.from_json(picture).to_json() == picture
        assert list(picture) == ["constraints", "ignoredNodes"][: len(picture)]
        assert list(picture["constraints"][0]) == ["topologyKey", "maxSkew", "counts", "weight"]
