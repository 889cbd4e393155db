"""PodTopologySpread's picture: each hard constraint's own verdict per domain, emitted at PreFilter."""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core import load_scenario, simulate
from scheduler_core.encoding.events import ExtensionPoint
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.model import LabelSelector, Pod, Taint, TopologySpreadConstraint
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.model.names import POD_TOPOLOGY_SPREAD
from scheduler_core.plugins.pod_topology_spread.picture import SpreadPictureJSON, DomainNodes, group_nodes, group_table
from scheduler_core.plugins.pod_topology_spread.plugin import new
from scheduler_core.encoding.trace import trace_summary
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot

REPO = Path(__file__).resolve().parents[4]
CORPUS = REPO.parent / "shared" / "conformance" / "public"


def spread_pod(*constraints: dict, labels=None, name: str = "p") -> Pod:
    specs = tuple(
        TopologySpreadConstraint(
            max_skew=c.get("maxSkew", 1),
            topology_key=c["key"],
            when_unsatisfiable="DoNotSchedule",
            label_selector=LabelSelector((("app", "web"),)),
            min_domains=c.get("minDomains"),
            node_taints_policy=c.get("nodeTaintsPolicy"),
        )
        for c in constraints
    )
    return make_pod(name, labels=labels if labels is not None else {"app": "web"}, topology_spread_constraints=specs)


def picture_of(nodes, pods, incoming) -> dict:
    snapshot = make_snapshot(nodes, pods)
    plugin = new(None, FakeHandle(snapshot))
    state = CycleState()
    plugin.pre_filter(state, incoming, snapshot.node_infos)
    return plugin.pre_filter_picture(state, incoming).to_json()


def web(name: str, node: str):
    return make_pod(name, labels={"app": "web"}, node=node)


def test_it_gives_each_constraint_its_own_verdict_per_domain():
    nodes = [
        make_node(f"n{i}", {"zone": z, "rack": r}) for i, (z, r) in enumerate([("a", "r1"), ("a", "r2"), ("b", "r3")])
    ]
    pods = [web("w0", "n0"), web("w1", "n0"), web("w2", "n1")]
    picture = picture_of(nodes, pods, spread_pod({"key": "zone"}, {"key": "rack"}))
    zone, rack = picture["constraints"]
    assert (zone["minMatchNum"], zone["selfMatch"], zone["eligibleDomains"]) == (0, 1, 2)
    assert [(d["value"], d["matchNum"], d["skew"], d["allowed"], d["nodes"]) for d in zone["domains"]] == [
        ("a", 3, 4, False, ["n0", "n1"]),
        ("b", 0, 1, True, ["n2"]),
    ]
    assert [(d["value"], d["skew"], d["allowed"]) for d in rack["domains"]] == [
        ("r1", 3, False),
        ("r2", 2, False),
        ("r3", 1, True),
    ]


@pytest.mark.parametrize(
    "labels, self_match, skews",
    [
        pytest.param({"app": "web"}, 1, [2, 1, 2], id="a pod its own selector matches adds one to every skew"),
        pytest.param({"app": "db"}, 0, [1, 0, 1], id="a pod its selector does not match adds nothing"),
    ],
)
def test_the_skew_is_counted_from_the_global_minimum_even_for_large_counts(labels, self_match, skews):
    nodes = [make_node(f"n{i}", {"zone": f"z{i}"}, pods=1000) for i in range(3)]
    pods = [web(f"w{i}-{k}", f"n{i}") for i, count in enumerate([337, 336, 337]) for k in range(count)]
    [zone] = picture_of(nodes, pods, spread_pod({"key": "zone"}, labels=labels))["constraints"]
    assert (zone["minMatchNum"], zone["selfMatch"]) == (336, self_match)
    assert [d["skew"] for d in zone["domains"]] == skews
    assert [d["allowed"] for d in zone["domains"]] == [s <= 1 for s in skews]


def test_it_lists_nodes_without_the_key_and_domains_that_were_not_counted():
    nodes = [
        make_node("n0", {"zone": "a"}),
        make_node("n1", {}),
        make_node("n2", {"zone": "b"}, taints=[Taint("dedicated", "x", "NoSchedule")]),
    ]
    picture = picture_of(nodes, [web("w0", "n0")], spread_pod({"key": "zone", "nodeTaintsPolicy": "Honor"}))
    [zone] = picture["constraints"]
    assert zone["nodesWithoutKey"] == ["n1"]
    # n2's taint keeps zone b out of the count (nodeTaintsPolicy: Honor), yet Filter still judges
    # n2 by zone b's count, 0.
    assert [(d["value"], d["counted"], d["matchNum"], d["skew"]) for d in zone["domains"]] == [
        ("a", True, 1, 1),
        ("b", False, 0, 0),
    ]


def test_it_respects_min_domains():
    nodes = [make_node("n0", {"zone": "a"}), make_node("n1", {"zone": "b"})]
    picture = picture_of(nodes, [web("w0", "n0"), web("w1", "n1")], spread_pod({"key": "zone", "minDomains": 3}))
    [zone] = picture["constraints"]
    assert (zone["minMatchNum"], zone["minDomains"], zone["eligibleDomains"]) == (0, 3, 2)
    assert [d["allowed"] for d in zone["domains"]] == [False, False]


def test_it_travels_in_the_pre_filter_event_under_its_own_key_and_stays_out_of_the_trace():
    text = (REPO / "webui" / "demos" / "seed_pts_conflict.yaml").read_text()
    events = list(simulate(load_scenario(text)))
    payload = next(
        e.to_json()["payload"]
        for e in events
        if e.extension_point is ExtensionPoint.PRE_FILTER and e.plugin == POD_TOPOLOGY_SPREAD
    )
    assert set(payload) == {"status", "nodeNames", "state", "picture"}
    assert [c["topologyKey"] for c in payload["picture"]["constraints"]] == ["zone", "node"]
    trace = trace_summary(events)
    assert "picture" not in str(trace)
    assert trace["cycles"][0]["preFilterState"][POD_TOPOLOGY_SPREAD] == payload["state"]


def test_plugins_without_a_picture_keep_their_payload_unchanged():
    text = (REPO / "webui" / "demos" / "seed_pod_affinity.yaml").read_text()
    for event in simulate(load_scenario(text)):
        if event.extension_point is ExtensionPoint.PRE_FILTER and event.plugin is not None:
            assert set(event.to_json()["payload"]) == {"status", "nodeNames", "state"}


@pytest.mark.parametrize(
    "case", sorted(p.stem for p in CORPUS.glob("*.yaml") if "topologySpreadConstraints" in p.read_text())
)
def test_the_picture_is_the_same_on_the_fast_and_the_per_node_path(case):
    scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())

    def pictures(vectorized: bool) -> list:
        return [
            e.to_json()["payload"].get("picture")
            for e in simulate(scenario, vectorized=vectorized)
            if e.extension_point is ExtensionPoint.PRE_FILTER and e.plugin == POD_TOPOLOGY_SPREAD
        ]

    assert pictures(True) == pictures(False)


def test_grouping_over_the_node_table_equals_grouping_node_by_node():
    nodes = [
        make_node("n0", {"zone": "b"}),
        make_node("n1", {}),
        make_node("n2", {"zone": "a"}),
        make_node("n3", {"zone": "b"}),
        make_node("n4", {"rack": "r"}),
    ]
    snapshot = make_snapshot(nodes)
    for key in ("zone", "rack", "absent"):
        assert group_table(NodeTable(snapshot.node_infos), key) == group_nodes(snapshot.node_infos, key)
    assert group_table(NodeTable(snapshot.node_infos), "zone") == DomainNodes(
        ("a", "b"), (("n2",), ("n0", "n3")), ("n1", "n4")
    )


def test_the_picture_is_written_as_its_declaration_says():
    """Written straight from the arrays (util/wire.py rows_writer), the picture is SpreadPictureJSON's
    JSON: its keys in declaration order, and read back it is the same JSON."""
    nodes = [make_node("n0", {"zone": "a"}), make_node("n1", {"zone": "b"}), make_node("n2")]
    picture = picture_of(nodes, [web("w0", "n0")], spread_pod({"key": "zone"}, {"key": "kubernetes.io/hostname"}))
    assert SpreadPictureJSON.from_json(picture).to_json() == picture
    zone = picture["constraints"][0]
    assert list(zone) == [
        "topologyKey",
        "maxSkew",
        "minDomains",
        "selfMatch",
        "minMatchNum",
        "eligibleDomains",
        "domains",
        "nodesWithoutKey",
    ]
    assert list(zone["domains"][0]) == ["value", "matchNum", "skew", "allowed", "counted", "nodes"]
