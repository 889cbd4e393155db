"""webui.presenters: model rows and engine answers shaped into the API's output schemas."""

from __future__ import annotations

import pytest
from django.test import RequestFactory
from django.utils import timezone

from scheduler_core.model import CPU, MEMORY, PODS, Taint
from tests.scheduler_core.builders import make_node, make_pod
from tests.webui.support import node_yaml, pod_yaml
from webui import presenters
from webui.models import (
    FleetCheck,
    Run,
    RunCycle,
    RunStatus,
    Scenario,
    ScenarioVersion,
    ShareLink,
    Upgrade,
    UpgradeStatus,
)
from webui.services import engine
from webui.services.access import Actor

pytestmark = pytest.mark.django_db

OWNER = Actor(session_key="owner-session")
STRANGER = Actor(session_key="someone-else")


@pytest.fixture
def version() -> ScenarioVersion:
    scenario = Scenario.objects.create(name="spread", description="three zones", owner_session_key="owner-session")
    return ScenarioVersion.objects.create(scenario=scenario, number=2, text="kind: Node\n")


def test_a_scenario_summary_says_whose_it_is_and_its_latest_version(version: ScenarioVersion):
    scenario = version.scenario
    scenario.version = 2  # the listing annotates the latest version number
    mine, theirs = presenters.scenario_summary(OWNER, scenario), presenters.scenario_summary(STRANGER, scenario)
    assert (mine.id, mine.name, mine.description, mine.version, mine.demo) == (
        scenario.pk,
        "spread",
        "three zones",
        2,
        False,
    )
    assert (mine.owned, theirs.owned) == (True, False)


def test_a_scenario_without_the_listings_annotation_has_no_version_number(version: ScenarioVersion):
    assert presenters.scenario_summary(OWNER, Scenario.objects.get(pk=version.scenario_id)).version is None


def test_a_scenario_carries_its_check_or_says_it_was_not_checked(version: ScenarioVersion):
    text = "---\n".join(
        [
            node_yaml("n1", "a"),
            pod_yaml("bound", "n1"),
            pod_yaml("waiting"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n",
        ]
    )
    check = engine.check(text)
    checked = presenters.scenario(OWNER, version.scenario, version, check)
    assert (checked.version, checked.text, checked.valid, checked.checked) == (2, "kind: Node\n", True, True)
    assert (checked.summary.nodes, checked.summary.pods, checked.summary.pending_pods) == (1, 2, 1)
    assert [notice.model_dump(mode="json") for notice in checked.notices] == check.notices
    assert any("ConfigMap" in str(notice) for notice in check.notices), "the ignored kind is a notice"
    unchecked = presenters.scenario(OWNER, version.scenario, version, None)
    assert (unchecked.valid, unchecked.checked, unchecked.errors, unchecked.summary) == (False, False, [], None)


def test_through_a_share_link_even_the_owner_does_not_own_the_scenario(version: ScenarioVersion):
    link = ShareLink.objects.create(version=version)
    shared = Actor(session_key="owner-session", share=link)
    assert presenters.scenario(shared, version.scenario, version, None).owned is False


def test_an_invalid_check_lists_its_errors_naming_object_field_and_line():
    check = engine.check("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {priority: high}\n")
    out = presenters.validation(check)
    assert (out.valid, out.summary) == (False, None)
    assert [error.model_dump(exclude_none=True) for error in out.errors] == [
        {k: v for k, v in error.items() if v is not None} for error in check.errors
    ]
    assert (out.errors[0].object, out.errors[0].line) == ("Pod default/p", 4)


def test_versions_give_their_size_and_only_the_full_one_its_text(version: ScenarioVersion):
    summary, full = presenters.version_summary(version), presenters.version(version)
    assert (summary.number, summary.size) == (2, len("kind: Node\n"))
    assert (full.scenario, full.text, full.size) == (version.scenario_id, "kind: Node\n", 11)


def test_a_run_reports_its_progress_and_storage(version: ScenarioVersion):
    run = Run.objects.create(
        version=version, status=RunStatus.RUNNING, cycle=3, cycles=10, attempts=1, event_count=42, stored_bytes=900
    )
    out = presenters.run(run)
    assert (out.id, out.scenario, out.version, out.status) == (run.pk, version.scenario_id, 2, "running")
    assert (out.progress.cycle, out.progress.cycles, out.event_count, out.stored_bytes) == (3, 10, 42, 900)


def test_a_cycle_row_names_its_pod_node_and_event_range(version: ScenarioVersion):
    run = Run.objects.create(version=version)
    row = RunCycle.objects.create(
        run=run,
        cycle=4,
        pod="default/p",
        node_name=None,
        first_seq=10,
        end_seq=17,
        failed_scheduling_message="0/3 nodes are available",
    )
    out = presenters.cycle(row)
    assert (out.cycle, out.pod, out.node_name, out.first_seq, out.end_seq) == (4, "default/p", None, 10, 17)
    assert out.failed_scheduling_message == "0/3 nodes are available"


def test_a_node_shows_its_taints_and_allocatable_as_quantities():
    node = make_node(
        "n1",
        {"zone": "a"},
        cpu=1500,
        memory=2 << 30,
        pods=110,
        taints=[Taint("dedicated", "gpu", "NoSchedule")],
        unschedulable=True,
    )
    out = presenters.node_object(node)
    assert out.taints == [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]
    assert out.allocatable_text == {CPU: "1500m", MEMORY: "2Gi", PODS: "110"}
    assert (out.labels, out.unschedulable) == ({"zone": "a"}, True)


def test_a_pod_shows_its_requests_and_whether_it_waits():
    pending = presenters.pod_object(make_pod("p", requests={CPU: 2000, MEMORY: 512 << 20}), pending=True)
    assert (pending.node_name, pending.pending) == (None, True)
    assert pending.requests_text == {CPU: "2", MEMORY: "512Mi"}
    bound = presenters.pod_object(make_pod("q", node="n1"), pending=False)
    assert (bound.node_name, bound.pending) == ("n1", False)


def test_a_share_link_has_an_absolute_url_and_says_when_it_is_revoked(version: ScenarioVersion, settings):
    settings.ALLOWED_HOSTS = ["schedlab.example"]
    request = RequestFactory().get("/api/shares", HTTP_HOST="schedlab.example")
    link = ShareLink.objects.create(version=version, step="Filter")
    out = presenters.share(request, link)
    assert out.url == f"http://schedlab.example/share/{link.token}"
    assert (out.scenario, out.version, out.step, out.revoked) == (version.scenario_id, 2, "Filter", False)
    link.revoked_at = timezone.now()
    assert presenters.share(request, link).revoked is True


def test_a_resolved_share_is_read_only_and_carries_its_run(version: ScenarioVersion):
    run = Run.objects.create(version=version, status=RunStatus.SUCCEEDED)
    resolved = presenters.share_resolved(ShareLink.objects.create(version=version, run=run), None)
    assert resolved.read_only is True
    assert (resolved.scenario.name, resolved.version.text, resolved.run.id) == ("spread", "kind: Node\n", run.pk)
    assert presenters.share_resolved(ShareLink.objects.create(version=version), None).run is None


def test_a_resolved_share_names_its_version_s_release_or_its_upgrade_comparison(version: ScenarioVersion):
    choice = engine.check(node_yaml("n1", "a")).release
    resolved = presenters.share_resolved(ShareLink.objects.create(version=version), choice)
    assert resolved.release is not None and resolved.release.sentence == choice["sentence"] and resolved.upgrade is None
    upgrade = Upgrade.objects.create(version=version, old_release="v1.35", new_release="v1.36")
    link = ShareLink.objects.create(version=version, upgrade=upgrade)
    assert presenters.share_resolved(link, None).upgrade == upgrade.pk
    assert presenters.share(RequestFactory().get("/"), link).upgrade == upgrade.pk


def test_a_run_says_the_release_it_is_replayed_as_and_what_was_asked(version: ScenarioVersion):
    choice = engine.check(node_yaml("n1", "a"), engine.release_request("v1.34", "SidecarContainers=true")).release
    run = Run.objects.create(
        version=version, release="v1.34", feature_gates={"SidecarContainers": True}, release_choice=choice
    )
    out = presenters.run(run).model_dump()
    assert (out["releaseAsked"], out["featureGates"]) == ("v1.34", {"SidecarContainers": True})
    assert out["release"]["sentence"] == "replayed as kube-scheduler v1.34.9 (asked for)"
    before = presenters.run(Run.objects.create(version=version)).model_dump()  # a run from before releases
    assert (before["release"], before["releaseAsked"], before["featureGates"]) == (None, "", None)


def test_an_upgrade_and_a_fleet_row_serve_the_engine_s_answer_as_stored(version: ScenarioVersion):
    check = FleetCheck.objects.create(target="v1.36", owner_session_key="owner-session")
    answer = {
        "old": "v1.35.4",
        "new": "v1.36.3",
        "summary": "1 pod(s) land elsewhere.",
        "changes": [{"kind": "code", "name": "c", "sentence": "what c does", "explains": ["default/p"]}],
    }
    counts = {"elsewhere": 1, "morePending": 0, "rescored": 0, "reworded": 0, "causes": ["c"]}
    row = Upgrade.objects.create(
        version=version,
        fleet=check,
        old_release="v1.35",
        new_release="v1.36",
        status=UpgradeStatus.SUCCEEDED,
        done=4,
        total=4,
        what="v1.36.3 without c",
        answer=answer,
        counts=counts,
    )
    out = presenters.upgrade(row).model_dump()
    assert (out["answer"], out["counts"], out["fleet"], out["scenarioName"]) == (answer, counts, check.pk, "spread")
    assert (out["fromRelease"], out["toRelease"], out["progress"]) == (
        "v1.35",
        "v1.36",
        {"done": 4, "total": 4, "what": "v1.36.3 without c"},
    )
    fleet = presenters.fleet(check, [row]).model_dump()
    assert fleet["finished"] is True and fleet["toRelease"] == "v1.36"
    [listed] = fleet["rows"]
    assert (listed["summary"], listed["causes"]) == (
        "1 pod(s) land elsewhere.",
        [{"name": "c", "sentence": "what c does"}],
    )
    assert presenters.fleet_summary(check).model_dump()["scenarios"] == 1


def _stuck_rollout_story() -> dict:
    from pathlib import Path

    from scheduler_core import load_scenario
    from scheduler_core.run.loop import run_to_the_end
    from scheduler_core.encoding.timeline import run_story

    example = Path(__file__).resolve().parents[2] / "examples" / "rollout_stuck.yaml"
    return run_story(event.to_json() for event in run_to_the_end(load_scenario(example.read_bytes())))


def test_timeline_steps_keep_a_rollouts_counts_words_and_pending_pods_and_no_rollouts_key_elsewhere():
    steps = presenters.timeline_steps(_stuck_rollout_story())
    assert "rollouts" not in steps[0]["summary"]
    (rollout,) = steps[1]["summary"]["rollouts"]
    assert (rollout["workload"], rollout["complete"], rollout["updated"], rollout["desired"]) == (
        "default/web",
        False,
        1,
        3,
    )
    assert rollout["status"].startswith('Waiting for deployment "web" rollout to finish')
    assert rollout["pending"][0]["failedSchedulingMessage"].startswith("0/3 nodes are available")
    assert "partition" not in rollout and "paused" not in rollout  # a Deployment's, not paused
    assert rollout["progressDeadline"] == {"seconds": 600, "passesAt": "10:01.000", "exceeded": False}
    assert steps[1]["summary"]["pendingWhy"] == rollout["pending"]  # every pending pod with why (here the rollout's)


def test_timeline_steps_refuse_a_story_whose_rollout_lacks_its_counts():
    story = _stuck_rollout_story()
    del story["steps"][1]["summary"]["rollouts"][0]["status"]
    with pytest.raises(Exception, match="status"):
        presenters.timeline_steps(story)


def test_a_step_cluster_page_carries_the_pods_labels_and_claims_and_the_versions_allocatable():
    from scheduler_core.answers.stepplacements import GonePod, NodeAtStep, PodAtStep

    pod = PodAtStep(
        "default/web-abc-1", None, "new", None, {"app": "web"}, [{"name": "gpu", "resourceClaimTemplateName": "gpu-t"}]
    )
    written = make_node("node-1", cpu=2000)
    page = {
        "step": 1,
        "name": "roll",
        "deletedNodes": [],
        "nodeCount": 2,
        "podCount": 1,
        "pendingCount": 1,
        "nodeKeys": [],
        "podKeys": ["app"],
        "groupKey": "",
        "groupCount": 1,
        "groups": [{"domain": "(none)", "nodes": 2, "pods": 0}],
        "domain": None,
        "search": "",
        "matched": 2,
        "offset": 0,
        "limit": 50,
        "marks": {"new": 1, "placed": 0, "moved": 0, "pending": 0, "gone": 1},
        "goneCount": 1,
        "nodes": [(NodeAtStep("node-1", {}, False, False), written), (NodeAtStep("node-9", {}, False, True), None)],
        "pods": [pod],
        "gone": [GonePod("default/old", "node-1", "evicted", {"app": "web"})],
    }
    out = presenters.step_cluster_page(page)
    assert out.pods[0].labels == {"app": "web"}
    assert out.pods[0].claims == [{"name": "gpu", "resourceClaimTemplateName": "gpu-t"}]
    assert out.nodes[0].allocatable_text["cpu"] == "2" and out.nodes[0].allocatable["cpu"] == 2000
    assert out.nodes[1].added is True and out.nodes[1].allocatable == {} and out.nodes[1].taints == []
    assert out.gone[0].how == "evicted" and out.marks["gone"] == 1
