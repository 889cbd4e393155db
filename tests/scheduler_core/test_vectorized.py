"""The vectorised fast path against the per-node reference: identical trace summaries.

``simulate(..., vectorized=False)`` runs every plugin node by node (the readable port of Go);
the default runs each plugin's ``filter_batch`` / ``score_batch`` / ``normalize_batch`` over the
NodeTable. Every public conformance case and every bench scenario (its first pods) must give the
same summary — every filter status, raw, normalized and weighted score, and choice — both ways.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pytest

from scheduler_core import load_scenario, trace_summary
from scheduler_core.run.bench import with_percentage
from scheduler_core.run.schedule_one import Scheduler, fresh_copy, simulate
from tests.scheduler_core.conformance import diff_traces

SHARED = Path(__file__).resolve().parents[3] / "shared"
CORPUS = SHARED / "conformance" / "public"
BENCH = SHARED / "bench"
CASES = sorted(p.name[: -len(".yaml")] for p in CORPUS.glob("*.yaml"))
BENCHES = sorted(p.name[: -len(".yaml")] for p in BENCH.glob("*.yaml"))
BENCH_PODS = 30  # the first pending pods, as `bench --limit 30`
# Scenarios with volumes: the volume plugins have no batch methods, the others must still agree.
VOLUMES = SHARED / "conformance-timeline" / "public"
VOLUME_CASES = sorted(p.name[: -len(".yaml")] for p in VOLUMES.glob("volumes_*.yaml"))


def _normal(summary: dict) -> dict:
    return json.loads(json.dumps(summary, sort_keys=True))


def _assert_same(fast: dict, reference: dict) -> None:
    problems = diff_traces(_normal(reference), _normal(fast))
    assert not problems, "\n".join(problems[:40])


def test_the_corpora_are_present():
    assert len(CASES) >= 134
    assert len(BENCHES) == 10


@pytest.mark.parametrize("case", CASES)
def test_conformance_case_is_the_same_both_ways(case):
    scenario = load_scenario((CORPUS / f"{case}.yaml").read_bytes())
    fast = trace_summary(simulate(scenario, vectorized=True))
    reference = trace_summary(simulate(scenario, vectorized=False))
    _assert_same(fast, reference)


@pytest.mark.parametrize("case", VOLUME_CASES)
def test_volumes_case_is_the_same_both_ways(case):
    scenario = load_scenario((VOLUMES / f"{case}.yaml").read_bytes())
    _assert_same(
        trace_summary(simulate(scenario, vectorized=True)), trace_summary(simulate(scenario, vectorized=False))
    )


@lru_cache(maxsize=2)
def _bench_scenario(name: str):
    return load_scenario((BENCH / f"{name}.yaml").read_bytes())


def _bench_summary(name: str, percentage, vectorized: bool) -> dict:
    scenario = fresh_copy(with_percentage(_bench_scenario(name), percentage))
    scheduler = Scheduler(scenario, vectorized=vectorized)
    scheduler.queue = scheduler.queue[:BENCH_PODS]
    return trace_summary(scheduler.run())


@pytest.mark.slow
@pytest.mark.parametrize("percentage", [None, 0], ids=["scenario-percentage", "adaptive"])
@pytest.mark.parametrize("name", BENCHES)
def test_bench_scenario_is_the_same_both_ways(name, percentage):
    fast = _bench_summary(name, percentage, True)
    reference = _bench_summary(name, percentage, False)
    assert len(fast["cycles"]) == min(BENCH_PODS, len(fast["cycles"])) and fast["cycles"]
    _assert_same(fast, reference)


# ---------------------------------------------------------------------------- runs to the end
# The numeric preemption dry run (plugins/default_preemption/batch.py) and the per-node verdicts it
# keeps across cycles against select_victims_on_node on cloned nodes: every event of the run, each
# cycle's per-node statuses and the preemption's candidates included, must be the same both ways.

TIMELINE_CASES = sorted(p.name[: -len(".yaml")] for p in VOLUMES.glob("*.yaml"))


def _run_events(scenario, vectorized: bool) -> list[dict]:
    from scheduler_core.run.loop import run_to_the_end

    return [event.to_json() for event in run_to_the_end(scenario, vectorized=vectorized)]


@pytest.mark.parametrize("case", [c for c in TIMELINE_CASES if not c.startswith("volumes_")])
def test_timeline_case_runs_the_same_both_ways(case):
    scenario = load_scenario((VOLUMES / f"{case}.yaml").read_bytes())
    assert _run_events(scenario, True) == _run_events(scenario, False)


def _preemption_basic(nodes: int, preemptors: int, extra: str = "", victim_spec: str = "", node_spec: str = "") -> str:
    """PreemptionBasic in small (bench/perf): 4 low-priority 900m pods per 4-CPU node, preemptors of
    3 CPU at priority 10, every pod with a zero grace period."""
    docs = []
    for n in range(nodes):
        docs.append(f"""apiVersion: v1
kind: Node
metadata: {{name: node-{n}, labels: {{kubernetes.io/hostname: node-{n}, app: {"a" if n % 3 else "b"}}}}}
spec: {{{node_spec if n % 4 == 1 else ""}}}
status: {{allocatable: {{cpu: '4', memory: 32Gi, pods: '110'}}}}
""")
        for v in range(4):
            docs.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: low-{n}-{v}, namespace: default, labels: {{app: low}}}}
spec: {{nodeName: node-{n}, terminationGracePeriodSeconds: 0, priority: {v % 2}, {victim_spec}
  containers: [{{name: c, resources: {{requests: {{cpu: 900m, memory: 500Mi}}}}}}]}}
""")
    for p in range(preemptors):
        docs.append(f"""apiVersion: v1
kind: Pod
metadata: {{name: high-{p}, namespace: default}}
spec: {{priority: 10, terminationGracePeriodSeconds: 0,
  containers: [{{name: c, resources: {{requests: {{cpu: '3', memory: 500Mi}}}}}}]}}
""")
    return "---\n".join(docs) + extra


PDB = """---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: keep, namespace: default}
spec: {selector: {matchLabels: {app: low}}}
status: {disruptionsAllowed: 3}
"""
FIT_FIRST = """---
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      disabled: [{name: '*'}]
      enabled: [{name: NodeResourcesFit}, {name: TaintToleration}, {name: NodeUnschedulable}]
"""
TAINT = "taints: [{key: k, effect: NoSchedule}]"
SMALL = "".join(
    f"""---
apiVersion: v1
kind: Pod
metadata: {{name: small-{i}, namespace: default}}
spec: {{priority: 10, containers: [{{name: c, resources: {{requests: {{cpu: 100m}}}}}}]}}
"""
    for i in range(6)
)

# PreemptionAsync in small: low-priority pods arrive while the preemptors wait nominated, so each
# of their cycles runs the nominated pass; HALF_NODE preemptors fit two to a node.
LOW = "".join(
    f"""---
apiVersion: v1
kind: Pod
metadata: {{name: later-{i}, namespace: default}}
spec: {{priority: 0, containers: [{{name: c, resources: {{requests: {{cpu: 100m, memory: 500Mi}}}}}}]}}
"""
    for i in range(30)
)
HALF_NODE = "".join(
    f"""---
apiVersion: v1
kind: Pod
metadata: {{name: half-{i}, namespace: default}}
spec: {{priority: 10, terminationGracePeriodSeconds: 0,
  containers: [{{name: c, resources: {{requests: {{cpu: 1500m}}}}}}]}}
"""
    for i in range(6)
)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(_preemption_basic(12, 14), id="preemptors outnumbering the nodes, victims at two priorities"),
        pytest.param(
            _preemption_basic(12, 14, extra=PDB),
            id="a PodDisruptionBudget on the victims (verdicts kept under the same budgets)",
        ),
        pytest.param(_preemption_basic(12, 10, node_spec=TAINT), id="a node-only plugin rejecting before Fit"),
        pytest.param(
            _preemption_basic(12, 10, extra=FIT_FIRST, node_spec=TAINT),
            id="a node-only plugin rejecting after Fit in the profile's order",
        ),
        pytest.param(_preemption_basic(12, 10, node_spec="unschedulable: true"), id="unschedulable nodes"),
        pytest.param(
            _preemption_basic(6, 8, victim_spec="hostNetwork: false,"), id="few nodes: the nominated pods fill them"
        ),
        pytest.param(_preemption_basic(6, 4, extra=SMALL), id="small pods that fit next to the nominated ones"),
        pytest.param(_preemption_basic(8, 5, extra=LOW), id="lower-priority pods filtered with the nominated ones"),
        pytest.param(
            _preemption_basic(6, 2, extra=HALF_NODE + LOW, node_spec=TAINT),
            id="two nominated pods on a node, lower-priority pods, a node-only plugin rejecting",
        ),
        pytest.param(
            _preemption_basic(150, 12, extra=LOW),
            id="more nodes than the walk needs: nominated nodes before and after where it stops",
        ),
    ],
)
def test_preemption_runs_the_same_both_ways(text):
    scenario = load_scenario(text)
    fast, reference = _run_events(scenario, True), _run_events(scenario, False)
    assert any(e.get("payload", {}).get("victims") for e in fast)  # preemption did happen
    assert fast == reference


def _dra_fill_text(
    nodes: int, devices: int, running: int, pending: int, error_on: str = "", cordoned: bool = False
) -> str:
    """scheduler_perf's DRA fill-up shape (tools/perf_dra.py): ``nodes`` nodes of ``devices``
    devices, ``running`` pods already holding one each (round-robin), ``pending`` pods asking one.
    ``error_on``: a node whose devices the class's selector cannot evaluate (a CEL runtime error),
    ``cordoned`` too (NodeUnschedulable then fails first there: no Error, the walk goes on)."""
    import importlib.util
    import sys

    import yaml

    path = Path(__file__).resolve().parents[2] / "tools" / "perf_dra.py"
    spec = importlib.util.spec_from_file_location("perf_dra", path)
    perf_dra = sys.modules.get("perf_dra") or importlib.util.module_from_spec(spec)
    if "perf_dra" not in sys.modules:
        sys.modules["perf_dra"] = perf_dra
        spec.loader.exec_module(perf_dra)
    workload = perf_dra.Workload("x.yaml", "x", None, nodes, devices, init_pods=running, measure_pods=pending)
    documents = list(perf_dra.documents(workload))
    if error_on:
        for document in documents:
            if document["kind"] == "DeviceClass":
                document["spec"]["selectors"][0]["cel"]["expression"] = (
                    'device.attributes["test-driver.cdi.k8s.io"].family == "GPU" && '
                    'device.attributes["test-driver.cdi.k8s.io"].broken'
                )
            if cordoned and document["kind"] == "Node" and document["metadata"]["name"] == error_on:
                document["spec"]["unschedulable"] = True
            if document["kind"] == "ResourceSlice" and document["spec"]["nodeName"] == error_on:
                for device in document["spec"]["devices"]:
                    device["attributes"]["broken"] = {"string": "yes"}
            elif document["kind"] == "ResourceSlice":
                for device in document["spec"]["devices"]:
                    device["attributes"]["broken"] = {"bool": True}
    return yaml.safe_dump_all(documents, sort_keys=False)


@pytest.mark.parametrize(
    "nodes, devices, running, pending, error_on, cordoned",
    [
        (150, 2, 150, 160, "", False),  # 150 nodes: the walk stops after 100 feasible; nodes fill up and are rejected
        (120, 1, 30, 100, "", False),  # a quarter of the nodes full from the start, then more
        (130, 2, 0, 12, "scheduler-perf-dra-40", False),  # a CEL runtime error (Error status) partway along the walk
        (130, 2, 0, 12, "scheduler-perf-dra-40", True),  # the same node cordoned: not an Error node, the walk goes on
        (130, 1, 120, 8, "scheduler-perf-dra-122", True),  # ... on to nodes that fill up and are rejected after it
    ],
)
def test_dynamic_resources_walked_node_by_node_runs_the_same_both_ways(
    nodes, devices, running, pending, error_on, cordoned
):
    """DynamicResources has no batch method: on the fast path it judges nodes only as far as
    findNodesThatPassFilters walks (Scheduler._walked_verdicts), the reference judges every node.
    Same events either way: every verdict of the evaluated nodes, pictures, where the walk stops
    and the next start index, the error that stops a walk."""
    scenario = load_scenario(_dra_fill_text(nodes, devices, running, pending, error_on, cordoned))
    assert _run_events(scenario, True) == _run_events(scenario, False)
