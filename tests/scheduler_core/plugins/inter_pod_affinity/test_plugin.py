"""inter_pod_affinity/plugin.py: the plugin class that hands each extension point to filtering /
scoring (interpodaffinity/plugin.go): signing, EventsToRegister, the PreFilter extensions for
preemption, the state each point reads, and the fast path agreeing with the per-node one.
Term arithmetic is in test_filtering.py / test_scoring.py, the hints in test_queueing_hints.py."""

from __future__ import annotations

import numpy as np

from scheduler_core.framework.cluster_events import ActionType, EventResource
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.signers import LABELS, Unsignable
from scheduler_core.framework.status import SKIP, Code
from tests.scheduler_core.builders import affinity, make_inter_pod_affinity, make_pod, term, weighted

WEB = {"app": "web"}


def test_a_pod_with_pod_affinity_is_not_signable_and_others_sign_with_their_labels():
    plugin, _ = make_inter_pod_affinity()
    refusal = plugin.sign_pod(make_pod("p", affinity=affinity(required=[term(WEB)])))
    assert isinstance(refusal, Unsignable) and refusal.plugin == "InterPodAffinity"
    [(field, _)] = plugin.sign_pod(make_pod("p", labels=WEB))
    assert field == LABELS
    ignoring, _ = make_inter_pod_affinity(args={"ignorePreferredTermsOfExistingPods": True})
    assert ignoring.sign_pod(make_pod("p", labels=WEB)) == []


def test_it_registers_for_pod_changes_and_nodes_added_or_relabelled():
    plugin, _ = make_inter_pod_affinity()
    events = {hinted.event.resource: hinted.event.action for hinted in plugin.events_to_register()}
    assert events[EventResource.POD] == ActionType.ADD | ActionType.UPDATE_POD_LABEL | ActionType.DELETE
    assert events[EventResource.NODE] == ActionType.ADD | ActionType.UPDATE_NODE_LABEL


def test_pre_filter_skips_when_nothing_has_affinity_and_filter_then_errors():
    plugin, snapshot = make_inter_pod_affinity([make_pod("r", labels=WEB, node="node1")])
    state = CycleState()
    pod = make_pod("p")
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, SKIP)
    assert plugin.filter(state, pod, snapshot.node_infos[0]).code == Code.ERROR
    assert plugin.add_pod(state, pod, PodInfo(make_pod("x", node="node1")), snapshot.node_infos[0]).code == Code.ERROR
    assert plugin.filter_detail(state, pod, snapshot.node_infos[0]) == ()
    assert plugin.pre_filter_state_json(state) is None


def test_required_affinity_admits_the_zone_of_a_matching_pod_and_add_pod_widens_it():
    """Filter with the PreFilter state; AddPod (preemption's nominated pods) updates it."""
    plugin, snapshot = make_inter_pod_affinity([make_pod("r", labels=WEB, node="node1")])
    state = CycleState()
    pod = make_pod("p", affinity=affinity(required=[term(WEB)]))
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, None)
    admitted = [info.name for info in snapshot.node_infos if plugin.filter(state, pod, info) is None]
    assert admitted == ["node1", "node2"]  # zone a
    node3 = snapshot.by_name["node3"]
    assert plugin.add_pod(state, pod, PodInfo(make_pod("nominated", labels=WEB, node="node3")), node3) is None
    assert plugin.filter(state, pod, node3) is None


def test_score_without_pre_score_errors_and_the_batch_scores_nothing():
    plugin, snapshot = make_inter_pod_affinity()
    state = CycleState()
    pod = make_pod("p")
    assert plugin.pre_score(state, pod, snapshot.node_infos) == SKIP
    score, status = plugin.score(state, pod, snapshot.node_infos[0])
    assert (score, status.code) == (0, Code.ERROR)
    assert plugin.score_batch(state, pod, snapshot.table, np.arange(4)).tolist() == [0, 0, 0, 0]
    scores = np.array([3, 1])
    assert plugin.normalize_batch(state, pod, scores) is scores


def test_preferred_affinity_scores_the_zone_of_matching_pods_highest():
    plugin, snapshot = make_inter_pod_affinity([make_pod("r", labels=WEB, node="node3")])
    state = CycleState()
    pod = make_pod("p", affinity=affinity(preferred=[weighted(10, WEB)]))
    assert plugin.pre_score(state, pod, snapshot.node_infos) is None
    raw = [plugin.score(state, pod, info)[0] for info in snapshot.node_infos]
    assert raw == [0, 0, 10, 0]
    batch = plugin.score_batch(state, pod, snapshot.table, np.arange(4))
    assert batch.tolist() == raw
