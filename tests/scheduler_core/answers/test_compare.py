"""compare: two runs to the end side by side, from their event streams."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from scheduler_core import load_scenario
from scheduler_core.cli import main
from scheduler_core.answers.compare import compare, compare_reads
from scheduler_core.run.loop import run_to_the_end

HERE = Path(__file__).resolve().parents[2] / "fixtures" / "compare"
TIMELINE = Path(__file__).resolve().parents[4] / "shared" / "conformance-timeline" / "public"


def stream(scenario):
    return [event.to_json() for event in run_to_the_end(scenario)]


def configured(name: str):
    scenario = load_scenario((HERE / "two_nodes.yaml").read_text())
    return dataclasses.replace(scenario, config=load_scenario((HERE / name).read_text()).config)


def test_most_allocated_packs_the_pod_onto_the_busy_node():
    # LeastAllocated prefers the empty n2; MostAllocated the busy n1 (NodeResourcesFit's weighted score).
    result = compare(
        stream(configured("least_allocated.yaml")), stream(configured("most_allocated.yaml")), pod="default/web"
    )
    assert result["summary"] == "1 pod(s) land elsewhere in B than in A."
    assert [row for row in result["pods"] if row["a"] != row["b"]] == [{"pod": "default/web", "a": "n2", "b": "n1"}]
    assert result["firstDivergence"]["index"] == 0
    n2 = next(node for node in result["scores"]["nodes"] if node["node"] == "n2")
    assert n2["plugins"]["NodeResourcesFit"]["difference"] < 0 and n2["total"]["difference"] < 0


def test_the_same_run_twice_ends_the_same():
    scenario = load_scenario((TIMELINE / "preempt_3.yaml").read_text())
    result = compare(stream(scenario), stream(load_scenario((TIMELINE / "preempt_3.yaml").read_text())))
    assert result["summary"] == "Both runs end the same: every pod in the same place."
    assert result["changed"] == 0 and result["firstDivergence"] is None


def test_a_preemption_fewer_is_counted_and_the_victims_stay():
    # B gives the preemptor's node the room it needs: no preemption, no victim deleted.
    text = (TIMELINE / "preempt_3.yaml").read_text()
    a = load_scenario(text)
    b = load_scenario(text)
    node = next(n for n in b.nodes if n.name == "node-7")
    b.nodes[b.nodes.index(node)] = dataclasses.replace(
        node, allocatable={**node.allocatable, "cpu": node.allocatable["cpu"] * 4}
    )
    result = compare(stream(a), stream(b))
    assert result["counts"]["morePreemptions"] == -1 and result["counts"]["moreEvicted"] == -2
    assert "1 preemption(s) fewer" in result["summary"] and "2 fewer evicted" in result["summary"]


def test_the_cli_compares_one_scenario_under_two_configurations(capsys):
    args = [
        "compare",
        str(HERE / "two_nodes.yaml"),
        "--config",
        str(HERE / "least_allocated.yaml"),
        "--config",
        str(HERE / "most_allocated.yaml"),
        "--json",
    ]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out)["pods"][-1] == {"pod": "default/web", "a": "n2", "b": "n1"}
    assert main(["compare", str(HERE / "two_nodes.yaml")]) == 2
    assert "two scenarios, or one scenario and two --config" in capsys.readouterr().err


def test_a_comparison_reads_the_story_and_only_the_asked_pods_scores():
    a, b = stream(configured("least_allocated.yaml")), stream(configured("most_allocated.yaml"))
    for pod in ("default/web", None):
        reads = compare_reads(pod)
        picked_a = [e for e in a if reads(e["pod"], e["extensionPoint"])]
        picked_b = [e for e in b if reads(e["pod"], e["extensionPoint"])]
        assert compare(picked_a, picked_b, pod=pod) == compare(a, b, pod=pod)
        assert not any(e["extensionPoint"] in ("Filter", "Score") for e in picked_a)
    assert not compare_reads(None)("default/web", "Total") and compare_reads("default/web")("default/web", "Total")
    assert not compare_reads("default/web")("default/other", "NormalizeScore")


def test_a_run_whose_pod_had_one_feasible_node_says_its_scores_decided_nothing():
    """schedulePod: "When only one node after predicate, just use it" — B's scores are the trace's only."""
    a = configured("least_allocated.yaml")
    node = a.nodes[0]
    b = dataclasses.replace(a, nodes=[node])  # one node: the only feasible one
    result = compare(stream(a), stream(b), pod="default/web")
    assert result["scores"]["skipped"]["a"] is None
    assert result["scores"]["skipped"]["b"].startswith(f"Skipped by kube-scheduler: only {node.name} passed Filter")


def test_the_cli_counts_attempts_from_1_as_the_timeline_does(capsys):
    """Issue 28: "The runs part at attempt 0" beside "(attempt 1)": people count from 1 everywhere."""
    args = [
        "compare",
        str(HERE / "two_nodes.yaml"),
        "--config",
        str(HERE / "least_allocated.yaml"),
        "--config",
        str(HERE / "most_allocated.yaml"),
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert (
        "The runs part at attempt 1: A default/web (attempt 1): scheduled to n2 | B default/web (attempt 1): scheduled to n1"
        in out
    )
