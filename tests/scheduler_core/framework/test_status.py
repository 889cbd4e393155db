"""framework/status.py: codes, the statuses plugins return, success as None, and their JSON."""

from __future__ import annotations

import pytest

from scheduler_core.framework.status import SKIP, Code, Status, is_failure, is_success, status_json


@pytest.mark.parametrize(
    ("status", "success", "rejected"),
    [
        pytest.param(None, True, False, id="None is success, as a nil *Status"),
        pytest.param(Status(Code.SUCCESS), True, False, id="an explicit Success is success"),
        pytest.param(Status.unschedulable("full"), False, True, id="Unschedulable is a rejection"),
        pytest.param(Status.unresolvable("no"), False, True, id="UnschedulableAndUnresolvable is a rejection"),
        pytest.param(Status.error("boom"), False, False, id="an Error fails without rejecting"),
        pytest.param(SKIP, False, False, id="Skip is not success (callers test is_skip first)"),
    ],
)
def test_success_failure_and_rejection(status, success, rejected):
    assert (is_success(status), is_failure(status)) == (success, not success)
    assert (status is not None and status.is_rejected) == rejected


def test_a_status_joins_its_reasons_and_keeps_them_when_a_plugin_is_named():
    status = Status.unschedulable("Insufficient cpu", "Insufficient memory")
    named = status.with_plugin("NodeResourcesFit")
    assert status.message == "Insufficient cpu, Insufficient memory"
    assert (named.code, named.reasons, named.plugin) == (Code.UNSCHEDULABLE, status.reasons, "NodeResourcesFit")
    assert status.plugin == "", "with_plugin makes a new status"


def test_the_json_names_the_code_as_the_framework_prints_it():
    assert status_json(Status.unresolvable("node(s) had untolerated taint")) == {
        "code": "UnschedulableAndUnresolvable",
        "reasons": ["node(s) had untolerated taint"],
    }
    assert (status_json(None), status_json(Status(Code.SUCCESS))) == (None, None)
    assert [code.label for code in Code] == [
        "Success",
        "Error",
        "Unschedulable",
        "UnschedulableAndUnresolvable",
        "Wait",
        "Skip",
        "Pending",
    ]


def test_skip_is_one_shared_status():
    assert Status.skip() is SKIP and SKIP.is_skip
