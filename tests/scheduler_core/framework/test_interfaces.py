"""framework/interfaces.py: the results plugins hand the framework, and the extension-point
protocols a plugin is recognised by."""

from __future__ import annotations

from typing import ClassVar

import pytest

from scheduler_core.framework.interfaces import (
    FilterPlugin,
    NodeToStatus,
    PostFilterResult,
    PreFilterPlugin,
    PreFilterResult,
    ReservePlugin,
)
from scheduler_core.framework.status import Code, Status

ALL = PreFilterResult()


@pytest.mark.parametrize(
    ("first", "second", "merged"),
    [
        pytest.param(ALL, None, ALL, id="no result keeps all nodes"),
        pytest.param(ALL, ALL, ALL, id="all and all is all"),
        pytest.param(
            ALL, PreFilterResult(frozenset({"n1"})), PreFilterResult(frozenset({"n1"})), id="all narrows to the other"
        ),
        pytest.param(
            PreFilterResult(frozenset({"n1", "n2"})),
            ALL,
            PreFilterResult(frozenset({"n1", "n2"})),
            id="a narrowed result stays when the other is all",
        ),
        pytest.param(
            PreFilterResult(frozenset({"n1", "n2"})),
            PreFilterResult(frozenset({"n2", "n3"})),
            PreFilterResult(frozenset({"n2"})),
            id="two narrowed results intersect",
        ),
        pytest.param(
            PreFilterResult(frozenset({"n1"})),
            PreFilterResult(frozenset({"n2"})),
            PreFilterResult(frozenset()),
            id="disjoint results leave no node",
        ),
    ],
)
def test_prefilter_results_merge_as_PreFilterResult_Merge(first, second, merged):
    assert first.merge(second) == merged
    assert merged.all_nodes is (merged.node_names is None)


def test_a_node_without_its_own_status_gets_the_absent_one():
    statuses = NodeToStatus({"n1": Status.unschedulable("full")}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE))
    assert (statuses.get("n1").message, statuses.get("n2").code) == ("full", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)


def test_a_postfilter_result_nominates_unless_it_is_noop():
    assert (PostFilterResult("n1").nominates, PostFilterResult("").nominates, PostFilterResult().nominates) == (
        True,
        True,
        False,
    )


class FilterOnly:
    name: ClassVar[str] = "FilterOnly"

    def filter(self, state, pod, node_info):
        return None


class PreFilterWithoutExtensions(FilterOnly):
    def pre_filter(self, state, pod, nodes):
        return None, None


class ReserveWithoutUnreserve:
    name: ClassVar[str] = "Half"

    def reserve(self, state, pod, node_name):
        return None


def test_a_plugin_is_recognised_at_a_point_only_with_every_method_of_its_protocol():
    assert isinstance(FilterOnly(), FilterPlugin) and not isinstance(FilterOnly(), PreFilterPlugin)
    assert not isinstance(PreFilterWithoutExtensions(), PreFilterPlugin), "PreFilter also asks for its extensions"
    assert not isinstance(ReserveWithoutUnreserve(), ReservePlugin), "Reserve comes with Unreserve"
