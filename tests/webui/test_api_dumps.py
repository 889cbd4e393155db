"""A real cluster's dump through the API, before and after the run: files and archives imported as one
scenario text, the check's counts, notices and findings (the same as `check --json`), the node taints
added in one click, the recorded answer beside the replay, and "Why here?" for a running pod."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.webui import support
from webui.tasks import execute_run

JSON = "application/json"


def _import(client: Client, *files: tuple[str, bytes], **fields) -> object:
    uploads = [SimpleUploadedFile(name, data) for name, data in files]
    return client.post("/api/scenarios/import", {"file": uploads, **fields})


@pytest.fixture
def imported(owner: Client) -> dict:
    """The dump's scenario, saved as its import saves it (the import itself is tested above)."""
    response = owner.post("/api/scenarios", {"name": "cluster-info", "text": support.dump_as_stream()}, content_type=JSON)
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
    files = [(name.rsplit("/", 1)[-1] if name.endswith("nodes.json") else name.replace("/", "-"), data)
             for name, data in support.dump_files() if name.endswith("pods.json") or name.endswith("nodes.json")]
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
    data = (support.REPO / "tests" / "fixtures" / "dumps" / "forms" / "troubleshoot" / "cluster-resources" / "nodes.json").read_bytes()
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
    from scheduler_core.check import check_scenario

    report = check_scenario(load_scenario(imported["text"])).to_json()
    validated = owner.post("/api/validate", {"text": imported["text"]}, content_type=JSON).json()
    for answer in (imported, validated):
        assert answer["objects"] == report["objects"] and answer["objects"]["Node"] == 2
        assert answer["notices"] == report["notices"] and answer["fetch"] == report["fetch"]
        assert [f["code"] for f in answer["findings"]] == [f["code"] for f in report["findings"]]
    codes = {f["code"]: f for f in imported["findings"]}
    assert codes["node-taints-missing"]["action"] == "add-node-taints" and "Node worker-2" in codes["node-taints-missing"]["objects"]
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
    assert nodes["worker-2"]["spec"]["taints"] == [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"},
                                                   {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]
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
    story = owner.get(f"/api/runs/{run['id']}/timeline").json()
    recorded = story["recorded"]
    assert (recorded["compared"], recorded["agree"]) == (2, 1)
    assert recorded["summary"] == "the replay agrees with your cluster on 1 of 2 pending pod(s)"
    rows = {row["pod"]: row for row in recorded["pods"]}
    assert rows["default/web-7f9c-a"]["agrees"] is True and rows["default/web-7f9c-a"]["causes"] == []
    assert (rows["default/web-7f9c-a"]["reason"], rows["default/web-7f9c-a"]["time"]) == ("Unschedulable", "2026-11-20T09:12:41Z")
    assert rows["default/web-7f9c-b"]["agrees"] is False and rows["default/web-7f9c-b"]["replayedNode"] is None
    assert rows["default/web-7f9c-b"]["replayed"].startswith("0/2 nodes are available: 1 Insufficient cpu")
    assert any("controller-absent" in cause for cause in rows["default/web-7f9c-b"]["causes"])


def test_a_run_without_recorded_conditions_has_none(owner: Client, scenario: dict):
    run = finished_run(owner, scenario["id"])
    assert owner.get(f"/api/runs/{run['id']}/timeline").json()["recorded"] is None


def test_why_here_reruns_a_running_pods_cycle_without_it(owner: Client, imported: dict):
    answer = owner.get(f"/api/scenarios/{imported['id']}/explain-pod?pod=kube-system/coredns-6d4b-x7k2p").json()
    assert answer["pod"] == "kube-system/coredns-6d4b-x7k2p" and answer["node"] == "worker-1"
    # worker-2 has no taint yet (the finding's fix is not applied) and more room: it would win now.
    assert (answer["outcome"], answer["chosen"], answer["ownNodeFits"]) == ("moves", "worker-2", True)
    assert answer["feasible"] == ["worker-1", "worker-2"] and answer["margin"] < 0
    assert "may have changed" in answer["caveats"][0] and answer["summary"].startswith("kube-system/coredns-6d4b-x7k2p would go to worker-2")


@pytest.mark.parametrize("pod, status", [("default/web-7f9c-a", 400), ("default/nobody", 404)])
def test_why_here_answers_only_for_a_bound_pod(owner: Client, imported: dict, pod: str, status: int):
    response = owner.get(f"/api/scenarios/{imported['id']}/explain-pod?pod={pod}")
    assert response.status_code == status, response.content
