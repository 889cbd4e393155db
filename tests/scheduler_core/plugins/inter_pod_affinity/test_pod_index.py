"""inter_pod_affinity/pod_index.py: running pods by (namespace, label pair), so a term's selector
only looks at pods that can match it (our index; upstream scans every pod of every node)."""

from __future__ import annotations

from scheduler_core.model.labels import compile_selector
from scheduler_core.model import LabelSelector, LabelSelectorRequirement
from scheduler_core.plugins.inter_pod_affinity.pod_index import Candidates, PodLabelIndex
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot

WEB = compile_selector(LabelSelector((("app", "web"),)))
WEB_FRONT = compile_selector(LabelSelector((("app", "web"), ("tier", "front"))))
TIER_EXISTS = compile_selector(LabelSelector((), (LabelSelectorRequirement("tier", "Exists"),)))


def _snapshot():
    pods = [
        make_pod("w1", labels={"app": "web"}, node="n1"),
        make_pod("w2", labels={"app": "web", "tier": "front"}, node="n2"),
        make_pod("w3", namespace="other", labels={"app": "web", "tier": "front"}, node="n2"),
        make_pod("d1", labels={"app": "db"}, node="n1"),
    ]
    return make_snapshot([make_node("n1"), make_node("n2")], pods)


def _names(found: Candidates) -> dict[str, list[str]]:
    """Candidate pod names per node (a node appears once per namespace it has candidates in)."""
    names: dict[str, list[str]] = {}
    for info, pods in found.groups:
        names.setdefault(info.name, []).extend(p.pod.name for p in pods)
    return {node: sorted(pods) for node, pods in names.items()}


def test_a_single_exact_pair_gives_checked_candidates_of_allowed_namespaces():
    index = PodLabelIndex()
    index.refresh(_snapshot())
    found = index.candidates([WEB], lambda namespace: namespace == "default")
    assert _names(found) == {"n1": ["w1"], "n2": ["w2"]}
    assert (found.namespaces_checked, found.labels_checked) == (True, True)


def test_several_pairs_narrow_by_the_rarest_and_leave_labels_unchecked():
    index = PodLabelIndex()
    index.refresh(_snapshot())
    found = index.candidates([WEB_FRONT], lambda namespace: True)
    # tier=front (2 pods) is rarer than app=web (3): only its pods are candidates
    assert _names(found) == {"n2": ["w2", "w3"]}
    assert not found.labels_checked


def test_a_selector_without_pairs_cannot_narrow_and_nothing_selects_nothing():
    index = PodLabelIndex()
    index.refresh(_snapshot())
    assert index.candidates([TIER_EXISTS], lambda namespace: True) is None
    assert index.candidates([compile_selector(None)], lambda namespace: True).groups == []


def test_refresh_follows_pods_removed_and_a_new_snapshot():
    snapshot = _snapshot()
    index = PodLabelIndex()
    index.refresh(snapshot)
    snapshot.by_name["n1"].remove_pod(snapshot.by_name["n1"].pods[0].pod)  # w1
    index.refresh(snapshot)
    assert _names(index.candidates([WEB], lambda namespace: namespace == "default")) == {"n2": ["w2"]}
    empty = make_snapshot([make_node("n1")])
    index.refresh(empty)
    assert index.candidates([WEB], lambda namespace: True).groups == []


def test_scan_lists_every_node_with_pods_unchecked():
    found = Candidates.scan(_snapshot().node_infos)
    assert _names(found) == {"n1": ["d1", "w1"], "n2": ["w2", "w3"]}
    assert (found.namespaces_checked, found.labels_checked) == (False, False)
