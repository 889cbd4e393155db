"""/api/scenarios: create, read, save (every save a version), delete, list, fork, versions, diff, import, export."""

import pytest
from django.test import Client

from tests.webui import support

pytestmark = pytest.mark.django_db
JSON = "application/json"


def test_it_creates_a_scenario_with_its_first_version(owner: Client, small_text: str):
    response = owner.post("/api/scenarios", {"name": "mine", "text": small_text}, content_type=JSON)
    assert response.status_code == 201
    body = response.json()
    assert body["name"] == "mine"
    assert body["version"] == 1
    assert body["valid"] is True
    assert body["errors"] == []
    assert body["summary"] == {"nodes": 3, "pods": 3, "pendingPods": 2}
    assert body["owned"] is True


def test_it_saves_invalid_yaml_as_a_version_and_returns_the_errors(owner: Client, scenario: dict):
    response = owner.put(f"/api/scenarios/{scenario['id']}", {"text": "kind: [unclosed"}, content_type=JSON)
    assert response.status_code == 200
    body = response.json()
    assert body["version"] == 2
    assert body["text"] == "kind: [unclosed"
    assert body["valid"] is False
    assert body["errors"] and {"object", "path", "line", "message"} <= set(body["errors"][0])


def test_it_keeps_every_save_as_a_version(owner: Client, scenario: dict, small_text: str):
    for text in ("a: 1", "a: 2", small_text):
        owner.put(f"/api/scenarios/{scenario['id']}", {"text": text}, content_type=JSON)
    versions = owner.get(f"/api/scenarios/{scenario['id']}/versions").json()
    assert [v["number"] for v in versions] == [1, 2, 3, 4]
    second = owner.get(f"/api/scenarios/{scenario['id']}/versions/2").json()
    assert second["text"] == "a: 1"


def test_it_diffs_two_versions(owner: Client, scenario: dict):
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": "a: 1\nb: 2\n"}, content_type=JSON)
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": "a: 1\nb: 3\n"}, content_type=JSON)
    body = owner.get(f"/api/scenarios/{scenario['id']}/diff?old=2&new=3").json()
    assert body["diff"].startswith("--- v2\n+++ v3\n")
    assert "-b: 2\n+b: 3\n" in body["diff"]


def test_it_hides_scenarios_from_other_visitors(scenario: dict, stranger: Client):
    response = stranger.get(f"/api/scenarios/{scenario['id']}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert stranger.get("/api/scenarios").json() == []


def test_it_rejects_edits_by_non_owners_of_a_demo(stranger: Client):
    from webui.services import demos

    demos.load_all()
    demo = stranger.get("/api/scenarios?q=affinity").json()[0]
    response = stranger.put(f"/api/scenarios/{demo['id']}", {"text": "x: 1"}, content_type=JSON)
    assert response.status_code == 403
    assert response.json()["error"] == {"code": "forbidden", "message": "demo scenarios are read-only; fork it to edit", "details": {}}


def test_it_deletes_a_scenario(owner: Client, scenario: dict):
    assert owner.delete(f"/api/scenarios/{scenario['id']}").status_code == 204
    assert owner.get(f"/api/scenarios/{scenario['id']}").json()["error"]["code"] == "not_found"


def test_it_searches_the_list(owner: Client, small_text: str):
    for name in ("zonal spread", "affinity test"):
        owner.post("/api/scenarios", {"name": name, "text": small_text}, content_type=JSON)
    names = [s["name"] for s in owner.get("/api/scenarios?q=SPREAD").json()]
    assert names == ["zonal spread"]


def test_it_forks_a_version_into_a_new_scenario(owner: Client, scenario: dict):
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": "changed: true"}, content_type=JSON)
    response = owner.post(f"/api/scenarios/{scenario['id']}/fork", {"version": 1, "name": "copy"}, content_type=JSON)
    assert response.status_code == 201
    fork = response.json()
    assert (fork["name"], fork["version"], fork["forkedFrom"]) == ("copy", 1, scenario["id"])
    assert fork["text"] == scenario["text"]


def test_it_rejects_text_over_the_size_limit_naming_the_limit(owner: Client, settings):
    settings.SCHEDLAB_MAX_BYTES = 100
    response = owner.post("/api/scenarios", {"name": "big", "text": "x" * 101}, content_type=JSON)
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "limit_exceeded"
    assert error["details"] == {"limit": "max_bytes", "max": 100}
    assert "SCHEDLAB_MAX_BYTES" in error["message"]


def test_it_rejects_a_malformed_body_with_the_common_error_shape(owner: Client):
    response = owner.post("/api/scenarios", {"text": "no name"}, content_type=JSON)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"
    response = owner.post("/api/scenarios", "{not json", content_type=JSON)
    assert response.status_code in (400, 422)
    assert "error" in response.json()


def test_it_imports_kubectl_list_output_as_a_clean_stream(owner: Client):
    listing = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    uid: 1234
    resourceVersion: "99"
    managedFields: [{manager: kubelet}]
    labels: {zone: a}
  status: {capacity: {cpu: "2", memory: 1Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: p, namespace: default}
  spec: {containers: [{name: c, image: nginx}]}
"""
    response = owner.post("/api/scenarios/import", {"name": "from kubectl", "text": listing})
    assert response.status_code == 201
    body = response.json()
    assert "managedFields" not in body["text"] and "uid" not in body["text"]
    assert body["text"].count("---") == 1
    assert body["summary"] == {"nodes": 1, "pods": 1, "pendingPods": 1}


def test_it_imports_an_uploaded_file(owner: Client, small_text: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("cluster.yaml", small_text.encode(), content_type="application/yaml")
    body = owner.post("/api/scenarios/import", {"file": upload}).json()
    assert (body["name"], body["text"], body["valid"], body["checked"]) == ("cluster.yaml", small_text, True, True)


def test_an_import_checked_later_answers_once_saved_and_its_read_waits_for_the_check(owner: Client, monkeypatch):
    from webui.services import engine

    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: checked-later\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: x}]\n"
    checks = []
    real = engine._check
    monkeypatch.setattr(engine, "_check", lambda t: checks.append(1) or real(t))
    body = owner.post("/api/scenarios/import", {"text": text, "check": "later"}).json()
    assert (body["checked"], body["valid"], body["errors"], body["summary"]) == (False, False, [], None)
    read = owner.get(f"/api/scenarios/{body['id']}").json()
    assert (read["checked"], read["valid"], read["summary"]) == (True, True, {"nodes": 1, "pods": 1, "pendingPods": 1})
    assert checks == [1]  # the background check, waited for: the text was parsed once
    assert owner.post("/api/scenarios/import", {"text": text, "check": "soon"}).status_code == 422


@pytest.mark.parametrize("dump, pending, notice_codes", [
    ("gke_gpu_pool.json", 2, {"other-scheduler"}),  # two JSON Lists back to back
    ("kubeadm_calico.yaml", 1, {"ignored-kinds", "finished-pods", "scheduling-gated"}),  # one kind: List
])
def test_it_imports_a_real_clusters_dump_and_says_what_the_scheduler_leaves_out(owner: Client, dump, pending, notice_codes):
    from pathlib import Path

    from django.core.files.uploadedfile import SimpleUploadedFile

    data = (Path(__file__).resolve().parents[1] / "fixtures" / "dumps" / dump).read_bytes()
    body = owner.post("/api/scenarios/import", {"file": SimpleUploadedFile(dump, data)}).json()
    assert body["valid"] is True, body["errors"][:3]
    assert body["summary"]["nodes"] == 3 and body["summary"]["pendingPods"] == pending
    assert {notice["code"] for notice in body["notices"]} == notice_codes
    assert "managedFields" not in body["text"] and body["text"].count("\nkind: Pod\n") >= 4  # an editable stream


def test_it_exports_a_version_as_yaml(owner: Client, scenario: dict):
    response = owner.get(f"/api/scenarios/{scenario['id']}/export?version=1")
    assert response["Content-Type"].startswith("application/yaml")
    assert 'filename="scenario-' in response["Content-Disposition"]
    assert response.content.decode() == scenario["text"]


def test_it_requires_csrf_on_writes(small_text: str):
    client = Client(enforce_csrf_checks=True)
    token = client.get("/api/session").json()["csrfToken"]
    refused = client.post("/api/scenarios", {"name": "x", "text": small_text}, content_type=JSON)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "csrf_failed"
    accepted = client.post("/api/scenarios", {"name": "x", "text": small_text}, content_type=JSON, headers={"X-CSRFToken": token})
    assert accepted.status_code == 201


def test_it_gives_each_logged_in_user_their_own_scenarios(django_user_model, small_text: str):
    alice, bob = Client(), Client()
    alice.force_login(django_user_model.objects.create_user("alice", password="pw-alice-123"))
    bob.force_login(django_user_model.objects.create_user("bob", password="pw-bob-123"))
    created = alice.post("/api/scenarios", {"name": "a", "text": small_text}, content_type=JSON).json()
    assert alice.get(f"/api/scenarios/{created['id']}").json()["owned"] is True
    assert bob.delete(f"/api/scenarios/{created['id']}").status_code == 404


def test_it_validates_text_without_saving(owner: Client):
    body = owner.post("/api/validate", {"text": support.scenario_text(2, 1)}, content_type=JSON).json()
    no_config = {"code": "no-config", "message": body["findings"][0]["message"], "objects": [], "kubectl": None, "action": None}
    assert body == {"valid": True, "errors": [], "summary": {"nodes": 2, "pods": 1, "pendingPods": 1}, "notices": [],
                    "objects": {"Node": 2, "Pod": 1}, "findings": [no_config], "fetch": []}
    body = owner.post("/api/validate", {"text": "- just a list"}, content_type=JSON).json()
    assert body["valid"] is False and body["errors"]


def test_validation_says_what_the_scheduler_leaves_out(owner: Client, scenario: dict):
    extra = [
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata: {a: b}\n",
        support.pod_yaml("gated").replace("spec:\n", "spec:\n  schedulingGates: [{name: wait}]\n", 1),
        support.pod_yaml("elsewhere").replace("spec:\n", "spec:\n  schedulerName: my-scheduler\n", 1),
        support.pod_yaml("done", "node-0").replace("spec:\n", "status: {phase: Succeeded}\nspec:\n", 1),
    ]
    text = "---\n".join([support.scenario_text(2, 1), *extra])
    body = owner.post("/api/validate", {"text": text}, content_type=JSON).json()
    assert body["valid"] is True
    by_code = {notice["code"]: notice for notice in body["notices"]}
    assert set(by_code) == {"ignored-kinds", "finished-pods", "other-scheduler", "scheduling-gated"}
    assert "1 ConfigMap" in by_code["ignored-kinds"]["message"] and "1 Deployment" in by_code["ignored-kinds"]["message"]
    assert by_code["scheduling-gated"]["objects"] == ["Pod default/gated"]
    assert by_code["other-scheduler"]["objects"] == ["Pod default/elsewhere"]
    assert by_code["finished-pods"]["objects"] == ["Pod default/done"]
    saved = owner.put(f"/api/scenarios/{scenario['id']}", {"text": text}, content_type=JSON).json()
    assert saved["notices"] == body["notices"]  # the scenario's own answer carries them too


def test_it_answers_413_for_an_oversized_request_body(owner: Client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = owner.post("/api/scenarios", {"name": "big", "text": "x" * 5000}, content_type=JSON)
    assert response.status_code == 413
    assert response.json()["error"]["details"]["limit"] == "max_bytes"


from hypothesis import HealthCheck, given, settings as hypothesis_settings, strategies as st  # noqa: E402


@hypothesis_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=300) | st.sampled_from(["---\n---", "kind: List\nitems: 3", "apiVersion: v1\nkind: Pod", "&a [*a]", "- !!python/object:os.system x"]))
def test_it_never_answers_500_to_arbitrary_text(owner: Client, text: str):
    response = owner.post("/api/validate", {"text": text}, content_type=JSON)
    assert response.status_code == 200
    assert set(response.json()) == {"valid", "errors", "summary", "notices", "objects", "findings", "fetch"}
