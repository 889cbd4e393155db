"""InterPodAffinity PreScore → Score → NormalizeScore, in the framework's order (scoring.go)."""

from __future__ import annotations

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeScore
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.plugins.inter_pod_affinity.scoring import PreScoreScores
from tests.scheduler_core.builders import make_node, make_pod
from tests.scheduler_core.builders import (
    HOST,
    ZONE,
    affinity,
    make_inter_pod_affinity,
    selector,
    term,
    weighted,
)

DB_ON_NODE1 = make_pod("db", labels={"app": "db"}, node="node1")
SCORED = ("node1", "node2", "node3", "node4")


def _score(plugin, snapshot, pod, nodes=SCORED):
    """(PreScore status, raw scores, normalized scores, state picture)."""
    state = CycleState()
    infos = [snapshot.get(name) for name in nodes]
    status = plugin.pre_score(state, pod, infos)
    if status is not None:
        return status, None, None, plugin.pre_score_state_json(state)
    scores = []
    for info in infos:
        value, score_status = plugin.score(state, pod, info)
        assert score_status is None
        scores.append(NodeScore(info.name, value))
    raw = {s.name: s.score for s in scores}
    assert plugin.normalize_score(state, pod, scores) is None
    return None, raw, {s.name: s.score for s in scores}, plugin.pre_score_state_json(state)


SCORE_CASES = [
    pytest.param(
        [DB_ON_NODE1],
        None,
        make_pod("web", affinity=affinity(preferred=[weighted(10, {"app": "db"}, ZONE)])),
        {"node1": 10, "node2": 10, "node3": 0, "node4": 0},
        {"node1": 100, "node2": 100, "node3": 0, "node4": 0},
        {ZONE: {"a": 10}},
        id="preferred zone affinity adds its weight to every node of the target's zone",
    ),
    pytest.param(
        [DB_ON_NODE1],
        None,
        make_pod("web", affinity=affinity(anti_preferred=[weighted(5, {"app": "db"}, HOST)])),
        {"node1": -5, "node2": 0, "node3": 0, "node4": 0},
        {"node1": 0, "node2": 100, "node3": 100, "node4": 100},
        {HOST: {"node1": -5}},
        id="preferred anti-affinity subtracts its weight and normalisation lifts the negative minimum to 0",
    ),
    pytest.param(
        [DB_ON_NODE1, make_pod("db-2", labels={"app": "db"}, node="node3")],
        None,
        make_pod(
            "web",
            affinity=affinity(
                preferred=[weighted(10, {"app": "db"}, ZONE)], anti_preferred=[weighted(4, {"app": "db"}, HOST)]
            ),
        ),
        {"node1": 6, "node2": 10, "node3": 6, "node4": 0},
        {"node1": 60, "node2": 100, "node3": 60, "node4": 0},
        {HOST: {"node1": -4, "node3": -4}, ZONE: {"a": 10, "b": 10}},
        id="a node's score sums the pairs of every topology key it has",
    ),
    pytest.param(
        [make_pod("db", labels={"app": "web"}, affinity=affinity(required=[term({"app": "web"}, ZONE)]), node="node1")],
        None,
        make_pod("web", labels={"app": "web"}),
        {"node1": 1, "node2": 1, "node3": 0, "node4": 0},
        {"node1": 100, "node2": 100, "node3": 0, "node4": 0},
        {ZONE: {"a": 1}},
        id="a running pod's required affinity that the pod matches weighs hardPodAffinityWeight 1 by default",
    ),
    pytest.param(
        [make_pod("db", affinity=affinity(required=[term({"app": "web"}, ZONE)]), node="node3")],
        {"hardPodAffinityWeight": 5},
        make_pod("web", labels={"app": "web"}),
        {"node1": 0, "node2": 0, "node3": 5, "node4": 0},
        {"node1": 0, "node2": 0, "node3": 100, "node4": 0},
        {ZONE: {"b": 5}},
        id="hardPodAffinityWeight scales the symmetric weight of running pods' required affinity",
    ),
    pytest.param(
        [
            make_pod(
                "db",
                affinity=affinity(
                    anti_preferred=[weighted(20, {"app": "web"}, HOST)], preferred=[weighted(3, {"app": "web"}, ZONE)]
                ),
                node="node2",
            )
        ],
        None,
        make_pod("web", labels={"app": "web"}),
        {"node1": 3, "node2": -17, "node3": 0, "node4": 0},
        {"node1": 100, "node2": 0, "node3": 85, "node4": 85},
        {HOST: {"node2": -20}, ZONE: {"a": 3}},
        id="running pods' preferred terms that match the pod add and subtract their weights",
    ),
    pytest.param(
        [make_pod("db", affinity=affinity(preferred=[weighted(3, {"app": "web"}, ZONE)]), node="node2")],
        {"ignorePreferredTermsOfExistingPods": True},
        make_pod("web", labels={"app": "web"}, affinity=affinity(preferred=[weighted(1, {"app": "none"}, ZONE)])),
        {"node1": 3, "node2": 3, "node3": 0, "node4": 0},
        {"node1": 100, "node2": 100, "node3": 0, "node4": 0},
        {ZONE: {"a": 3}},
        id="ignorePreferredTermsOfExistingPods still weighs running pods when the pod has preferred terms",
    ),
    pytest.param(
        [DB_ON_NODE1, make_pod("db-2", labels={"app": "db"}, node="node3")],
        None,
        make_pod(
            "web",
            affinity=affinity(
                preferred=[weighted(10, {"app": "db"}, ZONE)], anti_preferred=[weighted(10, {"app": "db"}, ZONE)]
            ),
        ),
        {"node1": 0, "node2": 0, "node3": 0, "node4": 0},
        {"node1": 0, "node2": 0, "node3": 0, "node4": 0},
        {ZONE: {"a": 0, "b": 0}},
        id="pairs that cancel out stay in the state and equal scores normalise to 0",
    ),
    pytest.param(
        [
            DB_ON_NODE1,
            make_pod("db-2", labels={"app": "db"}, node="node3"),
            make_pod("db-3", labels={"app": "db"}, node="node3"),
            make_pod("db-4", labels={"app": "db"}, node="node3"),
        ],
        None,
        make_pod("web", affinity=affinity(preferred=[weighted(1, {"app": "db"}, HOST)])),
        {"node1": 1, "node2": 0, "node3": 3, "node4": 0},
        {"node1": 33, "node2": 0, "node3": 100, "node4": 0},
        {HOST: {"node1": 1, "node3": 3}},
        id="normalisation truncates toward zero as Go's int64 conversion does",
    ),
    pytest.param(
        [make_pod("db", namespace="prod", labels={"app": "db"}, node="node3")],
        None,
        make_pod("web", affinity=affinity(preferred=[weighted(2, {"app": "db"}, ZONE, namespace_selector=selector())])),
        {"node1": 0, "node2": 0, "node3": 2, "node4": 0},
        {"node1": 0, "node2": 0, "node3": 100, "node4": 0},
        {ZONE: {"b": 2}},
        id="an empty namespaceSelector on a preferred term reaches every namespace",
    ),
]


@pytest.mark.parametrize(("running", "args", "pod", "raw", "normalized", "topology_score"), SCORE_CASES)
def test_score(running, args, pod, raw, normalized, topology_score):
    plugin, snapshot = make_inter_pod_affinity(running, args=args)
    status, got_raw, got_normalized, picture = _score(plugin, snapshot, pod)
    assert status is None
    assert got_raw == raw
    assert got_normalized == normalized
    assert picture == {"topologyScore": topology_score}
    assert PreScoreScores.from_json(picture).to_json() == picture


@pytest.mark.parametrize(("running", "args", "pod", "raw", "normalized", "topology_score"), SCORE_CASES)
def test_score_batch_agrees_with_score(running, args, pod, raw, normalized, topology_score):
    plugin, snapshot = make_inter_pod_affinity(running, args=args)
    state = CycleState()
    assert plugin.pre_score(state, pod, snapshot.node_infos) is None
    table = snapshot.table
    positions = table.positions(SCORED)
    got_raw = plugin.score_batch(state, pod, table, positions)
    assert dict(zip(SCORED, got_raw.tolist())) == raw
    assert dict(zip(SCORED, plugin.normalize_batch(state, pod, got_raw).tolist())) == normalized


def test_scores_are_equal_on_the_scored_nodes_when_only_other_nodes_have_matches():
    plugin, snapshot = make_inter_pod_affinity([DB_ON_NODE1])
    pod = make_pod("web", affinity=affinity(preferred=[weighted(10, {"app": "db"}, HOST)]))
    status, raw, normalized, _ = _score(plugin, snapshot, pod, nodes=("node3", "node4"))
    assert (status, raw, normalized) == (None, {"node3": 0, "node4": 0}, {"node3": 0, "node4": 0})


@pytest.mark.parametrize(
    ("running", "args", "pod"),
    [
        pytest.param(
            [DB_ON_NODE1], None, make_pod("web"), id="a pod without terms next to pods without terms is skipped"
        ),
        pytest.param(
            [DB_ON_NODE1],
            None,
            make_pod("web", affinity=affinity(preferred=[weighted(10, {"app": "x"}, ZONE)])),
            id="preferred terms that match nothing are skipped",
        ),
        pytest.param(
            [make_pod("db", affinity=affinity(preferred=[weighted(3, {"app": "web"}, ZONE)]), node="node2")],
            {"ignorePreferredTermsOfExistingPods": True},
            make_pod("web", labels={"app": "web"}),
            id="ignorePreferredTermsOfExistingPods skips a pod without preferred terms",
        ),
        pytest.param(
            [make_pod("db", affinity=affinity(required=[term({"app": "web"}, ZONE)]), node="node2")],
            {"hardPodAffinityWeight": 0},
            make_pod("web", labels={"app": "web"}),
            id="a hardPodAffinityWeight of 0 ignores running pods' required affinity",
        ),
        pytest.param(
            [make_pod("db", affinity=affinity(preferred=[weighted(3, {"app": "web"}, ZONE)]), node="bare")],
            None,
            make_pod("web", labels={"app": "web"}),
            id="a running pod on a node without labels adds nothing",
        ),
    ],
)
def test_pre_score_skips(running, args, pod):
    nodes = [make_node("bare"), make_node("node1", {ZONE: "a", HOST: "node1"}), make_node("node2", {ZONE: "a"})]
    plugin, snapshot = make_inter_pod_affinity(running, args=args, nodes=nodes)
    state = CycleState()
    assert plugin.pre_score(state, pod, snapshot.node_infos) == SKIP
    assert plugin.pre_score_state_json(state) is None


def test_score_without_pre_score_state_is_an_error():
    plugin, snapshot = make_inter_pod_affinity([])
    expected = Status.error('error reading "PreScoreInterPodAffinity" from cycleState: not found')
    assert plugin.score(CycleState(), make_pod("web"), snapshot.get("node1")) == (0, expected)
