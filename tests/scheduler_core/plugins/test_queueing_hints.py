"""Queueing hints of the default plugins, event by event, each after the release's
isSchedulableAfter* function (pkg/scheduler/framework/plugins/*, v1.35.4 with QueueingHints on):
whether a cluster event may make a pod that plugin rejected schedulable (QUEUE) or not (SKIP)."""

from __future__ import annotations

import pytest

from scheduler_core.framework.cluster_events import ActionType, EventResource, QueueingHint
from scheduler_core.model import (
    CPU,
    MEMORY,
    Affinity,
    LabelSelector,
    PodAffinity,
    PodAffinityTerm,
    TopologySpreadConstraint,
)
from scheduler_core.plugins import node_resources
from scheduler_core.plugins.inter_pod_affinity.plugin import _node_change_hint as affinity_node_hint
from scheduler_core.plugins.inter_pod_affinity.plugin import _pod_change_hint as affinity_hint
from scheduler_core.plugins.node_resources.fit import node_change_hint as fit_node_hint
from scheduler_core.plugins.node_resources.fit import pod_event_hint as fit_hint
from scheduler_core.plugins.pod_topology_spread.plugin import new as new_spread
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot

QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP
PENDING = make_pod("pending", requests={CPU: 1000})


@pytest.mark.parametrize(
    "old, new, hint",
    [
        pytest.param(
            make_pod("bound", node="n1", requests={CPU: 500}), None, QUEUE, id="a bound pod deleted frees its resources"
        ),
        pytest.param(
            make_pod("waiting", requests={CPU: 500}), None, SKIP, id="an unbound, unnominated pod deleted frees nothing"
        ),
        pytest.param(
            make_pod("waiting", requests={CPU: 500}, nominated_node_name="n1"),
            None,
            QUEUE,
            id="a nominated pod deleted frees the room it reserved",
        ),
        pytest.param(
            make_pod("b", node="n1", requests={CPU: 800}),
            make_pod("b", node="n1", requests={CPU: 400}),
            QUEUE,
            id="a bound pod scaled down in a resource the pod requests",
        ),
        pytest.param(
            make_pod("b", node="n1", requests={MEMORY: 800}),
            make_pod("b", node="n1", requests={MEMORY: 400}),
            SKIP,
            id="scaled down in a resource the pod does not request",
        ),
    ],
)
def test_node_resources_fit_is_schedulable_after_pod_event(old, new, hint):
    # isSchedulableAfterPodEvent / isSchedulableAfterPodScaleDown (noderesources/fit.go).
    assert fit_hint(PENDING, old, new) == hint


def test_node_resources_fit_registers_pod_deletes_and_scale_downs_and_node_adds_and_allocatable_updates():
    # Fit.EventsToRegister with QueueingHints on: Pod Delete|UpdatePodScaleDown, Node Add|UpdateNodeAllocatable.
    pods, nodes = node_resources.new_fit(None, None).events_to_register()
    assert pods.event.resource is EventResource.POD
    assert pods.event.action == ActionType.DELETE | ActionType.UPDATE_POD_SCALE_DOWN
    assert nodes.event.resource is EventResource.NODE
    assert nodes.event.action == ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE


@pytest.mark.parametrize(
    "old, new, hint",
    [
        pytest.param(None, make_node("big", cpu=2000), QUEUE, id="a node added that fits the pod's requests"),
        pytest.param(None, make_node("small", cpu=500), SKIP, id="a node added too small even when empty (isFit)"),
        pytest.param(make_node("n", cpu=500), make_node("n", cpu=2000), QUEUE, id="allocatable cpu grew to fit"),
        pytest.param(
            make_node("n", cpu=2000, memory=1 << 30),
            make_node("n", cpu=2000, memory=2 << 30),
            SKIP,
            id="fits, but only a resource the pod does not request grew (haveAnyRequestedResourcesIncreased)",
        ),
    ],
)
def test_node_resources_fit_is_schedulable_after_node_change(old, new, hint):
    # isSchedulableAfterNodeChange (noderesources/fit.go).
    assert fit_node_hint(PENDING, old, new) == hint


WANTS_ZONE = make_pod(
    "z",
    affinity=Affinity(pod_affinity=PodAffinity(required=(PodAffinityTerm(LabelSelector((("app", "web"),)), "zone"),))),
)
AVOIDS_ZONE = make_pod(
    "y",
    affinity=Affinity(
        pod_anti_affinity=PodAffinity(required=(PodAffinityTerm(LabelSelector((("app", "db"),)), "zone"),))
    ),
)
WANTS_WEB = make_pod(
    "b",
    affinity=Affinity(
        pod_affinity=PodAffinity(
            required=(PodAffinityTerm(LabelSelector((("app", "web"),)), "kubernetes.io/hostname"),)
        )
    ),
)
AVOIDS_DB = make_pod(
    "c",
    affinity=Affinity(
        pod_anti_affinity=PodAffinity(
            required=(PodAffinityTerm(LabelSelector((("app", "db"),)), "kubernetes.io/hostname"),)
        )
    ),
)


@pytest.mark.parametrize(
    "pod, old, new, hint",
    [
        pytest.param(
            WANTS_WEB,
            None,
            make_pod("a", node="n1", labels={"app": "web"}),
            QUEUE,
            id="a bound pod that matches every required affinity term is added",
        ),
        pytest.param(
            WANTS_WEB, None, make_pod("a", node="n1", labels={"app": "api"}), SKIP, id="a bound pod that does not match"
        ),
        pytest.param(WANTS_WEB, None, make_pod("a", labels={"app": "web"}), SKIP, id="an unbound pod changes nothing"),
        pytest.param(
            WANTS_WEB,
            make_pod("a", node="n1", labels={"app": "api"}),
            make_pod("a", node="n1", labels={"app": "web"}),
            QUEUE,
            id="a bound pod relabelled to match",
        ),
        pytest.param(
            AVOIDS_DB,
            make_pod("d", node="n1", labels={"app": "db"}),
            None,
            QUEUE,
            id="a bound pod matching the anti-affinity terms is deleted",
        ),
        pytest.param(
            AVOIDS_DB,
            make_pod("d", node="n1", labels={"app": "web"}),
            None,
            SKIP,
            id="a deleted pod that never matched the anti-affinity",
        ),
    ],
)
def test_inter_pod_affinity_is_schedulable_after_pod_change(pod, old, new, hint):
    # isSchedulableAfterPodChange (interpodaffinity/plugin.go).
    assert affinity_hint(pod, old, new) == hint


SPREAD = make_pod(
    "s",
    labels={"app": "web"},
    topology_spread_constraints=(
        TopologySpreadConstraint(1, "zone", "DoNotSchedule", LabelSelector((("app", "web"),))),
    ),
)


@pytest.mark.parametrize(
    "old, new, hint",
    [
        pytest.param(
            None,
            make_pod("w", node="n1", labels={"app": "web"}),
            QUEUE,
            id="a bound pod the constraint counts is added",
        ),
        pytest.param(make_pod("w", node="n1", labels={"app": "web"}), None, QUEUE, id="a counted pod is deleted"),
        pytest.param(
            None, make_pod("o", node="n1", labels={"app": "db"}), SKIP, id="a pod the constraint does not count"
        ),
        pytest.param(
            None,
            make_pod("w", node="n1", namespace="other", labels={"app": "web"}),
            SKIP,
            id="a pod of another namespace is never counted",
        ),
        pytest.param(
            make_pod("w", node="n1", labels={"app": "db"}),
            make_pod("w", node="n1", labels={"app": "web"}),
            QUEUE,
            id="a bound pod relabelled into the selector",
        ),
        pytest.param(
            make_pod("w", node="n1", labels={"app": "web", "v": "1"}),
            make_pod("w", node="n1", labels={"app": "web", "v": "2"}),
            SKIP,
            id="a relabelling that does not change the match",
        ),
    ],
)
def test_pod_topology_spread_is_schedulable_after_pod_change(old, new, hint):
    # isSchedulableAfterPodChange (podtopologyspread/plugin.go).
    plugin = new_spread(None, FakeHandle(make_snapshot([make_node("n1")])))
    assert plugin.pod_change_hint(SPREAD, old, new) == hint


@pytest.mark.parametrize(
    "old, new, hint",
    [
        pytest.param(
            None, make_node("n", labels={"zone": "a"}), QUEUE, id="a node added with every constraint's topology key"
        ),
        pytest.param(None, make_node("n"), SKIP, id="a node added without the topology key"),
        pytest.param(make_node("n", labels={"zone": "a"}), None, QUEUE, id="a node with the key deleted"),
        pytest.param(
            make_node("n", labels={"zone": "a"}),
            make_node("n", labels={"zone": "b"}),
            QUEUE,
            id="a node moved to another domain (checkTopologyKeyLabelsChanged)",
        ),
        pytest.param(
            make_node("n", labels={"zone": "a"}),
            make_node("n", labels={"zone": "a", "x": "y"}),
            SKIP,
            id="an unrelated label changed",
        ),
    ],
)
def test_pod_topology_spread_is_schedulable_after_node_change(old, new, hint):
    # isSchedulableAfterNodeChange (podtopologyspread/plugin.go).
    plugin = new_spread(None, FakeHandle(make_snapshot([make_node("n1")])))
    assert plugin.node_change_hint(SPREAD, old, new) == hint


@pytest.mark.parametrize(
    "pod, old, new, hint",
    [
        pytest.param(
            WANTS_ZONE,
            None,
            make_node("n", labels={"zone": "a"}),
            QUEUE,
            id="affinity: a node added with the term's topology key",
        ),
        pytest.param(WANTS_ZONE, None, make_node("n"), SKIP, id="affinity: a node added without the key"),
        pytest.param(
            WANTS_ZONE,
            make_node("n", labels={"zone": "a"}),
            make_node("n", labels={"zone": "b"}),
            QUEUE,
            id="affinity: a node moved to another domain",
        ),
        pytest.param(AVOIDS_ZONE, None, make_node("n"), QUEUE, id="anti-affinity: any node added"),
        pytest.param(
            AVOIDS_ZONE,
            make_node("n", labels={"zone": "a"}),
            make_node("n", labels={"zone": "a", "x": "y"}),
            SKIP,
            id="anti-affinity: the domain did not change",
        ),
    ],
)
def test_inter_pod_affinity_is_schedulable_after_node_change(pod, old, new, hint):
    # isSchedulableAfterNodeChange (interpodaffinity/plugin.go).
    assert affinity_node_hint(pod, old, new) == hint
