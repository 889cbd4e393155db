"""Copies of a spreading pod counted per domain (scheduler_core/answers/capacity_domains.py): each count
against the same copies placed one by one through the scheduler (``--method place``), never a
number written here — per domain always, per node and the next copy's message where the count
says they are certain."""

from __future__ import annotations

from collections import Counter
from typing import Union

import pytest
from hypothesis import HealthCheck, assume, event, given, settings, strategies as st

from scheduler_core.answers.capacity import FitAnswer, TrialBase
from scheduler_core.answers.capacity_count import CountRefused
from scheduler_core.answers.capacity_domains import SpreadCounted, count_spreading
from scheduler_core.answers.capacity_pass import PassAnswer, how_many_copies
from scheduler_core.run.schedule_one import Scheduler

ZONE = "topology.kubernetes.io/zone"


def node(name: str, zone: str = "", cpu: str = "2", pods: int = 110, spec: str = "", extra: str = "") -> str:
    labels = f", {ZONE}: {zone}" if zone else ""
    return (
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{labels}{extra}}}}}\n"
        f"spec: {{{spec}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '{pods}'}}}}\n"
    )


def pod(name: str = "p", cpu: str = "500m", node_name: str = "", spec_extra: str = "", app: str = "p") -> str:
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default, labels: {{app: {app}}}}}
spec:{bound}
  containers:
  - name: c
    image: x
    resources: {{requests: {{cpu: {cpu}}}}}
{spec_extra}"""


def spread(key: str = ZONE, skew: int = 1, when: str = "DoNotSchedule", extra: str = "", app: str = "p") -> str:
    return (
        f"  - {{maxSkew: {skew}, topologyKey: {key}, whenUnsatisfiable: {when}, "
        f"labelSelector: {{matchLabels: {{app: {app}}}}}{extra}}}\n"
    )


def constraints(*items: str) -> str:
    return "  topologySpreadConstraints:\n" + "".join(items)


TAINT = "taints: [{key: t, value: v, effect: NoSchedule}]"
SOFT_HOSTNAME = spread("kubernetes.io/hostname", when="ScheduleAnyway")


def answers(*documents: str) -> tuple[Union[PassAnswer, FitAnswer], PassAnswer, TrialBase]:
    base = TrialBase.from_text("---\n".join(documents))
    counted, placed = how_many_copies(base, "default/p"), how_many_copies(base, "default/p", method="place")
    assert isinstance(placed, PassAnswer)
    return counted, placed, base


def agree(counted: Union[PassAnswer, FitAnswer], placed: PassAnswer, base: TrialBase) -> None:
    """The count is placing's: total, each domain's copies, every node the count calls certain, and
    the next copy's message where the count calls it exact."""
    assert isinstance(counted, PassAnswer)
    assert counted.fits == placed.fits
    assert counted.stopped_by == placed.stopped_by
    if counted.spread is None:
        assert (counted.placements, counted.message) == (placed.placements, placed.message)
        return
    domain_of = {n.name: n.labels.get(counted.spread.topology_key) for n in base.scenario.nodes}
    placed_domains: Counter[str] = Counter()
    for name, count in placed.placements.items():
        placed_domains[str(domain_of[name])] += count
    assert {d.domain: d.added for d in counted.spread.domains if d.added} == dict(placed_domains)
    assert all(placed.placements.get(name, 0) == count for name, count in counted.spread.per_node.items())
    if counted.spread.nodes_exact:
        assert counted.placements == placed.placements
    if counted.spread.message_exact:
        assert counted.message == placed.message


@pytest.mark.parametrize(
    "documents",
    [
        pytest.param(
            (node("a1", "a"), node("a2", "a"), node("b1", "b", cpu="1"), pod(spec_extra=constraints(spread()))),
            id="the smaller zone fills and holds the other at maxSkew",
        ),
        pytest.param(
            (node("a1", "a"), node("b1", "b"), node("c1", "c", spec=TAINT), pod(spec_extra=constraints(spread()))),
            id="a tainted zone the plugin still counts keeps the minimum at zero",
        ),
        pytest.param(
            (
                node("a1", "a"),
                node("b1", "b"),
                node("c1", "c", spec=TAINT),
                pod(spec_extra=constraints(spread(extra=", nodeTaintsPolicy: Honor"))),
            ),
            id="honouring taints leaves the tainted zone out, so the others fill",
        ),
        pytest.param(
            (
                node("a1", "a", cpu="4"),
                node("b1", "b"),
                pod(spec_extra=constraints(spread(skew=3, extra=", minDomains: 3"))),
            ),
            id="fewer zones than minDomains: each stops at maxSkew over a minimum of zero",
        ),
        pytest.param(
            (
                node("a1", "a", cpu="4"),
                node("a2", "a"),
                node("b1", "b", cpu="3"),
                node("nolabel"),
                pod(spec_extra=constraints(spread(skew=2), SOFT_HOSTNAME)),
            ),
            id="soft hostname spreading moves copies within a zone, not the zone's total",
        ),
        pytest.param(
            (
                node("h1", cpu="4"),
                node("h2", cpu="1"),
                node("h3", cpu="2"),
                pod(spec_extra=constraints(spread("kubernetes.io/hostname"))),
            ),
            id="hostname spreading: every domain is one node, so every node's count is certain",
        ),
        pytest.param(
            (
                node("a1", "a", cpu="3"),
                node("b1", "b"),
                pod(node_name="a1", spec_extra=constraints(spread())),
                pod("q", node_name="a1", app="p", spec_extra=constraints(spread())),
            ),
            id="a zone ahead from the start takes nothing until the other catches up",
        ),
        pytest.param(
            (
                node("a1", "a"),
                node("b1", "b", extra=", disk: ssd"),
                node("b2", "b", extra=", disk: ssd"),
                pod(spec_extra="  nodeSelector: {disk: ssd}\n" + constraints(spread())),
            ),
            id="node affinity honoured: the zone its selector rules out is not a domain",
        ),
    ],
)
def test_the_count_per_domain_is_what_placing_gives(documents):
    counted, placed, base = answers(*documents)
    assert counted.method == "counted" and counted.spread is not None, counted.why
    agree(counted, placed, base)


def test_copies_its_selector_does_not_match_are_counted_per_node():
    counted, placed, base = answers(
        node("a1", "a"), node("b1", "b", cpu="1"), pod(spec_extra=constraints(spread(app="other")))
    )
    assert counted.method == "counted" and counted.spread is None
    agree(counted, placed, base)


@pytest.mark.parametrize(
    "extra, reason",
    [
        pytest.param(
            constraints(spread(), spread("kubernetes.io/hostname")),
            "2 DoNotSchedule spread constraints",
            id="two constraints that count the copies are placed",
        ),
    ],
)
def test_it_refuses_shapes_it_cannot_count(extra, reason):
    base = TrialBase.from_text("---\n".join([node("a1", "a"), node("b1", "b"), pod(spec_extra=extra)]))
    refused = count_spreading(Scheduler(base.scenario), base.scenario.pods[0])
    assert isinstance(refused, CountRefused) and reason in refused.reason
    counted, placed, base = answers(node("a1", "a"), node("b1", "b"), pod(spec_extra=extra))
    assert counted.method == "placed" and reason in counted.why
    assert counted.fits == placed.fits


def test_the_answer_names_each_domain_and_why_the_next_copy_fails():
    counted, _, _ = answers(
        node("a1", "a"),
        node("a2", "a"),
        node("a3", "a"),
        node("b1", "b", cpu="1"),
        pod(cpu="250m", spec_extra=constraints(spread(), SOFT_HOSTNAME)),
    )
    assert isinstance(counted.spread, SpreadCounted)
    data = counted.to_json()
    assert data["perDomain"]["domains"] == [d.to_json() for d in counted.spread.domains]
    assert data["messageExact"] == counted.spread.message_exact
    text = "\n".join(counted.lines())
    assert "counted per topology.kubernetes.io/zone domain" in text and "b +" in text


# ---------------------------------------------------------------------- generated clusters


@st.composite
def spread_clusters(draw) -> list[str]:
    """Nodes over up to three zones (some without a zone, some tainted or labelled), a pod with one
    DoNotSchedule constraint (zone or hostname; maxSkew, minDomains, inclusion policies drawn),
    maybe soft hostname spreading, a selector, running copies of it or a neighbour."""
    count = draw(st.integers(1, 5))
    documents = []
    for i in range(count):
        zone = draw(st.sampled_from(("a", "b", "c", "")))
        taint = TAINT if draw(st.integers(0, 4)) == 0 else ""
        disk = ", disk: ssd" if draw(st.booleans()) else ""
        documents.append(
            node(
                f"n{i}",
                zone,
                cpu=f"{draw(st.integers(1, 4)) * 500}m",
                pods=draw(st.integers(1, 6)),
                spec=taint,
                extra=disk,
            )
        )
    key = draw(st.sampled_from((ZONE, ZONE, "kubernetes.io/hostname")))
    extra = ""
    if draw(st.booleans()):
        extra += f", minDomains: {draw(st.integers(1, 4))}"
    if draw(st.booleans()):
        extra += ", nodeTaintsPolicy: Honor"
    if draw(st.booleans()):
        extra += ", nodeAffinityPolicy: Ignore"
    items = [spread(key, skew=draw(st.integers(1, 3)), extra=extra)]
    if draw(st.booleans()):
        items.append(SOFT_HOSTNAME)
    spec = constraints(*items)
    if draw(st.booleans()):
        spec = "  nodeSelector: {disk: ssd}\n" + spec
    if draw(st.booleans()):
        spec = "  tolerations: [{key: t, operator: Exists}]\n" + spec
    cpu = f"{draw(st.integers(1, 6)) * 100}m"
    documents.append(pod(cpu=cpu, spec_extra=spec))
    for j in range(draw(st.integers(0, 2))):
        documents.append(
            pod(
                f"r{j}",
                cpu="300m",
                node_name=f"n{draw(st.integers(0, count - 1))}",
                app=draw(st.sampled_from(("p", "other"))),
            )
        )
    return documents


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spread_clusters())
def test_counted_per_domain_equals_placed_on_generated_clusters(documents):
    counted, placed, base = answers(*documents)
    assume(isinstance(counted, PassAnswer))  # else a pod stays pending and the trial search answers
    assert isinstance(counted, PassAnswer)
    event(
        f"{counted.method}, {'per domain' if counted.spread else 'per node'}"
        + (", message exact" if counted.spread and counted.spread.message_exact else "")
    )
    agree(counted, placed, base)
