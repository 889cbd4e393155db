"""Framework.run_post_filter follows RunPostFilterPlugins (framework/runtime/framework.go)."""

from __future__ import annotations

from typing import Optional

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interfaces import NodeToStatus, PostFilterResult
from scheduler_core.framework.options import FrameworkOptions
from scheduler_core.framework.profile import Profile
from scheduler_core.framework.runtime import Framework
from scheduler_core.framework.status import Code, MaybeStatus, Status
from tests.scheduler_core.builders import make_node, make_pod, make_snapshot


class Answer:
    """A PostFilter plugin that answers what it is told and records that it ran."""

    def __init__(self, name: str, status: Optional[Status], result: Optional[PostFilterResult] = None) -> None:
        self.name = name
        self.status = status
        self.result = result
        self.ran = False

    def post_filter(self, state, pod, statuses):
        self.ran = True
        return self.result, self.status


def run(*plugins: Answer):
    snapshot = make_snapshot([make_node("n1")])
    framework = Framework(Profile.of({"postFilter": list(plugins)}, {}, 100), snapshot)
    return framework.run_post_filter(CycleState(), make_pod("p"), NodeToStatus({}, Status(Code.UNSCHEDULABLE)))


def test_unschedulable_answers_are_joined_in_plugin_order_and_the_first_rejector_is_named():
    outcome = run(
        Answer("A", Status.unschedulable("no new claims to deallocate")),
        Answer("B", Status.unschedulable("preemption: 0/1 nodes are available: 1 x.")),
    )
    assert outcome.status == Status(
        Code.UNSCHEDULABLE, ("no new claims to deallocate", "preemption: 0/1 nodes are available: 1 x."), "A"
    )
    assert outcome.message == "no new claims to deallocate, preemption: 0/1 nodes are available: 1 x."


def test_a_success_ends_post_filter_and_drops_earlier_reasons():
    nominated = PostFilterResult(nominated_node_name="n1")
    later = Answer("C", Status.unschedulable("never asked"))
    outcome = run(Answer("A", Status.unschedulable("dropped")), Answer("B", None, nominated), later)
    assert (outcome.status, outcome.result, outcome.message) == (None, nominated, "")
    assert not later.ran


@pytest.mark.parametrize(
    "status, expected",
    [
        pytest.param(
            Status.error("not found"),
            Status(Code.ERROR, ("not found",), "A"),
            id="an error ends post filter with its text alone",
        ),
        pytest.param(
            Status.unresolvable("hopeless"),
            Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, ("hopeless",), "A"),
            id="an unresolvable answer ends post filter with that plugin's status alone",
        ),
    ],
)
def test_a_hard_failure_stops_the_remaining_plugins(status, expected):
    later = Answer("B", None, PostFilterResult(nominated_node_name="n1"))
    outcome = run(Answer("A", status), later)
    assert outcome.status == expected and outcome.message == expected.message
    assert not later.ran


def test_the_last_nominating_result_is_kept_when_every_plugin_rejects():
    cleared = PostFilterResult(nominated_node_name="")
    outcome = run(
        Answer("A", Status.unschedulable("x"), PostFilterResult()), Answer("B", Status.unschedulable("y"), cleared)
    )
    assert outcome.result is cleared


class _OneNomination:
    version = 0

    def __init__(self, pod) -> None:
        self.pod = pod

    def node_of(self, pod):
        return "n1" if pod.key == self.pod.key else None

    def nominated_pods_for_node(self, node: str):
        return [self.pod] if node == "n1" else []

    def nodes_with_nominated_pods(self):
        return {"n1"}


def test_a_nominated_pods_info_is_built_once_and_again_after_it_changed_in_place():
    """addGENominatedPods adds each nominated pod's PodInfo; the run patches pending pods in place."""
    snapshot = make_snapshot([make_node("n1")])
    framework = Framework(Profile.of({}, {}, 100), snapshot)
    nominated = make_pod("nominated", priority=10, requests={"cpu": 500})
    framework.nominator = _OneNomination(nominated)
    node = snapshot.get("n1")

    def added():
        _, _, info = framework.add_nominated_pods(CycleState(), make_pod("incoming"), node)
        return info.pods[-1]

    first = added()
    assert added() is first and first.requests["cpu"] == 500
    nominated.labels["app"] = "web"  # an in-place update: its PodInfo is rebuilt
    assert added() is not first and added().pod is nominated


def test_the_nominated_pods_to_add_follow_the_nominations_as_they_change():
    """What addGENominatedPods adds is kept while the nominator counts no change, for pods of the
    same priority; a change, another priority or a nominated pod itself asks again."""
    from scheduler_core.backend.queue.nominator import NominatingInfo, Nominator

    nominator = Nominator(lambda pod: False)
    snapshot = make_snapshot([make_node("n1")])
    framework = Framework(Profile.of({}, {}, 100), snapshot, options=FrameworkOptions(nominator=nominator))
    high, low = make_pod("high", priority=10), make_pod("low", priority=1)
    incoming, important = make_pod("incoming", priority=5), make_pod("important", priority=20)
    nominator.add_nominated_pod(high, NominatingInfo("n1"))
    assert [p.key for p in framework.nominated_pods_to_add(incoming, "n1")] == ["default/high"]
    nominator.add_nominated_pod(low, NominatingInfo("n1"))
    assert [p.key for p in framework.nominated_pods_to_add(make_pod("next", priority=1), "n1")] == [
        "default/high",
        "default/low",
    ]
    assert [p.key for p in framework.nominated_pods_to_add(incoming, "n1")] == ["default/high"]
    kept = framework.nominated_pods_to_add(incoming, "n1")
    assert framework.nominated_pods_to_add(incoming, "n1") is kept, "kept, not copied"
    assert framework.nominated_pods_to_add(important, "n1") == ()
    assert framework.nominated_pods_to_add(high, "n1") == ()  # not the pod itself
    nominator.delete(high)
    assert framework.nominated_pods_to_add(incoming, "n1") == ()  # the same pod, asked after a change


class _PreBind:
    """A PreBind plugin that answers what it is told and records that it ran."""

    def __init__(self, name: str, status: Optional[Status], ran: list[str]) -> None:
        self.name = name
        self.status = status
        self.ran = ran

    def pre_bind(self, state, pod, node_name):
        self.ran.append(self.name)
        return self.status


@pytest.mark.parametrize(
    "parallel, ran",
    [
        pytest.param(frozenset(), ["VolumeBinding"], id="in profile order PreBind stops at the first failure"),
        pytest.param(
            frozenset({"VolumeBinding", "DynamicResources"}),
            ["VolumeBinding", "DynamicResources"],
            id="v1.36 runs the parallel group whole, the first failure in profile order is the result",
        ),
    ],
)
def test_pre_bind_plugins_that_allow_it_run_side_by_side(parallel, ran):
    # C9: RunPreBindPlugins of v1.36 runs each group of AllowParallel plugins together
    # (getPreBindPluginGroups); a later, sequential plugin is not reached once the group failed.
    calls: list[str] = []
    failing = Status(Code.ERROR, ["binding volumes: timed out"])
    plugins = [
        _PreBind("VolumeBinding", failing, calls),
        _PreBind("DynamicResources", None, calls),
        _PreBind("Custom", None, calls),
    ]
    framework = Framework(Profile.of({"preBind": plugins}, {}, 100), make_snapshot([make_node("n1")]))
    results = framework.run_pre_bind(CycleState(), make_pod("p"), "n1", parallel)
    assert calls == ran and [name for name, _ in results] == ran
    assert results[0] == ("VolumeBinding", failing)


class _Extended:
    """A PreFilter plugin whose extensions record each removal; it fails on the pod named ``refuse``."""

    def __init__(self, name: str, told: list[tuple[str, str]], refuse: str = "") -> None:
        self.name, self.told, self.refuse = name, told, refuse

    def pre_filter(self, state, pod):
        return None, None

    def pre_filter_extensions(self):
        return self

    def add_pod(self, state, pod, pod_to_add, node_info):
        return None

    def remove_pod(self, state, pod, pod_to_remove, node_info):
        self.told.append((self.name, pod_to_remove.pod.name))
        return Status(Code.ERROR, ["no state"]) if pod_to_remove.pod.name == self.refuse else None


def test_removing_many_pods_tells_every_extension_of_each_pod_in_turn_and_stops_at_a_failure():
    # run_pre_filter_remove_pods is run_pre_filter_remove_pod for each pod, in order: plugins in
    # profile order per pod, those the PreFilter skipped left out, the first failure returned as
    # the framework's error (what RunPreFilterExtensionRemovePod returns) and nothing after it.
    from scheduler_core.framework.node_info import PodInfo

    told: list[tuple[str, str]] = []
    plugins = [_Extended("First", told), _Extended("Skipped", told), _Extended("Last", told, refuse="b")]
    framework = Framework(Profile.of({"preFilter": plugins}, {}, 100), make_snapshot([make_node("n1")]))
    state = CycleState()
    state.skip_filter_plugins = {"Skipped"}
    removed = [PodInfo(make_pod(name)) for name in ("a", "b", "c")]
    status = framework.run_pre_filter_remove_pods(state, make_pod("p"), removed, None)
    assert told == [("First", "a"), ("Last", "a"), ("First", "b"), ("Last", "b")]
    assert status is not None and status.code == Code.ERROR
    assert status.message == 'running remove_pod on PreFilter plugin "Last": no state'
    one_by_one: list[MaybeStatus] = []
    told.clear()
    for info in removed[:2]:
        one_by_one.append(framework.run_pre_filter_remove_pod(state, make_pod("p"), info, None))
    assert told == [("First", "a"), ("Last", "a"), ("First", "b"), ("Last", "b")] and one_by_one[-1] == status


def test_the_extensions_told_follow_the_skipped_plugins_of_each_state():
    # The calls are kept between dry-run steps while the skipped plugins are the same: a state
    # that skips others (another pod's cycle), or whose set changed in place, is told its own.
    from scheduler_core.framework.node_info import PodInfo

    told: list[tuple[str, str]] = []
    plugins = [_Extended("First", told), _Extended("Second", told)]
    framework = Framework(Profile.of({"preFilter": plugins}, {}, 100), make_snapshot([make_node("n1")]))
    info = PodInfo(make_pod("a"))
    skipping_first, skipping_none = CycleState(), CycleState()
    skipping_first.skip_filter_plugins = {"First"}
    for state, expected in [
        (skipping_first, [("Second", "a")]),
        (skipping_none, [("First", "a"), ("Second", "a")]),
        (skipping_first, [("Second", "a")]),
        (skipping_first.clone(), [("Second", "a")]),
    ]:
        told.clear()
        framework.run_pre_filter_remove_pod(state, make_pod("p"), info, None)
        assert told == expected
    skipping_first.skip_filter_plugins.add("Second")  # changed in place: nothing is told any more
    told.clear()
    framework.run_pre_filter_remove_pods(skipping_first, make_pod("p"), [info], None)
    assert told == []
