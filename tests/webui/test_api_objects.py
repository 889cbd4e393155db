"""GET /api/scenarios/{id}/objects: nodes and pods as the engine reads them."""

import pytest
from django.test import Client

from webui.services.objects import quantity_text

pytestmark = pytest.mark.django_db
JSON = "application/json"


def test_it_lists_nodes_and_pods_with_the_engines_amounts(owner: Client, scenario: dict):
    body = owner.get(f"/api/scenarios/{scenario['id']}/objects").json()
    assert body["version"] == 1
    node = body["nodes"][0]
    assert (node["name"], node["labels"]["zone"], node["taints"], node["unschedulable"]) == ("node-0", "zone-0", [], False)
    assert node["allocatable"]["cpu"] == 8000 and node["allocatableText"] == {"cpu": "8", "memory": "16Gi", "pods": "110"}
    running, *pending = body["pods"]
    assert (running["name"], running["nodeName"], running["pending"]) == ("running-0", "node-0", False)
    assert running["requests"] == {"cpu": 100, "memory": 64 * 1024 * 1024}
    assert running["requestsText"] == {"cpu": "100m", "memory": "64Mi"}
    assert [(p["name"], p["nodeName"], p["pending"], p["priority"]) for p in pending] == [("pending-0", None, True, 0), ("pending-1", None, True, 0)]


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
    [("cpu", 1500, "1500m"), ("cpu", 2000, "2"), ("memory", 3 << 30, "3Gi"), ("memory", 1000, "1000"), ("pods", 110, "110"), ("memory", 0, "0")],
    ids=["millicores", "whole cores", "gibibytes", "odd bytes", "counts", "zero"],
)
def test_it_writes_amounts_as_kubernetes_quantities(resource: str, amount: int, text: str):
    assert quantity_text(resource, amount) == text


def test_it_lists_persistent_volumes_with_the_domains_they_can_be_used_in(owner: Client):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "fixtures" / "statefulset_ebs.yaml").read_text()
    created = owner.post("/api/scenarios", {"name": "sts", "text": text}, content_type=JSON).json()
    volumes = {v["name"]: v for v in owner.get(f"/api/scenarios/{created['id']}/objects").json()["volumes"]}
    web2 = volumes["pvc-c5e7a9b1-3d4f-4c8e-a5e7-9b1d3f5a7c9e"]
    assert (web2["claim"], web2["phase"], web2["storageClass"]) == ("shop/data-web-2", "Bound", "gp2")
    assert web2["domains"]["topology.kubernetes.io/zone"] == ["us-east-1c"]


def test_it_lists_dra_devices_per_node_and_each_pods_claims(owner: Client):
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "fixtures" / "dra" / "pending_gpu.yaml").read_text()
    created = owner.post("/api/scenarios", {"name": "gpu", "text": text}, content_type=JSON).json()
    body = owner.get(f"/api/scenarios/{created['id']}/objects").json()
    node_1, node_2 = body["devices"]
    assert (node_1["node"], node_1["free"], node_2["free"]) == ("node-1", 1, 1)
    held = node_1["devices"][0]
    assert (held["name"], held["claim"], held["reservedFor"], held["inFlight"]) == ("gpu-0", "default/train-1-gpu", ["train-1"], False)
    assert held["classes"] == ["gpu.example.com", "gpu-small.example.com"]
    pods = {p["name"]: p for p in body["pods"]}
    assert pods["train-2"]["claims"] == [{"podClaim": "gpu", "claim": "default/train-2-gpu", "requests": ["gpu: 2 x gpu.example.com"],
                                          "devices": [], "reservedFor": []}]
    assert pods["train-1"]["claims"][0]["devices"] == ["gpu.example.com/node-1/gpu-0"]
