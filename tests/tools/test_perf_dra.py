"""tools/perf_dra.py: the DRA scheduler_perf workloads it writes load, and their tiny versions run
to the end with every measured pod bound and its claim allocated on its node."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from scheduler_core import load_scenario
from scheduler_core.run.loop import ClusterRun
from scheduler_core.encoding.timeline import timeline_summary

TOOL = Path(__file__).resolve().parents[2] / "tools" / "perf_dra.py"
spec = importlib.util.spec_from_file_location("perf_dra", TOOL)
perf_dra = importlib.util.module_from_spec(spec)
sys.modules.setdefault("perf_dra", perf_dra)  # its dataclass looks its module up there
spec.loader.exec_module(perf_dra)

TINY = perf_dra.workloads(tiny=True)


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("perf-dra")
    perf_dra.write(out, tiny=True)
    return out


def test_it_writes_the_same_bytes_every_time(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    perf_dra.write(first, tiny=True)
    perf_dra.write(second, tiny=True)
    names = sorted(path.name for path in first.iterdir())
    assert names == sorted(path.name for path in second.iterdir()) and "README.md" in names
    assert all((first / name).read_bytes() == (second / name).read_bytes() for name in names)


def test_the_readme_gives_perf_table_each_files_threshold(tmp_path):
    (tmp_path / "README.md").write_text(perf_dra.readme(perf_dra.workloads()), encoding="utf-8")
    table = _perf_table().thresholds(tmp_path / "README.md")
    assert table == {
        "SchedulingWithResourceClaimTemplate_5000pods_500nodes.yaml": 56,
        "SteadyStateClusterResourceClaimTemplate_empty_500nodes.yaml": 64,
        "SteadyStateClusterResourceClaimTemplate_half_500nodes.yaml": 60,
        "SteadyStateClusterResourceClaimTemplate_full_500nodes.yaml": 60,
    }


def test_the_full_size_workloads_have_upstreams_numbers():
    by_case = {w.case.split(" / ")[1]: w for w in perf_dra.workloads()}
    fill = by_case["5000pods_500nodes_QueueingHintsEnabled"]
    assert (fill.nodes, fill.claims_per_node, fill.init_pods, fill.measure_pods) == (500, 10, 2500, 2500)
    for name, claims in (("empty", 0), ("half", 2500), ("full", 4990)):
        steady = by_case[f"{name}_500nodes_QueueingHintsEnabled"]
        assert (steady.nodes, steady.claims_per_node, steady.init_claims, steady.steady) == (500, 10, claims, 10)


@pytest.mark.parametrize("workload", TINY, ids=[w.file for w in TINY])
def test_a_tiny_workload_loads_and_runs_to_the_end_with_every_pod_bound_and_allocated(tiny_dir, workload):
    scenario = load_scenario((tiny_dir / workload.file).read_text(encoding="utf-8"))
    assert len(scenario.pending_pods) == workload.pending_at_start
    running = [pod for pod in scenario.pods if pod.node_name]
    assert len(running) == workload.init_pods
    run = ClusterRun(scenario)
    timeline = timeline_summary(list(run.run()))

    measured = {f"test/{perf_dra.POD_PREFIX}{k}" for k in range(workload.measured)}
    bound = {attempt["pod"] for attempt in timeline["attempts"] if attempt["nodeName"]}
    assert bound == measured  # every measured pod bound, once
    final = timeline["final"]
    if workload.steady:  # each batch deleted by the next step, the last one still running
        last = {f"test/{perf_dra.POD_PREFIX}{k}" for k in range(workload.measured - workload.steady, workload.measured)}
        assert {key for key in measured if final[key] != "deleted"} == last
        assert len(timeline["steps"]) == 1 + 2 * (workload.measured // workload.steady - 1)  # step 0 included
        assert len(timeline["attempts"]) == workload.measured  # the devices are free when a batch comes
    else:
        last = measured
    assert all(final[key] and final[key] != "deleted" for key in last)

    # Every claim in use is allocated on its pod's node, reserved for it, on devices no other claim holds.
    claims = run.kube_scheduler.snapshot.dra.claims
    held: list[tuple[str, str]] = []
    for key in last:
        namespace, name = key.split("/")
        claim_name = perf_dra.generated_claim_name(namespace, name, perf_dra.POD_CLAIM)
        claim = claims[f"{namespace}/{claim_name}"]
        assert claim.allocation is not None, key
        assert [ref.name for ref in claim.reserved_for] == [name]
        results = claim.allocation.results
        assert len(results) == 1 and results[0].pool == final[key]
        held.append((results[0].pool, results[0].device))
    running = {key.split("/")[1] for key in last}
    for claim in claims.values():
        if claim.allocation is not None and not (claim.namespace == "test" and claim.reserved_for[0].name in running):
            held.extend((result.pool, result.device) for result in claim.allocation.results)
    assert len(held) == len(set(held))  # no device given twice
    # the claims of deleted pods are gone, the init claims and the running pods' claims stay
    assert len([c for c in claims.values() if c.namespace == "test"]) == len(last)
    assert len([c for c in claims.values() if c.namespace == "init"]) == workload.init_pods + workload.init_claims


def _perf_table():
    path = Path(__file__).resolve().parents[2] / "tools" / "perf_table.py"
    module_spec = importlib.util.spec_from_file_location("perf_table", path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules.setdefault("perf_table", module)
    module_spec.loader.exec_module(module)
    return module
