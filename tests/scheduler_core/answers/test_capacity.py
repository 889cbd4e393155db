"""Capacity answers (scheduler_core/answers/capacity.py) against hand-worked cases, and each answer's
deciding trial re-run from its written scenario text showing what the answer says."""

from __future__ import annotations

import json

from scheduler_core.answers.capacity import (
    TrialBase,
    TrialChanges,
    fragmentation_of,
    how_many_fit,
    removable_nodes,
    run_trial,
)
from scheduler_core.cli import main
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario import load_scenario
from scheduler_core.encoding.timeline import timeline_summary


def node(
    name: str, cpu: str = "2", pods: int = 110, zone: str = "", labels: str = "", unschedulable: bool = False
) -> str:
    extra = f", topology.kubernetes.io/zone: {zone}" if zone else ""
    extra += f", {labels}" if labels else ""
    spec = "\nspec: {unschedulable: true}" if unschedulable else ""
    return (
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{extra}}}}}"
        f"{spec}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '{pods}'}}}}\n"
    )


def deployment(name: str, replicas: int, cpu: str = "500m", spec_extra: str = "") -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: default}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
      - name: c
        image: x
        resources: {{requests: {{cpu: {cpu}}}}}
{spec_extra}"""


def pod(name: str, cpu: str = "100m", node_name: str = "", spec_extra: str = "", labels: str = "") -> str:
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    phase = "Running" if node_name else "Pending"
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{app: {labels or name}}}}}
spec:{bound}
  containers:
  - name: c
    image: x
    resources: {{requests: {{cpu: {cpu}}}}}
{spec_extra}status: {{phase: {phase}}}
"""


def scenario(*documents: str) -> TrialBase:
    return TrialBase.from_text("---\n".join(documents))


SPREAD = """      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {app: web}}
"""
ANTI_AFFINITY = """      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - topologyKey: kubernetes.io/hostname
            labelSelector: {matchLabels: {app: web}}
"""


def rerun(text: str) -> dict:
    """The deciding trial as the app would open it: its scenario text loaded and run to the end."""
    return timeline_summary(run_to_the_end(load_scenario(text)))


def test_it_counts_copies_spread_over_two_zones_with_uneven_room():
    # zone a has room for 4 copies (2 CPU), zone b for 2 (1 CPU); maxSkew 1 lets a reach 3 while b
    # holds 2, and the 6th copy would make the skew 2 in a and finds b full: 5, not the 6 a sum gives.
    base = scenario(
        node("a1", cpu="2", zone="a"), node("b1", cpu="1", zone="b"), deployment("web", 0, spec_extra=SPREAD)
    )
    answer = how_many_fit(base, workload="default/web")
    assert (answer.fits, answer.checked_next, answer.placements) == (5, True, {"a1": 3, "b1": 2})
    assert (
        "1 Insufficient cpu" in answer.message
        and "1 node(s) didn't match pod topology spread constraints" in answer.message
    )
    assert answer.explanation is not None and answer.explanation.pod == answer.stopped_by[0]
    assert answer.explanation.headline == (
        "No node passed every Filter plugin: 1 Insufficient cpu (b1); "
        "1 node(s) didn't match pod topology spread constraints (a1)."
    )
    timeline = rerun(answer.deciding.scenario_text)
    step = next(s for s in timeline["steps"] if s["step"] == 1)
    assert step["pending"] == answer.stopped_by and len(step["created"]) == 6
    last = [a for a in timeline["attempts"] if a["pod"] == answer.stopped_by[0]][-1]
    assert last["failedSchedulingMessage"] == answer.message


def test_it_counts_one_copy_per_free_node_under_hostname_anti_affinity():
    base = scenario(node("n1"), node("n2"), node("n3"), node("n4"), deployment("web", 1, spec_extra=ANTI_AFFINITY))
    told: list[tuple[int, str]] = []
    answer = how_many_fit(base, workload="default/web", progress=lambda number, label: told.append((number, label)))
    # baseline, then doubling 1, 2, 4 (4 fails), then bisection tries 3
    assert told == [(1, "the scenario's own run"), (2, "1 more"), (3, "2 more"), (4, "4 more"), (5, "3 more")]
    assert answer.trials == 5 and answer.tried == {1: True, 2: True, 3: True, 4: False}
    # the existing replica holds n1: one copy on each of the three other nodes, the 4th has none left.
    assert (answer.fits, answer.placements) == (3, {"n2": 1, "n3": 1, "n4": 1})
    assert "4 node(s) didn't match pod anti-affinity rules" in answer.message
    assert rerun(answer.deciding.scenario_text)["final"][answer.stopped_by[0]] is None


def test_it_counts_copies_of_a_pod_with_a_host_port():
    ports = "    ports: [{containerPort: 80, hostPort: 8080}]\n"
    base = scenario(node("n1"), node("n2"), node("n3"), pod("p", node_name="n1", spec_extra=ports))
    answer = how_many_fit(base, pod="default/p")
    assert answer.fits == 2 and answer.placements == {"n2": 1, "n3": 1}
    assert "3 node(s) didn't have free ports for the requested pod ports" in answer.message
    assert rerun(answer.deciding.scenario_text)["final"][answer.stopped_by[0]] is None


def test_it_stops_at_the_pod_slots_and_still_shows_the_next_copy():
    base = scenario(node("n1", pods=2), deployment("web", 0, cpu="10m"))
    answer = how_many_fit(base, workload="default/web")
    assert (answer.fits, answer.bound, answer.checked_next) == (2, 2, True)
    assert "Too many pods" in answer.message


def test_it_names_the_budget_that_blocks_a_drain_and_the_pod_without_a_controller():
    budget = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb, namespace: default}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
"""
    base = scenario(
        node("n1"),
        node("n2"),
        node("n3"),
        node("n4"),
        deployment("web", 2, spec_extra=ANTI_AFFINITY),
        budget,
        pod("lone", node_name="n4"),
    )
    answer = removable_nodes(base)
    verdicts = {v.node: v for v in answer.verdicts}
    # web lands on n1 and n2 (anti-affinity); n3 is empty, n4 holds a pod nobody would recreate.
    assert verdicts["n3"].removable and verdicts["n3"].reasons == []
    assert not verdicts["n1"].removable
    assert any("blocked by budget default/web-pdb" in r for r in verdicts["n1"].reasons)
    assert verdicts["n4"].reasons == ["default/lone has no controller: evicting it deletes it"]
    assert answer.together == ["n3"]
    blocked = answer.deciding["n1"].outcome.step(1).blocked
    assert [b.budget for b in blocked] == ["default/web-pdb"]


def test_it_removes_nodes_together_only_while_the_pods_still_fit():
    base = scenario(
        node("n1", cpu="1"),
        node("n2", cpu="1"),
        node("n3", cpu="1"),
        node("n4", cpu="1"),
        deployment("web", 3, cpu="400m"),
    )
    answer = removable_nodes(base)
    # 3 pods of 400m spread over n1-n3, n4 empty: any one node can go; two together (the empty one
    # first, least requested), not three (1200m on one 1-CPU node).
    assert all(v.removable for v in answer.verdicts)
    assert answer.together[0] == "n4" and len(answer.together) == 2
    assert answer.together_trial is not None and answer.together_trial.outcome.step(1).pending == []


def test_it_reports_free_capacity_against_the_largest_request_and_stranded_remainders():
    # n2's CPU is stranded: its pods allocatable is used up.
    base = scenario(
        node("n1", cpu="2"),
        node("n2", cpu="4", pods=1),
        pod("x", cpu="1", node_name="n1"),
        pod("w", cpu="1", node_name="n2"),  # not "y": go-yaml reads it as true,
    )
    answer = fragmentation_of(base)
    cpu = next(r for r in answer.resources if r.resource == "cpu")
    assert (cpu.free_total, cpu.largest_fit, cpu.largest_node) == (4000, 3000, "n2")
    assert [(s.node, s.free, s.blocked_by) for s in cpu.stranded] == [("n2", 3000, "pods")]


def test_a_trial_depends_only_on_its_base_and_changes():
    base = scenario(node("n1"), deployment("web", 1))
    assert run_trial(base, TrialChanges()).final == run_trial(base, TrialChanges()).final


def test_the_cli_answers_in_json(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(
        "---\n".join(
            [node("a1", cpu="2", zone="a"), node("b1", cpu="1", zone="b"), deployment("web", 0, spec_extra=SPREAD)]
        )
    )
    assert main(["capacity", str(path), "--workload", "default/web", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fits"] == 5 and out["placements"] == {"a1": 3, "b1": 2}
    assert main(["capacity", str(path), "--fragmentation", "--progress"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "trial 1: the scenario's own run\n" and "cpu: 3000m free in total" in captured.out
    assert main(["capacity", str(path), "--fragmentation", "--json"]) == 0
    by_resource = {r["resource"]: r for r in json.loads(capsys.readouterr().out)["resources"]}
    assert (by_resource["cpu"]["freeTotal"], by_resource["cpu"]["freeTotalText"]) == (3000, "3000m")
    assert by_resource["pods"]["largestFitText"] == "110"
    assert main(["capacity", str(path), "--workload", "default/nope"]) == 2
    assert "no Deployment, ReplicaSet, StatefulSet or Job default/nope" in capsys.readouterr().err


def test_it_names_the_pods_the_copies_preempt():
    classes = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 100
"""
    high = "  priorityClassName: high\n"
    base = scenario(
        classes,
        node("n1", cpu="1"),
        node("n2", cpu="1"),
        pod("hi", cpu="600m", node_name="n2", spec_extra=high),
        pod("low", cpu="600m", node_name="n1"),
    )
    answer = how_many_fit(base, pod="default/hi")
    # the one copy fits by preempting low on n1; a second finds nothing of lower priority to preempt.
    assert (answer.fits, answer.placements, answer.displaced) == (1, {"n1": 1}, ["default/low"])
    assert "Insufficient cpu" in answer.message


def test_it_refuses_a_scenario_that_has_steps_of_its_own_and_replaces_an_empty_changes_document():
    import pytest

    from scheduler_core.answers.capacity import CapacityError

    steps = "apiVersion: schedlab.io/v1alpha1\nkind: Changes\nsteps:\n- operations:\n  - cordon: {node: n1}\n"
    with pytest.raises(CapacityError, match="has its own steps"):
        scenario(node("n1"), steps)
    empty = scenario(
        node("n1"), node("n2"), deployment("web", 1), "apiVersion: schedlab.io/v1alpha1\nkind: Changes\nsteps: []\n"
    )
    answer = how_many_fit(empty, workload="default/web", max_count=1)
    # --max 1 fits, and so does the one more run to show what stops the next: no boundary found
    assert (answer.fits, answer.checked_next, answer.deciding) == (2, False, None)
    assert answer.fitting.scenario_text.count("kind: Changes") == 1
    timeline = rerun(answer.fitting.scenario_text)  # the written trial loads and runs as the answer says
    assert timeline["steps"][1]["pending"] == [] and len(timeline["steps"][1]["created"]) == 2


def test_it_counts_the_ordinals_of_a_stateful_set_that_stops_at_the_first_pending_one():
    stateful = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: c
        image: x
        resources: {requests: {cpu: '1'}}
"""
    base = scenario(node("n1", cpu="2"), node("n2", cpu="1500m"), stateful)
    answer = how_many_fit(base, workload="default/db")
    # OrderedReady: db-3 is created once db-2 runs and stays pending; nothing after it is created.
    assert (answer.fits, answer.placements, answer.stopped_by) == (3, {"n1": 2, "n2": 1}, ["default/db-3"])
    assert answer.tried[4] is False and answer.tried[3] is True


def test_the_cli_answers_nodes_needed_and_removable_in_json(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text(
        "---\n".join(
            [node("n1", cpu="1"), node("n2", cpu="1"), pod("a", cpu="1", node_name="n1"), pod("b", cpu="800m")]
        )
    )
    assert main(["capacity", str(path), "--add-like", "n1", "--json"]) == 0
    nodes = json.loads(capsys.readouterr().out)
    # b fits n2 in the scenario's own run: nothing is pending, no node is needed
    assert (nodes["pending"], nodes["templates"]) == ([], [])
    assert main(["capacity", str(path), "--removable", "--json"]) == 0
    removable = json.loads(capsys.readouterr().out)
    assert [(v["node"], v["removable"]) for v in removable["verdicts"]] == [("n2", False), ("n1", False)]
    assert removable["together"] == [] and "no controller" in removable["verdicts"][0]["reasons"][0]
    assert main(["capacity", str(path), "--add-like", "n9"]) == 2
    assert "no node n9 in the scenario" in capsys.readouterr().err


def test_a_trials_loop_is_freed_when_the_trial_returns(monkeypatch):
    """run_to_rest builds the loop with the collector paused and runs it frozen: run_trial frees
    the loop's reference cycles itself, so a search's trials do not pile up in memory."""
    import weakref

    from scheduler_core.answers import capacity

    loops = []
    real = capacity.run_to_rest

    def kept(base, changes):
        loop, outcome = real(base, changes)
        loops.append(weakref.ref(loop))
        return loop, outcome

    monkeypatch.setattr(capacity, "run_to_rest", kept)
    base = scenario(node("n1"), node("n2"), deployment("web", 2), pod("p"))
    outcome = run_trial(base, TrialChanges())
    assert outcome.final["default/p"] in ("n1", "n2")
    assert len(loops) == 1 and loops[0]() is None
