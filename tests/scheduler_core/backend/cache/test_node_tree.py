"""The snapshot's node order: zones round-robin (backend/cache/node_tree.go)."""

from __future__ import annotations

import pytest

from scheduler_core.backend.cache.node_tree import tree_order, zone_key

ZONE, REGION = "topology.kubernetes.io/zone", "topology.kubernetes.io/region"
BETA_ZONE, BETA_REGION = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"


@pytest.mark.parametrize(
    "labels, key",
    [
        pytest.param({}, "", id="a node without region or zone is in the empty zone"),
        pytest.param({ZONE: "a", REGION: "r"}, "r:\x00:a", id="region and zone make the key"),
        pytest.param({ZONE: "a"}, ":\x00:a", id="a zone alone still makes a key"),
        pytest.param({BETA_ZONE: "old", ZONE: "new"}, ":\x00:old", id="the deprecated beta labels are read first"),
        pytest.param({BETA_REGION: "", REGION: "r"}, "", id="an empty beta label hides the new one"),
    ],
)
def test_zone_key(labels, key):
    assert zone_key(labels) == key


def test_nodes_are_listed_round_robin_over_zones_in_the_order_zones_appeared():
    labels = [{ZONE: "a"}, {ZONE: "a"}, {ZONE: "a"}, {ZONE: "b"}, {}, {ZONE: "b"}]
    # zones a (0, 1, 2), b (3, 5), "" (4): a0 b0 ""0, then a1 b1, then a2
    assert tree_order(labels).tolist() == [0, 3, 4, 1, 5, 2]


def test_one_zone_keeps_document_order():
    assert tree_order([{}] * 4).tolist() == [0, 1, 2, 3]
    assert tree_order([]).tolist() == []
