"""node_resources/numeric.py: when NodeResourcesFit is the only Filter whose verdict moves with
the node's pods, and Fit's verdicts with added pods counted in (the runs compared end to end with
the per-node path are in tests/scheduler_core/test_vectorized.py)."""

from __future__ import annotations

import numpy as np

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.node_info import PodInfo
from scheduler_core.framework.profile import Profile
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code
from scheduler_core.model import CPU
from scheduler_core.plugins import inter_pod_affinity, node_affinity, taint_toleration
from scheduler_core.plugins.node_resources import new_fit
from scheduler_core.plugins.node_resources.numeric import fit_verdicts_with, numeric_fit_applies
from tests.scheduler_core.builders import FakeHandle, affinity, make_node, make_pod, make_snapshot, term


def _cycle(*extra, vectorized: bool = True, fit: bool = True, pod=None):
    """A framework with Fit (and ``extra`` plugin factories), PreFilter run for a 1500m pod."""
    snapshot = make_snapshot(
        [make_node("n1", cpu=2000), make_node("n2", cpu=4000)], [make_pod("r", node="n1", requests={CPU: 1000})]
    )
    handle = FakeHandle(snapshot)
    plugins = ([new_fit(None, handle)] if fit else []) + [factory(None, handle) for factory in extra]
    profile = Profile.of({"preFilter": [p for p in plugins if hasattr(p, "pre_filter")], "filter": plugins}, {}, 100)
    framework = Framework(profile, snapshot, vectorized)
    handle.framework = framework
    state = CycleState()
    pod = pod or make_pod("incoming", requests={CPU: 1500})
    framework.run_pre_filter(state, pod, snapshot.node_infos)
    return framework, state, snapshot


def test_it_applies_with_filters_that_read_the_node_alone():
    framework, state, _ = _cycle(taint_toleration.new, node_affinity.new)
    assert numeric_fit_applies(framework, state) == [(CPU, 1500)]


def test_it_does_not_apply_with_a_filter_that_reads_pods_without_fit_or_on_the_reference_path():
    # InterPodAffinity skips itself for a pod without (anti-)affinity when nothing running has any:
    # it is then not active, and Fit alone still decides
    quiet, quiet_state, _ = _cycle(inter_pod_affinity.new)
    assert numeric_fit_applies(quiet, quiet_state) == [(CPU, 1500)]
    with_affinity = make_pod("incoming", requests={CPU: 1500}, affinity=affinity(required=[term({"app": "r"})]))
    active, active_state, _ = _cycle(inter_pod_affinity.new, pod=with_affinity)
    assert numeric_fit_applies(active, active_state) is None
    no_fit, no_fit_state, _ = _cycle(taint_toleration.new, fit=False)
    assert numeric_fit_applies(no_fit, no_fit_state) is None
    reference, reference_state, _ = _cycle(vectorized=False)
    assert numeric_fit_applies(reference, reference_state) is None


def test_fit_verdicts_count_the_added_pods_in():
    framework, state, snapshot = _cycle()
    checked = numeric_fit_applies(framework, state)
    table = snapshot.table
    positions = np.arange(len(snapshot.node_infos))
    # n1: 2000m, 1000m used: 1500m does not fit; n2: 4000m free, fits until 3000m more are added
    verdicts = fit_verdicts_with(checked, table, positions, [[], []])
    assert verdicts is not None
    statuses = [None if c < 0 else verdicts.palette[c] for c in verdicts.choice.tolist()]
    assert statuses[1] is None and statuses[0].code == Code.UNSCHEDULABLE
    assert statuses[0].reasons == ("Insufficient cpu",)
    heavy = PodInfo(make_pod("nominated", node="n2", requests={CPU: 3000}))
    verdicts = fit_verdicts_with(checked, table, positions, [[], [heavy]])
    assert [c >= 0 for c in verdicts.choice.tolist()] == [True, True]


def test_fit_verdicts_add_up_several_added_pods_on_a_node():
    framework, state, snapshot = _cycle()
    checked = numeric_fit_applies(framework, state)
    positions = np.arange(len(snapshot.node_infos))
    halves = [PodInfo(make_pod(f"nominated-{i}", node="n2", requests={CPU: 1500})) for i in range(2)]
    # n2 has 4000m free: 1500m + 1500m added leave 1000m, less than the pod's 1500m
    one = fit_verdicts_with(checked, snapshot.table, positions, [[], halves[:1]])
    both = fit_verdicts_with(checked, snapshot.table, positions, [[], halves])
    assert one.choice[1] < 0 and both.choice[1] >= 0
