"""inter_pod_affinity/matching.py: the incoming pod's terms against running pods through the label
index (framework.AffinityTerm.Matches, per topology value as scoring.go's processTerm counts)."""

from __future__ import annotations

from scheduler_core.framework.node_info import resolve_term
from scheduler_core.model import LabelSelector
from scheduler_core.plugins.inter_pod_affinity.matching import candidates, count_by_topology_value, namespace_check
from scheduler_core.plugins.inter_pod_affinity.pod_index import PodLabelIndex
from tests.scheduler_core.builders import ZONE, make_node, make_pod, make_snapshot, term

TEAM_A = LabelSelector((("team", "a"),))


def _snapshot():
    nodes = [
        make_node("n1", {ZONE: "z1"}),
        make_node("n2", {ZONE: "z1"}),
        make_node("n3", {ZONE: "z2"}),
        make_node("n4"),
    ]
    pods = [
        make_pod("w1", labels={"app": "web"}, node="n1"),
        make_pod("w2", labels={"app": "web"}, node="n2"),
        make_pod("w3", labels={"app": "web"}, node="n3"),
        make_pod("w4", labels={"app": "web"}, node="n4"),
        make_pod("w5", namespace="other", labels={"app": "web"}, node="n3"),
    ]
    return make_snapshot(nodes, pods, namespaces={"other": {"team": "a"}})


def _index(snapshot) -> PodLabelIndex:
    index = PodLabelIndex()
    index.refresh(snapshot)
    return index


def test_counts_per_topology_value_skip_nodes_without_the_key_and_other_namespaces():
    snapshot = _snapshot()
    incoming = make_pod("p")
    counted = count_by_topology_value(resolve_term(incoming, term({"app": "web"})), _index(snapshot), snapshot)
    assert counted == {"z1": 2, "z2": 1}


def test_a_namespace_selector_brings_in_the_namespaces_it_selects():
    snapshot = _snapshot()
    incoming = make_pod("p")
    resolved = resolve_term(incoming, term({"app": "web"}, namespace_selector=TEAM_A))
    assert count_by_topology_value(resolved, _index(snapshot), snapshot) == {"z2": 1}
    allowed = namespace_check([resolved], snapshot)
    assert (allowed("other"), allowed("default")) == (True, False)


def test_a_namespace_must_be_allowed_by_every_term():
    snapshot = _snapshot()
    incoming = make_pod("p")
    terms = [
        resolve_term(incoming, term({"app": "web"})),
        resolve_term(incoming, term({"app": "web"}, namespace_selector=TEAM_A)),
    ]
    allowed = namespace_check(terms, snapshot)
    assert (allowed("default"), allowed("other")) == (False, False)


def test_candidates_fall_back_to_every_pod_when_no_selector_has_a_pair():
    snapshot = _snapshot()
    incoming = make_pod("p")
    exists = resolve_term(incoming, term(label_selector=LabelSelector()))  # empty: selects every pod
    found = candidates([exists], _index(snapshot), snapshot, lambda namespace: True)
    assert (found.namespaces_checked, found.labels_checked) == (False, False)
    assert sum(len(pods) for _, pods in found.groups) == 5
