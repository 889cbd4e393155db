"""How many more copies fit, in one pass (scheduler_core/answers/capacity_pass.py): the pass against the
trial search (capacity.how_many_fit, whole runs of N copies) on hand-made and generated clusters,
cluster-capacity's own test case, and the CLI's --method, --max and --progress."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings, strategies as st

from scheduler_core.answers.capacity import FitAnswer, TrialBase, how_many_fit
from scheduler_core.answers.capacity_pass import (
    PROGRESS_EVERY,
    NeedsTrials,
    PassAnswer,
    copies_by_trials,
    how_many_copies,
    one_pass,
)
from scheduler_core.cli import main
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario import load_scenario
from scheduler_core.encoding.timeline import timeline_summary


def node(name: str, cpu: str = "2", pods: int = 110, memory: str = "8Gi", labels: str = "", spec: str = "") -> str:
    return (
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{labels}}}}}\n"
        f"spec: {{{spec}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: {memory}, pods: '{pods}'}}}}\n"
    )


def pod(
    name: str,
    cpu: str = "100m",
    memory: str = "0",
    node_name: str = "",
    namespace: str = "default",
    spec_extra: str = "",
    container_extra: str = "",
    labels: str = "",
) -> str:
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: {namespace}, labels: {{app: {labels or name}}}}}
spec:{bound}
  containers:
  - name: c
    image: x
    resources: {{requests: {{cpu: {cpu}, memory: '{memory}'}}}}
{container_extra}{spec_extra}"""


def base_of(*documents: str) -> TrialBase:
    return TrialBase.from_text("---\n".join(documents))


def same_answer(passed: PassAnswer, trials: FitAnswer) -> None:
    """The pass and the trial search agree: the count, where the copies land, the copy that stops
    and its FailedScheduling message (counted per domain: the nodes and the message the count calls
    certain)."""
    assert passed.fits == trials.fits
    assert [passed.stopped_by] == trials.stopped_by
    if passed.spread is not None and not passed.spread.nodes_exact:
        assert all(trials.placements.get(node, 0) == count for node, count in passed.placements.items())
    else:
        assert passed.placements == trials.placements
    if passed.spread is None or passed.spread.message_exact:
        assert passed.message == trials.message


ZONE_SPREAD = """  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: p}}}
"""


def test_it_places_spread_copies_one_by_one_as_the_trials_do():
    # zone a has room for 4 copies, zone b for 2: the 6th would make the skew 2 in a.
    base = base_of(
        node("a1", cpu="2", labels=", topology.kubernetes.io/zone: a"),
        node("b1", cpu="1", labels=", topology.kubernetes.io/zone: b"),
        pod("p", cpu="500m", spec_extra=ZONE_SPREAD),
    )
    trials = how_many_fit(base, pod="default/p")
    placed = how_many_copies(base, "default/p", method="place")
    assert isinstance(placed, PassAnswer) and placed.method == "placed"
    same_answer(placed, trials)
    assert placed.explanation is not None and placed.explanation.pod == placed.stopped_by
    counted = how_many_copies(base, "default/p")  # counted per zone (capacity_domains.py)
    assert isinstance(counted, PassAnswer) and counted.method == "counted" and counted.spread is not None
    same_answer(counted, trials)


def test_the_deciding_trial_it_writes_shows_the_copy_that_does_not_fit():
    base = base_of(node("n1", cpu="1"), node("n2", cpu="1"), pod("p", cpu="400m"))
    answer = how_many_copies(base, "default/p")
    deciding = answer.to_json()["deciding"]
    timeline = timeline_summary(run_to_the_end(load_scenario(deciding["scenarioText"])))
    assert timeline["final"][answer.stopped_by] is None
    assert sum(1 for key, at in timeline["final"].items() if "-copy-" in key and at) == answer.fits


def test_the_deciding_cycle_is_the_failed_copys_attempt_in_the_deciding_trials_run():
    # two pods pending in the scenario are placed by its own run (attempts 0 and 1) before the copies
    base = base_of(node("n1", cpu="1"), node("n2", cpu="1"), pod("p", cpu="400m"), pod("q", cpu="300m"))
    for method in ("auto", "place"):
        answer = how_many_copies(base, "default/p", method=method)
        assert isinstance(answer, PassAnswer) and answer.deciding_cycle == 2 + answer.fits
        attempts = timeline_summary(run_to_the_end(load_scenario(answer.to_json()["deciding"]["scenarioText"])))[
            "attempts"
        ]
        assert attempts[answer.deciding_cycle]["pod"] == answer.stopped_by
        assert attempts[answer.deciding_cycle]["failedSchedulingMessage"] == answer.message
    assert how_many_copies(base, "default/p", max_count=1).deciding_cycle is None


def test_it_leaves_copies_that_could_preempt_to_the_trial_search():
    classes = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 100\n"
    base = base_of(
        classes,
        node("n1", cpu="1"),
        node("n2", cpu="1"),
        pod("p", cpu="600m", node_name="n2", spec_extra="  priorityClassName: high\n"),
        pod("low", cpu="600m", node_name="n1"),
    )
    answer = how_many_copies(base, "default/p")
    assert isinstance(answer, FitAnswer) and answer.displaced == ["default/low"]
    forced = how_many_copies(base, "default/p", method="place")
    assert forced.fits == 0 and "could preempt lower-priority pods (default/low)" in forced.why


def test_copies_the_trials_answered_are_written_in_the_pass_s_form_with_the_trials_values():
    classes = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 100\n"
    base = base_of(
        classes,
        node("n1", cpu="1"),
        node("n2", cpu="1"),
        pod("p", cpu="600m", node_name="n2", spec_extra="  priorityClassName: high\n"),
        pod("low", cpu="600m", node_name="n1"),
    )
    trials = how_many_copies(base, "default/p")
    assert isinstance(trials, FitAnswer) and trials.explanation is not None
    written = copies_by_trials(trials, "the copies could preempt").to_json()
    fit = trials.to_json()
    assert list(written) == list(how_many_copies(base, "default/p", method="place").to_json())  # the pass's keys
    shared = ("target", "fits", "checkedNext", "bound", "placements", "stoppedBy", "message", "explanation")
    assert {key: written[key] for key in shared} == {key: fit[key] for key in shared}
    assert (written["displaced"], written["trials"], written["deciding"]) == (
        fit["displaced"],
        fit["trials"],
        fit["deciding"],
    )
    assert (
        written["method"],
        written["why"],
        written["countedTotal"],
        written["perDomain"],
        written["messageExact"],
    ) == (
        "trials",
        "the copies could preempt",
        None,
        None,
        True,
    )


def test_it_leaves_a_scenario_with_pods_still_pending_to_the_trial_search():
    base = base_of(node("n1", cpu="1"), pod("p", cpu="200m"), pod("huge", cpu="2"))
    answer = how_many_copies(base, "default/p")
    assert isinstance(answer, FitAnswer)
    assert "1 pod(s) stay pending" in how_many_copies(base, "default/p", method="place").why


def test_one_pass_answers_as_auto_does_or_says_why_the_trials_must():
    """The web workers' entry: the pass's answer where --method auto gives one, else NeedsTrials
    with pass_refusal's reason (and no trial run)."""
    base = base_of(node("n1", cpu="1"), node("n2", cpu="2"), pod("p", cpu="500m", node_name="n1"))
    told: list[tuple[int, float]] = []
    answer = one_pass(base, "default/p", progress=lambda copies, seconds: told.append((copies, seconds)))
    assert isinstance(answer, PassAnswer) and answer.to_json() == how_many_copies(base, "default/p").to_json()
    assert [copies for copies, _ in told] == [answer.fits] and answer.method == "counted"
    pending = base_of(node("n1", cpu="1"), pod("p", cpu="200m"), pod("huge", cpu="2"))
    refused = one_pass(pending, "default/p")
    assert isinstance(refused, NeedsTrials) and refused.why.startswith("1 pod(s) stay pending after the scenario's run")
    assert refused.why in how_many_copies(pending, "default/p", method="place").why


def test_one_pass_tells_its_progress_every_thousand_copies_placed():
    # anti-affinity to itself: placed one by one; 2 copies a node (CPU), so one report at 1000
    anti = (
        "  affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, "
        "podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: p}}}}]}}\n"
    )
    spread = (
        "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, "
        "whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: p}}}\n"
        "  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, "
        "labelSelector: {matchLabels: {app: p}}}\n"
    )
    nodes = [node(f"n{i}", cpu="1", labels=f", topology.kubernetes.io/zone: z{i % 2}") for i in range(600)]
    base = base_of(*nodes, pod("p", cpu="400m", spec_extra=spread + anti))
    told: list[tuple[int, float]] = []
    answer = one_pass(
        base, "default/p", max_count=1100, progress=lambda copies, seconds: told.append((copies, seconds))
    )
    assert isinstance(answer, PassAnswer) and answer.method == "placed" and answer.fits == 1100
    assert [copies for copies, _ in told] == [PROGRESS_EVERY] and told[0][1] > 0
    assert not answer.checked_next and sum(answer.placements.values()) == 1100


# cluster-capacity's TestPrediction (pkg/framework/simulator_test.go): three nodes whose allocatable
# is cpu 300m/400m/1200m, memory 1e9/2e9/1e9, 3 pods each; the simulated pod requests 100m and 5e6
# bytes in namespace test-node-3, the limit is 6 copies; it states the run stops with "LimitReached".
CC_NODES = (
    node("test-node-1", cpu="300m", memory="1e9", pods=3),
    node("test-node-2", cpu="400m", memory="2e9", pods=3),
    node("test-node-3", cpu="1200m", memory="1e9", pods=3),
)
CC_POD = pod("simulated-pod", cpu="100m", memory="5e6", namespace="test-node-3")


def test_cluster_capacity_prediction_stops_at_its_limit_of_six():
    base = base_of(*CC_NODES, CC_POD.replace("spec:", "spec:\n  nodeName: test-node-3", 1))
    limited = how_many_copies(base, "test-node-3/simulated-pod", max_count=6)
    assert (limited.fits, limited.checked_next, limited.max_count) == (6, False, 6)  # LimitReached
    assert "stopped at --max 6" in "\n".join(limited.lines())
    # the count past the limit, and how the nodes are filled, are the trial search's
    same_answer(how_many_copies(base, "test-node-3/simulated-pod"), how_many_fit(base, pod="test-node-3/simulated-pod"))
    assert limited.counted_total == how_many_copies(base, "test-node-3/simulated-pod").fits


# ---------------------------------------------------------------------- generated clusters


ZONES = ("a", "b")


@st.composite
def clusters(draw) -> tuple[list[str], str]:
    """A few nodes (cpu, pod slots, zone, maybe a taint or a disk label), one running copy of the
    pod p and maybe a neighbour; p asks cpu and maybe a host port, a selector, a toleration,
    zone spreading or anti-affinity to itself."""
    count = draw(st.integers(1, 4))
    documents = []
    for i in range(count):
        labels = f", topology.kubernetes.io/zone: {draw(st.sampled_from(ZONES))}"
        labels += ", disk: ssd" if draw(st.booleans()) else ""
        taint = "taints: [{key: t, value: v, effect: NoSchedule}]" if draw(st.integers(0, 4)) == 0 else ""
        documents.append(
            node(
                f"n{i}",
                cpu=f"{draw(st.integers(1, 4)) * 500}m",
                pods=draw(st.integers(1, 6)),
                labels=labels,
                spec=taint,
            )
        )
    spec = ""
    if draw(st.booleans()):
        spec += "  nodeSelector: {disk: ssd}\n"
    if draw(st.booleans()):
        spec += "  tolerations: [{key: t, operator: Exists}]\n"
    shape = draw(st.sampled_from(("plain", "plain", "ports", "spread", "anti")))
    if shape == "spread":
        spec += ZONE_SPREAD
    elif shape == "anti":
        spec += (
            "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
            "      - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: p}}}\n"
        )
    ports = "    ports: [{containerPort: 80, hostPort: 8080}]\n" if shape == "ports" else ""
    cpu = f"{draw(st.integers(1, 6)) * 100}m"
    documents.append(pod("p", cpu=cpu, node_name="n0", spec_extra=spec, container_extra=ports))
    if draw(st.booleans()):
        documents.append(pod("other", cpu="300m", node_name=f"n{count - 1}"))
    return documents, shape


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_one_pass_the_trial_search_and_the_count_agree_on_generated_clusters(cluster):
    documents, shape = cluster
    base = base_of(*documents)
    trials = how_many_fit(base, pod="default/p")
    placed = how_many_copies(base, "default/p", method="place")
    assert isinstance(placed, PassAnswer)
    same_answer(placed, trials)
    auto = how_many_copies(base, "default/p")
    assert isinstance(auto, PassAnswer)
    if shape in ("plain", "ports", "spread"):
        assert auto.method == "counted"
    same_answer(auto, trials)


# ---------------------------------------------------------------------- the CLI


def test_the_cli_counts_places_and_stops_at_max(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text("---\n".join([node("n1", cpu="1"), node("n2", cpu="2"), pod("p", cpu="500m", node_name="n1")]))
    assert main(["capacity", str(path), "--pod", "default/p", "--json", "--progress"]) == 0
    captured = capsys.readouterr()
    counted = json.loads(captured.out)
    assert (counted["method"], counted["fits"], counted["placements"]) == ("counted", 5, {"n1": 1, "n2": 4})
    assert "trial 1: the scenario's own run" in captured.err and "5 copies placed or counted" in captured.err
    assert main(["capacity", str(path), "--pod", "default/p", "--json", "--method", "place", "--max", "2"]) == 0
    limited = json.loads(capsys.readouterr().out)
    assert (limited["method"], limited["fits"], limited["checkedNext"], limited["countedTotal"]) == (
        "placed",
        2,
        False,
        None,
    )
    assert main(["capacity", str(path), "--pod", "default/p", "--json", "--method", "trials"]) == 0
    trials = json.loads(capsys.readouterr().out)
    assert trials["fits"] == counted["fits"] and trials["message"] == counted["message"]
