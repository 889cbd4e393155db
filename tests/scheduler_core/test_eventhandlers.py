"""The informer handlers for nodes (pkg/scheduler/eventhandlers.go and framework/events.go's
NodeSchedulingPropertiesChange)."""

from __future__ import annotations

import pytest

from scheduler_core.eventhandlers import node_scheduling_properties_change
from scheduler_core.model import Taint
from tests.scheduler_core.builders import make_node


@pytest.mark.parametrize("old, new, manifests, labels", [
    pytest.param(make_node("n", unschedulable=True), make_node("n"), (None, None), ["NodeUpdateNodeTaint"],
                 id="spec.unschedulable cleared is an UpdateNodeTaint (extractNodeSpecUnschedulableChange)"),
    pytest.param(make_node("n"), make_node("n", unschedulable=True), (None, None), [],
                 id="cordoning is no event at all"),
    pytest.param(make_node("n", cpu=1000), make_node("n", cpu=2000), (None, None), ["NodeUpdateNodeAllocatable"],
                 id="allocatable changed"),
    pytest.param(make_node("n"), make_node("n", labels={"a": "b"}, taints=[Taint("k", "", "NoSchedule")]), (None, None),
                 ["NodeUpdateNodeLabel", "NodeUpdateNodeTaint"], id="labels then taints, in the extractors' order"),
    pytest.param(make_node("n"), make_node("n"),
                 ({"status": {"conditions": [{"type": "Ready", "status": "True"}]}},
                  {"status": {"conditions": [{"type": "Ready", "status": "False"}]}}),
                 ["NodeUpdateNodeCondition"], id="a condition's status changed"),
    pytest.param(make_node("n"), make_node("n"), ({"metadata": {"annotations": {"a": "1"}}}, {"metadata": {}}),
                 ["NodeUpdateNodeAnnotation"], id="annotations changed"),
])
def test_node_scheduling_properties_change(old, new, manifests, labels):
    old_manifest, new_manifest = manifests
    events = node_scheduling_properties_change(new, old, new_manifest, old_manifest)
    assert [event.label for event in events] == labels
