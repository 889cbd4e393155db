"""One pod's attempt (scheduler_core.run.schedule_one): numFeasibleNodesToFind, the rotating start index, host selection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scheduler_core.model import Scenario, SchedulerConfig, SchedulerConfiguration
from scheduler_core.model import names
from scheduler_core.framework.batch import PASS, FilterVerdicts
from scheduler_core.framework.status import Code, Status, is_failure
from scheduler_core.run.schedule_one import (
    Scheduler,
    _rotated,
    _rotated_slots,
    _slots_of,
    _with_nominated_fit,
    _with_verdicts,
    num_feasible_nodes_to_find,
    simulate,
)
from scheduler_core.encoding.events import CycleStart, ExtensionPoint
from scheduler_core.encoding.timeline import timeline_summary
from scheduler_core.encoding.trace import trace_summary
from scheduler_core.framework.kept_passes import RecentlyKept
from scheduler_core.run import schedule_one
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario import load_scenario
from tests.scheduler_core.builders import make_node, make_pod, node_text, pod_text


@pytest.mark.parametrize(
    "percentage, nodes, expected",
    [
        pytest.param(0, 50, 50, id="under 100 nodes every node is checked"),
        pytest.param(0, 100, 100, id="at 100 nodes adaptive 50 percent is raised to the 100-node minimum"),
        pytest.param(0, 1000, 420, id="at 1000 nodes adaptive is 50 minus 1000/125 = 42 percent"),
        pytest.param(0, 6250, 312, id="at 6250 nodes adaptive bottoms out at 5 percent"),
        pytest.param(0, 5000, 500, id="at 5000 nodes adaptive is 10 percent"),
        pytest.param(100, 6250, 6250, id="100 percent checks every node"),
        pytest.param(30, 1000, 300, id="an explicit percentage is used as given"),
        pytest.param(1, 1000, 100, id="an explicit percentage never goes under 100 nodes"),
    ],
)
def test_num_feasible_nodes_to_find(percentage, nodes, expected):
    assert num_feasible_nodes_to_find(percentage, nodes) == expected


def _cluster(count: int, pending: int, percentage: int = 0) -> Scenario:
    nodes = [make_node(f"n{i:04d}", {"kubernetes.io/hostname": f"n{i:04d}"}, doc_index=i) for i in range(count)]
    pods = [make_pod(f"p{i}", requests={"cpu": 100}, doc_index=i) for i in range(pending)]
    return Scenario(
        nodes, pods, {}, config=SchedulerConfiguration((SchedulerConfig(percentage_of_nodes_to_score=percentage),))
    )


@pytest.mark.parametrize("size", [1, 2, 7])
def test_the_walk_starts_where_np_roll_would_put_it(size):
    candidates = np.arange(10, 10 + size, dtype=np.int64)
    for first in range(size):
        rotated = _rotated(candidates, first)
        assert rotated.tolist() == np.roll(candidates, -first).tolist()
        assert not np.shares_memory(rotated, candidates)  # a new array, as np.roll's


def test_a_whole_walk_finds_its_nodes_slots_from_the_tree_orders_inverse():
    # The nominated pass looks up where the nodes with nominated pods stand in the walk: for a walk
    # of every node (the tree order, rotated) the table's inverse of that order gives it at once.
    rng = np.random.default_rng(7)
    for size in (1, 2, 5, 40):
        order = rng.permutation(size).astype(np.int64)
        rank = np.empty(size, dtype=np.int64)
        rank[order] = np.arange(size, dtype=np.int64)
        for first in range(size):
            for count in (0, 1, 3, size):
                wanted = rng.choice(size, size=min(count, size), replace=False).astype(np.int64)
                expected = _slots_of(_rotated(order, first), wanted, size)
                assert _rotated_slots(rank, first, size, wanted).tolist() == expected.tolist()


def _random_verdicts(rng: np.random.Generator, count: int, palette: list[Status]) -> FilterVerdicts:
    return FilterVerdicts(list(palette), rng.integers(PASS, len(palette), count).astype(np.int32))


def _replaced_node_by_node(verdicts, kept, fit):
    """The nominated pass's replacements as the per-node loop listed them (every plugin's status per kept slot)."""
    replaced = []
    for k, i in enumerate(kept.tolist()):
        statuses = [
            (fit.palette[fit.choice[k]] if fit is not None and fit.choice[k] >= 0 else None)
            if plugin == names.NODE_RESOURCES_FIT
            else (verdict.palette[verdict.choice[i]] if verdict.choice[i] >= 0 else None)
            for plugin, verdict in verdicts
        ]
        if any(is_failure(status) for status in statuses):
            replaced.append((i, statuses))
    return replaced


@pytest.mark.parametrize("seed", range(12))
def test_the_nominated_pass_on_arrays_replaces_as_the_node_by_node_loop(seed):
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 30))
    palettes = {
        name: [Status.unschedulable(f"{name} says no {k}") for k in range(int(rng.integers(0, 3)))]
        + ([Status(Code.SUCCESS)] if rng.random() < 0.3 else [])  # a success entry is no failure
        for name in (names.NODE_UNSCHEDULABLE, names.NODE_RESOURCES_FIT, names.TAINT_TOLERATION)
    }
    verdicts = [(name, _random_verdicts(rng, count, palette)) for name, palette in palettes.items()]
    kept = np.sort(rng.choice(count, int(rng.integers(1, count + 1)), replace=False)).astype(np.int64)
    fit_palette = [Status.unschedulable("Insufficient cpu"), Status.unresolvable("Too many pods")]
    fit = None if rng.random() < 0.25 else _random_verdicts(rng, len(kept), fit_palette)
    fast = _with_nominated_fit(verdicts, kept, fit)
    reference = _with_verdicts(verdicts, _replaced_node_by_node(verdicts, kept, fit))
    assert [(name, [id(s) for s in v.palette], v.choice.tolist()) for name, v in fast] == [
        (name, [id(s) for s in v.palette], v.choice.tolist()) for name, v in reference
    ]


def test_it_evaluates_only_num_feasible_nodes_and_rotates_the_start_index():
    scheduler = Scheduler(_cluster(1000, 2))
    events = list(scheduler.run())
    summaries = [e.payload for e in events if e.extension_point.value == "Filter" and e.plugin is None]
    assert [len(s.evaluated) for s in summaries] == [420, 420]
    assert summaries[0].evaluated[0] == "n0000"
    assert summaries[1].start_index == 420 and summaries[1].evaluated[0] == "n0420"
    assert scheduler.next_start_node_index == 840


def test_it_breaks_ties_by_document_order_by_default():
    trace = trace_summary(simulate(_cluster(3, 1, percentage=100)))
    cycle = trace["cycles"][0]
    assert len(set(cycle["totalScores"].values())) == 1
    assert cycle["nodeName"] == "n0000"


def test_random_tie_break_is_reproducible_with_a_seed():
    picks = {
        trace_summary(simulate(_cluster(20, 1, 100), tie_break="random", seed=7))["cycles"][0]["nodeName"]
        for _ in range(3)
    }
    assert len(picks) == 1


def test_a_bound_pod_counts_in_later_cycles_and_the_scenario_is_left_untouched():
    scenario = _cluster(2, 2, percentage=100)
    trace = trace_summary(simulate(scenario))
    first, second = (c["nodeName"] for c in trace["cycles"])
    assert first == "n0000" and second == "n0001"  # n0000 is busier after the first bind
    assert all(p.node_name == "" for p in scenario.pods)


def test_it_reports_no_nodes_available_with_an_empty_cluster():
    scenario = Scenario([], [make_pod("lonely")], {})
    cycle = trace_summary(simulate(scenario))["cycles"][0]
    assert cycle["nodeName"] is None
    assert cycle["failedSchedulingMessage"] == "no nodes available to schedule pods"


def _zoned(count: int, zone_of, **node_fields) -> list:
    return [
        make_node(
            f"n{i:04d}",
            {"kubernetes.io/hostname": f"n{i:04d}", "topology.kubernetes.io/zone": zone_of(i)},
            doc_index=i,
            **node_fields.get(i, {}),
        )
        for i in range(count)
    ]


def _filter_summaries(scenario: Scenario) -> list:
    return [e.payload for e in Scheduler(scenario).run() if e.extension_point.value == "Filter" and e.plugin is None]


def test_it_walks_the_nodes_zone_by_zone_as_the_snapshot_lists_them():
    # 100 nodes in zone a then 50 in zone b: the first 100 nodes walked are a0 b0 a1 b1 ... a49 b49.
    nodes = _zoned(150, lambda i: "a" if i < 100 else "b")
    scenario = Scenario(
        nodes,
        [make_pod("p", requests={"cpu": 100})],
        {},
        config=SchedulerConfiguration((SchedulerConfig(percentage_of_nodes_to_score=0),)),
    )
    evaluated = _filter_summaries(scenario)[0].evaluated
    assert evaluated[:4] == ["n0000", "n0100", "n0001", "n0101"]
    assert sorted(evaluated) == [f"n{i:04d}" for i in (*range(50), *range(100, 150))]


def test_nodes_failing_before_the_next_feasible_one_are_still_evaluated_and_counted():
    # 100 feasible nodes are wanted; n0100..n0109 fail, n0110 is the 101st feasible node: the walk
    # stops there (without it) and the next cycle starts after the ten failures.
    nodes = [
        make_node(f"n{i:04d}", {"kubernetes.io/hostname": f"n{i:04d}"}, doc_index=i, unschedulable=100 <= i < 110)
        for i in range(150)
    ]
    pods = [make_pod(f"p{i}", requests={"cpu": 100}, doc_index=i) for i in range(2)]
    scenario = Scenario(
        nodes, pods, {}, config=SchedulerConfiguration((SchedulerConfig(percentage_of_nodes_to_score=0),))
    )
    first, second = _filter_summaries(scenario)
    assert len(first.evaluated) == 110 and len(first.feasible_nodes) == 100
    assert second.start_index == 110 and second.evaluated[0] == "n0110"


NO_SCORING = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    score:
      disabled: [{name: '*'}]
"""


def test_a_profile_without_score_plugins_takes_the_first_feasible_node_of_its_walk():
    from scheduler_core import load_scenario
    from tests.scheduler_core.builders import node_text

    # Without scoring the scheduler looks for one feasible node: n0 for the first pod (n1, failing
    # before n2, is evaluated too); the second pod's walk starts at n2, past n1.
    nodes = [node_text(f"n{i}") for i in range(4)]
    nodes[1] = nodes[1].replace("spec: {taints: []}", "spec: {unschedulable: true}")
    pods = [
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n  containers: [{{name: c, image: x}}]\n"
        for i in range(2)
    ]
    trace = trace_summary(simulate(load_scenario("---\n".join([*nodes, *pods, NO_SCORING]))))
    assert [c["nodeName"] for c in trace["cycles"]] == ["n0", "n2"]
    assert list(trace["cycles"][0]["filter"]) == ["n1"] and trace["cycles"][1]["filter"] == {}


def test_a_prefilter_stop_after_a_narrowing_records_only_the_plugin_that_stopped_it():
    # RunPreFilterPlugins returns no "plugins with nodes" when a plugin's UnschedulableAndUnresolvable
    # ends PreFilter: NodeAffinity narrowed (matchFields), VolumeRestrictions then found the claim
    # missing; only VolumeRestrictions' hints may requeue the pod.
    from scheduler_core import load_scenario
    from scheduler_core.run.schedule_one import Cycle
    from tests.scheduler_core.builders import node_text

    pod = """apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n0]}]}]
  volumes: [{name: v, persistentVolumeClaim: {claimName: missing}}]
"""
    scheduler = Scheduler(load_scenario("---\n".join([node_text("n0"), node_text("n1"), pod])))
    cycle = Cycle(scheduler, 0, scheduler.queue[0])
    list(cycle.run())
    assert cycle.outcome.node_name is None
    assert cycle.outcome.unschedulable_plugins == {"VolumeRestrictions"}


# ---------------------------------------------------------------------------- OpportunisticBatching


def _batching_scheduler():
    """Three nodes, no default spreading (pods are signable); n1 is full, n2 too small for the pod."""
    from scheduler_core import load_scenario
    from scheduler_core.framework.opportunistic_batch import OpportunisticBatch

    text = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: PodTopologySpread
    args: {defaultingType: List}
"""
    for name, cpu in (("n1", "1"), ("n2", "1"), ("n3", "4"), ("n4", "4")):
        text += f"---\napiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 4Gi, pods: '10'}}}}\n"
    text += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x, resources: {requests: {cpu: '2'}}}]}\n"
    scheduler = Scheduler(load_scenario(text))
    scheduler.framework.batch = OpportunisticBatch()
    return scheduler, scheduler.queue[0]


def test_a_hint_that_does_not_fit_is_followed_by_the_usual_pass_whose_ranking_replaces_it():
    from scheduler_core.encoding.events import ExtensionPoint
    from scheduler_core.run.schedule_one import Cycle

    scheduler, pod = _batching_scheduler()
    batch = scheduler.framework.batch
    batch.store(scheduler.framework.sign_pod(pod), None, "n1", ["n2", "n4"], 1, 0)
    cycle = Cycle(scheduler, 0, pod, cycle_count=2)
    summaries = [
        e.payload.to_json() for e in cycle.run() if e.extension_point is ExtensionPoint.FILTER and e.plugin is None
    ]
    assert summaries[0]["evaluated"] == ["n2"] and summaries[0]["feasibleNodes"] == [] and summaries[0]["batchHint"]
    assert summaries[1]["feasibleNodes"] == ["n3", "n4"] and "batchHint" not in summaries[1]
    assert cycle.outcome.node_name == "n3"
    assert batch.state.sorted_nodes == ["n4"] and batch.last_cycle.chosen_node == "n3" and batch.batched_pods == 0


def test_a_nominated_pod_tries_its_nomination_not_the_hint():
    from scheduler_core.run.schedule_one import Cycle

    scheduler, pod = _batching_scheduler()
    batch = scheduler.framework.batch
    batch.store(scheduler.framework.sign_pod(pod), None, "n1", ["n3"], 1, 0)
    cycle = Cycle(scheduler, 0, pod, cycle_count=2, nominated_node="n4")
    list(cycle.run())
    assert cycle.outcome.node_name == "n4"
    # the hint was handed out (and lost); one feasible node keeps no ranking
    assert batch.state is None and batch.batched_pods == 0


def test_a_single_pass_never_batches():
    """The single pass calls the plugins as the corpus was made: every pod gets a full pass."""
    from scheduler_core import load_scenario
    from scheduler_core.encoding.events import ExtensionPoint
    from tests.scheduler_core.builders import fill_one_node_each, no_default_spreading

    events = list(simulate(load_scenario(no_default_spreading() + fill_one_node_each())))
    chosen = [e.payload.node_name for e in events if e.extension_point is ExtensionPoint.TOTAL]
    assert chosen == ["n010", "n120", "n000"]


def test_without_a_configuration_the_release_scores_an_adaptive_share_of_a_large_cluster():
    # v1's percentageOfNodesToScore defaults to 0 (adaptive): on 500 nodes, 50 % - 500 // 125 % = 46 %,
    # 230 feasible nodes, as a cluster without a configuration file runs (numFeasibleNodesToFind).
    nodes = [make_node(f"n{i:04d}", {"kubernetes.io/hostname": f"n{i:04d}"}, doc_index=i) for i in range(500)]
    scenario = Scenario(nodes, [make_pod("p", requests={"cpu": 100})], {})
    [summary] = _filter_summaries(scenario)
    assert len(summary.feasible_nodes) == 230


# ---------------------------------------------------------------------------- a Filter Error ends the walk

FILTER_ERRORS = Path(__file__).resolve().parents[2] / "fixtures" / "filter_errors"
INCOMPLETE_POOL = "asks for all devices, but resource pool gpu.example.com/{} is currently being updated"


def _cycles(name: str) -> list[dict]:
    from scheduler_core import load_scenario

    return trace_summary(Scheduler(load_scenario((FILTER_ERRORS / name).read_text())).run())["cycles"]


def test_a_filter_error_on_one_node_fails_the_cycle_though_another_node_fits():
    """findNodesThatPassFilters: checkNode sends an Error with SendErrorWithCancel and
    findNodesThatFitPod returns it, whatever nodes fitted (found by the differential harness:
    DynamicResources on a pool whose slices are not all published yet)."""
    (cycle,) = _cycles("error_beside_a_fitting_node.yaml")
    assert cycle["nodeName"] is None and cycle["feasibleNodes"] == []
    assert cycle["failedSchedulingMessage"] == (
        'running "DynamicResources" filter plugin: claim default/all-gpus, request gpu: '
        + INCOMPLETE_POOL.format("node-b")
    )


def test_the_walk_stops_at_the_first_error_and_the_next_starts_after_the_nodes_before_it():
    """findNodesThatFitPod: nextStartNodeIndex += len(feasibleNodes) + NodeToStatus.Len() "regardless
    of whether an error has occurred" -- the nodes processed before the Error, not the Error's node.
    The big pod fails NodeResourcesFit on node-0 (a status, not an Error: Fit runs first) and errs on
    node-1; one node was processed, so the small pod's walk starts at node-1 and errs there (with
    the start moved past both nodes it would have begun at node-0 and named node-0's pool)."""
    big, small = _cycles("walk_start_after_an_error.yaml")
    assert big["failedSchedulingMessage"].endswith(INCOMPLETE_POOL.format("node-1"))
    assert small["failedSchedulingMessage"].endswith(INCOMPLETE_POOL.format("node-1"))
    assert list(small["filter"]) == ["node-1"]  # the walk ended at its first node: node-0 not reached


# ---------------------------------------------------------------------------- releases


def _as(text: str, release: str, **gates: bool) -> Scheduler:
    from scheduler_core import load_scenario
    from scheduler_core.release.choice import ReleaseRequest
    from scheduler_core.release.versions import release_named

    return Scheduler(load_scenario(text, release=ReleaseRequest(release_named(release), gates or None)))


NO_POST_FILTER = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    postFilter: {disabled: [{name: '*'}]}
"""


@pytest.mark.parametrize("release, cleared", [("v1.34", False), ("v1.35", True), ("v1.36", True)])
def test_without_post_filter_plugins_v1_35_clears_the_nomination(release, cleared):
    # C1: schedulingCycle returns nominatingInfo clearNominatedNode when the profile has no
    # PostFilter plugin from v1.35 on; v1.34 and earlier return none (ModeNoop: it stays).
    from scheduler_core.backend.queue.nominator import CLEAR_NOMINATED_NODE
    from scheduler_core.run.schedule_one import Cycle
    from tests.scheduler_core.builders import node_text, pod_text, scenario_text

    pod = pod_text("p", cpu="8").replace("spec:", "status: {nominatedNodeName: n1}\nspec:", 1)
    scheduler = _as(scenario_text(NO_POST_FILTER, node_text("n1", cpu="2"), pod), release)
    cycle = Cycle(scheduler, 0, scheduler.queue[0])
    list(cycle.run())
    assert cycle.outcome.nominating == (CLEAR_NOMINATED_NODE if cleared else None)


@pytest.mark.parametrize(
    "release, gates, cleared",
    [
        ("v1.34", {}, True),
        ("v1.34", {"NominatedNodeNameForExpectation": True}, False),
        ("v1.35", {}, True),
        ("v1.33", {}, True),
    ],
    ids=["v1.34", "v1.34 with NominatedNodeNameForExpectation", "v1.35 (gate on)", "v1.33"],
)
def test_v1_34_leaves_the_nomination_of_a_failed_pod_with_nominated_node_name_for_expectation(release, gates, cleared):
    # C3: newFailureNominatingInfo of v1.34 answers nil (ModeNoop) when the gate is on; v1.35 always clears.
    from scheduler_core.backend.queue.nominator import CLEAR_NOMINATED_NODE
    from scheduler_core.run.schedule_one import Cycle
    from tests.scheduler_core.builders import pod_text

    scheduler = _as(pod_text("p"), release, **gates)  # no node at all: ErrNoNodesAvailable
    cycle = Cycle(scheduler, 0, scheduler.queue[0])
    list(cycle.run())
    assert cycle.outcome.nominating == (CLEAR_NOMINATED_NODE if cleared else None)


@pytest.mark.parametrize("release, fit_error", [("v1.32", True), ("v1.33", False)])
def test_a_v1_32_pre_bind_rejection_is_a_fit_error_over_the_node(release, fit_error):
    # C2: bindingCycle of v1.32 turns a rejecting PreBind into a FitError (NumAllNodes 1, the plugin
    # in UnschedulablePlugins); v1.33 on return the status as it is.
    from scheduler_core.encoding.events import ExtensionPoint
    from scheduler_core.run.outcomes import BindingFailed
    from scheduler_core.run.schedule_one import Cycle
    from tests.scheduler_core.builders import node_text, pod_text, scenario_text

    scheduler = _as(scenario_text(node_text("n1"), pod_text("p")), release)
    cycle = Cycle(scheduler, 0, scheduler.queue[0])
    scheduler.snapshot.bind(cycle.pod, "n1")
    ending = cycle._binding_failed(ExtensionPoint.PRE_BIND, "Custom", Status.unschedulable("waiting for a lease"), "n1")
    assert isinstance(ending, BindingFailed) and ending.rejected
    if fit_error:
        assert ending.message == "0/1 nodes are available: 1 waiting for a lease."
        assert ending.unschedulable_plugins == {"Custom"}
    else:
        assert (ending.message, ending.unschedulable_plugins) == ("waiting for a lease", frozenset())


def test_a_cycle_given_the_queues_signature_does_not_sign_the_pod_again():
    # A5: v1.36's GetNodeHint takes podInfo.PodSignature (signed when the pod was queued); a pod
    # that changed since keeps it. Here the queued signature is None (the pod could not be signed
    # then), so the kept ranking, made for the pod's signature now, is not offered.
    from scheduler_core.encoding.events import ExtensionPoint
    from scheduler_core.run.schedule_one import Cycle

    def first_pass(queued_signature):
        scheduler, pod = _batching_scheduler()
        scheduler.framework.batch.store(scheduler.framework.sign_pod(pod), None, "n1", ["n3"], 1, 0)
        cycle = Cycle(scheduler, 0, pod, cycle_count=2, queued_signature=queued_signature)
        events = cycle.run()
        return next(
            e.payload.to_json() for e in events if e.extension_point is ExtensionPoint.FILTER and e.plugin is None
        )

    assert first_pass(None)["evaluated"] == ["n3"]  # signed in the cycle: the hint n3, alone
    assert "batchHint" not in first_pass((None,))  # the queue's (no) signature: a full pass


def test_a_run_read_without_queue_sort_names_the_pod_alone_as_its_cycles_start():
    """The timeline reads CycleStart for its pod: the run copies no queue for it per attempt."""
    text = "---\n".join([node_text("n1"), pod_text("a"), pod_text("b")])
    reads = frozenset({ExtensionPoint.CYCLE_START, ExtensionPoint.CYCLE_END})
    every = [e.payload for e in run_to_the_end(load_scenario(text)) if isinstance(e.payload, CycleStart)]
    some = [e.payload for e in run_to_the_end(load_scenario(text), reads=reads) if isinstance(e.payload, CycleStart)]
    assert [p.queue for p in every] == [["default/a", "default/b"], ["default/b"]]
    assert [p.queue for p in some] == [["default/a"], ["default/b"]] and all(p.queues is None for p in some)
    assert [p.pod for p in some] == [p.pod for p in every]


def test_a_single_pass_read_without_queue_sort_names_the_pod_alone_as_its_cycles_start():
    """The trace's summary reads no QueueSort: the pass copies no queue tail for it per cycle."""
    text = "---\n".join([node_text("n1"), pod_text("a"), pod_text("b")])
    reads = frozenset({ExtensionPoint.CYCLE_START, ExtensionPoint.CYCLE_END})
    every = list(simulate(load_scenario(text)))
    some = list(simulate(load_scenario(text), reads=reads))
    starts = [e.payload.queue for e in every if isinstance(e.payload, CycleStart)]
    assert starts == [["default/a", "default/b"], ["default/b"]]
    assert [e.payload.queue for e in some if isinstance(e.payload, CycleStart)] == [["default/a"], ["default/b"]]
    orders = [e.payload.order for e in some if e.extension_point is ExtensionPoint.QUEUE_SORT]
    assert orders == [["default/a"], ["default/b"]]  # written with CycleStart, in the same step


def _filter_calls(monkeypatch) -> list[str]:
    """The pods whose attempts ran findNodesThatPassFilters (not a kept pass)."""
    called: list[str] = []
    filter_pass = schedule_one.Cycle._filter

    def counted(cycle, nodes, pre):
        called.append(cycle.pod.name)
        return filter_pass(cycle, nodes, pre)

    monkeypatch.setattr(schedule_one.Cycle, "_filter", counted)
    return called


def _twins_text(*pods: tuple[str, str]) -> str:
    nodes = [node_text(f"n{i}", cpu="2") for i in (1, 2, 3)]
    return "---\n".join([*nodes, *(pod_text(name, cpu=cpu, labels="{app: twin}") for name, cpu in pods)])


def test_a_replica_tried_after_its_twin_with_nothing_changed_reads_the_twins_pass(monkeypatch):
    called = _filter_calls(monkeypatch)
    kept = trace_summary(simulate(load_scenario(_twins_text(("a", "3"), ("b", "3"), ("c", "3")))))
    assert called == ["a"], "b and c read a's pass: the same spec, the same cluster"
    monkeypatch.setattr(schedule_one, "filter_inputs", lambda *args: None)  # no pass is kept
    assert trace_summary(simulate(load_scenario(_twins_text(("a", "3"), ("b", "3"), ("c", "3"))))) == kept
    assert called == ["a", "a", "b", "c"]


def test_a_pod_bound_between_two_replicas_makes_the_second_filter_again(monkeypatch):
    called = _filter_calls(monkeypatch)
    trace = trace_summary(simulate(load_scenario(_twins_text(("a", "3"), ("fits", "1"), ("b", "3")))))
    assert [cycle["nodeName"] for cycle in trace["cycles"]] == [None, "n1", None]
    assert called == ["a", "fits", "b"]


def test_a_kept_pass_cannot_be_written_into(monkeypatch):
    passes: list = []
    keep = schedule_one.Cycle._kept_or_new_pass

    def kept(cycle, nodes, pre):
        passes.append(keep(cycle, nodes, pre))
        return passes[-1]

    monkeypatch.setattr(schedule_one.Cycle, "_kept_or_new_pass", kept)
    trace_summary(simulate(load_scenario(_twins_text(("a", "3"), ("b", "3")))))
    assert passes[0] is passes[1]
    with pytest.raises(ValueError):
        passes[0].verdicts[0][1].choice[0] = 0


def _preempting_twins() -> str:
    """Replicas that preempt (and wait nominated) beside replicas that fit nowhere and are tried
    again after every deletion: runs where kept passes are read back often."""
    nodes = [node_text(f"n{i}", cpu="2") for i in (1, 2, 3, 4)]
    low = [pod_text(f"low-{i}", cpu="1500m", node_name=f"n{i}", labels="{app: low}") for i in (1, 2, 3, 4)]
    web = [pod_text(f"web-{i}", "  priority: 100\n", cpu="1500m", labels="{app: web}") for i in (1, 2, 3)]
    big = [pod_text(f"big-{i}", cpu="3", labels="{app: big}") for i in (1, 2, 3)]
    return "---\n".join([*nodes, *low, *web, *big])


def test_runs_with_kept_passes_answer_as_without_them(monkeypatch):
    hits = [0]
    get = RecentlyKept.get

    def counted(self, inputs):
        found = get(self, inputs)
        hits[0] += found is not None
        return found

    monkeypatch.setattr(RecentlyKept, "get", counted)
    text = _preempting_twins()
    kept = (trace_summary(simulate(load_scenario(text))), timeline_summary(run_to_the_end(load_scenario(text))))
    assert hits[0] > 0
    assert any(attempt.get("victims") for attempt in kept[1]["attempts"]), "the web replicas preempt"
    monkeypatch.setattr(schedule_one, "filter_inputs", lambda *args: None)
    again = (trace_summary(simulate(load_scenario(text))), timeline_summary(run_to_the_end(load_scenario(text))))
    assert again == kept
