"""model/scenario.py: which pods a scenario runs, waits on or leaves alone (with a notice)."""

from __future__ import annotations

from scheduler_core.model.core import Namespace
from scheduler_core.model.scenario import Notice, NoticeCode, Scenario
from scheduler_core.model.scheduling import SchedulerConfig, SchedulerConfiguration
from tests.scheduler_core.builders import make_node, make_pod


def _scenario(pods, config=None) -> Scenario:
    return Scenario([make_node("n1")], pods, {"default": Namespace("default")}, config=config)


def test_running_pods_are_the_unfinished_ones_on_nodes_the_scenario_holds():
    pods = [
        make_pod("on", node="n1"),
        make_pod("gone", node="n9"),
        make_pod("done", node="n1", phase="Succeeded"),
        make_pod("waiting"),
    ]
    assert [p.name for p in _scenario(pods).running_pods] == ["on"]


def test_pending_pods_are_queued_by_priority_then_document_order_and_skip_what_the_scheduler_leaves():
    pods = [
        make_pod("low", doc_index=0),
        make_pod("high", priority=10, doc_index=1),
        make_pod("low2", doc_index=2),
        make_pod("other", scheduler_name="my-scheduler", doc_index=3),
        make_pod("gated", scheduling_gates=("wait",), doc_index=4),
        make_pod("finished", phase="Failed", doc_index=5),
    ]
    assert [p.name for p in _scenario(pods).pending_pods] == ["high", "low", "low2"]


def test_a_configuration_names_the_schedulers_whose_pods_are_pending():
    config = SchedulerConfiguration((SchedulerConfig(None, "default-scheduler"), SchedulerConfig(None, "my-scheduler")))
    scenario = _scenario([make_pod("other", scheduler_name="my-scheduler")], config)
    assert scenario.scheduler_names == {"default-scheduler", "my-scheduler"}
    assert [p.name for p in scenario.pending_pods] == ["other"]
    assert _scenario([]).profile_configs == [None], "without a configuration: the release's default profile"


def test_pods_left_alone_are_notices_after_the_loaders_own():
    loader_notice = Notice(NoticeCode.IGNORED_KINDS, "ignored: 1 ConfigMap", ("ConfigMap default/c",))
    scenario = _scenario([make_pod("other", scheduler_name="my-scheduler"), make_pod("gated", scheduling_gates=("g",))])
    scenario.notices.append(loader_notice)
    notices = scenario.scheduling_notices()
    assert [n.code for n in notices] == [
        NoticeCode.IGNORED_KINDS,
        NoticeCode.OTHER_SCHEDULER,
        NoticeCode.SCHEDULING_GATED,
    ]
    assert notices[1].to_json() == {
        "code": "other-scheduler",
        "message": "1 pending pod(s) not for this scheduler (schedulerName my-scheduler): never attempted",
        "objects": ["Pod default/other"],
    }
    assert notices[2].objects == ("Pod default/gated",)
