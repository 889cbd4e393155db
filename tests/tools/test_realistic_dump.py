"""tools/realistic_dump.py: writes the fixture tests/fixtures/dumps/istio_nodelocaldns_10.yaml byte for
byte (the same arguments, the same bytes), as kubectl's YAML and as its JSON, and the dump is what the
envelope copies: N copies are N times the nodes, pods and pending pods."""

from __future__ import annotations

import importlib.util
import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import yaml

from scheduler_core import load_scenario

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "dumps" / "istio_nodelocaldns_10.yaml"


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


realistic_dump = _tool("realistic_dump")


def _written(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert realistic_dump.main(list(argv)) == 0
    return out.getvalue()


def test_the_fixture_is_what_the_generator_writes():
    assert _written() == FIXTURE.read_text()


def test_json_is_the_same_list_as_the_yaml():
    as_json = json.loads(_written("--json"))
    assert as_json["kind"] == "List" and as_json["apiVersion"] == "v1"
    assert as_json == yaml.safe_load(FIXTURE.read_text())


def test_the_yaml_has_no_anchors_and_kubectls_bookkeeping():
    text = FIXTURE.read_text()
    assert "&id" not in text and "*id" not in text  # kubectl writes no YAML aliases
    items = yaml.safe_load(text)["items"]
    kinds = {item["kind"] for item in items}
    assert {"Node", "Pod", "ReplicaSet", "Deployment", "PodDisruptionBudget", "PersistentVolume"} <= kinds
    assert any("managedFields" in item["metadata"] for item in items if item["kind"] == "Pod")
    assert all(item["metadata"].get("uid") for item in items if item["kind"] != "List")
    owned = [item for item in items if item["kind"] == "Pod" and item["metadata"]["name"].startswith("payments-")]
    assert {ref["kind"] for item in owned for ref in item["metadata"]["ownerReferences"]} == {"ReplicaSet"}


def test_copies_of_the_dump_are_one_cluster_that_many_times_as_big():
    envelope_dump = _tool("envelope_dump")
    out = io.StringIO()
    envelope_dump.write(envelope_dump.envelope(list(envelope_dump.documents([FIXTURE])), 3), False, out)
    one, three = load_scenario(FIXTURE.read_bytes()), load_scenario(out.getvalue())
    assert (len(three.nodes), len(three.running_pods), len(three.pending_pods)) == (30, 210, 30)
    assert len(one.pending_pods) == 10


def test_dense_is_the_envelopes_thirty_pods_a_node_and_still_a_real_dump():
    text = _written("--dense")
    assert _written("--dense") == text  # the same arguments, the same bytes
    scenario = load_scenario(text)
    fixture = load_scenario(FIXTURE.read_bytes())
    pods = len(scenario.running_pods) + len(scenario.pending_pods) + 1  # the finished backup pod
    assert (len(scenario.nodes), pods) == (10, 300)  # 500 copies: Kubernetes' 5,000 nodes and 150,000 pods
    assert len(scenario.pending_pods) == len(fixture.pending_pods) + 1  # the scaled-up service's replica
    assert "11 of its 300 pods are Pending" in text.splitlines()[4]
    fixture_names = {pod.name for pod in fixture.running_pods}
    assert fixture_names < {pod.name for pod in scenario.running_pods}  # the fixture's pods, and more
