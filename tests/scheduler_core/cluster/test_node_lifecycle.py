"""The taints the node lifecycle controller keeps in step with node conditions
(pkg/controller/nodelifecycle v1.35: doNoScheduleTaintingPass, doNoExecuteTaintingPass,
processTaintBaseEviction, handleDisruption), applied to the model and to the scenario text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core import load_scenario
from scheduler_core.model import Taint
from scheduler_core.cluster.node_lifecycle import (
    add_node_taints,
    add_node_taints_to_text,
    controller_taint_changes,
    with_controller_taints,
)
from tests.scheduler_core.builders import node_text, pod_text

DUMPS = Path(__file__).resolve().parents[2] / "fixtures" / "dumps"
NO_SCHEDULE, NO_EXECUTE = "NoSchedule", "NoExecute"


def node_with(name: str, conditions: str, taints: str = "", extra_spec: str = "", labels: str = "") -> str:
    """A Node document with ``conditions`` (flow list items) in status."""
    return f"""apiVersion: v1
kind: Node
metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{labels}}}}}
spec: {{taints: [{taints}]{extra_spec}}}
status:
  allocatable: {{cpu: "4", memory: 8Gi, pods: "110"}}
  conditions: [{conditions}]
"""


READY = "{type: Ready, status: 'True'}"


def changes_of(*documents: str):
    return {c.node: c for c in controller_taint_changes(load_scenario("---\n".join(documents)))}


@pytest.mark.parametrize(
    "condition, key",
    [
        ("{type: Ready, status: 'False'}", "node.kubernetes.io/not-ready"),
        ("{type: Ready, status: Unknown}", "node.kubernetes.io/unreachable"),
        ("{type: MemoryPressure, status: 'True'}", "node.kubernetes.io/memory-pressure"),
        ("{type: DiskPressure, status: 'True'}", "node.kubernetes.io/disk-pressure"),
        ("{type: PIDPressure, status: 'True'}", "node.kubernetes.io/pid-pressure"),
        ("{type: NetworkUnavailable, status: 'True'}", "node.kubernetes.io/network-unavailable"),
    ],
    ids=[
        "Ready False is not-ready",
        "Ready Unknown is unreachable",
        "MemoryPressure",
        "DiskPressure",
        "PIDPressure",
        "NetworkUnavailable",
    ],
)
def test_it_adds_the_no_schedule_taint_each_condition_calls_for(condition, key):
    # Another node stays Ready, so the cluster is not fully disrupted.
    ready_first = condition if condition.startswith("{type: Ready") else f"{READY}, {condition}"
    found = changes_of(node_with("sick", ready_first), node_with("well", READY))
    assert set(found) == {"sick"}
    assert Taint(key, "", NO_SCHEDULE) in found["sick"].add


def test_it_adds_the_matching_no_execute_taint_for_a_not_ready_or_unreachable_node():
    found = changes_of(
        node_with("down", "{type: Ready, status: 'False'}"),
        node_with("lost", "{type: Ready, status: Unknown}"),
        node_with("well", READY),
    )
    assert found["down"].add == (
        Taint("node.kubernetes.io/not-ready", "", NO_SCHEDULE),
        Taint("node.kubernetes.io/not-ready", "", NO_EXECUTE),
    )
    assert found["lost"].add == (
        Taint("node.kubernetes.io/unreachable", "", NO_SCHEDULE),
        Taint("node.kubernetes.io/unreachable", "", NO_EXECUTE),
    )


def test_it_swaps_unreachable_for_not_ready_as_the_controller_does():
    """processTaintBaseEviction: Ready=False on a node tainted unreachable:NoExecute swaps the two
    at once; the stale unreachable:NoSchedule goes too (TaintSetDiff)."""
    stale = "{key: node.kubernetes.io/unreachable, effect: NoExecute}, {key: node.kubernetes.io/unreachable, effect: NoSchedule}"
    [change] = changes_of(node_with("down", "{type: Ready, status: 'False'}", stale), node_with("well", READY)).values()
    assert {(t.key, t.effect) for t in change.remove} == {
        ("node.kubernetes.io/unreachable", NO_EXECUTE),
        ("node.kubernetes.io/unreachable", NO_SCHEDULE),
    }
    assert {(t.key, t.effect) for t in change.add} == {
        ("node.kubernetes.io/not-ready", NO_EXECUTE),
        ("node.kubernetes.io/not-ready", NO_SCHEDULE),
    }


def test_a_ready_node_loses_the_controllers_taints_it_still_carries():
    stale = "{key: node.kubernetes.io/not-ready, effect: NoSchedule}, {key: node.kubernetes.io/not-ready, effect: NoExecute}, {key: dedicated, value: gpu, effect: NoSchedule}"
    [change] = changes_of(node_with("back", READY, stale)).values()
    assert change.add == ()
    assert {t.key for t in change.remove} == {"node.kubernetes.io/not-ready"}  # the user's own taint stays


def test_a_taint_already_there_with_a_value_counts_as_present():
    """TaintExists matches key and effect only."""
    there = "{key: node.kubernetes.io/not-ready, value: 'x', effect: NoSchedule}, {key: node.kubernetes.io/not-ready, effect: NoExecute}"
    assert changes_of(node_with("down", "{type: Ready, status: 'False'}", there), node_with("well", READY)) == {}


def test_when_no_node_is_ready_the_controller_stops_no_execute_tainting():
    """handleDisruption: every zone fully disrupted → markNodeAsReachable on every node and no
    NoExecute taints; the NoSchedule pass still runs."""
    found = changes_of(
        node_with("a", "{type: Ready, status: 'False'}"), node_with("b", "{type: Ready, status: Unknown}")
    )
    assert [t.effect for t in found["a"].add] == [NO_SCHEDULE]
    assert [t.effect for t in found["b"].add] == [NO_SCHEDULE]


def test_a_node_excluded_from_disruption_checks_does_not_count_as_the_ready_one():
    found = changes_of(
        node_with("a", "{type: Ready, status: 'False'}"),
        node_with("b", READY, labels=", node.kubernetes.io/exclude-disruption: ''"),
    )
    assert [t.effect for t in found["a"].add] == [NO_SCHEDULE]


def test_an_unschedulable_node_gets_the_unschedulable_taint_even_without_conditions():
    found = changes_of(node_with("cordoned", "", extra_spec=", unschedulable: true"))
    assert found["cordoned"].add == (Taint("node.kubernetes.io/unschedulable", "", NO_SCHEDULE),)


def test_a_hand_written_node_without_conditions_is_left_alone():
    assert changes_of(node_text("n1"), node_text("n2")) == {}


def test_the_text_edit_gives_the_same_nodes_as_the_model_edit_and_keeps_other_documents():
    text = (DUMPS / "eks_notready_recorded.yaml").read_text()
    scenario = load_scenario(text)
    changes = controller_taint_changes(scenario)
    edited = add_node_taints_to_text(text, changes)
    assert {n.name: n.taints for n in load_scenario(edited).nodes} == {
        n.name: n.taints for n in with_controller_taints(scenario).nodes
    }
    assert controller_taint_changes(load_scenario(edited)) == []
    assert add_node_taints(text) == edited


def test_only_the_changed_node_document_is_rewritten_in_a_yaml_stream():
    sick = node_with("sick", "{type: Ready, status: 'False'}")
    documents = [node_with("well", READY), sick, pod_text("p")]
    edited = add_node_taints("---\n".join(documents))
    assert edited.startswith(documents[0])  # exactly as written
    assert edited.endswith(documents[2])
    [node] = [n for n in load_scenario(edited).nodes if n.name == "sick"]
    assert [(t.key, t.effect) for t in node.taints] == [
        ("node.kubernetes.io/not-ready", NO_SCHEDULE),
        ("node.kubernetes.io/not-ready", NO_EXECUTE),
    ]


def test_a_json_node_list_stays_json_and_its_items_keep_no_kind():
    items = [
        {
            "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "2", "pods": "10"}, "conditions": [{"type": "Ready", "status": status}]},
        }
        for name, status in (("a", "True"), ("b", "Unknown"))
    ]
    text = json.dumps({"apiVersion": "v1", "kind": "NodeList", "items": items}, indent=2)
    edited = json.loads(add_node_taints_to_text(text, controller_taint_changes(_node_list_scenario(items))))
    assert "kind" not in edited["items"][1]
    assert edited["items"][1]["spec"]["taints"] == [
        {"key": "node.kubernetes.io/unreachable", "effect": NO_SCHEDULE},
        {"key": "node.kubernetes.io/unreachable", "effect": NO_EXECUTE},
    ]
    assert edited["items"][0] == items[0]


def _node_list_scenario(items: list[dict]):
    """The loader reads kind: List today; typed lists are the `forms` branch's: build the scenario
    from the same nodes written as a List."""
    return load_scenario(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "List",
                "items": [{"apiVersion": "v1", "kind": "Node", **item} for item in items],
            }
        )
    )


def test_the_dumped_not_ready_node_gets_both_not_ready_taints_in_the_model():
    scenario = with_controller_taints(load_scenario((DUMPS / "eks_notready_recorded.yaml").read_bytes()))
    down = next(n for n in scenario.nodes if n.name.startswith("ip-10-0-3-77"))
    assert {(t.key, t.effect) for t in down.taints} == {
        ("node.kubernetes.io/not-ready", NO_SCHEDULE),
        ("node.kubernetes.io/not-ready", NO_EXECUTE),
    }
