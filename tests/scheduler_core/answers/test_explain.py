"""scheduler_core.answers.explain: why nothing fits, why the chosen node won — read from a cycle's events.

Sentences are pinned on small clusters; across the conformance corpus the explanations are checked
against the engine's own answers (the Filter verdicts, the FailedScheduling message, the totals).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core import load_scenario, simulate
from scheduler_core.answers.explain import (
    OUTCOME_ERROR,
    OUTCOME_RUNNING,
    OUTCOME_SCHEDULED,
    OUTCOME_UNSCHEDULABLE,
    explain_cycle,
)
from scheduler_core.framework.diagnosis import nodes_available_message
from scheduler_core.model.names import POD_TOPOLOGY_SPREAD
from tests.scheduler_core.builders import node_text, pinned_spec, pod_text

REPO = Path(__file__).resolve().parents[3]
DEMOS = REPO / "webui" / "demos"
CORPUS = REPO.parent / "shared" / "conformance" / "public"


def cycles_of(text: str) -> list[list[dict]]:
    """Each cycle's events, through JSON as the web app stores them."""
    by_cycle: dict[int, list[dict]] = {}
    for event in simulate(load_scenario(text)):
        wire = json.loads(json.dumps(event.to_json()))
        by_cycle.setdefault(wire["cycle"], []).append(wire)
    return [by_cycle[i] for i in sorted(by_cycle)]


def explain_first(text: str):
    return explain_cycle(cycles_of(text)[0])


def demo(slug: str) -> str:
    return (DEMOS / f"{slug}.yaml").read_text()


# ---------------------------------------------------------------------------- headlines


@pytest.mark.parametrize(
    "text, outcome, headline",
    [
        pytest.param(
            demo("seed_pts_conflict"),
            OUTCOME_UNSCHEDULABLE,
            "zone allows zoneB (node3); node allows node2 (zoneA): no node is allowed by both.",
            id="the conflicting spread constraints each allow something but no node is allowed by both",
        ),
        pytest.param(
            demo("seed_pts_single_constraint"),
            OUTCOME_SCHEDULED,
            "node4 beat node3 by 2: NodeResourcesFit +2.",
            id="the winner's margin over the runner-up is given per plugin in weighted points",
        ),
        pytest.param(
            demo("seed_pts_two_constraints"),
            OUTCOME_SCHEDULED,
            "node4 was the only node that passed Filter, so it was chosen without scoring "
            "(kube-scheduler runs no PreScore or Score for a single feasible node).",
            id="a single feasible node wins without a runner-up",
        ),
        pytest.param(
            node_text("a") + "---\n" + node_text("b") + "---\n" + pod_text("web"),
            OUTCOME_SCHEDULED,
            "a tied with b at {total}: SchedLab takes the first of them in node order (kube-scheduler picks one at random).",
            id="a tie says how the tied node was picked",
        ),
        pytest.param(
            node_text("a") + "---\n" + node_text("b") + "---\n" + pod_text("web", pinned_spec("ghost")),
            OUTCOME_UNSCHEDULABLE,
            "PreFilter (NodeAffinity) narrowed the nodes to ghost, which is not a node of the cluster: "
            "Filter had no node to check.",
            id="node affinity to a node that does not exist says PreFilter left Filter nothing",
        ),
        pytest.param(
            node_text("a") + "---\n" + node_text("b") + "---\n" + pod_text("web", pinned_spec("a", "b")),
            OUTCOME_UNSCHEDULABLE,
            "PreFilter rejected the pod (NodeAffinity): pod affinity terms conflict; Filter did not run.",
            id="a PreFilter rejection names the plugin and its reason",
        ),
        pytest.param(
            node_text("a", cpu="1")
            + "---\n"
            + node_text("b", taints="{key: gpu, effect: NoSchedule}")
            + "---\n"
            + node_text("c", cpu="1")
            + "---\n"
            + pod_text("web", cpu="2"),
            OUTCOME_UNSCHEDULABLE,
            "No node passed every Filter plugin: 2 Insufficient cpu (a, c); 1 node(s) had untolerated taint(s) (b).",
            id="without a spread conflict the Filter reasons are grouped with their nodes, most first",
        ),
    ],
)
def test_it_explains_the_cycle_in_one_sentence(text, outcome, headline):
    events = cycles_of(text)[0]
    explanation = explain_cycle(events)
    total = next(
        (e["payload"]["totalScores"].get(e["payload"]["nodeName"]) for e in events if e["extensionPoint"] == "Total"),
        None,
    )
    assert (explanation.outcome, explanation.headline) == (outcome, headline.format(total=total))


# ---------------------------------------------------------------------------- PodTopologySpread


def test_it_lists_what_each_spread_constraint_allows_on_its_own():
    spread = explain_first(demo("seed_pts_conflict")).spread
    assert [(c.topology_key, [(d.value, d.nodes) for d in c.allowed]) for c in spread.constraints] == [
        ("zone", [("zoneB", ("node3",))]),
        ("node", [("node2", ("node2",))]),
    ]
    assert spread.allowed_by_all == ()


def test_it_says_which_nodes_every_spread_constraint_allows():
    spread = explain_first(demo("seed_pts_two_constraints")).spread
    assert spread.sentence == ("zone allows zoneB (node3, node4); node allows node4 (zoneB): node4 is allowed by both.")
    assert spread.allowed_by_all == ("node4",)


def test_it_says_when_a_constraint_allows_no_domain():
    # minDomains 3 over 2 zones: the global minimum counts as 0, so zoneA (2 pods) and zoneB (1 pod)
    # would both reach a skew above 1 with the pod.
    text = demo("seed_pts_single_constraint").replace(
        "    topologyKey: zone\n", "    topologyKey: zone\n    minDomains: 3\n", 1
    )
    spread = explain_first(text).spread
    assert spread.constraints[0].allowed == ()
    assert spread.sentence == "zone allows no domain (each would be above maxSkew 1): no node is allowed."


def test_it_gives_no_spread_explanation_without_hard_constraints():
    assert explain_first(node_text("a") + "---\n" + pod_text("web")).spread is None


# ---------------------------------------------------------------------------- Filter and PreFilter


def test_it_counts_the_nodes_outside_the_pre_filter_result_under_one_reason():
    text = (
        node_text("a")
        + "---\n"
        + node_text("b")
        + "---\n"
        + node_text("c")
        + "---\n"
        + pod_text("web", pinned_spec("a"), cpu="9")
    )
    explanation = explain_first(text)
    assert explanation.pre_filter.narrowed_to == ("a",) and explanation.pre_filter.missing_nodes == ()
    assert explanation.pre_filter.sentence == "PreFilter (NodeAffinity) narrowed the nodes to a."
    groups = [(g.reason, g.count, g.nodes, g.outside_pre_filter) for g in explanation.filter.groups]
    assert groups == [
        ("node(s) didn't satisfy plugin(s) [NodeAffinity]", 2, (), True),
        ("Insufficient cpu", 1, ("a",), False),
    ]


def test_a_scheduled_cycle_still_groups_the_rejected_nodes():
    text = node_text("a", cpu="1") + "---\n" + node_text("b") + "---\n" + pod_text("web", cpu="2")
    explanation = explain_first(text)
    assert explanation.filter.sentence == "1 of 2 node(s) passed every Filter plugin; rejected: 1 Insufficient cpu (a)."


def test_a_cycle_without_its_end_is_running():
    events = cycles_of(demo("seed_pts_single_constraint"))[0]
    explanation = explain_cycle([e for e in events if e["extensionPoint"] != "CycleEnd"])
    assert (explanation.outcome, explanation.headline) == (OUTCOME_RUNNING, "This cycle has not finished yet.")


def test_an_error_cycle_says_so():
    events = cycles_of(demo("seed_pts_single_constraint"))[0]
    end = {**events[-1], "payload": {"nodeName": None, "error": "running Bind plugin: boom"}}
    explanation = explain_cycle(events[:-1] + [end])
    assert (explanation.outcome, explanation.headline) == (
        OUTCOME_ERROR,
        "The cycle stopped on an error: running Bind plugin: boom",
    )


def test_its_json_is_camel_case_and_complete():
    out = explain_first(demo("seed_pts_conflict")).to_json()
    assert set(out) == {
        "cycle",
        "pod",
        "outcome",
        "node",
        "headline",
        "preFilter",
        "filter",
        "spread",
        "winner",
        "filterDetails",
        "filterDetailsNote",
        "preemption",
        "scoring",
        "claims",
    }
    assert out["spread"]["constraints"][0]["allowed"] == [{"value": "zoneB", "nodes": ["node3"]}]
    assert out["filter"]["groups"][0] == {
        "reason": "node(s) didn't match pod topology spread constraints",
        "count": 3,
        "plugins": [POD_TOPOLOGY_SPREAD],
        "nodes": ["node1", "node2", "node3"],
        "outsidePreFilter": False,
    }


# ---------------------------------------------------------------------------- against the engine, corpus-wide


def corpus_cycles():
    for path in sorted(CORPUS.glob("*.yaml")):
        for events in cycles_of(path.read_text()):
            yield path.stem, events, explain_cycle(events)


@pytest.fixture(scope="module")
def corpus():
    return list(corpus_cycles())


def test_the_spread_picture_agrees_with_every_filter_verdict_of_the_corpus(corpus):
    checked = [(case, events, ex) for case, events, ex in corpus if ex.spread is not None and ex.filter is not None]
    for case, events, explanation in checked:
        summary = payload_of(events, "Filter", None)
        rejected = set(payload_of(events, "Filter", POD_TOPOLOGY_SPREAD, {"statuses": {}})["statuses"])
        assert explanation.spread.allowed_by_all == tuple(n for n in summary["evaluated"] if n not in rejected), case
    assert len(checked) >= 30


def test_the_filter_groups_rebuild_every_failed_scheduling_message_of_the_corpus(corpus):
    checked = [
        (case, events, ex)
        for case, events, ex in corpus
        if ex.outcome == OUTCOME_UNSCHEDULABLE and ex.filter is not None
    ]
    for case, events, explanation in checked:
        histogram = ", ".join(sorted(f"{g.count} {g.reason}" for g in explanation.filter.groups))
        message = payload_of(events, "CycleEnd", None)["failedSchedulingMessage"]
        assert message.startswith(
            nodes_available_message(payload_of(events, "CycleStart", None)["nodeCount"], histogram)
        ), case
    assert len(checked) >= 20


def test_the_winners_margins_add_up_to_the_engines_totals_across_the_corpus(corpus):
    checked = [(case, events, ex) for case, events, ex in corpus if ex.winner is not None]
    for case, events, explanation in checked:
        winner, total = explanation.winner, payload_of(events, "Total", None)
        assert winner.node == payload_of(events, "CycleEnd", None)["nodeName"] == total["nodeName"], case
        assert winner.total == total["totalScores"][winner.node]
        if winner.runner_up is not None:
            assert winner.margin == sum(p.difference for p in winner.plugins) == winner.total - winner.runner_up_total
            assert winner.margin >= 0
            assert winner.runner_up_total == max(v for n, v in total["totalScores"].items() if n != winner.node)
    assert len(checked) >= 100


def payload_of(events: list[dict], point: str, plugin, default=None) -> dict:
    return next((e["payload"] for e in events if e["extensionPoint"] == point and e["plugin"] == plugin), default)


# ---------------------------------------------------------------------------- a node tried alone


def test_a_hinted_cycle_says_the_node_came_from_the_last_pod_ranking():
    from scheduler_core.run.loop import run_to_the_end
    from tests.scheduler_core.builders import fill_one_node_each, no_default_spreading

    by_cycle: dict[int, list[dict]] = {}
    for event in run_to_the_end(load_scenario(no_default_spreading() + fill_one_node_each()), tie_break="first"):
        wire = json.loads(json.dumps(event.to_json()))
        by_cycle.setdefault(wire["cycle"], []).append(wire)
    first, second = explain_cycle(by_cycle[0]), explain_cycle(by_cycle[1])
    assert "OpportunisticBatching" not in first.filter.sentence
    assert second.filter.sentence.startswith("OpportunisticBatching: the previous pod had the same signature")
    assert "offered n020" in second.filter.sentence


# ---------------------------------------------------------------------------- skipped scoring


def test_one_feasible_node_is_explained_as_scoring_skipped_by_the_release():
    """schedulePod: "When only one node after predicate, just use it" — no PreScore, no Score. The
    trace still lists the scores (the spec asks for them): the explanation marks them skipped."""
    explanation = explain_first(demo("seed_pts_two_constraints"))
    assert explanation.scoring.skipped and explanation.scoring.node == "node4"
    assert explanation.scoring.sentence.startswith("Skipped by kube-scheduler: only node4 passed Filter")
    assert explanation.to_json()["scoring"]["skipped"] is True
    scored = explain_first(demo("seed_pts_single_constraint")).scoring
    assert not scored.skipped and scored.sentence == "kube-scheduler scored the 2 feasible nodes."


def test_a_cycle_without_a_feasible_node_has_no_scoring_to_explain():
    assert explain_first(demo("seed_pts_conflict")).scoring is None


PENDING_GPU = REPO / "tests" / "fixtures" / "dra" / "pending_gpu.yaml"


def test_it_says_per_node_what_a_claim_s_request_finds_and_which_node_comes_closest():
    """DynamicResources' Filter (dynamicresources.go Filter): no node has 2 free devices of the class."""
    explanation = explain_first(PENDING_GPU.read_text())
    assert explanation.claims.per_node["node-1"] == (
        "request `gpu`: 2 device(s) of class `gpu.example.com` — node-1 has 1 free: "
        "gpu-0 allocated to default/train-1 (claim train-1-gpu)",
    )
    assert explanation.headline.endswith(
        "request `gpu` of claim default/train-2-gpu asks for 2 device(s) of class `gpu.example.com`, "
        "and no node has more than 1 free (node-1, node-2)."
    )
    assert explanation.to_json()["claims"]["shortfalls"][0]["mostFree"] == 1


def test_it_gives_no_claims_explanation_for_a_pod_without_claims():
    assert explain_first(demo("seed_pts_single_constraint")).claims is None


def test_free_partitions_without_counters_left_are_explained_by_the_counters():
    """DRAPartitionableDevices (v1.36): infer-2 finds free halves on both nodes, but the whole GPU and
    the two halves allocated before it have used each node's 40Gi counter set."""
    example = (REPO / "examples" / "dra_partitioned_gpu.yaml").read_text()
    explanation = explain_cycle(cycles_of(example)[3])
    assert explanation.pod == "default/infer-2" and explanation.outcome == OUTCOME_UNSCHEDULABLE
    assert (
        "counter set `gpu-0` of pool gpu.example.com/gpu-node-1: 0 of 40Gi memory left"
        in (explanation.claims.per_node["gpu-node-1"])
    )
    assert explanation.claims.sentence == (
        "Each request alone finds free devices on some node, but the partitions draw on counters that allocated "
        "devices have used: gpu-node-1: counter set `gpu-0` of pool gpu.example.com/gpu-node-1: 0 of 40Gi memory "
        "left; gpu-node-2: counter set `gpu-0` of pool gpu.example.com/gpu-node-2: 0 of 40Gi memory left."
    )


def test_free_shared_devices_without_capacity_left_are_explained_by_their_shares():
    """DRAConsumableCapacity (v1.36): web-2 finds each node's NIC free of owners, but the shares of
    db-0 and the two web pods before it have used all of both NICs' bandwidth."""
    example = (REPO / "examples" / "dra_shared_nic.yaml").read_text()
    explanation = explain_cycle(cycles_of(example)[2])
    assert explanation.pod == "default/web-2" and explanation.outcome == OUTCOME_UNSCHEDULABLE
    assert explanation.claims.sentence == (
        "Each request alone finds devices on some node, but a share of the devices that allow multiple "
        "allocations must fit what earlier shares left of their capacity: node-1: shared device `nic-0` of pool "
        "net.example.com/node-1: 0 of 10Gi bandwidth left; node-2: shared device `nic-0` of pool "
        "net.example.com/node-2: 0 of 4Gi bandwidth left."
    )
