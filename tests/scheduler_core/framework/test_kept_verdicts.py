"""Filter verdicts on cloned nodes kept across attempts (framework/kept_verdicts.py), as preemption's
dry run and the nominated pass keep them: only under equal inputs, dropped for a node that changed,
and whole runs answer as without them and as the reference path."""

from __future__ import annotations

import importlib.util
import io
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.encoding.timeline import timeline_summary
from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeToStatus
from scheduler_core.framework.node_table import PositionedNodeList
from scheduler_core.framework.preemption.candidates import dry_run_preemption, potential_nodes
from scheduler_core.framework.profile import Profile
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, Status
from scheduler_core.model import CPU, Affinity, Container, LabelSelector, PodAffinity, PodAffinityTerm
from scheduler_core.plugins import default_preemption, inter_pod_affinity, node_unschedulable
from scheduler_core.framework import kept_verdicts
from scheduler_core.framework.kept_verdicts import BoundVerdicts, VerdictMemo, filter_inputs, scheduling_fields
from scheduler_core.plugins.default_preemption import plugin as preemption_plugin
from scheduler_core.run import schedule_one
from scheduler_core.plugins.node_resources import new_fit
from scheduler_core.run.loop import run_to_the_end
from tests.scheduler_core.builders import FakeHandle, make_node, make_pod, make_snapshot

ROOT = Path(__file__).resolve().parents[3]
ISTIO = ROOT / "tests" / "fixtures" / "dumps" / "istio_nodelocaldns_10.yaml"
HOSTNAME = "kubernetes.io/hostname"


def _anti(app: str) -> Affinity:
    term = PodAffinityTerm(LabelSelector((("app", app),)), HOSTNAME)
    return Affinity(pod_anti_affinity=PodAffinity(required=(term,)))


def _preemptor(name: str = "incoming", container: str = "c"):
    return make_pod(
        name,
        labels={"app": "web"},
        priority=10,
        affinity=_anti("web"),
        containers=(Container(name=container, requests={CPU: 1500}),),
    )


def _cycle(pods, extra=(), pod=None):
    """PreFilter and Filter of ``pod`` on three nodes with InterPodAffinity (so the dry run goes node
    by node); ``extra``: more Filter plugin factories."""
    nodes = [make_node(f"n{i}", cpu=2000, labels={HOSTNAME: f"n{i}"}) for i in (1, 2, 3)]
    snapshot = make_snapshot(nodes, pods)
    handle = FakeHandle(snapshot)
    fit, affinity = new_fit(None, handle), inter_pod_affinity.new(None, handle)
    more = [factory(None, handle) for factory in extra]
    plugin = default_preemption.new(None, handle)
    filters = [node_unschedulable.new(None, handle), fit, affinity, *more]
    pre_filters = [fit, affinity, *(p for p in more if hasattr(p, "pre_filter"))]
    profile = Profile.of({"preFilter": pre_filters, "filter": filters, "postFilter": [plugin]}, {}, 100)
    framework = Framework(profile, snapshot, True)
    handle.framework = framework
    pod = pod or _preemptor()
    state = CycleState()
    framework.run_pre_filter(state, pod, snapshot.node_infos)
    statuses = {n.name: framework.run_filter(state, pod, n) for n in snapshot.node_infos}
    to_status = NodeToStatus(
        {k: v for k, v in statuses.items() if v is not None}, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
    )
    return plugin, framework, state, pod, potential_nodes(snapshot.node_infos, to_status)


def _running():
    # n1: a web pod of equal priority stays (anti-affinity fails however much is removed); n2 and n3:
    # lower-priority pods to evict.
    return [
        make_pod("web-0", labels={"app": "web"}, node="n1", requests={CPU: 500}, priority=10),
        make_pod("low-1", node="n1", requests={CPU: 1000}, priority=1),
        make_pod("low-2", node="n2", requests={CPU: 1000}, priority=1),
        make_pod("low-3", node="n3", requests={CPU: 1000}, priority=1),
        make_pod("low-3b", labels={"app": "web"}, node="n3", requests={CPU: 200}, priority=1),
    ]


def _picture(dry_run):
    return (
        [(c.node, [p.key for p in c.victims.pods]) for c in dry_run.candidates],
        {node: (s.code, s.reasons) for node, s in dry_run.node_statuses.items()},
    )


class _Counting:
    """A KeptVerdicts that counts what it found."""

    def __init__(self, kept):
        self.kept, self.found, self.missed = kept, 0, 0

    def get_all(self, node_infos):
        verdicts = self.kept.get_all(node_infos)
        assert verdicts == [self.kept.get(node_info) for node_info in node_infos], "one by one, the same"
        self.found += sum(verdict is not None for verdict in verdicts)
        self.missed += sum(verdict is None for verdict in verdicts)
        return verdicts

    def put(self, node_info, verdict):
        self.kept.put(node_info, verdict)


def _bound(memo_, framework, state, pod):
    inputs = filter_inputs(framework, state, pod)
    assert inputs is not None
    return _Counting(memo_.bound(inputs, lambda node: tuple(framework.nominated_pods_to_add(pod, node))))


def test_a_second_preemption_with_the_same_inputs_reads_every_verdict_back():
    plugin, framework, state, pod, potential = _cycle(_running())
    reference = _picture(dry_run_preemption(framework, state, pod, potential))
    assert reference[0] == [("n2", ["default/low-2"]), ("n3", ["default/low-3b", "default/low-3"])]
    assert reference[1]["n1"][0] is Code.UNSCHEDULABLE
    kept = VerdictMemo()
    first = _bound(kept, framework, state, pod)
    assert _picture(dry_run_preemption(framework, state, pod, potential, kept=first)) == reference
    second = _bound(kept, framework, state, pod)
    assert _picture(dry_run_preemption(framework, state, pod, potential, kept=second)) == reference
    assert (first.found, first.missed, second.found, second.missed) == (0, 3, 3, 0)


def test_a_copy_of_the_preemptor_shares_the_verdicts_and_a_different_one_does_not():
    plugin, framework, state, pod, potential = _cycle(_running())
    # Another replica: its own name, uid and container names; no Filter reads them.
    _, _, copy_state, copy, _ = _cycle(_running(), pod=_preemptor("incoming-2", container="c-2"))
    _, _, big_state, bigger, _ = _cycle(
        _running(), pod=make_pod("big", labels={"app": "web"}, priority=10, affinity=_anti("web"), requests={CPU: 1600})
    )
    fields = scheduling_fields(pod)
    assert scheduling_fields(copy) == fields and scheduling_fields(bigger) != fields
    inputs = filter_inputs(framework, state, pod)
    assert filter_inputs(framework, copy_state, copy) == inputs
    assert filter_inputs(framework, big_state, bigger) != inputs


def test_a_node_that_changed_is_judged_again():
    plugin, framework, state, pod, potential = _cycle(_running())
    kept = VerdictMemo()
    dry_run_preemption(framework, state, pod, potential, kept=_bound(kept, framework, state, pod))
    n3 = framework.snapshot.get("n3")
    [small] = [info for info in n3.pods if info.pod.name == "low-3b"]
    # Its generation moves (the cycle's state still counts the web pod there, as a state made before
    # a change does): n3 is judged again, and no longer a candidate.
    n3.remove_pod(small.pod)
    again = _bound(kept, framework, state, pod)
    answer = _picture(dry_run_preemption(framework, state, pod, potential, kept=again))
    assert answer == _picture(dry_run_preemption(framework, state, pod, potential))
    assert answer[0] == [("n2", ["default/low-2"])] and answer[1]["n3"][0] is Code.UNSCHEDULABLE
    assert (again.found, again.missed) == (2, 1)


def test_a_node_where_the_pod_may_evict_nobody_is_kept_too():
    # n1 runs only the web pod, of the preemptor's own priority: no victim there, nothing cloned.
    running = [pod for pod in _running() if pod.name != "low-1"]
    plugin, framework, state, pod, potential = _cycle(running)
    reference = _picture(dry_run_preemption(framework, state, pod, potential))
    assert reference[1]["n1"] == (
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
        ("No preemption victims found for incoming pod",),
    )
    kept = VerdictMemo()
    first = _bound(kept, framework, state, pod)
    assert _picture(dry_run_preemption(framework, state, pod, potential, kept=first)) == reference
    second = _bound(kept, framework, state, pod)
    assert _picture(dry_run_preemption(framework, state, pod, potential, kept=second)) == reference
    assert (first.missed, second.found, second.missed) == (3, 3, 0)


def test_nominated_pods_are_asked_only_of_the_nodes_said_to_have_some():
    asked: list[str] = []

    def nominated(node):
        asked.append(node)
        return ()

    plugin, framework, state, pod, potential = _cycle(_running())
    bound = VerdictMemo().bound(("inputs",), nominated, nominated_nodes={"n2"})
    for node_info in potential:
        bound.put(node_info, (None, None))
    assert bound.get_all(potential) == [(None, None)] * len(potential)
    assert set(asked) == {"n2"}


def _by_position(memo_, framework, nominated=lambda node: (), nominated_nodes=frozenset()):
    inputs = ("inputs",)  # any: the kept verdicts are keyed by them as they are
    return memo_.bound(inputs, nominated, nominated_nodes, framework.snapshot.table)


def _positioned(framework):
    """Every node of the snapshot's table, with its position (as potential_nodes picks them)."""
    table = framework.snapshot.table
    return PositionedNodeList(table.node_infos, np.arange(table.size), table.node_infos)


class _CountingAll(_Counting):
    """A _Counting that does not ask node by node (which would read the stamps)."""

    def get_all(self, node_infos):
        verdicts = self.kept.get_all(node_infos)
        self.found += sum(verdict is not None for verdict in verdicts)
        self.missed += sum(verdict is None for verdict in verdicts)
        return verdicts


def test_verdicts_by_position_are_read_back_until_the_nodes_pods_change():
    plugin, framework, state, pod, _ = _cycle(_running())
    potential = _positioned(framework)
    reference = _picture(dry_run_preemption(framework, state, pod, potential))
    memo_ = VerdictMemo()
    first = _CountingAll(_by_position(memo_, framework))
    assert _picture(dry_run_preemption(framework, state, pod, potential, kept=first)) == reference
    # The stamps forgotten: what is read back now comes from the positions alone.
    memo_._recent[0][1].by_node.clear()
    second = _CountingAll(_by_position(memo_, framework))
    assert _picture(dry_run_preemption(framework, state, pod, potential, kept=second)) == reference
    assert (first.missed, second.found, second.missed) == (3, 3, 0)
    # A pod leaves n3 through the snapshot (the table logs the position): n3 alone is judged again.
    n3 = framework.snapshot.get("n3")
    framework.snapshot.remove_pod(next(info.pod for info in n3.pods if info.pod.name == "low-3b"))
    third = _by_position(memo_, framework)
    assert [verdict is None for verdict in third.get_all(potential)] == [False, False, True]


def test_a_node_with_nominated_pods_is_read_by_its_stamp_and_a_new_table_by_every_stamp():
    plugin, framework, state, pod, _ = _cycle(_running())
    potential = _positioned(framework)
    nominee = make_pod("nominee", priority=20, requests={CPU: 100})
    added = {"n2": (nominee,)}
    memo_ = VerdictMemo()
    first = _by_position(memo_, framework, lambda node: added.get(node, ()), {"n2"})
    assert first.get_all(potential) == [None, None, None]
    for node_info in potential:
        first.put(node_info, ("verdict of", node_info.name, added.get(node_info.name, ())))
    kept_ = memo_._recent[0][1]
    assert kept_.by_position.known.tolist() == [True, False, True], "n2's verdict had a pod added"
    # The nominee goes: n2's stamp no longer matches (nothing added now); n1 and n3 by position.
    added.clear()
    second = _by_position(memo_, framework, lambda node: (), {"n2"})
    assert second.get_all(potential) == [("verdict of", "n1", ()), None, ("verdict of", "n3", ())]
    # Another table (a node changed): each node's stamp decides, and the positions are kept again.
    framework.snapshot.update_node(framework.snapshot.get("n3").node)
    third = _by_position(memo_, framework)
    assert third.get_all(_positioned(framework)) == [("verdict of", "n1", ()), None, None]
    assert kept_.by_position.table is framework.snapshot.table
    assert kept_.by_position.known.tolist() == [True, False, False], "n3's generation moved with its node"


def test_kept_under_answers_what_was_kept_under_an_equal_stamp_only():
    node = object()  # compared by identity only, as a NodeInfo
    by_node = {"n1": ((node, 1, ("a",)), "kept"), "n2": ((node, 2, ()), "older")}
    stamps = [(node, 1, ("a",)), (node, 3, ()), (object(), 0, ())]
    assert kept_verdicts.kept_under(by_node, ["n1", "n2", "n3"], stamps) == ["kept", None, None]
    assert kept_verdicts.kept_under(by_node, ["n1"], [(object(), 1, ("a",))]) == [None]


def test_inputs_differ_when_a_state_count_differs_and_are_not_changed_by_later_writes():
    plugin, framework, state, pod, potential = _cycle(_running())
    inputs = filter_inputs(framework, state, pod)
    fewer = [p for p in _running() if p.name != "low-3b"]  # one web pod fewer on n3: another count
    _, fewer_framework, fewer_state, _, _ = _cycle(fewer)
    assert filter_inputs(fewer_framework, fewer_state, pod) != inputs
    # The dry run changes clones of the state; what was kept compares with the state as it was.
    dry_run_preemption(framework, state, pod, potential)
    assert filter_inputs(framework, state, pod) == inputs


class _ReadsTheCluster:
    """An out-of-tree Filter plugin: what it reads is not known, so no verdict may be kept."""

    name = "ReadsTheCluster"

    def filter(self, state, pod, node_info):
        return None


def test_no_verdict_is_kept_when_a_filter_may_read_more_than_the_node_and_its_state():
    plugin, framework, state, pod, potential = _cycle(_running(), extra=[lambda args, handle: _ReadsTheCluster()])
    assert _ReadsTheCluster.name in [p.name for p in framework.active_filter_plugins(state)]
    assert filter_inputs(framework, state, pod) is None
    _, plain_framework, plain_state, _, _ = _cycle(_running())
    assert filter_inputs(plain_framework, plain_state, pod) is not None


def test_only_recent_inputs_are_kept():
    plugin, framework, state, pod, potential = _cycle(_running())
    kept = VerdictMemo()
    inputs = filter_inputs(framework, state, pod)
    kept.bound(inputs, lambda node: ()).put(framework.snapshot.get("n2"), (None, None))
    for other in range(kept_verdicts.RECENT_INPUTS):
        kept.bound((other,), lambda node: ())
    assert kept.bound(inputs, lambda node: ()).get(framework.snapshot.get("n2")) is None


def _copies(count: int) -> bytes:
    """The Istio dump copied as tools/envelope_dump.py copies it (names suffixed, labels shared)."""
    spec = importlib.util.spec_from_file_location("envelope_dump", ROOT / "tools" / "envelope_dump.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    objects = list(tool.documents([ISTIO]))
    out = io.StringIO()
    tool.write(tool.envelope(objects, count), False, out)
    return out.getvalue().encode()


@pytest.fixture(scope="module")
def copies() -> bytes:
    return _copies(4)


def _answers(text: bytes, vectorized: bool = True) -> tuple[str, str]:
    trace = trace_summary(simulate(load_scenario(text), vectorized=vectorized))
    timeline = timeline_summary(run_to_the_end(load_scenario(text), vectorized=vectorized))
    return json.dumps(trace, sort_keys=True), json.dumps(timeline, sort_keys=True, default=str)


def test_runs_of_copied_workloads_answer_as_without_the_kept_verdicts(copies, monkeypatch):
    # Four copies of a realistic cluster, each with a pod that fits nowhere and preempts nothing on
    # any node (its anti-affinity keeps one replica per node): once the first copy's is judged, the
    # others' preemptions read the verdicts back, and so do the nominated passes of pods retried
    # while preemptors wait nominated. The trace and the run to the end are the same as with every
    # node judged again, and as the reference path's (every plugin node by node).
    found: Counter[str] = Counter()
    counting_get, counting_get_all = BoundVerdicts.get, BoundVerdicts.get_all

    def count(verdict):
        # a dry run's verdict is (candidate, status), the nominated pass's (statuses,)
        found["missed" if verdict is None else "dry run" if len(verdict) == 2 else "nominated"] += 1
        return verdict

    def get(self, node_info):
        return count(counting_get(self, node_info))

    def get_all(self, node_infos):
        return [count(verdict) for verdict in counting_get_all(self, node_infos)]

    monkeypatch.setattr(BoundVerdicts, "get", get)
    monkeypatch.setattr(BoundVerdicts, "get_all", get_all)
    with_memo = _answers(copies)
    assert found["dry run"] > 0 and found["nominated"] > 0 and found["dry run"] + found["nominated"] > found["missed"]
    monkeypatch.setattr(preemption_plugin, "filter_inputs", lambda *args: None)
    monkeypatch.setattr(schedule_one, "filter_inputs", lambda *args: None)
    assert _answers(copies) == with_memo
    assert _answers(copies, vectorized=False) == with_memo


def test_indexes_in_names_the_members_positions_in_order():
    assert kept_verdicts.indexes_in(["n1", "n2", "n3", "n2"], {"n2", "n9"}) == [1, 3]
    assert kept_verdicts.indexes_in([], {"n1"}) == [] and kept_verdicts.indexes_in(["n1"], frozenset()) == []
