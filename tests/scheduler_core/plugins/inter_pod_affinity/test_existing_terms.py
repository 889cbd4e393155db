"""inter_pod_affinity/existing_terms.py: running pods' (anti-)affinity terms grouped by signature,
the grouping behind the fast path's symmetry checks (what filtering.go's
getExistingAntiAffinityCounts and scoring.go's processExistingPod walk pod by pod)."""

from __future__ import annotations

from scheduler_core.model import PodAffinityTerm
from scheduler_core.plugins.inter_pod_affinity.existing_terms import (
    PREFERRED_AFFINITY,
    REQUIRED_AFFINITY,
    REQUIRED_ANTI_AFFINITY,
    ExistingTerms,
)
from scheduler_core.framework.pod_counts import PodCounts
from tests.scheduler_core.builders import ZONE, affinity, make_node, make_pod, make_snapshot, term, weighted

ALL_KINDS = frozenset({REQUIRED_AFFINITY, REQUIRED_ANTI_AFFINITY, PREFERRED_AFFINITY})


def _avoider(name: str, node: str):
    """A running pod that keeps app=web pods out of its zone and prefers app=cache ones."""
    return make_pod(
        name,
        node=node,
        affinity=affinity(anti_required=[term({"app": "web"})], preferred=[weighted(5, {"app": "cache"})]),
    )


def _follow(snapshot) -> tuple[ExistingTerms, PodCounts]:
    counts, terms = PodCounts(), ExistingTerms()
    terms.follow(counts, counts.sync(snapshot.table))
    return terms, counts


def _matching(terms: ExistingTerms, labels: dict, kinds=ALL_KINDS):
    return sorted(
        (sig[0], sig[2], dict(positions))
        for sig, positions in terms.matching(make_pod("incoming", labels=labels), {}, kinds)
    )


def test_equal_terms_of_several_pods_are_one_signature_counted_per_node():
    snapshot = make_snapshot(
        [make_node("n1"), make_node("n2")], [_avoider("a", "n1"), _avoider("b", "n1"), _avoider("c", "n2")]
    )
    terms, _ = _follow(snapshot)
    assert _matching(terms, {"app": "web"}) == [(REQUIRED_ANTI_AFFINITY, 0, {0: 2, 1: 1})]
    assert _matching(terms, {"app": "cache"}) == [(PREFERRED_AFFINITY, 5, {0: 2, 1: 1})]
    assert _matching(terms, {"app": "db"}) == []


def test_only_the_kinds_asked_for_are_matched():
    snapshot = make_snapshot([make_node("n1")], [_avoider("a", "n1")])
    terms, _ = _follow(snapshot)
    assert _matching(terms, {"app": "web"}, frozenset({PREFERRED_AFFINITY})) == []


def test_terms_follow_a_pod_leaving_its_node():
    snapshot = make_snapshot([make_node("n1"), make_node("n2")], [_avoider("a", "n1"), _avoider("c", "n2")])
    terms, counts = _follow(snapshot)
    snapshot.by_name["n1"].remove_pod(snapshot.by_name["n1"].pods[0].pod)
    terms.follow(counts, [0])  # what counts.sync reports once the table saw the removal
    assert _matching(terms, {"app": "web"}) == [(REQUIRED_ANTI_AFFINITY, 0, {1: 1})]
    snapshot.by_name["n2"].remove_pod(snapshot.by_name["n2"].pods[0].pod)
    terms.follow(counts, [1])
    assert _matching(terms, {"app": "web"}) == []


def test_a_term_selecting_nothing_is_left_out():
    nil_selector = PodAffinityTerm(None, ZONE, (), None)  # a nil labelSelector selects no pod
    nothing = make_pod("x", node="n1", affinity=affinity(anti_required=[nil_selector]))
    terms, _ = _follow(make_snapshot([make_node("n1")], [nothing]))
    assert _matching(terms, {}) == []
