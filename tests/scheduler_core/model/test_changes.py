"""model/changes.py: how reports name an operation and a step."""

from __future__ import annotations

import pytest

from scheduler_core.model.changes import AddNodesOp, DeleteNodesOp, DrainOp, ObjectRef, Operation, ScaleOp, Step


@pytest.mark.parametrize(
    ("spec", "verb", "text"),
    [
        pytest.param(
            ScaleOp(ObjectRef("Deployment", "default", "web"), 30),
            "scale",
            "scale Deployment default/web to 30",
            id="a scale names the workload and the count",
        ),
        pytest.param(DrainOp("node-7"), "drain", "drain node-7", id="a drain names the node"),
        pytest.param(
            AddNodesOp("node-1", 3, "extra-"),
            "addNodes",
            "add 3 node(s) like node-1",
            id="added nodes name their model",
        ),
        pytest.param(
            DeleteNodesOp((("zone", "c"),), ("n9",)),
            "deleteNodes",
            "delete nodes zone=c, n9",
            id="lost nodes name their selector and names",
        ),
    ],
)
def test_an_operation_is_named_as_reports_name_it(spec, verb, text):
    assert Operation(verb, spec, 0).text == text


def test_a_step_without_a_name_is_titled_by_its_operations():
    drain = Operation("drain", DrainOp("n1"), 0)
    assert Step(1, "", (drain,)).title == "drain n1"
    assert Step(2, "maintenance", (drain,)).title == "maintenance"
    assert Step(3, "", ()).title == "no operations"
