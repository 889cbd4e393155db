"""Devices counted per node for scoring an extended resource a DeviceClass stands for
(resource_allocation.go calculateDRAResourceTotals)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.model import CPU
from scheduler_core.plugins import node_resources
from scheduler_core.plugins.node_resources.dra_totals import device_totals
from scheduler_core.release import SUPPORTED_RELEASES, rules_for
from tests.scheduler_core.builders import (
    FakeHandle,
    claiming_pod,
    dra_snapshot,
    make_device_class,
    make_gpu_slice,
    make_node,
    make_pod,
    make_resource_claim,
)

GPU = "example.com/gpu"


def _snapshot(*selectors):
    gpu = replace(make_device_class("gpu", *selectors), extended_resource_name=GPU)
    holder = claiming_pod("holder", "held", node="n1")
    return dra_snapshot(
        [make_node("n1"), make_node("n2"), make_node("n3", allocatable={GPU: 8})],
        [holder],
        classes=[gpu],
        slices=[make_gpu_slice("n1", 2), make_gpu_slice("n2", 4)],
        claims=[make_resource_claim("held", on=("gpu-0",), node="n1", reserved_for=(holder,))],
    )


def test_each_node_offers_its_devices_of_the_class_and_uses_those_allocated():
    snapshot = _snapshot()
    totals = device_totals(snapshot.dra, (CPU, GPU))
    n1, n2, n3 = (info.node for info in snapshot.node_infos)
    assert (totals.amounts(n1, GPU), totals.amounts(n2, GPU), totals.amounts(n3, GPU)) == ((2, 1), (4, 0), (0, 0))
    assert totals.amounts(n1, "example.com/fpga") == (0, 0)
    assert device_totals(snapshot.dra, (CPU, "example.com/fpga")) is None  # no class: nothing to count


def test_a_selector_that_fails_leaves_the_node_without_the_resource():
    snapshot = _snapshot('device.attributes["gpu.example.com"].missing == 1')
    totals = device_totals(snapshot.dra, (GPU,))
    assert totals.amounts(snapshot.node_infos[0].node, GPU) == (0, 0)


def test_v1_36_scores_the_devices_where_the_node_advertises_none():
    snapshot = _snapshot()
    args = {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": GPU, "weight": 1}]}}
    pod = make_pod("p", requests={GPU: 1})
    scores = {}
    for minor in (35, 36):
        features = rules_for(next(r for r in SUPPORTED_RELEASES if r.minor == minor)).features
        plugin = node_resources.new_fit(args, FakeHandle(snapshot), features)
        state = CycleState()
        plugin.pre_score(state, pod, snapshot.node_infos)
        scores[minor] = [plugin.score(state, pod, info)[0] for info in snapshot.node_infos]
        assert list(plugin.score_batch(state, pod, snapshot.table, np.arange(3))) == scores[minor]
    assert scores[35] == [0, 0, 12]  # 1 of 8 on n3; n1 and n2 offer none
    assert scores[36] == [100, 25, 12]  # (1 + 1) of 2 devices on n1, 1 of 4 on n2
