"""/api/scenarios (webui/routers/scenarios.py): create, read, save (every save a version), delete, list, fork,
versions, diff, import (files, archives, real dumps), export, the objects and nodes the engine reads, the
fixes it offers, "Why here?", and adversarial text that never gets a 500."""

from __future__ import annotations

import gzip
import io
import json
import time
import zipfile

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.webui import support
from webui import responses
from webui.models import Scenario, ScenarioVersion
from webui.services import documents, engine, objects
from webui.services.objects import quantity_text
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"


# --- /api/scenarios: create, read, save (every save a version), delete, list, fork, versions, diff, import, export.


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


def test_a_rename_keeps_the_version_and_a_changed_text_makes_one(owner: Client, scenario: dict, small_text: str):
    """Renaming made a new version holding the same text (issue 51 item 10)."""
    path = f"/api/scenarios/{scenario['id']}"
    renamed = owner.put(path, {"text": scenario["text"], "name": "renamed"}, content_type=JSON).json()
    assert (renamed["name"], renamed["version"]) == ("renamed", 1)
    assert owner.get(path).json()["name"] == "renamed"
    changed = owner.put(path, {"text": small_text + "\n# changed\n", "name": "renamed"}, content_type=JSON).json()
    assert changed["version"] == 2
    assert [v["number"] for v in owner.get(f"{path}/versions").json()] == [1, 2]


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


def test_it_refuses_a_diff_over_the_server_s_limit_naming_the_setting(owner: Client, scenario: dict, settings):
    settings.SCHEDLAB_MAX_DIFF_BYTES = 10
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": "a: 1\nb: 2\n"}, content_type=JSON)
    response = owner.get(f"/api/scenarios/{scenario['id']}/diff?old=1&new=2")
    assert response.status_code == 413
    message = response.json()["error"]["message"]
    assert "more than the 10 bytes this server compares" in message and "SCHEDLAB_MAX_DIFF_BYTES=" in message


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
    assert response.json()["error"] == {
        "code": "forbidden",
        "message": "demo scenarios are read-only; fork it to edit",
        "details": {},
    }


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
    assert error["message"] == (
        "the scenario is 101 bytes, more than the limit of 100 bytes; "
        "this server's administrator raises it with SCHEDLAB_MAX_BYTES=1048576 (1 MB)"
    )


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
    monkeypatch.setattr(engine, "_check", lambda t, *release: checks.append(1) or real(t, *release))
    body = owner.post("/api/scenarios/import", {"text": text, "check": "later"}).json()
    assert (body["checked"], body["valid"], body["errors"], body["summary"]) == (False, False, [], None)
    read = owner.get(f"/api/scenarios/{body['id']}").json()
    assert (read["checked"], read["valid"], read["summary"]) == (True, True, {"nodes": 1, "pods": 1, "pendingPods": 1})
    assert checks == [1]  # the background check, waited for: the text was parsed once
    assert owner.post("/api/scenarios/import", {"text": text, "check": "soon"}).status_code == 422


@pytest.mark.parametrize(
    "dump, pending, notice_codes",
    [
        ("gke_gpu_pool.json", 2, {"other-scheduler"}),  # two JSON Lists back to back
        ("kubeadm_calico.yaml", 1, {"ignored-kinds", "finished-pods", "scheduling-gated"}),  # one kind: List
    ],
)
def test_it_imports_a_real_clusters_dump_and_says_what_the_scheduler_leaves_out(
    owner: Client, dump, pending, notice_codes
):
    from pathlib import Path

    from django.core.files.uploadedfile import SimpleUploadedFile

    data = (Path(__file__).resolve().parents[2] / "fixtures" / "dumps" / dump).read_bytes()
    body = owner.post("/api/scenarios/import", {"file": SimpleUploadedFile(dump, data)}).json()
    assert body["valid"] is True, body["errors"][:3]
    assert body["summary"]["nodes"] == 3 and body["summary"]["pendingPods"] == pending
    assert {notice["code"] for notice in body["notices"]} == notice_codes
    assert "managedFields" not in body["text"] and body["text"].count("\nkind: Pod\n") >= 4  # an editable stream


def test_it_exports_a_version_as_yaml(owner: Client, scenario: dict):
    response = owner.get(f"/api/scenarios/{scenario['id']}/export?version=1")
    assert response["Content-Type"].startswith("application/yaml")
    assert 'filename="scenario-' in response["Content-Disposition"]
    assert b"".join(response.streaming_content).decode() == scenario["text"]  # streamed a piece at a time


def test_it_gives_each_logged_in_user_their_own_scenarios(django_user_model, small_text: str):
    alice, bob = Client(), Client()
    alice.force_login(django_user_model.objects.create_user("alice", password="pw-alice-123"))
    bob.force_login(django_user_model.objects.create_user("bob", password="pw-bob-123"))
    created = alice.post("/api/scenarios", {"name": "a", "text": small_text}, content_type=JSON).json()
    assert alice.get(f"/api/scenarios/{created['id']}").json()["owned"] is True
    assert bob.delete(f"/api/scenarios/{created['id']}").status_code == 404


# --- GET /api/scenarios/{id}/nodes: the nodes' names and labels only (what the run view groups by);
# the large prebuilt answers (/nodes, /objects, /events?cycle=) gzipped; versions warmed in the background.


def test_it_lists_each_nodes_name_and_labels_in_document_order(owner: Client, scenario: dict):
    response = owner.get(f"/api/scenarios/{scenario['id']}/nodes")
    assert response.status_code == 200 and response["Content-Type"].startswith("application/json")
    body = response.json()
    full = owner.get(f"/api/scenarios/{scenario['id']}/objects").json()
    assert body["version"] == 1
    assert body["nodes"] == [{"name": n["name"], "labels": n["labels"]} for n in full["nodes"]]
    assert body["nodes"][0]["labels"]["zone"] == "zone-0"


def test_it_answers_the_same_errors_as_objects(owner: Client, scenario: dict, settings):
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": "kind: [broken"}, content_type=JSON)
    assert len(owner.get(f"/api/scenarios/{scenario['id']}/nodes?version=1").json()["nodes"]) == 3
    error = owner.get(f"/api/scenarios/{scenario['id']}/nodes?version=2").json()["error"]
    assert error["code"] == "scenario_invalid" and error["details"]["errors"]
    settings.SCHEDLAB_MAX_NODES = 1
    response = owner.get(f"/api/scenarios/{scenario['id']}/nodes?version=1")
    assert response.status_code == 413 and response.json()["error"]["details"]["limit"] == "max_nodes"


def test_its_nodes_are_readable_with_a_share_token_only_for_the_shared_version(
    owner: Client, stranger: Client, scenario: dict
):
    assert stranger.get(f"/api/scenarios/{scenario['id']}/nodes").status_code == 404
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {}, content_type=JSON).json()["token"]
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": scenario["text"]}, content_type=JSON)
    headers = {"X-Share-Token": token}
    assert stranger.get(f"/api/scenarios/{scenario['id']}/nodes", headers=headers).json()["version"] == 1
    assert stranger.get(f"/api/scenarios/{scenario['id']}/nodes?version=2", headers=headers).status_code == 404


def test_large_answers_are_gzipped_for_clients_that_accept_it(owner: Client, scenario: dict, monkeypatch):
    monkeypatch.setattr(responses, "GZIP_MIN_BYTES", 10)
    url = f"/api/scenarios/{scenario['id']}/nodes"
    plain = owner.get(url)
    assert "Content-Encoding" not in plain and "Accept-Encoding" in plain["Vary"]
    zipped = owner.get(url, headers={"Accept-Encoding": "gzip, deflate"})
    assert zipped["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped["Vary"]
    assert json.loads(gzip.decompress(zipped.content)) == plain.json()
    assert "Content-Security-Policy" in zipped  # the usual headers still apply


def test_small_answers_are_not_gzipped(owner: Client, scenario: dict):
    response = owner.get(f"/api/scenarios/{scenario['id']}/nodes", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in response


def test_a_version_is_warmed_in_the_background(scenario: dict):
    version = ScenarioVersion.objects.get(scenario_id=scenario["id"], number=1)
    objects._NODES_JSON._items.clear()
    assert not objects.nodes_ready(version.pk)
    objects.nodes_json(version)  # what the warm-up thread does (its own DB connection aside)
    assert objects.nodes_ready(version.pk)
    assert objects.warm(version.pk) is None  # nothing left to do
    assert objects.warm(None) is None


# --- GET /api/scenarios/{id}/cluster: one page of the cluster view (issue 50), never the whole cluster.


@pytest.fixture
def zoned(owner: Client) -> dict:
    text = support.scenario_text(nodes=12, pending=5, running=8)
    created = owner.post("/api/scenarios", {"name": "zoned", "text": text}, content_type=JSON)
    assert created.status_code == 201, created.content
    return created.json()


def test_a_cluster_page_counts_the_whole_groups_every_domain_and_pages_the_nodes(owner: Client, zoned: dict):
    body = owner.get(f"/api/scenarios/{zoned['id']}/cluster?limit=5").json()
    assert (body["nodeCount"], body["podCount"], body["pendingCount"]) == (12, 13, 5)
    assert body["groupKey"] == "zone" and body["groupCount"] == 3
    assert body["groups"] == [{"domain": f"zone-{i}", "nodes": 4, "pods": 3 if i < 2 else 2} for i in range(3)]
    assert (body["matched"], body["offset"], body["limit"]) == (12, 0, 5)
    assert [n["name"] for n in body["nodes"]] == [f"node-{i}" for i in range(5)]
    assert body["nodes"][0]["allocatableText"]["cpu"] == "8"  # shaped as /objects shapes them
    on_page = [p["name"] for p in body["pods"] if p["nodeName"]]
    assert on_page == ["running-0", "running-1", "running-2", "running-3", "running-4"]
    assert [p["name"] for p in body["pods"] if p["pending"]] == [f"pending-{i}" for i in range(5)]
    after = owner.get(f"/api/scenarios/{zoned['id']}/cluster?limit=5&offset=10").json()
    assert [n["name"] for n in after["nodes"]] == ["node-10", "node-11"]


def test_a_cluster_page_finds_nodes_by_domain_and_by_search(owner: Client, zoned: dict):
    url = f"/api/scenarios/{zoned['id']}/cluster"
    in_zone = owner.get(f"{url}?domain=zone-1").json()
    assert in_zone["matched"] == 4 and [n["name"] for n in in_zone["nodes"]] == [
        "node-1",
        "node-4",
        "node-7",
        "node-10",
    ]
    assert owner.get(f"{url}?search=NODE-1").json()["matched"] == 3  # node-1, node-10, node-11
    assert owner.get(f"{url}?search=zone%3Dzone-2").json()["matched"] == 4  # a key=value label
    by_host = owner.get(f"{url}?groupKey=kubernetes.io/hostname&limit=1").json()
    assert by_host["groupKey"] == "kubernetes.io/hostname" and by_host["groupCount"] == 12
    assert owner.get(f"{url}?groupKey=nope").json()["groupKey"] == "zone"  # an unknown key: the default
    assert owner.get(f"{url}?limit=501").status_code == 422
    assert owner.get(f"{url}?offset=-1").status_code == 422


def test_a_cluster_page_draws_a_finished_runs_placements(owner: Client, zoned: dict):
    run = finished_run(owner, zoned["id"])
    assert run["status"] == "succeeded", run
    body = owner.get(f"/api/scenarios/{zoned['id']}/cluster?run={run['id']}&limit=12").json()
    assert body["pendingCount"] == 0  # the run placed every pending pod
    assert len(body["placements"]) == 13 and all(body["placements"].values())  # where every pod ended
    assert sorted(body["placedIn"]) == [f"default/pending-{i}" for i in range(5)]  # the run placed these
    assert all(
        p["name"].startswith("running") for p in body["pods"] if p["nodeName"]
    )  # as written: the others on their node
    assert sum(g["pods"] for g in body["groups"]) == 13


def test_a_cluster_page_answers_the_same_errors_as_objects(owner: Client, zoned: dict, stranger: Client, settings):
    assert stranger.get(f"/api/scenarios/{zoned['id']}/cluster").status_code == 404
    settings.SCHEDLAB_MAX_NODES = 1
    response = owner.get(f"/api/scenarios/{zoned['id']}/cluster")
    assert response.status_code == 413 and response.json()["error"]["details"]["limit"] == "max_nodes"


# --- GET /api/scenarios/{id}/objects: nodes and pods as the engine reads them.


def test_it_lists_nodes_and_pods_with_the_engines_amounts(owner: Client, scenario: dict):
    body = owner.get(f"/api/scenarios/{scenario['id']}/objects").json()
    assert body["version"] == 1
    node = body["nodes"][0]
    assert (node["name"], node["labels"]["zone"], node["taints"], node["unschedulable"]) == (
        "node-0",
        "zone-0",
        [],
        False,
    )
    assert node["allocatable"]["cpu"] == 8000 and node["allocatableText"] == {
        "cpu": "8",
        "memory": "16Gi",
        "pods": "110",
    }
    running, *pending = body["pods"]
    assert (running["name"], running["nodeName"], running["pending"]) == ("running-0", "node-0", False)
    assert running["requests"] == {"cpu": 100, "memory": 64 * 1024 * 1024}
    assert running["requestsText"] == {"cpu": "100m", "memory": "64Mi"}
    assert [(p["name"], p["nodeName"], p["pending"], p["priority"]) for p in pending] == [
        ("pending-0", None, True, 0),
        ("pending-1", None, True, 0),
    ]


def test_it_answers_a_chosen_version(owner: Client, scenario: dict):
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": "kind: [broken"}, content_type=JSON)
    assert len(owner.get(f"/api/scenarios/{scenario['id']}/objects?version=1").json()["nodes"]) == 3
    response = owner.get(f"/api/scenarios/{scenario['id']}/objects?version=2")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "scenario_invalid" and error["details"]["errors"]


def test_it_answers_413_for_a_version_over_a_size_limit(owner: Client, scenario: dict, settings):
    settings.SCHEDLAB_MAX_NODES = 1
    error = owner.get(f"/api/scenarios/{scenario['id']}/objects").json()["error"]
    assert (error["code"], error["details"]["limit"], error["details"]["max"]) == ("limit_exceeded", "max_nodes", 1)


def test_it_is_readable_with_a_share_token_only_for_the_shared_version(owner: Client, stranger: Client, scenario: dict):
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {}, content_type=JSON).json()["token"]
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": scenario["text"]}, content_type=JSON)
    headers = {"X-Share-Token": token}
    assert stranger.get(f"/api/scenarios/{scenario['id']}/objects", headers=headers).json()["version"] == 1
    assert stranger.get(f"/api/scenarios/{scenario['id']}/objects?version=2", headers=headers).status_code == 404
    assert stranger.get(f"/api/scenarios/{scenario['id']}/objects").status_code == 404


@pytest.mark.parametrize(
    "resource, amount, text",
    [
        ("cpu", 1500, "1500m"),
        ("cpu", 2000, "2"),
        ("memory", 3 << 30, "3Gi"),
        ("memory", 1000, "1000"),
        ("pods", 110, "110"),
        ("memory", 0, "0"),
    ],
    ids=["millicores", "whole cores", "gibibytes", "odd bytes", "counts", "zero"],
)
def test_it_writes_amounts_as_kubernetes_quantities(resource: str, amount: int, text: str):
    assert quantity_text(resource, amount) == text


def test_it_lists_persistent_volumes_with_the_domains_they_can_be_used_in(owner: Client):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "fixtures" / "statefulset_ebs.yaml").read_text()
    created = owner.post("/api/scenarios", {"name": "sts", "text": text}, content_type=JSON).json()
    volumes = {v["name"]: v for v in owner.get(f"/api/scenarios/{created['id']}/objects").json()["volumes"]}
    web2 = volumes["pvc-c5e7a9b1-3d4f-4c8e-a5e7-9b1d3f5a7c9e"]
    assert (web2["claim"], web2["phase"], web2["storageClass"]) == ("shop/data-web-2", "Bound", "gp2")
    assert web2["domains"]["topology.kubernetes.io/zone"] == ["us-east-1c"]


def test_it_lists_dra_devices_per_node_and_each_pods_claims(owner: Client):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "fixtures" / "dra" / "pending_gpu.yaml").read_text()
    created = owner.post("/api/scenarios", {"name": "gpu", "text": text}, content_type=JSON).json()
    body = owner.get(f"/api/scenarios/{created['id']}/objects").json()
    node_1, node_2 = body["devices"]
    assert (node_1["node"], node_1["free"], node_2["free"]) == ("node-1", 1, 1)
    held = node_1["devices"][0]
    assert (held["name"], held["claim"], held["reservedFor"], held["inFlight"]) == (
        "gpu-0",
        "default/train-1-gpu",
        ["train-1"],
        False,
    )
    assert held["classes"] == ["gpu.example.com", "gpu-small.example.com"]
    pods = {p["name"]: p for p in body["pods"]}
    assert pods["train-2"]["claims"] == [
        {
            "podClaim": "gpu",
            "claim": "default/train-2-gpu",
            "requests": ["gpu: 2 x gpu.example.com"],
            "devices": [],
            "reservedFor": [],
        }
    ]
    assert pods["train-1"]["claims"][0]["devices"] == ["gpu.example.com/node-1/gpu-0"]


# --- A real cluster's dump through the API, before and after the run: files and archives imported as one
# scenario text, the check's counts, notices and findings (the same as `check --json`), the node taints
# added in one click, the recorded answer beside the replay, and "Why here?" for a running pod.


def _import(client: Client, *files: tuple[str, bytes], **fields) -> object:
    uploads = [SimpleUploadedFile(name, data) for name, data in files]
    return client.post("/api/scenarios/import", {"file": uploads, **fields})


@pytest.fixture
def imported(owner: Client) -> dict:
    """The dump's scenario, saved as its import saves it (the import itself is tested above)."""
    response = owner.post(
        "/api/scenarios", {"name": "cluster-info", "text": support.dump_as_stream()}, content_type=JSON
    )
    assert response.status_code == 201, response.content
    return response.json()


@pytest.mark.parametrize("kind", ["tar.gz", "tar", "zip"])
def test_a_dumped_archive_becomes_one_scenario_text_of_every_object(owner: Client, kind: str):
    body = _import(owner, (f"cluster-info.{kind}", support.dump_archive(kind))).json()
    assert body["name"] == f"cluster-info.{kind}" and body["valid"] is True, body["errors"]
    documents = list(yaml.safe_load_all(body["text"]))
    assert all(doc["apiVersion"] and doc["kind"] for doc in documents)  # filled in from the lists
    assert [doc["kind"] for doc in documents] == ["Event", "Pod", "Pod", "Pod", "Node", "Node"]  # file order
    assert body["summary"] == {"nodes": 2, "pods": 3, "pendingPods": 2}
    assert "logs.txt" in body["text"].split("\napiVersion:")[0]  # what the text cannot hold: said at its top


def test_several_files_at_once_are_read_as_one_scenario(owner: Client):
    files = [
        (name.rsplit("/", 1)[-1] if name.endswith("nodes.json") else name.replace("/", "-"), data)
        for name, data in support.dump_files()
        if name.endswith("pods.json") or name.endswith("nodes.json")
    ]
    body = _import(owner, *files).json()
    assert body["valid"] is True, body["errors"]
    assert body["summary"] == {"nodes": 2, "pods": 3, "pendingPods": 2}
    assert body["name"].endswith("and 2 more")


def test_one_plain_file_is_kept_as_typed(owner: Client, small_text: str):
    body = _import(owner, ("cluster.yaml", small_text.encode())).json()
    assert body["text"] == small_text and body["valid"] is True
    named = "# my pods\n" + small_text  # named after a kind, and loads as typed: kept, comments and all
    assert _import(owner, ("pods.yaml", named.encode())).json()["text"] == named


@pytest.mark.parametrize("name, valid_as_named", [("nodes.json", True), ("cluster.json", False)])
def test_a_kind_less_list_is_read_with_the_kind_its_file_name_says(owner: Client, name: str, valid_as_named: bool):
    """A support bundle's cluster-resources/nodes.json, uploaded alone: a list whose items carry no kind."""
    data = (
        support.REPO / "tests" / "fixtures" / "dumps" / "forms" / "troubleshoot" / "cluster-resources" / "nodes.json"
    ).read_bytes()
    body = _import(owner, (name, data)).json()
    assert body["valid"] is valid_as_named
    if valid_as_named:  # written out with the kind its name says
        assert body["summary"]["nodes"] == 3 and body["text"].count("\nkind: Node\n") == 3
    else:  # nothing says what the items are: kept as typed, its problems at its lines
        assert body["text"] == data.decode() and body["errors"][0]["line"]


def test_a_bad_member_is_named_with_its_line_and_nothing_is_saved(owner: Client):
    broken = ("cluster-info/default/services.json", b'{"kind": "ServiceList", "items": [\n  {"metadata": }\n]}\n')
    response = _import(owner, ("dump.tar.gz", support.dump_archive("tar.gz", extra=[broken])))
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "scenario_invalid"
    [problem] = [e for e in error["details"]["errors"] if "services.json" in (e.get("file") or "")]
    assert problem["line"] == 2
    assert owner.get("/api/scenarios").json() == [s for s in owner.get("/api/scenarios").json() if s["demo"]]


def test_an_archive_over_the_unpacked_size_limit_is_refused_with_the_limit_named(owner: Client, settings):
    settings.SCHEDLAB_MAX_UNPACKED_BYTES = 64 * 1024
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:  # a small zip bomb: 1 MiB of spaces
        archive.writestr("bomb/pods.json", b'{"kind": "PodList", "items": []}' + b" " * (1 << 20))
    response = _import(owner, ("bomb.zip", buffer.getvalue()))
    assert response.status_code == 413, response.content
    assert response.json()["error"]["details"]["limit"] == "max_unpacked_bytes"


def test_an_archive_with_too_many_files_is_refused_with_the_limit_named(owner: Client, settings):
    settings.SCHEDLAB_MAX_ARCHIVE_FILES = 3
    response = _import(owner, ("cluster-info.zip", support.dump_archive("zip")))
    assert response.status_code == 413, response.content
    assert response.json()["error"]["details"]["limit"] == "max_files"


def test_the_check_says_what_check_json_says(owner: Client, imported: dict):
    from scheduler_core import load_scenario
    from scheduler_core.answers.check import check_scenario

    report = check_scenario(load_scenario(imported["text"])).to_json()
    validated = owner.post("/api/validate", {"text": imported["text"]}, content_type=JSON).json()
    for answer in (imported, validated):
        assert answer["objects"] == report["objects"] and answer["objects"]["Node"] == 2
        assert answer["notices"] == report["notices"] and answer["fetch"] == report["fetch"]
        assert [f["code"] for f in answer["findings"]] == [f["code"] for f in report["findings"]]
    codes = {f["code"]: f for f in imported["findings"]}
    assert (
        codes["node-taints-missing"]["action"] == "add-node-taints"
        and "Node worker-2" in codes["node-taints-missing"]["objects"]
    )
    assert "kubectl get replicasets" in codes["controller-absent"]["kubectl"]
    assert "Pod default/web-7f9c-a" in codes["controller-absent"]["objects"]


def test_a_scenario_without_nodes_says_so_loudly(owner: Client):
    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"
    answer = owner.post("/api/validate", {"text": text}, content_type=JSON).json()
    assert answer["valid"] is True and answer["summary"]["nodes"] == 0
    assert "no-nodes" in [notice["code"] for notice in answer["notices"]]


def test_adding_the_node_taints_saves_a_new_version_with_only_the_node_changed(owner: Client, imported: dict):
    response = owner.post(f"/api/scenarios/{imported['id']}/fixes/node-taints", content_type=JSON)
    assert response.status_code == 201, response.content
    fixed = response.json()
    assert (fixed["id"], fixed["version"]) == (imported["id"], 2)
    nodes = {d["metadata"]["name"]: d for d in yaml.safe_load_all(fixed["text"]) if d["kind"] == "Node"}
    assert nodes["worker-2"]["spec"]["taints"] == [
        {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"},
    ]
    assert "taints" not in (nodes["worker-1"].get("spec") or {})
    assert "node-taints-missing" not in [f["code"] for f in fixed["findings"]]
    again = owner.post(f"/api/scenarios/{imported['id']}/fixes/node-taints", content_type=JSON)
    assert again.status_code == 409


def finished_run(client: Client, scenario_id: int, mode: str = "timeline") -> dict:
    run = client.post(f"/api/scenarios/{scenario_id}/runs?mode={mode}").json()
    execute_run.apply(args=[run["id"]])
    return client.get(f"/api/runs/{run['id']}").json()


@pytest.mark.parametrize("mode", ["timeline", "single"])
def test_the_runs_timeline_has_the_recorded_answer_beside_the_replay(owner: Client, imported: dict, mode: str):
    owner.post(f"/api/scenarios/{imported['id']}/fixes/node-taints", content_type=JSON)
    run = finished_run(owner, imported["id"], mode)
    assert run["status"] == "succeeded", run
    story = owner.get(f"/api/runs/{run['id']}/timeline/summary").json()
    recorded = story["recorded"]
    assert (recorded["compared"], recorded["agree"]) == (2, 1)
    assert recorded["summary"] == "the replay agrees with your cluster on 1 of 2 pending pod(s)"
    rows = {row["pod"]: row for row in recorded["pods"]}
    assert rows["default/web-7f9c-a"]["agrees"] is True and rows["default/web-7f9c-a"]["causes"] == []
    assert (rows["default/web-7f9c-a"]["reason"], rows["default/web-7f9c-a"]["time"]) == (
        "Unschedulable",
        "2026-11-20T09:12:41Z",
    )
    assert rows["default/web-7f9c-b"]["agrees"] is False and rows["default/web-7f9c-b"]["replayedNode"] is None
    assert rows["default/web-7f9c-b"]["replayed"].startswith("0/2 nodes are available: 1 Insufficient cpu")
    assert any("controller-absent" in cause for cause in rows["default/web-7f9c-b"]["causes"])


def test_a_run_without_recorded_conditions_has_none(owner: Client, scenario: dict):
    run = finished_run(owner, scenario["id"])
    assert owner.get(f"/api/runs/{run['id']}/timeline/summary").json()["recorded"] is None


def test_why_here_reruns_a_running_pods_cycle_without_it(owner: Client, imported: dict):
    answer = owner.get(f"/api/scenarios/{imported['id']}/explain-pod?pod=kube-system/coredns-6d4b-x7k2p").json()
    assert answer["pod"] == "kube-system/coredns-6d4b-x7k2p" and answer["node"] == "worker-1"
    # worker-2 has no taint yet (the finding's fix is not applied) and more room: it would win now.
    assert (answer["outcome"], answer["chosen"], answer["ownNodeFits"]) == ("moves", "worker-2", True)
    assert answer["feasible"] == ["worker-1", "worker-2"] and answer["margin"] < 0
    assert "may have changed" in answer["caveats"][0] and answer["summary"].startswith(
        "kube-system/coredns-6d4b-x7k2p would go to worker-2"
    )


@pytest.mark.parametrize("pod, status", [("default/web-7f9c-a", 400), ("default/nobody", 404)])
def test_why_here_answers_only_for_a_bound_pod(owner: Client, imported: dict, pod: str, status: int):
    response = owner.get(f"/api/scenarios/{imported['id']}/explain-pod?pod={pod}")
    assert response.status_code == status, response.content


# --- Issue 5: malformed and adversarial scenarios at the API never get a 500, a traceback or a hang.
#
# Every answer is a 2xx JSON body or a 4xx JSON body with the one error shape. 320 examples in all
# (VALIDATE + CREATE + UPDATE + IMPORT_TEXT + IMPORT_FILE), derandomized so CI sees the same ones.


VALIDATE, CREATE, UPDATE, IMPORT_TEXT, IMPORT_FILE = 100, 70, 50, 50, 50
SECONDS_PER_CALL = 10  # generous: CI machines are shared; a hang is minutes
FUZZ = settings(
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

MARKUP = st.sampled_from(
    [
        "<script>alert(1)</script>",
        '"><img src=x onerror=alert(1)>',
        "{{7*7}}",
        "../../etc/passwd",
        "\u202e\u0000evil",
        "a" * 300,
    ]
)
NAMES = st.one_of(st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True), MARKUP, st.text(max_size=30))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    NAMES,
    st.sampled_from(["100m", "1e400", "-1", "1.5Gi", "12Qi", "0x10", "∞", "NaN", "9" * 40]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=20,
)
SELECTORS = st.fixed_dictionaries(
    {
        "matchLabels": st.dictionaries(NAMES, VALUES, max_size=3),
        "matchExpressions": st.lists(
            st.fixed_dictionaries(
                {
                    "key": VALUES,
                    "operator": st.sampled_from(["In", "NotIn", "Exists", "Gt", "Bogus", 7]),
                    "values": VALUES,
                }
            ),
            max_size=2,
        ),
    }
)


def kube_object(kind: str):
    metadata = st.fixed_dictionaries(
        {"name": NAMES}, optional={"namespace": NAMES, "labels": st.dictionaries(NAMES, VALUES, max_size=3)}
    )
    spec = st.fixed_dictionaries(
        {},
        optional={
            "nodeName": VALUES,
            "priority": VALUES,
            "containers": st.lists(
                st.fixed_dictionaries(
                    {"name": NAMES},
                    optional={
                        "resources": st.fixed_dictionaries(
                            {"requests": st.dictionaries(st.sampled_from(["cpu", "memory", "pods", "x/y"]), SCALARS)}
                        )
                    },
                ),
                max_size=2,
            )
            | VALUES,
            "affinity": st.fixed_dictionaries(
                {
                    "podAntiAffinity": st.fixed_dictionaries(
                        {
                            "requiredDuringSchedulingIgnoredDuringExecution": st.lists(
                                st.fixed_dictionaries({"labelSelector": SELECTORS, "topologyKey": VALUES}), max_size=2
                            )
                        }
                    )
                }
            )
            | VALUES,
            "topologySpreadConstraints": st.lists(
                st.fixed_dictionaries(
                    {"maxSkew": VALUES, "topologyKey": VALUES, "whenUnsatisfiable": VALUES, "labelSelector": SELECTORS}
                ),
                max_size=2,
            ),
            "taints": VALUES,
            "tolerations": VALUES,
        },
    )
    status = st.fixed_dictionaries(
        {},
        optional={
            "capacity": st.dictionaries(st.sampled_from(["cpu", "memory", "pods"]), SCALARS),
            "allocatable": VALUES,
        },
    )
    return st.fixed_dictionaries(
        {"kind": st.just(kind)},
        optional={"apiVersion": VALUES, "metadata": metadata | VALUES, "spec": spec, "status": status},
    )


DOCUMENTS = st.lists(st.one_of(kube_object("Node"), kube_object("Pod"), kube_object("List"), VALUES), max_size=4)
STRUCTURED = DOCUMENTS.map(lambda docs: yaml.safe_dump_all(docs, allow_unicode=True, sort_keys=False))


@st.composite
def adversarial(draw) -> str:
    n = draw(st.integers(min_value=1, max_value=20_000))
    return draw(
        st.sampled_from(
            [
                "[" * n + "]" * n,
                "a: " + "{b: " * n + "1" + "}" * n,
                "\n".join(f"{' ' * i}k{i}:" for i in range(min(n, 3000))) + " 1",
                'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
                + "".join(
                    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n"
                    for i in range(9)
                ),
                f"kind: Node\nmetadata: {{name: n}}\nstatus: {{capacity: {{cpu: '{'9' * min(n, 5000)}'}}}}\n",
                "kind: Node\nkind: Pod\nmetadata: {name: dup}\nmetadata: {name: dup2}\n",
                f"kind: Pod\nmetadata: {{name: p, labels: {{'a b': '{'<b>' * 10}'}}}}\nspec: {{containers: [{{name: c, resources: {{requests: {{cpu: 1x}}}}}}]}}\n",
                "---\n" * min(n, 5000),
                "kind: Node\nmetadata: {name: !!python/object/apply:os.system [echo pwned]}\n",
                "%YAML 9.9\n--- !<tag:evil> {}\n",
                "\t\x00\x1b[31m" * 10,
                "key: " + "x" * min(n * 50, 1_500_000),
            ]
        )
    )


TEXTS = st.one_of(STRUCTURED, adversarial(), st.text(max_size=300))


def assert_sane(response, started: float) -> dict:
    elapsed = time.monotonic() - started
    assert elapsed < SECONDS_PER_CALL, f"{elapsed:.1f}s"
    assert 200 <= response.status_code < 500, response.content[:500]
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert "Traceback" not in response.content.decode("utf-8", "replace")
    if response.status_code >= 400:
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
        assert isinstance(body["error"]["message"], str) and isinstance(body["error"]["details"], dict)
    return body


REFUSALS = ("limit_exceeded", "bad_request", "invalid_request")
# An upload that is (or looks like) an archive is read by the engine: what does not load is refused
# with its located problems.
UPLOAD_REFUSALS = (*REFUSALS, "scenario_invalid")


def assert_saved_or_refused(response, started: float, refusals: tuple[str, ...] = REFUSALS) -> None:
    body = assert_sane(response, started)
    if response.status_code < 300:  # a saved version, valid or not, with every problem listed
        assert body["valid"] is (not body["errors"]) and isinstance(body["version"], int)
    else:
        assert body["error"]["code"] in refusals


@settings(FUZZ, max_examples=VALIDATE)
@given(text=TEXTS)
def test_validate_answers_every_text_with_problems_or_a_limit(owner: Client, text: str):
    started = time.monotonic()
    body = assert_sane(owner.post("/api/validate", {"text": text}, content_type=JSON), started)
    if "valid" in body:
        assert body["valid"] is (not body["errors"]) and all(
            e["code"] in ("invalid", "limit_exceeded") for e in body["errors"]
        )


@settings(FUZZ, max_examples=CREATE)
@given(name=NAMES, text=TEXTS, description=st.one_of(st.text(max_size=50), MARKUP))
def test_create_saves_or_refuses_every_text(owner: Client, name: str, text: str, description: str):
    started = time.monotonic()
    response = owner.post("/api/scenarios", {"name": name, "text": text, "description": description}, content_type=JSON)
    assert_saved_or_refused(response, started)


@settings(FUZZ, max_examples=UPDATE)
@given(body=st.one_of(st.fixed_dictionaries({"text": TEXTS}, optional={"name": NAMES}), VALUES))
def test_update_saves_or_refuses_every_body(owner: Client, scenario: dict, body):
    started = time.monotonic()
    response = owner.put(f"/api/scenarios/{scenario['id']}", json.dumps(body), content_type=JSON)
    assert_saved_or_refused(response, started)


@settings(FUZZ, max_examples=IMPORT_TEXT)
@given(name=NAMES, text=TEXTS)
def test_import_saves_or_refuses_every_pasted_text(owner: Client, name: str, text: str):
    started = time.monotonic()
    assert_saved_or_refused(owner.post("/api/scenarios/import", {"name": name, "text": text}), started)


@settings(FUZZ, max_examples=IMPORT_FILE)
@given(
    raw=st.one_of(
        st.binary(max_size=300),
        TEXTS.map(lambda t: t.encode("utf-8", "surrogatepass")),
        st.just(b"kind: Node\n\xff\xfe\x80"),
    )
)
def test_import_saves_or_refuses_every_uploaded_file(owner: Client, raw: bytes, tmp_path_factory):
    path = tmp_path_factory.mktemp("upload") / "scenario.yaml"
    path.write_bytes(raw)
    started = time.monotonic()
    with path.open("rb") as handle:
        assert_saved_or_refused(owner.post("/api/scenarios/import", {"file": handle}), started, UPLOAD_REFUSALS)


MEMBER_NAMES = st.sampled_from(
    [
        "dump/nodes.json",
        "dump/ns/pods.json",
        "../escape.yaml",
        "/abs/nodes.json",
        "dump/a b.yaml",
        "dump/logs.txt",
        "dump/\u202epods.json",
        "dump/pods/x.yaml",
    ]
)
MEMBERS = st.lists(
    st.tuples(
        MEMBER_NAMES, st.one_of(TEXTS.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=200))
    ),
    max_size=4,
    unique_by=lambda member: member[0],
)


def _packed(members: list[tuple[str, bytes]], kind: str) -> bytes:
    import io
    import tarfile
    import zipfile

    buffer = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, data in members:
                archive.writestr(name, data)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@settings(FUZZ, max_examples=IMPORT_FILE)
@given(
    members=MEMBERS,
    kind=st.sampled_from(["tar.gz", "zip"]),
    cut=st.one_of(st.none(), st.integers(min_value=0, max_value=400)),
)
def test_import_saves_or_refuses_every_uploaded_archive(owner: Client, members, kind: str, cut):
    """Archives with any members (escaping paths, binary, broken YAML), whole or cut short: saved, or
    refused with the located problems (400 scenario_invalid) or a named limit; never a 500."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    raw = _packed(members, kind)
    upload = SimpleUploadedFile(f"dump.{kind}", raw if cut is None else raw[:cut])
    started = time.monotonic()
    response = owner.post(
        "/api/scenarios/import",
        {"file": [upload, SimpleUploadedFile("extra.yaml", b"kind: Namespace\nmetadata: {name: x}\napiVersion: v1\n")]},
    )
    assert_saved_or_refused(response, started, UPLOAD_REFUSALS)


def test_a_list_whose_items_share_yaml_anchors_imports_as_typed_and_runs_as_the_cli_reads_it(owner: Client, capsys):
    """PyYAML writes a List whose items share a value with `&id001` in one item and `*id001` in the
    others: cut into one document per item, those aliases would point into other documents (the
    scenario no longer loads). The import keeps such a List as typed; a run answers as the CLI."""
    from scheduler_core.cli import main

    path = support.REPO / "tests" / "fixtures" / "webui_import" / "anchored-list.yaml"
    upload = SimpleUploadedFile("anchored.yaml", path.read_bytes(), content_type="application/yaml")
    body = owner.post("/api/scenarios/import", {"file": upload}).json()
    assert (body["text"], body["valid"], body["errors"]) == (path.read_text(), True, [])
    capsys.readouterr()
    assert main(["trace", str(path), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    run = finished_run(owner, body["id"], "single")
    assert run["status"] == "succeeded", run
    response = owner.get(f"/api/runs/{run['id']}/trace")  # streamed, cycle by cycle
    trace = json.loads(b"".join(response.streaming_content))
    assert [(c["pod"], c["nodeName"]) for c in trace["cycles"]] == [
        (c["pod"], c["nodeName"]) for c in expected["cycles"]
    ]
    assert [c["nodeName"] for c in trace["cycles"]].count(None) == 1  # 6 of 7 pods fit: the same one waits
    saved = owner.put(f"/api/scenarios/{body['id']}", {"text": body["text"]}, content_type=JSON).json()
    assert (saved["text"], saved["valid"]) == (path.read_text(), True)  # saved as it was read
    assert main(["timeline", str(path), "--json"]) == 0
    expected_final = json.loads(capsys.readouterr().out)["final"]
    run = finished_run(owner, body["id"], "timeline")
    assert run["status"] == "succeeded", run
    story = json.loads(b"".join(owner.get(f"/api/runs/{run['id']}/timeline").streaming_content))
    assert story["final"] == expected_final


MISSING_CLAIM = """apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: default}
spec:
  containers: [{name: c, image: x}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
"""
FETCHED_CLAIM = """apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
"""


def test_what_the_findings_fetch_is_added_to_the_scenario_as_its_next_version(owner: Client):
    """'Fetch everything the dump lacks' gave kubectl lines and no way to add what they wrote (issue 51)."""
    created = owner.post("/api/scenarios", {"name": "db", "text": MISSING_CLAIM}, content_type=JSON).json()
    assert "claims-absent" in [f["code"] for f in created["findings"]]
    upload = SimpleUploadedFile("pvc.yaml", FETCHED_CLAIM.encode(), content_type="application/yaml")
    response = owner.post(f"/api/scenarios/{created['id']}/files", {"file": upload})
    assert response.status_code == 201, response.json()
    added = response.json()
    assert (added["id"], added["version"]) == (created["id"], 2)
    assert added["text"].startswith(MISSING_CLAIM.rstrip("\n") + "\n---\n# added from pvc.yaml\n")
    assert "kind: PersistentVolumeClaim" in added["text"]
    assert "claims-absent" not in [f["code"] for f in added["findings"]]


def test_fetched_files_that_do_not_read_are_refused_and_nothing_is_saved(owner: Client):
    created = owner.post("/api/scenarios", {"name": "db", "text": MISSING_CLAIM}, content_type=JSON).json()
    bad = SimpleUploadedFile("a.yaml", b"kind: [unclosed", content_type="application/yaml")
    archive = SimpleUploadedFile("b.yaml", FETCHED_CLAIM.encode(), content_type="application/yaml")
    response = owner.post(f"/api/scenarios/{created['id']}/files", {"file": [bad, archive]})
    assert response.status_code == 400 and response.json()["error"]["code"] == "scenario_invalid"
    assert [v["number"] for v in owner.get(f"/api/scenarios/{created['id']}/versions").json()] == [1]


def test_fetched_files_added_to_a_demo_go_to_your_own_copy(owner: Client):
    from django.core.management import call_command

    call_command("load_demos", stdout=None)
    demo = Scenario.objects.get(demo_slug="seed_pts_conflict")
    upload = SimpleUploadedFile("pvc.yaml", FETCHED_CLAIM.encode(), content_type="application/yaml")
    added = owner.post(f"/api/scenarios/{demo.pk}/files", {"file": upload}).json()
    assert added["id"] != demo.pk and added["owned"] is True and "fetched files added" in added["name"]


# --- editing a big scenario object by object (issue 50, item 3): /documents, the editor's modes.


@pytest.fixture
def objects_mode(settings, scenario: dict, monkeypatch) -> dict:
    """The small scenario over a test threshold: in objects mode; the versions whose whole check is
    asked of a long-work worker are recorded (the test client runs each request's on-commit hooks)."""
    settings.SCHEDLAB_EDITOR_MAX_BYTES = len(scenario["text"]) // 2
    started: list[int] = []
    monkeypatch.setattr(documents, "_send_check", started.append)
    return {**scenario, "checks": started}


def test_a_scenario_over_the_editor_limit_is_answered_without_its_text(
    owner: Client, objects_mode: dict, django_capture_on_commit_callbacks
):
    body = owner.get(f"/api/scenarios/{objects_mode['id']}").json()
    assert (body["mode"], body["text"], body["size"]) == ("objects", None, len(objects_mode["text"]))
    assert body["editorMaxBytes"] == len(objects_mode["text"]) // 2
    assert body["checked"] is True  # its check is known here (made when it was created)
    engine.forget_everything()
    with django_capture_on_commit_callbacks(execute=True):
        unknown = owner.get(f"/api/scenarios/{objects_mode['id']}").json()
    assert (unknown["checked"], len(objects_mode["checks"])) == (False, 1)  # asked of a worker, not waited for
    documents.run_check(objects_mode["checks"][0])  # the worker's work
    engine.forget_everything()
    assert owner.get(f"/api/scenarios/{objects_mode['id']}").json()["summary"]["nodes"] == 3


def test_a_scenario_under_it_keeps_its_text(owner: Client, scenario: dict):
    body = owner.get(f"/api/scenarios/{scenario['id']}").json()
    assert (body["mode"], body["text"]) == ("text", scenario["text"])


def test_the_objects_are_listed_a_page_at_a_time_filtered_and_counted(owner: Client, objects_mode: dict):
    path = f"/api/scenarios/{objects_mode['id']}/documents"
    body = owner.get(path).json()
    assert (body["version"], body["mode"], body["total"], body["counts"]) == (1, "objects", 6, {"Node": 3, "Pod": 3})
    assert body["documents"][0] == {
        "index": 0,
        "kind": "Node",
        "namespace": "",
        "name": "node-0",
        "line": 1,
        "size": len(support.node_yaml("node-0", "zone-0")),
    }
    pods = owner.get(f"{path}?kind=Pod&limit=2&offset=1").json()
    assert (pods["matched"], [d["name"] for d in pods["documents"]]) == (3, ["pending-0", "pending-1"])
    assert [d["index"] for d in owner.get(f"{path}?search=DEFAULT/PENDING-1").json()["documents"]] == [5]
    assert owner.get(f"{path}?limit=501").status_code == 422


def test_one_object_is_read_replaced_deleted_and_added_each_a_new_version(
    owner: Client, objects_mode: dict, django_capture_on_commit_callbacks
):
    path = f"/api/scenarios/{objects_mode['id']}/documents"
    pod = owner.get(f"{path}/4").json()
    assert (pod["kind"], pod["name"], pod["version"]) == ("Pod", "pending-0", 1)
    original = objects_mode["text"]
    assert original.endswith(pod["text"]) is False and pod["text"] in original
    with django_capture_on_commit_callbacks(execute=True):
        replaced = owner.put(
            f"{path}/4", {"text": pod["text"].replace("100m", "300m"), "version": 1}, content_type=JSON
        )
    assert replaced.status_code == 200, replaced.content
    body = replaced.json()
    assert (body["version"], body["mode"], body["text"], body["checked"]) == (2, "objects", None, False)
    assert owner.get(f"/api/scenarios/{objects_mode['id']}/versions/2").json()["text"] == original.replace(
        pod["text"], pod["text"].replace("100m", "300m")
    )
    deleted = owner.delete(f"{path}/0?version=2")
    assert deleted.json()["version"] == 3
    added = owner.post(path, {"text": support.node_yaml("node-9", "zone-0")}, content_type=JSON)
    assert (added.status_code, added.json()["version"]) == (201, 4)
    names = [d["name"] for d in owner.get(path).json()["documents"]]
    assert names == ["node-1", "node-2", "running-0", "pending-0", "pending-1", "node-9"]
    assert objects_mode["checks"] == [ScenarioVersion.objects.get(scenario_id=objects_mode["id"], number=2).pk]


def test_a_bad_object_is_a_400_naming_the_object_field_and_line(owner: Client, objects_mode: dict):
    path = f"/api/scenarios/{objects_mode['id']}/documents"
    pod = owner.get(f"{path}/4").json()
    response = owner.put(f"{path}/4", {"text": pod["text"].replace("100m", "lots")}, content_type=JSON)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "scenario_invalid"
    [problem] = error["details"]["errors"]
    assert (problem["object"], problem["path"]) == (
        "Pod default/pending-0",
        "spec.containers[0].resources.requests.cpu",
    )
    assert objects_mode["text"].splitlines()[problem["line"] - 1].strip().startswith("resources:")
    assert owner.get(f"/api/scenarios/{objects_mode['id']}").json()["version"] == 1
    stale = owner.delete(f"{path}/0?version=7")
    assert (stale.status_code, stale.json()["error"]["code"]) == (409, "conflict")
    assert owner.get(f"{path}/6").status_code == 404


def test_a_share_link_reads_the_objects_but_never_edits_them_and_others_see_nothing(
    owner: Client, stranger: Client, objects_mode: dict
):
    path = f"/api/scenarios/{objects_mode['id']}/documents"
    token = owner.post(f"/api/scenarios/{objects_mode['id']}/share", {}, content_type=JSON).json()["token"]
    shared = {"HTTP_X_SHARE_TOKEN": token}
    assert stranger.get(path, **shared).json()["total"] == 6
    assert stranger.get(f"{path}/0", **shared).json()["name"] == "node-0"
    for response in (
        stranger.put(f"{path}/0", {"text": "kind: Node\n"}, content_type=JSON, **shared),
        stranger.delete(f"{path}/0", **shared),
        stranger.post(path, {"text": "kind: Node\n"}, content_type=JSON, **shared),
    ):
        assert (response.status_code, response.json()["error"]["code"]) == (403, "share_read_only")
    for response in (
        stranger.get(path),
        stranger.get(f"{path}/0"),
        stranger.put(f"{path}/0", {"text": "kind: Node\n"}, content_type=JSON),
        stranger.delete(f"{path}/0"),
        stranger.post(path, {"text": "kind: Node\n"}, content_type=JSON),
    ):
        assert response.status_code == 404
    assert owner.get(f"/api/scenarios/{objects_mode['id']}").json()["version"] == 1
