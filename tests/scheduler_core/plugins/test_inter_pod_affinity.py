"""InterPodAffinity: args, construction, and the term builders the other test_inter_pod_affinity_* files share."""

from __future__ import annotations

from typing import Optional

import pytest

from scheduler_core.model import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    PodAffinity,
    PodAffinityTerm,
    WeightedPodAffinityTerm,
)
from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.plugins.inter_pod_affinity import InterPodAffinityArgs, new
from tests.scheduler_core.builders import FakeHandle, make_node, make_snapshot

ZONE = LABEL_ZONE
HOST = LABEL_HOSTNAME


def selector(labels: Optional[dict] = None, **exists) -> LabelSelector:
    """matchLabels from ``labels``; ``exists=("key",)`` adds an Exists expression per key."""
    expressions = tuple(LabelSelectorRequirement(key, "Exists") for key in exists.get("exists", ()))
    return LabelSelector(tuple(sorted((labels or {}).items())), expressions)


def term(labels: Optional[dict] = None, key: str = ZONE, namespaces: tuple[str, ...] = (),
         namespace_selector: Optional[LabelSelector] = None, label_selector: Optional[LabelSelector] = None,
         ) -> PodAffinityTerm:
    return PodAffinityTerm(label_selector or selector(labels), key, namespaces, namespace_selector)


def weighted(weight: int, labels: dict, key: str = ZONE, **fields) -> WeightedPodAffinityTerm:
    return WeightedPodAffinityTerm(weight, term(labels, key, **fields))


def affinity(required=(), preferred=(), anti_required=(), anti_preferred=()) -> Affinity:
    pod_affinity = PodAffinity(tuple(required), tuple(preferred)) if required or preferred else None
    anti = PodAffinity(tuple(anti_required), tuple(anti_preferred)) if anti_required or anti_preferred else None
    return Affinity(pod_affinity=pod_affinity, pod_anti_affinity=anti)


def cluster_nodes():
    """node1, node2 in zone a; node3 in zone b; node4 without a zone label."""
    return [
        make_node("node1", {ZONE: "a", HOST: "node1"}),
        make_node("node2", {ZONE: "a", HOST: "node2"}),
        make_node("node3", {ZONE: "b", HOST: "node3"}),
        make_node("node4", {HOST: "node4"}),
    ]


def make_plugin(running=(), namespaces: Optional[dict] = None, args: Optional[dict] = None, nodes=None):
    snapshot = make_snapshot(nodes if nodes is not None else cluster_nodes(), running, namespaces)
    return new(args, FakeHandle(snapshot)), snapshot



@pytest.mark.parametrize(("raw", "expected"), [
    pytest.param(None, InterPodAffinityArgs(1, False), id="no args default hardPodAffinityWeight to 1"),
    pytest.param({}, InterPodAffinityArgs(1, False), id="empty args take the defaults"),
    pytest.param({"hardPodAffinityWeight": 0, "ignorePreferredTermsOfExistingPods": True},
                 InterPodAffinityArgs(0, True),
                 id="a weight of 0 and the ignore flag are accepted"),
    pytest.param({"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "InterPodAffinityArgs",
                  "hardPodAffinityWeight": 100}, InterPodAffinityArgs(100, False),
                 id="type metadata is allowed and 100 is the largest weight"),
])
def test_args_parse(raw, expected):
    assert InterPodAffinityArgs.parse(raw) == expected


@pytest.mark.parametrize(("raw", "problems"), [
    pytest.param({"hardPodAffinityWeight": 101},
                 [ArgsProblem("hardPodAffinityWeight", "Invalid value: 101: not in valid range [0-100]")],
                 id="a weight above 100 is rejected"),
    pytest.param({"hardPodAffinityWeight": -1},
                 [ArgsProblem("hardPodAffinityWeight", "Invalid value: -1: not in valid range [0-100]")],
                 id="a negative weight is rejected"),
    pytest.param({"hardPodAffinityWeight": "5", "ignorePreferredTermsOfExistingPods": "yes", "extra": 1},
                 [ArgsProblem("extra", 'unknown field "extra"'),
                  ArgsProblem("hardPodAffinityWeight", "Invalid value: '5': must be an integer"),
                  ArgsProblem("ignorePreferredTermsOfExistingPods", "Invalid value: 'yes': must be a boolean")],
                 id="every problem is reported, not only the first"),
])
def test_args_reject(raw, problems):
    with pytest.raises(ArgsError) as caught:
        InterPodAffinityArgs.parse(raw)
    assert caught.value.problems == problems


def test_new_builds_the_plugin_with_parsed_args():
    plugin, _ = make_plugin(args={"hardPodAffinityWeight": 7})
    assert plugin.name == "InterPodAffinity"
    assert plugin.args == InterPodAffinityArgs(7, False)
