"""/api/capacity/scenarios/{id} and /api/capacity/{id}: ask, follow, read the answer, cancel; the
deciding trial's run opens at the step that shows the answer (webui/routers/capacity.py)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from scheduler_core.answers.capacity import TrialBase, how_many_fit
from scheduler_core.answers.capacity_pass import how_many_copies
from tests.webui.capacity_support import CAPACITY_PODS, CAPACITY_WEB, InProcessWorkers
from webui.routers import capacity as capacity_router
from webui.models import CapacityQuestion, RunCycle, RunStatus
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def web(owner: Client) -> dict:
    response = owner.post("/api/scenarios", {"name": "web", "text": CAPACITY_WEB}, content_type=JSON)
    assert response.status_code == 201, response.content
    return response.json()


def ask(client: Client, scenario_id: int, **body):
    return client.post(f"/api/capacity/scenarios/{scenario_id}", body, content_type=JSON)


def test_it_answers_how_many_more_fit_as_the_cli_does_and_opens_the_deciding_cycle(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks, settings
):
    settings.SCHEDLAB_CAPACITY_TRIALS_PER_ROUND = 3
    workers = InProcessWorkers(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        asked = ask(owner, web["id"], kind="fit", workload="default/web")
    assert asked.status_code == 201, asked.content
    body = asked.json()
    assert (body["status"], body["width"], body["answer"], body["progress"]["done"]) == ("queued", 3, None, 0)
    workers.drain(django_capture_on_commit_callbacks)
    read = owner.get(f"/api/capacity/{body['id']}").json()
    sequential = how_many_fit(TrialBase.from_text(CAPACITY_WEB), workload="default/web")
    fit = read["answer"]["fit"]
    assert read["status"] == "succeeded"
    assert (fit["fits"], fit["stoppedBy"], fit["message"], fit["placements"]) == (
        sequential.fits,
        sequential.stopped_by,
        sequential.message,
        sequential.placements,
    )
    assert (
        fit["explanation"] == sequential.explanation.to_json()
    )  # the engine's explanation (the browser: its headline)
    assert list(fit) == [key for key in sequential.to_json() if key not in ("deciding", "fitting")]  # less the trials
    assert read["progress"]["done"] == read["progress"]["estimate"] == fit["trials"]
    assert max(len(r) for r in workers.rounds) == 3 and len(workers.rounds) < sequential.trials
    deciding = read["deciding"]
    assert workers.runs == [deciding["run"]]
    execute_run.apply(args=[deciding["run"]])
    cycle = RunCycle.objects.get(run_id=deciding["run"], cycle=deciding["cycle"])
    # the run's cycle the link opens is the N+1-th copy's last failed attempt, with the answer's message
    assert (cycle.pod, cycle.node_name, cycle.failed_scheduling_message) == (fit["stoppedBy"][0], None, fit["message"])
    assert deciding["url"] == f"/runs/{deciding['run']}/?cycle={deciding['cycle']}&step=Filter&changeStep=1"
    shared = owner.post(
        f"/api/scenarios/{deciding['scenario']}/share", {"run": deciding["run"], "step": "cycle=1"}, content_type=JSON
    )
    assert shared.status_code == 201, shared.content


def test_it_answers_which_nodes_can_go_with_the_budget_that_keeps_them(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers = InProcessWorkers(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        body = ask(owner, web["id"], kind="removable", nodes=["node-1"]).json()
    workers.drain(django_capture_on_commit_callbacks)
    read = owner.get(f"/api/capacity/{body['id']}").json()
    verdicts = read["answer"]["removable"]["verdicts"]
    assert [(v["node"], v["removable"]) for v in verdicts] == [("node-1", False)]
    assert any("blocked by budget default/web-pdb" in reason for reason in verdicts[0]["reasons"])
    assert read["deciding"]["step"] == 1 and read["deciding"]["cycle"] is None


def test_it_answers_fragmentation_and_nodes_needed(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers = InProcessWorkers(monkeypatch)
    with django_capture_on_commit_callbacks(execute=True):
        frag = ask(owner, web["id"], kind="fragmentation").json()
        nodes = ask(owner, web["id"], kind="nodes", likes=["node-1"]).json()
    workers.drain(django_capture_on_commit_callbacks)
    resources = owner.get(f"/api/capacity/{frag['id']}").json()["answer"]["fragmentation"]["resources"]
    assert [r["resource"] for r in resources] == ["cpu", "memory", "pods"]
    assert next(r for r in resources if r["resource"] == "cpu")["freeTotal"] == 4000  # 6 CPU less 4 × 500m
    needed = owner.get(f"/api/capacity/{nodes['id']}").json()
    assert needed["answer"]["nodes"] == {"pending": [], "templates": [], "trials": 1} and needed["deciding"] is None


def test_it_refuses_a_question_the_scenario_cannot_answer(owner: Client, web: dict):
    response = ask(owner, web["id"], kind="fit", workload="default/nothing")
    assert response.status_code == 400 and "no Deployment" in response.json()["error"]["message"]
    assert ask(owner, web["id"], kind="nodes", likes=["ghost"]).status_code == 400
    assert ask(owner, web["id"], kind="guess").status_code == 422
    assert CapacityQuestion.objects.count() == 0


STEP = "---\napiVersion: schedlab.io/v1alpha1\nkind: Changes\nsteps:\n- operations:\n  - cordon: {node: node-1}\n"


def test_a_version_with_steps_is_refused_naming_the_latest_version_without_them(
    owner: Client, stranger: Client, web: dict
):
    """A step added in the Changes panel (v2, v3 with steps): the cluster view offers v1, the newest before
    them that questions can be asked of; a version with steps from the start has none to offer, and a share
    link (which shows its one version) none either."""
    path = f"/api/scenarios/{web['id']}"
    for text in (CAPACITY_WEB + STEP, CAPACITY_WEB + STEP + "# again\n"):
        assert owner.put(path, {"text": text}, content_type=JSON).status_code == 200
    targets = f"/api/capacity/scenarios/{web['id']}/targets"
    refused = owner.get(targets).json()["error"]
    assert "has its own steps" in refused["message"]
    assert refused["details"] == {"withoutSteps": 1}
    assert owner.get(f"{targets}?version=1").status_code == 200
    assert "has its own steps" in ask(owner, web["id"], kind="removable").json()["error"]["message"]

    stepped = owner.post("/api/scenarios", {"name": "steps", "text": CAPACITY_WEB + STEP}, content_type=JSON).json()
    assert owner.get(f"/api/capacity/scenarios/{stepped['id']}/targets").json()["error"]["details"] == {
        "withoutSteps": None
    }
    token = owner.post(f"{path}/share", {"version": 3}, content_type=JSON).json()["token"]
    shared = stranger.get(f"{targets}?token={token}").json()["error"]
    assert shared["details"] == {"withoutSteps": None}


def test_only_the_asker_reads_or_cancels_a_question(
    owner: Client, stranger: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    InProcessWorkers(monkeypatch)
    assert ask(stranger, web["id"], kind="fragmentation").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        body = ask(owner, web["id"], kind="fragmentation").json()
    assert stranger.get(f"/api/capacity/{body['id']}").status_code == 404
    assert stranger.post(f"/api/capacity/{body['id']}/cancel").status_code == 404
    assert stranger.get(f"/api/capacity/scenarios/{web['id']}").status_code == 404
    assert [q["id"] for q in owner.get(f"/api/capacity/scenarios/{web['id']}").json()] == [body["id"]]


def test_cancelling_stops_the_question_and_its_trials(
    owner: Client, web: dict, monkeypatch, django_capture_on_commit_callbacks
):
    workers = InProcessWorkers(monkeypatch)
    revoked: list[list[str]] = []
    monkeypatch.setattr("webui.services.capacity._revoke", revoked.append)
    with django_capture_on_commit_callbacks(execute=True):
        body = ask(owner, web["id"], kind="fit", workload="default/web").json()
    workers.drain(django_capture_on_commit_callbacks, stop_after=1)  # the baseline ran; round 2 is out
    cancelled = owner.post(f"/api/capacity/{body['id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert workers.trials and revoked == [[f"task-{trial_id}" for trial_id in workers.trials]]
    assert workers.drain(django_capture_on_commit_callbacks) == len(workers.rounds[-1])
    read = owner.get(f"/api/capacity/{body['id']}").json()
    assert (read["status"], read["answer"], read["progress"]["done"]) == (RunStatus.CANCELLED, None, 1)
    assert owner.post(f"/api/capacity/{body['id']}/cancel").status_code == 409


# --- how many more copies of a pod fit: the one pass (issue 42) ------------------------------------


@pytest.fixture
def pods(owner: Client) -> dict:
    return owner.post("/api/scenarios", {"name": "pods", "text": CAPACITY_PODS}, content_type=JSON).json()


def answered(owner: Client, scenario: dict, monkeypatch, capture, **body) -> dict:
    workers = InProcessWorkers(monkeypatch)
    with capture(execute=True):
        asked = ask(owner, scenario["id"], kind="fit", **body)
    assert asked.status_code == 201, asked.content
    assert (asked.json()["method"], asked.json()["progress"]["copies"]) == (None, 0)
    workers.drain(capture)
    return owner.get(f"/api/capacity/{asked.json()['id']}").json()


def test_counted_copies_list_each_node_most_first_with_the_next_copys_message(
    owner: Client, pods: dict, monkeypatch, django_capture_on_commit_callbacks
):
    read = answered(owner, pods, monkeypatch, django_capture_on_commit_callbacks, pod="default/api-0")
    cli = how_many_copies(TrialBase.from_text(CAPACITY_PODS), "default/api-0")
    copies = read["answer"]["copies"]
    assert read["answer"]["fit"] is None and (read["method"], read["why"]) == ("counted", cli.why) == (
        copies["method"],
        copies["why"],
    )
    assert copies["perNode"] == {
        "nodes": [{"node": "node-1", "copies": 7}, {"node": "node-2", "copies": 7}, {"node": "node-3", "copies": 5}],
        "nodeCount": 3,
        "total": 19,
        "more": 0,
    }
    assert (copies["fits"], copies["stoppedBy"], copies["message"], copies["stoppedAtMax"], copies["trials"]) == (
        19,
        ["default/api-0-copy-20"],
        cli.message,
        False,
        1,
    )
    assert read["progress"]["copies"] == 19 and read["progress"]["done"] == 0
    deciding = read["deciding"]
    assert deciding["url"] == f"/runs/{deciding['run']}/?cycle={deciding['cycle']}&step=Filter&changeStep=1"
    assert deciding["label"] == "20 more"
    execute_run.apply(args=[deciding["run"]])
    cycle = RunCycle.objects.get(run_id=deciding["run"], cycle=deciding["cycle"])
    assert (cycle.pod, cycle.node_name, cycle.failed_scheduling_message) == (
        copies["stoppedBy"][0],
        None,
        copies["message"],
    )


def test_placed_copies_open_the_failed_copys_cycle_in_the_deciding_run(
    owner: Client, pods: dict, monkeypatch, django_capture_on_commit_callbacks
):
    read = answered(owner, pods, monkeypatch, django_capture_on_commit_callbacks, pod="default/cache-0")
    copies = read["answer"]["copies"]
    assert (read["method"], copies["fits"], copies["stoppedBy"]) == ("placed", 2, ["default/cache-0-copy-3"])
    explanation = copies["explanation"]
    assert explanation["headline"].startswith("No node passed every Filter plugin") and copies["perDomain"] is None
    assert explanation["pod"] == "default/cache-0-copy-3"  # the engine's explanation, whole
    assert "didn't match pod anti-affinity rules" in copies["message"]
    deciding = read["deciding"]
    execute_run.apply(args=[deciding["run"]])
    cycle = RunCycle.objects.get(run_id=deciding["run"], cycle=deciding["cycle"])
    assert (cycle.pod, cycle.node_name, cycle.failed_scheduling_message) == (
        copies["stoppedBy"][0],
        None,
        copies["message"],
    )
    assert deciding["url"] == f"/runs/{deciding['run']}/?cycle={deciding['cycle']}&step=Filter&changeStep=1"


def test_copies_stopped_at_max_say_so_and_give_the_count(
    owner: Client, pods: dict, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(capacity_router, "PER_NODE_LISTED", 2)
    read = answered(owner, pods, monkeypatch, django_capture_on_commit_callbacks, pod="default/api-0", max=5)
    copies = read["answer"]["copies"]
    assert (copies["fits"], copies["stoppedAtMax"], copies["stoppedBy"], copies["message"], copies["bound"]) == (
        5,
        True,
        [],
        "",
        5,
    )
    assert (read["method"], copies["countedTotal"]) == ("placed", 19) and read["why"].startswith("counting: more than")
    assert len(copies["perNode"]["nodes"]) == 2 and copies["perNode"]["total"] == 5
    assert copies["perNode"]["more"] == copies["perNode"]["nodeCount"] - 2 and read["deciding"] is None


ZONED = "---\n".join(
    [
        *(
            f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, "
            f"topology.kubernetes.io/zone: {zone}}}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}\n"
            for name, zone, cpu in (("a1", "a", "2"), ("a2", "a", "2"), ("b1", "b", "1"), ("c1", "c", "2"))
        ),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, labels: {app: p}}\nspec:\n"
        "  containers:\n  - {name: c, image: x, resources: {requests: {cpu: 250m}}}\n"
        "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, "
        "whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: p}}}\n",
    ]
)


def test_copies_counted_per_domain_are_the_engine_s_count_with_the_first_domains_listed(
    owner: Client, monkeypatch, django_capture_on_commit_callbacks
):
    zoned = owner.post("/api/scenarios", {"name": "zoned", "text": ZONED}, content_type=JSON).json()
    monkeypatch.setattr(capacity_router, "DOMAINS_LISTED", 2)
    read = answered(owner, zoned, monkeypatch, django_capture_on_commit_callbacks, pod="default/p")
    cli = how_many_copies(TrialBase.from_text(ZONED), "default/p")
    assert read["method"] == "counted" and cli.spread is not None
    spread = cli.spread.to_json()
    assert read["answer"]["copies"]["perDomain"] == {**spread, "domains": spread["domains"][:2], "domainCount": 3}
    assert read["answer"]["copies"]["messageExact"] == cli.spread.message_exact


def test_copies_that_only_trials_answer_say_why(
    owner: Client, pods: dict, monkeypatch, django_capture_on_commit_callbacks
):
    read = answered(owner, pods, monkeypatch, django_capture_on_commit_callbacks, pod="default/urgent-0")
    copies = read["answer"]["copies"]
    assert read["method"] == copies["method"] == "trials" and "could preempt" in read["why"]
    assert copies["trials"] == read["progress"]["done"] > 1 and copies["displaced"]
    assert ask(owner, pods["id"], kind="fit", pod="default/ghost").status_code == 400


def test_a_dump_whose_workloads_the_controllers_cannot_use_names_them_and_answers(owner: Client):
    """examples/cluster-info-dump's Deployments have no pod template, its ReplicaSets and DaemonSet one
    without containers (trimmed, as the API server never stores them): the targets answer 200 naming
    each with why (it was a 500), and a question about one is refused in words (400), not a traceback."""
    from tests.webui import support

    archive = support.dump_archive("tar.gz", support.REPO / "examples" / "cluster-info-dump")
    upload = SimpleUploadedFile("cluster-info-dump.tar.gz", archive, content_type="application/gzip")
    imported = owner.post("/api/scenarios/import", {"file": upload}).json()
    assert imported["valid"] is True, imported
    response = owner.get(f"/api/capacity/scenarios/{imported['id']}/targets")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["workloads"] == [] and len(body["nodes"]) == 3
    unusable = {(w["kind"], w["namespace"], w["name"]): w["reason"] for w in body["unusable"]}
    assert set(unusable) == {
        ("Deployment", "default", "web"),
        ("Deployment", "kube-system", "coredns"),
        ("ReplicaSet", "default", "web-6b7f6d9f4c"),
        ("ReplicaSet", "kube-system", "coredns-5d78c9869d"),
        ("DaemonSet", "kube-system", "kube-proxy"),
    }
    assert unusable[("Deployment", "default", "web")].startswith("spec.template: Required value (line ")
    refused = ask(owner, imported["id"], kind="fit", workload="default/web")
    assert refused.status_code == 400, refused.content
    assert (
        "Deployment default/web cannot be used by the controllers: spec.template: Required value"
        in (refused.json()["error"]["message"])
    )


def test_a_dumps_workloads_are_read_with_the_api_servers_defaults(owner: Client):
    """A Deployment of a typed list (its items without apiVersion or kind) with no replicas, strategy,
    revisionHistoryLimit or progressDeadlineSeconds: read with the defaults the API server fills in."""
    text = """apiVersion: apps/v1
kind: DeploymentList
items:
- metadata: {name: web, namespace: default}
  spec:
    selector: {matchLabels: {app: web}}
    template:
      metadata: {labels: {app: web}}
      spec: {containers: [{name: web, image: nginx, resources: {requests: {cpu: "1"}}}]}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
"""
    scenario = owner.post("/api/scenarios", {"name": "defaults", "text": text}, content_type=JSON).json()
    body = owner.get(f"/api/capacity/scenarios/{scenario['id']}/targets").json()
    assert body["workloads"] == [{"kind": "Deployment", "namespace": "default", "name": "web", "replicas": 1}]
    assert body["unusable"] == []


def test_a_version_that_checks_but_does_not_load_with_the_controllers_on_is_a_400_naming_each_problem(
    owner: Client, web: dict, monkeypatch
):
    from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
    from webui.services import capacity as capacity_service

    def refused(text: str, limits: object = None) -> TrialBase:
        raise ScenarioInvalid([ScenarioError("Deployment default/web", "spec.template", 7, "Required value")])

    monkeypatch.setattr(capacity_service.TrialBase, "from_text", staticmethod(refused))
    capacity_service._bases.clear()
    response = owner.get(f"/api/capacity/scenarios/{web['id']}/targets")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["message"] == (
        "capacity questions cannot read the scenario with its controllers (1 problem(s)): "
        "line 7: Deployment default/web: spec.template: Required value"
    )
    assert [(e["object"], e["path"], e["line"]) for e in error["details"]["errors"]] == [
        ("Deployment default/web", "spec.template", 7)
    ]


def test_an_answer_stored_before_the_declarations_is_served_as_the_migration_left_it(
    owner: Client, pods: dict, monkeypatch, django_capture_on_commit_callbacks
):
    """0012 gave an older pod-copies answer the engine's types (stoppedBy a list, explanation an object
    keeping its headline); its per-domain count kept its first domains and their number."""
    read = answered(owner, pods, monkeypatch, django_capture_on_commit_callbacks, pod="default/cache-0")
    older = {
        "target": "Pod default/cache-0",
        "method": "placed",
        "why": "w",
        "fits": 2,
        "bound": None,
        "checkedNext": True,
        "stoppedBy": ["default/cache-0-copy-3"],
        "message": "m",
        "messageExact": True,
        "explanation": {"headline": "No node passed every Filter plugin."},
        "countedTotal": None,
        "perDomain": None,
        "trials": 1,
        "displaced": [],
    }
    CapacityQuestion.objects.filter(pk=read["id"]).update(answer={"copies": older})
    copies = owner.get(f"/api/capacity/{read['id']}").json()["answer"]["copies"]
    assert (copies["stoppedBy"], copies["explanation"], copies["stoppedAtMax"]) == (
        ["default/cache-0-copy-3"],
        {"headline": "No node passed every Filter plugin."},
        False,
    )
    assert "checkedNext" not in copies and copies["perNode"]["total"] == 2
