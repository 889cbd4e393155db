"""Drains judged without a trial (scheduler_core/answers/capacity_drains.py): every forecast against the
drain trial it stands for (capacity.run_trial + drain_ok), and --removable with forecasts against
--removable with a trial for every node — never a verdict written here."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scheduler_core.answers.capacity import (
    BASELINE_LABEL,
    Trial,
    TrialBase,
    TrialChanges,
    drain_changes,
    drain_ok,
    removable_nodes,
    run_trial,
)
from scheduler_core.answers.capacity_drains import NO_EVICTIONS, UNGUARDED_BARE_PODS, DrainForecaster


def node(name: str, cpu: str = "2", pods: int = 110) -> str:
    return (
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
        f"status: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '{pods}'}}}}\n"
    )


def pod(name: str, cpu: str = "300m", node_name: str = "", app: str = "") -> str:
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{app: {app or name}}}}}
spec:{bound}
  containers:
  - name: c
    image: x
    resources: {{requests: {{cpu: {cpu}}}}}
"""


def deployment(name: str, replicas: int, cpu: str = "300m") -> str:
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
      - {{name: c, image: x, resources: {{requests: {{cpu: {cpu}}}}}}}
"""


def budget(app: str) -> str:
    return (
        f"apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: {app}-pdb, namespace: default}}\n"
        f"spec: {{minAvailable: 1, selector: {{matchLabels: {{app: {app}}}}}}}\n"
    )


def every_forecast_is_its_trial(base: TrialBase) -> int:
    """Each node's forecast equals its drain trial's verdict and reasons; how many were forecast."""
    baseline = Trial(BASELINE_LABEL, TrialChanges(), run_trial(base, TrialChanges()), base)
    forecaster = DrainForecaster(base.scenario, baseline.outcome.final)
    known = 0
    for name in (n.name for n in base.scenario.nodes):
        forecast = forecaster.forecast(name)
        if forecast is None:
            continue
        known += 1
        changes = drain_changes([name])
        drained = Trial(f"drain {name}", changes, run_trial(base, changes), base)
        assert (forecast.removable, forecast.reasons) == drain_ok(base.scenario, baseline, drained), name
    return known


@pytest.mark.parametrize(
    "documents, forecast",
    [
        pytest.param(
            (node("n1"), node("n2"), pod("a", node_name="n1"), pod("b", node_name="n1")),
            2,
            id="bare pods and an empty node are both known without a trial",
        ),
        pytest.param(
            (node("n1"), node("n2"), pod("a", app="web", node_name="n1"), budget("web")),
            1,
            id="a pod a budget guards is left to the trial",
        ),
        pytest.param(
            (node("n1"), node("n2"), deployment("web", 2)),
            0,
            id="pods a controller made during the run are left to the trial",
        ),
        pytest.param(
            (node("n1", cpu="1"), node("n2", cpu="1"), pod("big", cpu="800m"), pod("a", cpu="800m")),
            2,
            id="pods placed by the run, one pending: the forecast still holds",
        ),
    ],
)
def test_each_forecast_is_what_the_drain_trial_says(documents, forecast):
    assert every_forecast_is_its_trial(TrialBase.from_text("---\n".join(documents))) == forecast


def comparable(answer) -> dict:
    data = answer.to_json()
    return {
        "verdicts": [{k: v for k, v in verdict.items() if k != "knownBy"} for verdict in data["verdicts"]],
        "together": data["together"],
    }


@st.composite
def clusters(draw) -> list[str]:
    count = draw(st.integers(1, 4))
    documents = [
        node(f"n{i}", cpu=f"{draw(st.integers(1, 3)) * 500}m", pods=draw(st.integers(1, 4))) for i in range(count)
    ]
    for j in range(draw(st.integers(0, 3))):
        placed = draw(st.integers(-1, count - 1))
        documents.append(
            pod(
                f"p{j}",
                cpu=f"{draw(st.integers(1, 5)) * 100}m",
                node_name=f"n{placed}" if placed >= 0 else "",
                app=draw(st.sampled_from(("web", "db"))),
            )
        )
    if draw(st.booleans()):
        documents.append(deployment("dep", draw(st.integers(1, 3)), cpu=f"{draw(st.integers(1, 5)) * 100}m"))
    if draw(st.booleans()):
        documents.append(budget(draw(st.sampled_from(("web", "dep")))))
    return documents


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_removable_with_forecasts_is_removable_with_every_trial(documents):
    base = TrialBase.from_text("---\n".join(documents))
    fast, slow = removable_nodes(base), removable_nodes(base, forecast=False)
    assert comparable(fast) == comparable(slow)
    assert fast.trials <= slow.trials
    assert {v.known_by for v in fast.verdicts} <= {"trial", NO_EVICTIONS, UNGUARDED_BARE_PODS}
