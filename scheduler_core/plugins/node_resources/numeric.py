"""Filter on numbers when NodeResourcesFit is the only active Filter plugin that reads a node's pods.

Pods added to or removed from a node (nominated pods counted in, preemption's victims taken out)
change a Filter verdict only through the plugins that read the node's pods. When every other
active Filter plugin reads the node alone (NodeUnschedulable, NodeName, TaintToleration,
NodeAffinity) and no active PreFilter plugin keeps per-pod state (no PreFilterExtensions),
NodeResourcesFit's verdict on the node's requested amounts and pod count is the only one that
moves: callers keep those numbers instead of cloning nodes and cycle states. Used by the
preemption dry run (plugins/default_preemption/batch.py) and the Filter pass with nominated pods
(schedule_one.Cycle); both are compared with the per-node path in tests/scheduler_core/test_vectorized.py.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from scheduler_core.model import names
from scheduler_core.framework.batch import FilterVerdicts
from scheduler_core.framework.node_table import NodeTable
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import NodeInfo, PodInfo, requests_summed
from scheduler_core.framework.runtime import Framework
from scheduler_core.plugins.node_resources.fit import Fit, checked_shortfall_verdicts

# Filter plugins whose verdict on a node never depends on the pods running there.
NODE_ONLY_FILTERS = frozenset({names.NODE_UNSCHEDULABLE, names.NODE_NAME, names.TAINT_TOLERATION, names.NODE_AFFINITY})

Checked = list[tuple[str, int]]


def numeric_fit_applies(framework: Framework, state: CycleState) -> Optional[Checked]:
    """Fit's checked requests for this cycle when only Fit's verdict can move, else None (also
    when the per-node reference path is asked for)."""
    if not framework.vectorized:
        return None
    active = framework.active_filter_plugins(state)
    fit = next((plugin for plugin in active if plugin.name == names.NODE_RESOURCES_FIT), None)
    if not isinstance(fit, Fit):  # None: Fit does not run (the plugin under its name is Fit)
        return None
    if any(plugin is not fit and plugin.name not in NODE_ONLY_FILTERS for plugin in active):
        return None
    if any(
        plugin.name not in state.skip_filter_plugins and plugin.pre_filter_extensions() is not None
        for plugin in framework.profile["preFilter"]
    ):
        return None
    return fit.checked_requests(state)


def fit_unresolvable(framework: Framework) -> bool:
    """Whether the framework's NodeResourcesFit tells a node too small even when empty apart
    (UnschedulableAndUnresolvable, v1.34 on): the numeric paths answer with its statuses."""
    fit = framework.profile.instances.get(names.NODE_RESOURCES_FIT)
    return fit.unresolvable if isinstance(fit, Fit) else True


def fit_verdicts_with(
    checked: Checked,
    table: NodeTable[NodeInfo],
    positions: np.ndarray,
    added: list[list[PodInfo]],
    unresolvable: bool = True,
) -> Optional[FilterVerdicts]:
    """Fit.filter's answers on many nodes at once, each with its ``added`` pods counted in (None:
    every node fits)."""
    totals, counts = requests_summed(added, [name for name, _ in checked])
    return fit_verdicts_with_sums(checked, table, positions, totals, counts, unresolvable)


def fit_verdicts_with_sums(
    checked: Checked,
    table: NodeTable[NodeInfo],
    positions: np.ndarray,
    totals: np.ndarray,
    counts: np.ndarray,
    unresolvable: bool = True,
) -> Optional[FilterVerdicts]:
    """``fit_verdicts_with`` given what the added pods request together on each node (a row per
    node, a column per checked resource: node_info.requests_summed) and how many they are."""
    added_requested = {name: totals[:, column] for column, (name, _) in enumerate(checked)}
    return checked_shortfall_verdicts(checked, table, positions, added_requested, counts, unresolvable)
