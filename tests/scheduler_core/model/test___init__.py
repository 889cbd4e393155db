"""model.py: the behaviour the typed objects carry — toleration matching, a pod's identity and
life, which pods a scenario runs, waits on or leaves alone (with a notice), and a volume's claim."""

from __future__ import annotations

import copy
from datetime import datetime, timezone

import pytest

from scheduler_core.model import (
    Namespace,
    Node,
    Notice,
    NoticeCode,
    Pod,
    Scenario,
    SchedulerConfig,
    SchedulerConfiguration,
    Taint,
    Toleration,
    Volume,
)
from tests.scheduler_core.builders import make_node, make_pod

GPU_TAINT = Taint("dedicated", "gpu", "NoSchedule")


@pytest.mark.parametrize(("toleration", "tolerates"), [
    pytest.param(Toleration("dedicated", "Equal", "gpu", "NoSchedule"), True, id="the same key, value and effect"),
    pytest.param(Toleration("dedicated", "Equal", "gpu"), True, id="an empty effect tolerates every effect"),
    pytest.param(Toleration("dedicated", "Equal", "cpu"), False, id="another value"),
    pytest.param(Toleration("dedicated", "Exists"), True, id="Exists ignores the value"),
    pytest.param(Toleration("", "Exists"), True, id="an empty key with Exists tolerates every taint"),
    pytest.param(Toleration("dedicated", "Exists", effect="NoExecute"), False, id="another effect"),
    pytest.param(Toleration("other", "Exists"), False, id="another key"),
])
def test_a_toleration_tolerates_a_taint_as_toleratesTaint_does(toleration, tolerates):
    assert toleration.tolerates(GPU_TAINT) is tolerates


def test_a_pods_key_and_life():
    pod = make_pod("web", "prod")
    assert (pod.key, repr(pod), pod.is_finished, pod.is_terminating) == ("prod/web", "Pod(prod/web)", False, False)
    assert make_pod("done", phase="Succeeded").is_finished and make_pod("failed", phase="Failed").is_finished
    assert make_pod("going", deletion_timestamp=datetime(2024, 5, 1, tzinfo=timezone.utc)).is_terminating


def _scenario(pods, config=None) -> Scenario:
    return Scenario([make_node("n1")], pods, {"default": Namespace("default")}, config=config)


def test_running_pods_are_the_unfinished_ones_on_nodes_the_scenario_holds():
    pods = [make_pod("on", node="n1"), make_pod("gone", node="n9"), make_pod("done", node="n1", phase="Succeeded"),
            make_pod("waiting")]
    assert [p.name for p in _scenario(pods).running_pods] == ["on"]


def test_pending_pods_are_queued_by_priority_then_document_order_and_skip_what_the_scheduler_leaves():
    pods = [make_pod("low", doc_index=0), make_pod("high", priority=10, doc_index=1), make_pod("low2", doc_index=2),
            make_pod("other", scheduler_name="my-scheduler", doc_index=3),
            make_pod("gated", scheduling_gates=("wait",), doc_index=4),
            make_pod("finished", phase="Failed", doc_index=5)]
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
    assert [n.code for n in notices] == [NoticeCode.IGNORED_KINDS, NoticeCode.OTHER_SCHEDULER, NoticeCode.SCHEDULING_GATED]
    assert notices[1].to_json() == {
        "code": "other-scheduler",
        "message": "1 pending pod(s) not for this scheduler (schedulerName my-scheduler): never attempted",
        "objects": ["Pod default/other"]}
    assert notices[2].objects == ("Pod default/gated",)


@pytest.mark.parametrize(("volume", "claim"), [
    pytest.param(Volume("data", "persistentVolumeClaim", claim_name="db-data"), "db-data", id="a claim volume names its claim"),
    pytest.param(Volume("scratch", "ephemeral"), "web-scratch", id="a generic ephemeral volume's claim is <pod>-<volume>"),
    pytest.param(Volume("tmp", "emptyDir"), None, id="any other source has no claim"),
])
def test_a_volume_names_the_claim_it_uses(volume, claim):
    assert volume.claim_for("web") == claim


@pytest.mark.parametrize("obj", [
    Pod("p", labels={"a": "b"}, node_name="n1", nominated_node_name="n2", resource_version=7),
    Node("n1", labels={"zone": "a"}, unschedulable=True, resource_version=3),
], ids=["a pod", "a node"])
def test_a_shallow_copy_is_a_new_object_holding_every_field_of_the_old(obj):
    copied = copy.copy(obj)
    assert copied is not obj and type(copied) is type(obj)
    assert all(getattr(copied, name) is getattr(obj, name) for name in type(obj).__slots__)
    copied.labels = {}
    assert obj.labels != {}  # the original is untouched
