"""Copies counted per node (scheduler_core/answers/capacity_count.py): each count against the same copies
placed one by one through the scheduler (capacity_pass, --method place), never a number written here."""

from __future__ import annotations

import pytest

from scheduler_core.answers.capacity import TrialBase
from scheduler_core.answers.capacity_count import Counted, CountRefused, count_copies
from scheduler_core.answers.capacity_pass import how_many_copies
from scheduler_core.run.schedule_one import Scheduler


def node(name: str, cpu: str = "2", pods: int = 110, extra: str = "", spec: str = "") -> str:
    return (
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{extra}}}}}\n"
        f"spec: {{{spec}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 4Gi, pods: '{pods}'}}}}\n"
    )


def pod(
    name: str, cpu: str = "300m", memory: str = "512Mi", node_name: str = "", spec_extra: str = "", ports: str = ""
) -> str:
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{app: {name}}}}}
spec:{bound}
  containers:
  - name: c
    image: x
    resources: {{requests: {{cpu: {cpu}, memory: {memory}}}}}
{ports}{spec_extra}"""


PORTS = "    ports: [{containerPort: 80, hostPort: 8080}]\n"
TAINTED = "taints: [{key: dedicated, value: gpu, effect: NoSchedule}]"
SELECTOR = "  nodeSelector: {disk: ssd}\n"
SPREAD = """  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: p}}}
"""
SELF_ANTI_AFFINITY = """  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: p}}}
"""


def counted_and_placed(*documents: str):
    base = TrialBase.from_text("---\n".join(documents))
    return how_many_copies(base, "default/p"), how_many_copies(base, "default/p", method="place")


@pytest.mark.parametrize(
    "documents",
    [
        pytest.param(
            (node("n1", cpu="2"), node("n2", cpu="1", pods=3), pod("p", node_name="n1")),
            id="cpu on one node, pod slots on the other",
        ),
        pytest.param(
            (node("n1", cpu="8"), node("n2", cpu="8"), pod("p", cpu="100m", memory="1500Mi", node_name="n1")),
            id="memory the limit on every node",
        ),
        pytest.param(
            (node("n1"), node("n2"), node("n3"), pod("p", node_name="n1", ports=PORTS)),
            id="a host port: one copy per node that has it free",
        ),
        pytest.param(
            (
                node("n1"),
                node("n2", spec=TAINTED),
                node("n3", extra=", disk: ssd"),
                pod("p", node_name="n3", spec_extra=SELECTOR),
            ),
            id="a taint and a node selector leave nodes at zero",
        ),
        pytest.param(
            (node("n1", cpu="250m"), node("n2"), pod("p", node_name="n2")), id="a node too small even when empty"
        ),
    ],
)
def test_the_count_is_what_placing_the_copies_one_by_one_gives(documents):
    counted, placed = counted_and_placed(*documents)
    assert counted.method == "counted" and placed.method == "placed"
    assert (counted.fits, counted.placements, counted.stopped_by, counted.message) == (
        placed.fits,
        placed.placements,
        placed.stopped_by,
        placed.message,
    )


@pytest.mark.parametrize(
    "extra, reason",
    [
        pytest.param(SPREAD, "spreads over topology domains", id="spreading over hostnames is placed, not counted"),
        pytest.param(
            SELF_ANTI_AFFINITY, "required pod (anti-)affinity", id="anti-affinity to itself is placed, not counted"
        ),
    ],
)
def test_it_refuses_to_count_copies_that_depend_on_each_other(extra, reason):
    base = TrialBase.from_text("---\n".join([node("n1"), node("n2"), pod("p", spec_extra=extra)]))
    refused = count_copies(Scheduler(base.scenario), base.scenario.pods[0])
    assert isinstance(refused, CountRefused) and reason in refused.reason


def test_it_counts_on_the_snapshot_it_is_given():
    base = TrialBase.from_text("---\n".join([node("n1", cpu="1"), node("n2", cpu="2"), pod("p", cpu="500m")]))
    scheduler = Scheduler(base.scenario)  # a single pass: p itself is not placed
    counted = count_copies(scheduler, base.scenario.pods[0])
    assert isinstance(counted, Counted)
    assert counted.per_node == {"n1": 2, "n2": 4} and counted.total == 6
    assert counted.message.startswith("0/2 nodes are available: 2 Insufficient cpu.")
