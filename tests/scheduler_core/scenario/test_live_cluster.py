"""`python -m scheduler_core snapshot` against a fake API server answering as a real one does.

The answers have the API server's shape (XxxList with metadata.continue paging, items without
apiVersion/kind, managedFields, a 404 for a kind the cluster does not serve, a 403 for one the user
may not list); the test checks what is asked for (never a Secret; pods as the scheduler lists them),
what is written, and that the loader schedules the file it wrote.
"""

from __future__ import annotations

import http.server
import json
import threading
import urllib.parse
from pathlib import Path

import pytest

from scheduler_core.scenario import live_cluster as snapshot
from scheduler_core.cli import main
from scheduler_core.scenario import load_scenario
from scheduler_core.release.choice import ReleaseRequest
from scheduler_core.release.versions import release_named

TOKEN = "recorded-token"
MANAGED = [
    {
        "manager": "kubelet",
        "operation": "Update",
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:status": {}},
    }
]


def node(name: str, zone: str) -> dict:
    return {
        "metadata": {
            "name": name,
            "uid": f"uid-{name}",
            "resourceVersion": "101",
            "managedFields": MANAGED,
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone},
        },
        "spec": {"podCIDR": "10.244.0.0/24"},
        "status": {
            "allocatable": {"cpu": "2", "memory": "8Gi", "pods": "110"},
            "capacity": {"cpu": "2", "memory": "8Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod(name: str, node_name: str = "", priority_class: str = "", cpu: str = "500m") -> dict:
    spec: dict = {
        "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10", "resources": {"requests": {"cpu": cpu}}}],
        "schedulerName": "default-scheduler",
    }
    if node_name:
        spec["nodeName"] = node_name
    if priority_class:
        spec["priorityClassName"] = priority_class
    return {
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "managedFields": MANAGED,
            "annotations": {snapshot.LAST_APPLIED: "{...}", "team": "web"},
        },
        "spec": spec,
        "status": {"phase": "Running" if node_name else "Pending"},
    }


def answer(kind: str, items: list, token: str = "") -> dict:
    return {
        "kind": f"{kind}List",
        "apiVersion": "v1",
        "metadata": {"resourceVersion": "555", **({"continue": token} if token else {})},
        "items": items,
    }


# path -> pages (the second page is asked for with ?continue=page-2)
ANSWERS = {
    "/api/v1/namespaces": [answer("Namespace", [{"metadata": {"name": "default"}}])],
    "/api/v1/nodes": [answer("Node", [node("node-a", "z1"), node("node-b", "z2")])],
    "/apis/scheduling.k8s.io/v1/priorityclasses": [
        answer(
            "PriorityClass", [{"metadata": {"name": "high"}, "value": 1000, "preemptionPolicy": "PreemptLowerPriority"}]
        )
    ],
    "/api/v1/pods": [
        answer("Pod", [pod("running-1", "node-a", cpu="1500m")], token="page-2"),
        answer("Pod", [pod("pending-1", priority_class="high")]),
    ],
    "/apis/resource.k8s.io/v1/deviceclasses": [
        answer(
            "DeviceClass",
            [
                {
                    "metadata": {"name": "gpu"},
                    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]},
                }
            ],
        )
    ],
    "/apis/resource.k8s.io/v1/resourceslices": [
        answer(
            "ResourceSlice",
            [
                {
                    "metadata": {"name": "node-a-gpu"},
                    "spec": {
                        "driver": "gpu.example.com",
                        "nodeName": "node-a",
                        "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "gpu-0"}],
                    },
                }
            ],
        )
    ],
}
NOT_SERVED = {"/apis/storage.k8s.io/v1/csistoragecapacities": 404, "/apis/storage.k8s.io/v1/volumeattachments": 403}


class FakeApiServer(http.server.BaseHTTPRequestHandler):
    requests: list = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        FakeApiServer.requests.append((url.path, query, self.headers.get("Authorization")))
        if self.headers.get("Authorization") != f"Bearer {TOKEN}":
            return self._send(401, {"kind": "Status", "code": 401, "reason": "Unauthorized"})
        if url.path in NOT_SERVED:
            code = NOT_SERVED[url.path]
            return self._send(
                code, {"kind": "Status", "code": code, "reason": "NotFound" if code == 404 else "Forbidden"}
            )
        pages = ANSWERS.get(url.path, [answer("Empty", [])])
        page = 1 if query.get("continue") == "page-2" else 0
        self._send(200, pages[page])

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def kubeconfig(tmp_path: Path):
    pytest.importorskip("kubernetes")  # the [snapshot] extra; the test extra installs it
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeApiServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    FakeApiServer.requests = []
    path = tmp_path / "kubeconfig"
    path.write_text(f"""apiVersion: v1
kind: Config
clusters:
- name: recorded
  cluster: {{server: "http://127.0.0.1:{server.server_port}"}}
users:
- name: me
  user: {{token: {TOKEN}}}
contexts:
- name: recorded
  context: {{cluster: recorded, user: me}}
current-context: recorded
""")
    yield path
    server.shutdown()


def test_it_writes_a_scenario_the_loader_schedules(kubeconfig: Path, tmp_path: Path, capsys):
    out = tmp_path / "cluster.yaml"
    assert main(["snapshot", "--kubeconfig", str(kubeconfig), "-o", str(out)]) == 0
    scenario = load_scenario(out.read_bytes())
    assert [n.name for n in scenario.nodes] == ["node-a", "node-b"]
    assert [p.key for p in scenario.running_pods] == ["default/running-1"]
    [pending] = scenario.pending_pods
    assert pending.key == "default/pending-1" and pending.priority == 1000  # resolved through the PriorityClass
    stderr = capsys.readouterr().err
    assert "2 Node" in stderr and "not read: CSIStorageCapacity (HTTP 404 Not Found)" in stderr


def test_it_asks_only_for_what_the_scheduler_reads_as_the_scheduler_asks(kubeconfig: Path, tmp_path: Path):
    main(["snapshot", "--kubeconfig", str(kubeconfig), "-o", str(tmp_path / "c.yaml")])
    paths = [path for path, _, _ in FakeApiServer.requests]
    assert not any(word in path for path in paths for word in ("secrets", "configmaps", "events"))
    assert {path for path in paths} == {r.path for r in snapshot.RESOURCES}
    pods = [query for path, query, _ in FakeApiServer.requests if path == "/api/v1/pods"]
    assert [q.get("continue") for q in pods] == [None, "page-2"]  # paged to the end
    assert all(q["fieldSelector"] == snapshot.UNFINISHED_PODS and q["limit"] == "500" for q in pods)
    assert {auth for _, _, auth in FakeApiServer.requests} == {f"Bearer {TOKEN}"}


def test_it_reads_the_dynamic_resource_allocation_kinds(kubeconfig: Path, tmp_path: Path):
    out = tmp_path / "c.yaml"
    main(["snapshot", "--kubeconfig", str(kubeconfig), "-o", str(out)])
    dra = load_scenario(out.read_bytes()).dra
    assert [c.name for c in dra.classes] == ["gpu"]
    assert [(s.name, s.node_name, [d.name for d in s.devices]) for s in dra.slices] == [
        ("node-a-gpu", "node-a", ["gpu-0"])
    ]


def test_a_cluster_without_resource_k8s_io_v1_is_read_in_the_newest_version_it_serves(
    kubeconfig: Path, tmp_path: Path, monkeypatch
):
    # v1.32 serves resource.k8s.io/v1beta1 only (v1.33 v1beta2 too): each kind is asked for in v1,
    # then v1beta2, then v1beta1, and written with the version it came in.
    plurals = ("deviceclasses", "resourceslices", "resourceclaimtemplates", "resourceclaims")
    for plural in plurals:
        for version in ("v1", "v1beta2"):
            monkeypatch.setitem(NOT_SERVED, f"/apis/resource.k8s.io/{version}/{plural}", 404)
    classes = ANSWERS["/apis/resource.k8s.io/v1/deviceclasses"]
    monkeypatch.setitem(ANSWERS, "/apis/resource.k8s.io/v1beta1/deviceclasses", classes)
    out = tmp_path / "c.yaml"
    main(["snapshot", "--kubeconfig", str(kubeconfig), "-o", str(out)])
    asked = [path for path, _, _ in FakeApiServer.requests if "resource.k8s.io" in path]
    assert asked == [f"/apis/resource.k8s.io/{v}/{p}" for p in plurals for v in ("v1", "v1beta2", "v1beta1")]
    text = out.read_text()
    assert "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass" in text and "Not read: DeviceClass" not in text
    scenario = load_scenario(
        out.read_bytes(), release=ReleaseRequest(release_named("v1.32"), {"DynamicResourceAllocation": True})
    )
    assert [c.name for c in scenario.dra.classes] == ["gpu"]


def test_it_leaves_out_server_bookkeeping_and_says_what_it_did_not_read(kubeconfig: Path, tmp_path: Path):
    out = tmp_path / "c.yaml"
    main(["snapshot", "--kubeconfig", str(kubeconfig), "-o", str(out)])
    text = out.read_text()
    assert "managedFields" not in text and snapshot.LAST_APPLIED not in text and "team: web" in text
    assert "# Not read: VolumeAttachment (HTTP 403 Forbidden)." in text
    assert text.splitlines()[1].startswith("# Read: 1 Namespace, 2 Node, 1 PriorityClass")


def test_it_says_clearly_when_the_kubeconfig_is_unusable(tmp_path: Path, capsys):
    pytest.importorskip("kubernetes")
    missing = tmp_path / "nope"
    assert main(["snapshot", "--kubeconfig", str(missing)]) == 2
    assert capsys.readouterr().err.startswith("error: cannot use the kubeconfig")


def test_it_says_clearly_when_the_credentials_are_refused(kubeconfig: Path, capsys):
    kubeconfig.write_text(kubeconfig.read_text().replace(TOKEN, "wrong"))
    assert main(["snapshot", "--kubeconfig", str(kubeconfig)]) == 2
    assert "refused the credentials" in capsys.readouterr().err
