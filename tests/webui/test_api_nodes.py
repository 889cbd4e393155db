"""GET /api/scenarios/{id}/nodes: the nodes' names and labels only (what the run view groups by);
the large prebuilt answers (/nodes, /objects, /events?cycle=) gzipped; versions warmed in the background."""

import gzip
import json

import pytest
from django.test import Client

from webui import api
from webui.models import ScenarioVersion
from webui.services import objects

pytestmark = pytest.mark.django_db
JSON = "application/json"


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


def test_it_is_readable_with_a_share_token_only_for_the_shared_version(owner: Client, stranger: Client, scenario: dict):
    assert stranger.get(f"/api/scenarios/{scenario['id']}/nodes").status_code == 404
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {}, content_type=JSON).json()["token"]
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": scenario["text"]}, content_type=JSON)
    headers = {"X-Share-Token": token}
    assert stranger.get(f"/api/scenarios/{scenario['id']}/nodes", headers=headers).json()["version"] == 1
    assert stranger.get(f"/api/scenarios/{scenario['id']}/nodes?version=2", headers=headers).status_code == 404


def test_large_answers_are_gzipped_for_clients_that_accept_it(owner: Client, scenario: dict, monkeypatch):
    monkeypatch.setattr(api, "GZIP_MIN_BYTES", 10)
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
