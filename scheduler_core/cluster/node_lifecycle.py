"""The taints the node lifecycle controller keeps in step with a node's conditions.

A dump can hold a node whose conditions say NotReady (or under pressure) without the taints
kube-controller-manager's node lifecycle controller would have put on it — a snapshot taken
between two of its passes, or a dump written by hand. The scheduler reads only the taints, so such
a node takes pods the real cluster keeps off it. This module says which taints the controller
would add or remove (pkg/controller/nodelifecycle, v1.35) and applies them, to the model or to
the scenario's text:

- doNoScheduleTaintingPass: per condition, in the node's order, Ready=False → ``not-ready``,
  Ready=Unknown → ``unreachable``, MemoryPressure / DiskPressure / PIDPressure /
  NetworkUnavailable=True → ``memory-pressure`` / ``disk-pressure`` / ``pid-pressure`` /
  ``network-unavailable``, all NoSchedule, then ``unschedulable`` for ``spec.unschedulable``; a
  NoSchedule taint of those keys that no condition calls for is removed (TaintSetDiff).
- doNoExecuteTaintingPass / processTaintBaseEviction: Ready=False → ``not-ready:NoExecute``,
  Unknown → ``unreachable:NoExecute``, each replacing the other (they are mutually exclusive);
  Ready=True removes both (markNodeAsReachable). When no node that counts for disruption is Ready
  (every zone fully disrupted) the controller stops tainting and removes both from every node.

New taints go at the end of the node's list, as AddOrUpdateTaint appends them. A node written
without any condition (a hand-written scenario) gets only the ``unschedulable`` taint. For
``spec.unschedulable`` the scheduler's NodeUnschedulable plugin already keeps pods off (it runs
before TaintToleration, so the message does not change either); the missing taint only changes
PodTopologySpread's counting for constraints with ``nodeTaintsPolicy: Honor``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional

from scheduler_core.model import Node, NodeCondition, Scenario, Taint, TaintEffect
from scheduler_core.scenario import load_scenario
from scheduler_core.scenario.textedit import KEEP, edit_objects
from scheduler_core.util.wire import Wire

TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
TAINT_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"
TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
LABEL_EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption"

READY = "Ready"
# (condition type, status) -> the NoSchedule taint key (nodeConditionToTaintKeyStatusMap).
CONDITION_TAINTS: dict[tuple[str, str], str] = {
    (READY, "False"): TAINT_NOT_READY,
    (READY, "Unknown"): TAINT_UNREACHABLE,
    ("MemoryPressure", "True"): TAINT_MEMORY_PRESSURE,
    ("DiskPressure", "True"): TAINT_DISK_PRESSURE,
    ("NetworkUnavailable", "True"): TAINT_NETWORK_UNAVAILABLE,
    ("PIDPressure", "True"): TAINT_PID_PRESSURE,
}
# NoSchedule taints the controller owns (it removes them when no condition calls for them).
CONTROLLER_NO_SCHEDULE_KEYS = frozenset([*CONDITION_TAINTS.values(), TAINT_UNSCHEDULABLE])
NO_EXECUTE_BY_READY = {"False": TAINT_NOT_READY, "Unknown": TAINT_UNREACHABLE}


@dataclass(frozen=True, slots=True)
class NodeTaintChange:
    """What the controller would do to one node's taints."""

    node: str
    add: tuple[Taint, ...]
    remove: tuple[Taint, ...]
    conditions: tuple[NodeCondition, ...]  # the conditions that call for them (for messages)

    @property
    def text(self) -> str:
        """``node +key:Effect -key:Effect``: the change in one line."""
        return " ".join(
            [self.node, *(f"+{taint_text(t)}" for t in self.add), *(f"-{taint_text(t)}" for t in self.remove)]
        )

    def wire(self) -> NodeTaintChangeJSON:
        """Its wire form: each taint and condition as text."""
        return NodeTaintChangeJSON(
            self.node,
            [taint_text(t) for t in self.add],
            [taint_text(t) for t in self.remove],
            [f"{c.type}={c.status}" for c in self.conditions],
        )

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()


class NodeTaintChangeJSON(Wire, frozen=True):  # type: ignore[misc]
    """What the controller would do to one node's taints, as `check --json` writes it
    (``addedNodeTaints``): the taints added and removed ("key=value:Effect") and the conditions that
    call for them ("Ready=False")."""

    node: str
    add: list[str]
    remove: list[str]
    conditions: list[str]


def taint_text(taint: Taint) -> str:
    value = f"={taint.value}" if taint.value else ""
    return f"{taint.key}{value}:{taint.effect}"


def controller_taint_changes(scenario: Scenario) -> list[NodeTaintChange]:
    """The nodes (document order) whose taints the node lifecycle controller would change."""
    disrupted = _fully_disrupted(scenario.nodes)
    changes = []
    for node in scenario.nodes:
        if not node.conditions and not node.unschedulable and not node.taints:
            continue  # nothing to add, nothing of the controller's to remove
        change = _change(node, disrupted)
        if change.add or change.remove:
            changes.append(change)
    return changes


def _fully_disrupted(nodes: list[Node]) -> bool:
    """handleDisruption's allAreFullyDisrupted: no node that counts (its Ready condition written,
    not labelled exclude-disruption) is Ready, and some are not."""
    counted = [_ready(node) for node in nodes if LABEL_EXCLUDE_DISRUPTION not in node.labels]
    statuses = [status for status in counted if status is not None]
    return bool(statuses) and "True" not in statuses


def _ready(node: Node) -> Optional[str]:
    return next((c.status for c in node.conditions if c.type == READY), None)


def _expected(node: Node, disrupted: bool) -> list[Taint]:
    expected = [
        Taint(CONDITION_TAINTS[(c.type, c.status)], "", TaintEffect.NO_SCHEDULE.value)
        for c in node.conditions
        if (c.type, c.status) in CONDITION_TAINTS
    ]
    if node.unschedulable:
        expected.append(Taint(TAINT_UNSCHEDULABLE, "", TaintEffect.NO_SCHEDULE.value))
    ready = _ready(node)
    if ready in NO_EXECUTE_BY_READY and not disrupted:
        expected.append(Taint(NO_EXECUTE_BY_READY[ready], "", TaintEffect.NO_EXECUTE.value))
    return _unique(expected)


def _unique(taints: list[Taint]) -> list[Taint]:
    seen: set[tuple[str, str]] = set()
    out = []
    for taint in taints:
        if (taint.key, taint.effect) not in seen:
            seen.add((taint.key, taint.effect))
            out.append(taint)
    return out


def _owned(taint: Taint) -> bool:
    """A taint the controller keeps in step with the conditions (and may remove)."""
    if taint.effect == TaintEffect.NO_SCHEDULE.value:
        return taint.key in CONTROLLER_NO_SCHEDULE_KEYS
    return taint.effect == TaintEffect.NO_EXECUTE.value and taint.key in NO_EXECUTE_BY_READY.values()


def _change(node: Node, disrupted: bool) -> NodeTaintChange:
    expected = _expected(node, disrupted)
    # TaintExists / TaintSetDiff match on key and effect; the value is not compared.
    have = {(t.key, t.effect) for t in node.taints}
    want = {(t.key, t.effect) for t in expected}
    add = tuple(t for t in expected if (t.key, t.effect) not in have)
    remove = tuple(t for t in node.taints if _owned(t) and (t.key, t.effect) not in want)
    causes = tuple(c for c in node.conditions if (c.type, c.status) in CONDITION_TAINTS)
    return NodeTaintChange(node.name, add, remove, causes)


def _new_taints(taints: tuple[Taint, ...], change: NodeTaintChange) -> tuple[Taint, ...]:
    removed = {(t.key, t.effect) for t in change.remove}
    return tuple(t for t in taints if (t.key, t.effect) not in removed) + change.add


def with_controller_taints(scenario: Scenario, changes: Optional[list[NodeTaintChange]] = None) -> Scenario:
    """A copy of the scenario with the controller's taint changes made on its nodes (the same
    result as loading ``add_node_taints_to_text`` of its text)."""
    changes = controller_taint_changes(scenario) if changes is None else changes
    by_node = {change.node: change for change in changes}
    nodes = [
        dataclasses.replace(node, taints=_new_taints(node.taints, by_node[node.name])) if node.name in by_node else node
        for node in scenario.nodes
    ]
    return dataclasses.replace(scenario, nodes=nodes)


def add_node_taints(text: str) -> str:
    """The scenario text with the taints the controller would add (and remove) written into its
    node documents: what the web app's "add them as the controller would" saves. Raises
    ScenarioInvalid when the text does not load."""
    return add_node_taints_to_text(text, controller_taint_changes(load_scenario(text)))


def add_node_taints_to_text(text: str, changes: list[NodeTaintChange]) -> str:
    """The scenario text with the controller's taint changes written into the node documents
    (``changes`` from ``controller_taint_changes`` of the scenario loaded from this text); every
    other document keeps its text."""
    by_node = {change.node: change for change in changes}
    return edit_objects(text, "Node", lambda name, obj: _edited_node(obj, by_node[name]) if name in by_node else KEEP)


def _edited_node(node: dict[str, Any], change: NodeTaintChange) -> dict[str, Any]:
    removed = {(t.key, t.effect) for t in change.remove}
    spec = dict(node.get("spec") or {})
    kept = [
        t for t in spec.get("taints") or [] if not (isinstance(t, dict) and (t.get("key"), t.get("effect")) in removed)
    ]
    spec["taints"] = kept + [{"key": t.key, "effect": t.effect} for t in change.add]
    return {**node, "spec": spec}
