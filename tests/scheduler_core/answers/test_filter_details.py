"""scheduler_core.answers.filter_details: the numbers behind each Filter rejection, from a replay of the run.

On the conformance corpora every reason of the plugins that give facts carries them, and the facts
add up to what the plugin compared (for "Insufficient X": request > allocatable − requested).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scheduler_core import load_scenario, simulate
from scheduler_core.answers.explain import explain_cycle
from scheduler_core.answers.filter_details import (
    MODE_SINGLE,
    MODE_TIMELINE,
    collect_details,
    cycle_details,
    cycles_with_details,
)
from scheduler_core.framework.filter_facts import (
    CycleDetails,
    FilterDetails,
    AffinityFact,
    LabelFact,
    PortFact,
    ResourceFact,
    SpreadFact,
    TaintFact,
    VolumeFact,
)
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.model.names import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_PORTS,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    NODE_VOLUME_LIMITS,
    POD_TOPOLOGY_SPREAD,
    TAINT_TOLERATION,
    VOLUME_BINDING,
    VOLUME_RESTRICTIONS,
    VOLUME_ZONE,
)
from tests.scheduler_core.builders import node_text, numbers_scenario, pod_text

SHARED = Path(__file__).resolve().parents[4] / "shared"
CORPUS = SHARED / "conformance" / "public"
TIMELINE = SHARED / "conformance-timeline" / "public"
WITH_FACTS = (
    NODE_RESOURCES_FIT,
    TAINT_TOLERATION,
    NODE_PORTS,
    NODE_AFFINITY,
    POD_TOPOLOGY_SPREAD,
    NODE_UNSCHEDULABLE,
    NODE_VOLUME_LIMITS,
    VOLUME_RESTRICTIONS,
    VOLUME_ZONE,
    VOLUME_BINDING,
    INTER_POD_AFFINITY,
)


def facts_of(plugin: str, node: str, text: str = numbers_scenario()):
    details = cycle_details(load_scenario(text), 0)
    return details.nodes[node].plugin(plugin).facts


def test_it_gives_request_against_free_room_with_what_the_node_already_runs():
    [fact] = facts_of(NODE_RESOURCES_FIT, "full")
    assert fact == ResourceFact("Insufficient cpu", "cpu", 2500, 2200, 4000, 9)
    assert fact.text == "cpu: asks 2500m; free 1800m of 4000m allocatable (2200m requested by 9 pod(s))"


def test_it_names_the_taint_the_port_holder_and_the_label_the_pod_wanted():
    assert facts_of(TAINT_TOLERATION, "tainted") == (
        TaintFact("node(s) had untolerated taint(s)", "dedicated", "gpu", "NoSchedule"),
    )
    [port] = facts_of(NODE_PORTS, "ports")
    assert (port.port, port.protocol, port.host_ip, port.used_by) == (8080, "TCP", "0.0.0.0", ("default/web-0",))
    [label] = facts_of(NODE_AFFINITY, "hdd")
    assert label.text == "nodeSelector wants disktype=ssd; the node has disktype=hdd"


def test_it_counts_pods_against_the_pods_allocatable():
    text = "---\n".join([node_text("small", pods="1"), pod_text("old", node_name="small"), pod_text("new")])
    [fact] = facts_of(NODE_RESOURCES_FIT, "small", text)
    assert (fact.reason, fact.resource, fact.used, fact.allocatable) == ("Too many pods", "pods", 1, 1)


def test_it_puts_the_numbers_into_the_why_sentence():
    text = numbers_scenario()
    events = [event.to_json() for event in simulate(load_scenario(text))]
    explanation = explain_cycle(events, cycle_details(load_scenario(text), 0))
    assert explanation.headline == (
        "No node passed every Filter plugin: 1 Insufficient cpu (full: cpu: asks 2500m; free 1800m of 4000m allocatable "
        "(2200m requested by 9 pod(s))); 1 node(s) didn't have free ports for the requested pod ports (ports: hostPort "
        "8080/TCP on 0.0.0.0 is in use by default/web-0); 1 node(s) didn't match Pod's node affinity/selector (hdd: "
        "nodeSelector wants disktype=ssd; the node has disktype=hdd); 1 node(s) had untolerated taint(s) (tainted: "
        "untolerated taint dedicated=gpu:NoSchedule)."
    )
    assert (
        explanation.to_json()["filterDetails"]["nodes"]["full"]["plugins"][NODE_RESOURCES_FIT]["facts"][0]["free"]
        == 1800
    )


def test_it_refuses_details_of_another_cycle():
    text = numbers_scenario()
    events = [event.to_json() for event in simulate(load_scenario(text))]
    with pytest.raises(ValueError, match="cycle"):
        explain_cycle(events, CycleDetails(FilterDetails(3, "default/big", {})))


def _check_facts(details) -> int:
    """Every reason of a plugin with facts has facts, and they add up to what the plugin compared."""
    checked = 0
    for cycle in details.values():
        for node, detail in cycle.nodes.items():
            for plugin in detail.plugins.values():
                if plugin.plugin not in WITH_FACTS:
                    continue
                for reason in plugin.reasons:
                    assert plugin.facts_for(reason), (cycle.cycle, node, plugin.plugin, reason)
                for fact in plugin.facts:
                    checked += 1
                    if isinstance(fact, ResourceFact):
                        wanted = fact.used + 1 if fact.resource == "pods" else fact.used + fact.requested
                        assert wanted > fact.allocatable, fact
                    elif isinstance(fact, SpreadFact):
                        assert fact.domain is None or fact.skew > fact.max_skew, fact
                    elif isinstance(fact, LabelFact) and fact.operator == "In" and not fact.never_matches:
                        assert fact.node_value not in fact.values, fact
                    elif isinstance(fact, TaintFact):
                        assert fact.effect in ("NoSchedule", "NoExecute"), fact
                    elif isinstance(fact, PortFact):
                        assert fact.port > 0, fact
                    elif isinstance(fact, AffinityFact) and fact.domain is not None:
                        assert (fact.matching == 0) == fact.term.startswith("affinity term"), fact
                    elif isinstance(fact, VolumeFact) and fact.limit is not None:
                        assert fact.count > fact.limit, fact
                    elif isinstance(fact, VolumeFact) and fact.count is not None:
                        assert fact.count > 0, fact  # ReadWriteOncePod claims in use
    return checked


def test_every_reason_of_the_conformance_corpus_carries_numbers_that_add_up():
    files = sorted(CORPUS.glob("*.yaml"))
    if not files:
        pytest.skip(f"no corpus under {CORPUS}")
    checked = 0
    for path in files:
        scenario = load_scenario(path.read_bytes())
        details = collect_details(scenario, mode=MODE_SINGLE)
        rejected = {
            e.cycle: set(e.payload.statuses)
            for e in simulate(scenario)
            if e.extension_point.value == "Filter" and e.plugin is not None and e.payload.statuses
        }
        for cycle in rejected:
            assert cycle in details, (path.name, cycle)
        checked += _check_facts(details)
    assert checked > 5000


def test_a_cycle_at_a_time_gives_the_single_pass_s_events_with_the_facts_collect_details_finds():
    files = sorted(CORPUS.glob("*.yaml"))[:40]
    if not files:
        pytest.skip(f"no corpus under {CORPUS}")
    for path in files:
        scenario = load_scenario(path.read_bytes())
        grouped = list(cycles_with_details(scenario, per_plugin=3))
        assert [e.to_json() for events, _ in grouped for e in events] == [e.to_json() for e in simulate(scenario)]
        assert all(len({e.cycle for e in events}) == 1 for events, _ in grouped)  # one cycle per group
        found = collect_details(scenario, per_plugin=3)
        assert {events[0].cycle: facts for events, facts in grouped if facts is not None} == found, path.name


def test_every_reason_of_the_timeline_corpus_carries_numbers_that_add_up():
    files = sorted(TIMELINE.glob("*.yaml"))
    if not files:
        pytest.skip(f"no corpus under {TIMELINE}")
    checked = 0
    for path in files:
        scenario = load_scenario(path.read_bytes())
        details = collect_details(scenario, mode=MODE_TIMELINE)
        recorded = {}
        for event in run_to_the_end(scenario):
            if event.extension_point.value == "Filter" and event.plugin is not None:
                recorded.setdefault(event.cycle, set()).update(event.payload.statuses)
        for cycle, nodes in recorded.items():
            assert nodes <= details.get(cycle).nodes.keys() if nodes else True, (path.name, cycle)
        checked += _check_facts(details)
    assert checked > 100


# ---------------------------------------------------------------------------- preemption's ranking

OFFSET = 2**31


def _deciding_by_hand(rows) -> tuple[list[str], str | None]:
    """pickOneNodeForPreemption read from the typed criteria alone: each criterion keeps the best
    (the release's sum adds 2^31 per victim; no start time reads as "now", the latest)."""
    keys = [
        ("pdbViolations", lambda r: r.pdb_violations),
        ("highestPriority", lambda r: r.highest_priority),
        ("prioritySum", lambda r: r.priority_sum + OFFSET * r.victim_count),
        ("victims", lambda r: r.victim_count),
    ]
    remaining = list(rows)
    for key, value in keys:
        if len(remaining) == 1:
            break
        best = min(value(r) for r in remaining)
        remaining = [r for r in remaining if value(r) == best]
        if len(remaining) == 1:
            return [r.node for r in remaining], key
    if len(remaining) > 1:
        now = [r for r in remaining if r.earliest_start is None]
        latest = now or [r for r in remaining if r.earliest_start == max(x.earliest_start for x in remaining)]
        if len(latest) < len(remaining):
            remaining = latest
            if len(remaining) == 1:
                return [r.node for r in remaining], "latestStart"
    return [r.node for r in remaining], None


def test_the_deciding_criterion_of_every_preemption_of_the_timeline_corpus_is_the_one_that_left_one_node():
    files = sorted(TIMELINE.glob("*.yaml"))
    if not files:
        pytest.skip(f"no corpus under {TIMELINE}")
    decided = {}
    for path in files:
        scenario = load_scenario(path.read_bytes())
        nominated = {
            e.cycle: e.payload.nominated_node_name
            for e in run_to_the_end(scenario)
            if e.extension_point.value == "PostFilter" and e.plugin == "DefaultPreemption"
        }
        for cycle, details in collect_details(scenario, mode=MODE_TIMELINE).items():
            ranking = details.preemption
            if ranking is None:
                continue
            best, key = _deciding_by_hand(ranking.candidates)
            assert ranking.chosen == nominated[cycle], (path.name, cycle)
            assert [r.node for r in ranking.candidates if r.chosen] == [ranking.chosen]
            if len(ranking.candidates) == 1:
                assert ranking.deciding == "onlyCandidate"
            elif key is None:
                assert (ranking.deciding, ranking.chosen) == ("tieBreak", best[0]), (path.name, cycle)
            else:
                assert (ranking.deciding, [ranking.chosen]) == (key, best), (path.name, cycle)
            survivors = [r.node for r in ranking.candidates if r.dropped_at is None]
            assert ranking.chosen in survivors
            decided[key or ranking.deciding] = decided.get(key or ranking.deciding, 0) + 1
    assert {"highestPriority", "prioritySum", "latestStart"} <= decided.keys(), decided


def test_a_single_pass_leaves_a_tie_of_candidates_to_the_release_s_coin():
    """Two nodes each with one victim of the same priority and no start time: a random tie."""
    text = "---\n".join(
        [
            node_text("a", cpu="1"),
            node_text("b", cpu="1"),
            pod_text("low-a", node_name="a", spec="  priority: 1\n"),
            pod_text("low-b", node_name="b", spec="  priority: 1\n"),
            pod_text("high", spec="  priority: 100\n"),
        ]
    )
    details = cycle_details(load_scenario(text), 0)
    ranking = details.preemption
    assert (ranking.chosen, ranking.deciding) == (None, "randomTie")
    assert (
        ranking.sentence
        == "a, b tie on every criterion: kube-scheduler picks one at random (the single pass nominates none)."
    )
    assert [(r.node, r.victims, r.highest_priority, r.dropped_at) for r in ranking.candidates] == [
        ("a", ("default/low-a",), 1, None),
        ("b", ("default/low-b",), 1, None),
    ]


@pytest.mark.parametrize(
    "case, plugin, text",
    [
        pytest.param(
            "volumes_11",
            NODE_VOLUME_LIMITS,
            "CSI driver ebs.csi.aws.com: 2 volume(s) attached + 1 new > limit 2",
            id="an attach limit gives the driver, the attached and new volumes and the limit",
        ),
        pytest.param(
            "volumes_4",
            VOLUME_RESTRICTIONS,
            "PersistentVolumeClaim solo: ReadWriteOncePod, already in use by default/holder",
            id="a ReadWriteOncePod claim in use names the pod using it",
        ),
        pytest.param(
            "volumes_3",
            VOLUME_ZONE,
            "PersistentVolume zpv: can be used only where topology.kubernetes.io/zone is one of "
            "(zone-b); the node has topology.kubernetes.io/zone=zone-a",
            id="a zonal volume gives its zone and the node's",
        ),
    ],
)
def test_volume_plugins_name_the_claim_or_volume_and_what_collided(case, plugin, text):
    path = TIMELINE / f"{case}.yaml"
    if not path.exists():
        pytest.skip(f"no corpus under {TIMELINE}")
    details = collect_details(load_scenario(path.read_bytes()), mode=MODE_TIMELINE)
    texts = {
        p.text
        for cycle in details.values()
        for node in cycle.nodes.values()
        for p in node.plugins.values()
        if p.plugin == plugin
    }
    assert text in texts
