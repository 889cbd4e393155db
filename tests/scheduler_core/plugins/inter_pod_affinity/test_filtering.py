"""InterPodAffinity PreFilter, Filter and the PreFilter extensions (filtering.go)."""

from __future__ import annotations

import numpy as np
import pytest

from scheduler_core.framework.batch import PASS
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.status import SKIP, Status
from scheduler_core.plugins.inter_pod_affinity import filtering
from scheduler_core.plugins.inter_pod_affinity.filtering import PreFilterCounts
from tests.scheduler_core.builders import make_pod
from tests.scheduler_core.builders import (
    HOST,
    ZONE,
    affinity,
    make_inter_pod_affinity,
    selector,
    term,
)

AFFINITY = Status.unresolvable("node(s) didn't match pod affinity rules")
ANTI = Status.unschedulable("node(s) didn't match pod anti-affinity rules")
EXISTING = Status.unschedulable("node(s) didn't satisfy existing pods anti-affinity rules")

TARGET = make_pod("pod-podaffinity-target", namespace="dev", labels={"podenv": "pro"}, node="node1")
PRODUCTION = {"dev": {"environment": "production"}}
SEED_TERM = term(
    {"podenv": "pro"}, HOST, namespaces=("dev",), namespace_selector=selector({"environment": "production"})
)
IN_PRODUCTION = term({"app": "db"}, ZONE, namespace_selector=selector({"env": "production"}))


def _filter_all(plugin, snapshot, pod):
    state = CycleState()
    result, status = plugin.pre_filter(state, pod, snapshot.node_infos)
    assert result is None
    if status is not None:
        return status, state
    return {info.name: plugin.filter(state, pod, info) for info in snapshot.node_infos}, state


FILTER_CASES = [
    pytest.param(
        [TARGET],
        PRODUCTION,
        make_pod("pod-podaffinity-required", namespace="dev", affinity=affinity(required=[SEED_TERM])),
        {"node1": None, "node2": AFFINITY, "node3": AFFINITY, "node4": AFFINITY},
        id="the seed's required affinity follows its target to node1",
    ),
    pytest.param(
        [TARGET],
        PRODUCTION,
        make_pod("pod-podantiaffinity-required", namespace="dev", affinity=affinity(anti_required=[SEED_TERM])),
        {"node1": ANTI, "node2": None, "node3": None, "node4": None},
        id="the seed's required anti-affinity avoids the target's node",
    ),
    pytest.param(
        [make_pod("db", labels={"app": "db"}, node="node1")],
        {},
        make_pod("web", affinity=affinity(required=[term({"app": "db"}, ZONE)])),
        {"node1": None, "node2": None, "node3": AFFINITY, "node4": AFFINITY},
        id="zone affinity admits every node of the target's zone and rejects a node without the key",
    ),
    pytest.param(
        [make_pod("db", labels={"app": "db"}, node="node1")],
        {},
        make_pod("web", affinity=affinity(anti_required=[term({"app": "db"}, ZONE)])),
        {"node1": ANTI, "node2": ANTI, "node3": None, "node4": None},
        id="zone anti-affinity rejects the target's zone but not a node without the key",
    ),
    pytest.param(
        [make_pod("db", labels={"app": "db"}, node="node3"), make_pod("cache", labels={"tier": "cache"}, node="node1")],
        {},
        make_pod("web", affinity=affinity(required=[term({"app": "db"}, ZONE), term({"tier": "cache"}, HOST)])),
        {"node1": AFFINITY, "node2": AFFINITY, "node3": AFFINITY, "node4": AFFINITY},
        id="a running pod counts for affinity only when it matches all the terms",
    ),
    pytest.param(
        [make_pod("db", namespace="prod", labels={"app": "db"}, node="node3")],
        {"prod": {"env": "production"}},
        make_pod("web", affinity=affinity(required=[IN_PRODUCTION])),
        {"node1": AFFINITY, "node2": AFFINITY, "node3": None, "node4": AFFINITY},
        id="a namespaceSelector selects a declared namespace by its labels",
    ),
    pytest.param(
        [make_pod("db", namespace="prod", labels={"app": "db"}, node="node3")],
        {},
        make_pod("web", affinity=affinity(required=[IN_PRODUCTION])),
        {"node1": AFFINITY, "node2": AFFINITY, "node3": AFFINITY, "node4": AFFINITY},
        id="an undeclared namespace has no labels so a namespaceSelector misses it",
    ),
    pytest.param(
        [make_pod("db", namespace="other", labels={"app": "db"}, node="node3")],
        {},
        make_pod("web", affinity=affinity(required=[term({"app": "db"}, ZONE, namespace_selector=selector())])),
        {"node1": AFFINITY, "node2": AFFINITY, "node3": None, "node4": AFFINITY},
        id="an empty namespaceSelector matches pods in every namespace",
    ),
    pytest.param(
        [make_pod("db", namespace="other", labels={"app": "db"}, node="node3")],
        {},
        make_pod("web", affinity=affinity(anti_required=[term({"app": "db"}, ZONE)])),
        {"node1": None, "node2": None, "node3": None, "node4": None},
        id="a term without namespaces only looks at the pod's own namespace",
    ),
    pytest.param(
        [make_pod("db", namespace="other", labels={"app": "db"}, node="node3")],
        {},
        make_pod("web", affinity=affinity(anti_required=[term({"app": "db"}, ZONE, namespaces=("other",))])),
        {"node1": None, "node2": None, "node3": ANTI, "node4": None},
        id="a term's namespaces list reaches another namespace",
    ),
    pytest.param(
        [],
        {},
        make_pod("web-0", labels={"app": "web"}, affinity=affinity(required=[term({"app": "web"}, ZONE)])),
        {"node1": None, "node2": None, "node3": None, "node4": AFFINITY},
        id="the first pod of a self-affine group passes on every node that has the topology key",
    ),
    pytest.param(
        [make_pod("web-0", labels={"app": "web"}, node="node3")],
        {},
        make_pod("web-1", labels={"app": "web"}, affinity=affinity(required=[term({"app": "web"}, ZONE)])),
        {"node1": AFFINITY, "node2": AFFINITY, "node3": None, "node4": AFFINITY},
        id="once a group member runs the self-affine pod must join its zone",
    ),
    pytest.param(
        [],
        {},
        make_pod("web-0", labels={"app": "api"}, affinity=affinity(required=[term({"app": "web"}, ZONE)])),
        {"node1": AFFINITY, "node2": AFFINITY, "node3": AFFINITY, "node4": AFFINITY},
        id="a pod that does not match its own affinity terms has no first-pod exception",
    ),
    pytest.param(
        [make_pod("guard", affinity=affinity(anti_required=[term({"app": "web"}, HOST)]), node="node1")],
        {},
        make_pod("web", labels={"app": "web"}),
        {"node1": EXISTING, "node2": None, "node3": None, "node4": None},
        id="a running pod's required anti-affinity keeps a matching pod off its node",
    ),
    pytest.param(
        [make_pod("guard", affinity=affinity(anti_required=[term({"app": "web"}, ZONE)]), node="node2")],
        {},
        make_pod("web", labels={"app": "web"}),
        {"node1": EXISTING, "node2": EXISTING, "node3": None, "node4": None},
        id="a running pod's zone anti-affinity keeps a matching pod out of its zone",
    ),
    pytest.param(
        [
            make_pod(
                "guard",
                namespace="ops",
                node="node1",
                affinity=affinity(
                    anti_required=[term({"app": "web"}, HOST, namespace_selector=selector({"team": "web"}))]
                ),
            )
        ],
        {"default": {"team": "web"}},
        make_pod("web", labels={"app": "web"}),
        {"node1": EXISTING, "node2": None, "node3": None, "node4": None},
        id="a running pod's anti-affinity namespaceSelector is matched against the incoming pod's namespace labels",
    ),
    pytest.param(
        [
            make_pod("db", labels={"app": "db"}, node="node1"),
            make_pod("guard", affinity=affinity(anti_required=[term({"app": "web"}, HOST)]), node="node3"),
        ],
        {},
        make_pod(
            "web",
            labels={"app": "web"},
            affinity=affinity(required=[term({"app": "db"}, ZONE)], anti_required=[term({"app": "db"}, HOST)]),
        ),
        {"node1": ANTI, "node2": None, "node3": AFFINITY, "node4": AFFINITY},
        id="affinity is checked before anti-affinity and both before existing pods' anti-affinity",
    ),
    pytest.param(
        [make_pod("db", labels={"app": "db", "tier": "x"}, node="node2")],
        {},
        make_pod("web", affinity=affinity(anti_required=[term(label_selector=selector(exists=("tier",)), key=HOST)])),
        {"node1": None, "node2": ANTI, "node3": None, "node4": None},
        id="a selector without key-value pairs still finds its pods",
    ),
]


@pytest.mark.parametrize(("running", "namespaces", "pod", "expected"), FILTER_CASES)
def test_filter(running, namespaces, pod, expected):
    plugin, snapshot = make_inter_pod_affinity(running, namespaces)
    statuses, _ = _filter_all(plugin, snapshot, pod)
    assert statuses == expected


@pytest.mark.parametrize(("running", "namespaces", "pod", "expected"), FILTER_CASES)
def test_filter_batch_agrees_with_filter(running, namespaces, pod, expected):
    plugin, snapshot = make_inter_pod_affinity(running, namespaces)
    state = CycleState()
    plugin.pre_filter(state, pod, snapshot.node_infos)
    table = snapshot.table
    positions = np.asarray([2, 0, 3, 1])  # any order and subset of the table's nodes
    verdicts = plugin.filter_batch(state, pod, table, positions)
    got = {
        table.names[p]: (None if c == PASS else verdicts.palette[c])
        for p, c in zip(positions.tolist(), verdicts.choice.tolist())
    }
    assert got == expected


@pytest.mark.parametrize(
    ("running", "pod"),
    [
        pytest.param([], make_pod("plain"), id="a pod without terms in an empty cluster is skipped"),
        pytest.param(
            [make_pod("guard", affinity=affinity(anti_required=[term({"app": "web"}, HOST)]), node="node1")],
            make_pod("api", labels={"app": "api"}),
            id="a pod that no running anti-affinity term matches is skipped",
        ),
        pytest.param(
            [], make_pod("plain", affinity=affinity(preferred=[])), id="a pod with an empty podAffinity is skipped"
        ),
    ],
)
def test_pre_filter_skips(running, pod):
    plugin, snapshot = make_inter_pod_affinity(running)
    state = CycleState()
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, SKIP)
    assert plugin.pre_filter_state_json(state) is None


STATE_CASES = [
    pytest.param(
        [
            make_pod(
                "guard",
                affinity=affinity(anti_required=[term({"app": "web"}, ZONE), term({"app": "web"}, HOST)]),
                node="node1",
            )
        ],
        make_pod("web", labels={"app": "web"}),
        {
            "existingAntiAffinityCounts": {f"{HOST}=node1": 1, f"{ZONE}=a": 1},
            "affinityCounts": {},
            "antiAffinityCounts": {},
        },
        id="existing anti-affinity terms count once per term at the running pod's node",
    ),
    pytest.param(
        [
            make_pod("db-1", labels={"app": "db"}, node="node1"),
            make_pod("db-2", labels={"app": "db"}, node="node2"),
            make_pod("db-3", labels={"app": "db"}, node="node4"),
        ],
        make_pod("web", affinity=affinity(required=[term({"app": "db"}, ZONE), term({"app": "db"}, HOST)])),
        {
            "existingAntiAffinityCounts": {},
            "antiAffinityCounts": {},
            "affinityCounts": {f"{HOST}=node1": 1, f"{HOST}=node2": 1, f"{HOST}=node4": 1, f"{ZONE}=a": 2},
        },
        id="affinity counts add one per term key that the matching pod's node has",
    ),
    pytest.param(
        [make_pod("db-1", labels={"app": "db"}, node="node1"), make_pod("db-2", labels={"app": "db"}, node="node1")],
        make_pod("web", affinity=affinity(anti_required=[term({"app": "db"}, ZONE)])),
        {"existingAntiAffinityCounts": {}, "affinityCounts": {}, "antiAffinityCounts": {f"{ZONE}=a": 2}},
        id="anti-affinity counts add one per matching pod",
    ),
]


@pytest.mark.parametrize(("running", "pod", "expected"), STATE_CASES)
def test_pre_filter_state_json(running, pod, expected):
    plugin, snapshot = make_inter_pod_affinity(running)
    state = CycleState()
    assert plugin.pre_filter(state, pod, snapshot.node_infos) == (None, None)
    picture = plugin.pre_filter_state_json(state)
    assert picture == expected
    assert list(picture) == ["existingAntiAffinityCounts", "affinityCounts", "antiAffinityCounts"]  # PreFilterCounts'
    assert PreFilterCounts.from_json(picture).to_json() == picture
    for counts in picture.values():
        assert list(counts) == sorted(counts)


def test_add_and_remove_pod_update_a_clone_and_leave_the_original_alone():
    db = make_pod("db", labels={"app": "db"}, node="node1")
    plugin, snapshot = make_inter_pod_affinity([db])
    pod = make_pod(
        "web",
        labels={"app": "web"},
        affinity=affinity(required=[term({"app": "db"}, ZONE)], anti_required=[term({"app": "db"}, HOST)]),
    )
    state = CycleState()
    plugin.pre_filter(state, pod, snapshot.node_infos)
    before = plugin.pre_filter_state_json(state)

    dry_run = state.clone()
    node3 = snapshot.get("node3")
    guard = make_pod("guard", affinity=affinity(anti_required=[term({"app": "web"}, ZONE)]), node="node3")
    assert plugin.pre_filter_extensions() is plugin
    assert plugin.add_pod(dry_run, pod, PodInfo(make_pod("db-2", labels={"app": "db"}, node="node3")), node3) is None
    assert plugin.add_pod(dry_run, pod, PodInfo(guard), node3) is None
    assert plugin.remove_pod(dry_run, pod, snapshot.get("node1").pods[0], snapshot.get("node1")) is None

    assert plugin.pre_filter_state_json(dry_run) == {
        "existingAntiAffinityCounts": {f"{ZONE}=b": 1},
        "affinityCounts": {f"{ZONE}=b": 1},
        "antiAffinityCounts": {f"{HOST}=node3": 1},
    }
    assert plugin.pre_filter_state_json(state) == before
    assert plugin.filter(dry_run, pod, snapshot.get("node1")) == AFFINITY
    assert plugin.filter(dry_run, pod, snapshot.get("node3")) == ANTI
    assert plugin.filter(state, pod, snapshot.get("node2")) is None


def test_pre_filter_sees_pods_bound_after_an_earlier_cycle():
    plugin, snapshot = make_inter_pod_affinity([])
    pod = make_pod("web", affinity=affinity(anti_required=[term({"app": "db"}, HOST)]))
    first, _ = _filter_all(plugin, snapshot, pod)
    assert first == {"node1": None, "node2": None, "node3": None, "node4": None}
    snapshot.bind(make_pod("db", labels={"app": "db"}), "node2")
    second, _ = _filter_all(plugin, snapshot, pod)
    assert second == {"node1": None, "node2": ANTI, "node3": None, "node4": None}
    snapshot.get("node2").remove_pod(snapshot.get("node2").pods[0].pod)
    third, _ = _filter_all(plugin, snapshot, pod)
    assert third == first


def test_filter_without_pre_filter_state_is_an_error():
    plugin, snapshot = make_inter_pod_affinity([])
    status = plugin.filter(CycleState(), make_pod("web"), snapshot.get("node1"))
    assert status == Status.error('error reading "PreFilterInterPodAffinity" from cycleState: not found')


def test_a_clone_shares_the_counts_until_either_side_changes_them():
    # The dry run clones the state for every potential node: the count maps are copied only by the
    # side that changes them first, whichever it is, and a change never shows on the other side.
    db = make_pod("db", labels={"app": "db"}, node="node1")
    plugin, snapshot = make_inter_pod_affinity([db])
    pod = make_pod("web", labels={"app": "web"}, affinity=affinity(anti_required=[term({"app": "db"}, HOST)]))
    state = CycleState()
    plugin.pre_filter(state, pod, snapshot.node_infos)
    computed = state.read(filtering.PRE_FILTER_STATE)
    node1, node3 = snapshot.get("node1"), snapshot.get("node3")

    untouched = state.clone()
    unrelated = PodInfo(make_pod("cache", labels={"app": "cache"}, node="node1"))
    assert plugin.remove_pod(untouched, pod, unrelated, node1) is None  # no count is about it: nothing copied
    assert untouched.read(filtering.PRE_FILTER_STATE).anti is computed.anti

    dry_run = state.clone()
    assert plugin.remove_pod(dry_run, pod, node1.pods[0], node1) is None
    assert plugin.pre_filter_state_json(dry_run)["antiAffinityCounts"] == {}
    assert plugin.pre_filter_state_json(state)["antiAffinityCounts"] == {f"{HOST}=node1": 1}

    # the original changed after cloning: the clone that shared its maps keeps what it had
    assert plugin.add_pod(state, pod, PodInfo(make_pod("db-2", labels={"app": "db"}, node="node3")), node3) is None
    assert plugin.pre_filter_state_json(state)["antiAffinityCounts"] == {f"{HOST}=node1": 1, f"{HOST}=node3": 1}
    assert plugin.pre_filter_state_json(untouched)["antiAffinityCounts"] == {f"{HOST}=node1": 1}
    assert plugin.pre_filter_state_json(dry_run)["antiAffinityCounts"] == {}
    assert plugin.filter(untouched, pod, node3) is None
    assert plugin.filter(state, pod, node3) == ANTI


def test_a_pod_outside_the_namespaces_of_the_pods_terms_is_counted_only_by_its_own_terms():
    """The dry run's quick answer for a pod without required anti-affinity in a namespace none of
    the pod's terms lists: nothing counted. A pod of such a namespace, one with a term of its own,
    and a term selecting namespaces by their labels are still counted."""
    plugin, snapshot = make_inter_pod_affinity([], {"dev": {"env": "production"}})
    node1 = snapshot.get("node1")
    listed = make_pod("web", labels={"app": "web"}, affinity=affinity(anti_required=[term({"app": "db"}, HOST)]))
    by_labels = make_pod("web", labels={"app": "web"}, affinity=affinity(anti_required=[IN_PRODUCTION]))
    db_elsewhere = PodInfo(make_pod("db", namespace="dev", labels={"app": "db"}, node="node1"))
    db_here = PodInfo(make_pod("db", labels={"app": "db"}, node="node1"))
    guard = PodInfo(
        make_pod(
            "guard",
            namespace="dev",
            affinity=affinity(anti_required=[term({"app": "web"}, HOST, namespaces=("default",))]),
            node="node1",
        )
    )

    def counts_after_adding(pod, other):
        state = CycleState()
        plugin.pre_filter(state, pod, snapshot.node_infos)
        assert plugin.add_pod(state, pod, other, node1) is None
        picture = plugin.pre_filter_state_json(state)
        return picture["existingAntiAffinityCounts"], picture["antiAffinityCounts"]

    assert counts_after_adding(listed, db_elsewhere) == ({}, {})
    assert counts_after_adding(listed, db_here) == ({}, {f"{HOST}=node1": 1})
    assert counts_after_adding(listed, guard) == ({f"{HOST}=node1": 1}, {})
    assert counts_after_adding(by_labels, db_elsewhere) == ({}, {f"{ZONE}=a": 1})


def test_pair_counts_are_written_sorted_and_equal_counts_again_as_a_copy():
    # Copied workloads' replicas see the same counts cycle after cycle: their wire form is kept for
    # equal counts, handed out as a copy (a reader may change it), written anew when they differ.
    counts = {(ZONE, "z2"): 1, (HOST, "n1"): 2, (ZONE, "z1"): 3}
    first = filtering.pair_counts_json(counts)
    assert list(first.items()) == [(f"{HOST}=n1", 2), (f"{ZONE}=z1", 3), (f"{ZONE}=z2", 1)]
    first[f"{HOST}=n1"] = 99
    again = filtering.pair_counts_json(dict(counts))
    assert again == {f"{HOST}=n1": 2, f"{ZONE}=z1": 3, f"{ZONE}=z2": 1} and again is not first
    counts[(ZONE, "z2")] = 4  # the same pairs, another count
    assert filtering.pair_counts_json(counts)[f"{ZONE}=z2"] == 4
    assert filtering.pair_counts_json({}) == {}
