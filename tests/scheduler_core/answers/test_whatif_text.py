"""scheduler_core.answers.whatif_text: a suggestion applied to the scenario text, touching only what it must."""

import yaml

from scheduler_core.answers.whatif_text import apply_to_text

STREAM = """# cluster notes kept as typed
apiVersion: v1
kind: Node
metadata: {name: n1}   # a comment that must survive
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 2}
  containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: low, namespace: default}
spec: {nodeName: n1, containers: [{name: c}]}
"""


def docs(text: str) -> list:
    return list(yaml.safe_load_all(text))


def test_it_edits_only_the_pods_document():
    out = apply_to_text(STREAM, "default/p", {"kind": "maxSkew", "change": {"constraint": 0, "maxSkew": 3}})
    assert out.startswith(
        "# cluster notes kept as typed\napiVersion: v1\nkind: Node\nmetadata: {name: n1}   # a comment that must survive\n---\n"
    )
    assert docs(out)[1]["spec"]["topologySpreadConstraints"][0]["maxSkew"] == 3
    assert out.endswith("spec: {nodeName: n1, containers: [{name: c}]}\n")


def test_schedule_anyway_drops_min_domains_which_it_does_not_allow():
    out = apply_to_text(
        STREAM,
        "default/p",
        {"kind": "scheduleAnyway", "change": {"constraint": 0, "whenUnsatisfiable": "ScheduleAnyway"}},
    )
    constraint = docs(out)[1]["spec"]["topologySpreadConstraints"][0]
    assert constraint["whenUnsatisfiable"] == "ScheduleAnyway" and "minDomains" not in constraint


def test_an_eviction_removes_the_victims_documents_also_inside_a_list():
    out = apply_to_text(STREAM, "default/p", {"kind": "evict", "change": {"node": "n1", "victims": ["default/low"]}})
    assert [d["metadata"]["name"] for d in docs(out) if d] == ["n1", "p"]
    listed = (
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Pod, metadata: {name: low}, spec: {containers: []}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: keep}, spec: {containers: []}}\n"
    )
    out = apply_to_text(listed, "default/p", {"kind": "evict", "change": {"node": "n1", "victims": ["default/low"]}})
    assert [i["metadata"]["name"] for i in docs(out)[0]["items"]] == ["keep"]


def test_pod_level_requests_and_tolerations():
    out = apply_to_text(STREAM, "default/p", {"kind": "requests", "change": {"resource": "cpu", "amount": 500}})
    assert docs(out)[1]["spec"]["resources"] == {"requests": {"cpu": "500m"}}
    out = apply_to_text(
        STREAM,
        "default/p",
        {"kind": "toleration", "change": {"key": "gpu", "operator": "Exists", "value": "", "effect": "NoSchedule"}},
    )
    assert docs(out)[1]["spec"]["tolerations"] == [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_node_side_changes_edit_only_the_nodes_document():
    text = STREAM.replace(
        "metadata: {name: n1}   # a comment that must survive",
        "metadata: {name: n1, labels: {spot: 'yes', zone: a}}\nstatus: {capacity: {cpu: '2', pods: '110'}}",
    )
    out = apply_to_text(
        text, "default/p", {"kind": "nodeLabels", "change": {"node": "n1", "labels": {"gen": "4", "spot": None}}}
    )
    assert docs(out)[0]["metadata"]["labels"] == {"zone": "a", "gen": "4"}
    assert out.endswith(STREAM.split("---\n", 1)[1])  # the pods' documents keep their text
    out = apply_to_text(
        text, "default/p", {"kind": "allocatable", "change": {"node": "n1", "allocatable": {"cpu": 4000}}}
    )
    # only capacity was listed (it is the allocatable then): the rest of it is kept
    assert docs(out)[0]["status"]["allocatable"] == {"cpu": "4000m", "pods": "110"}
    assert (
        apply_to_text(text, "default/p", {"kind": "allocatable", "change": {"node": "n9", "allocatable": {"cpu": 1}}})
        == text
    )


def test_every_suggestion_applied_to_the_text_lets_the_pod_in():
    from scheduler_core import load_scenario
    from scheduler_core.answers.whatif import what_if

    text = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {tier: db}}\n"
        "status: {allocatable: {cpu: '1', memory: 1Gi, pods: '10'}}\n---\n"
        "apiVersion: v1\nkind: Node\nmetadata: {name: n2, labels: {tier: web}}\n"
        "spec: {taints: [{key: gpu, effect: NoSchedule}]}\nstatus: {capacity: {cpu: '8', memory: 1Gi, pods: '10'}}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
        "spec: {nodeSelector: {tier: web}, containers: [{name: c, resources: {requests: {cpu: '2'}}}]}\n"
    )
    answer = what_if(load_scenario(text), "default/p")
    kinds = sorted(s["kind"] for s in answer["suggestions"])
    assert kinds == [
        "toleration"
    ]  # n1 fails two plugins (no node-side single change), and dropping the selector leaves it too small
    for suggestion in answer["suggestions"]:
        assert what_if(load_scenario(apply_to_text(text, "default/p", suggestion)), "default/p")["fitsNow"]
    small = text.replace("cpu: '2'", "cpu: '500m'").replace("tier: db", "tier: db2")
    [labels] = [s for s in what_if(load_scenario(small), "default/p")["suggestions"] if s["kind"] == "nodeLabels"]
    assert what_if(load_scenario(apply_to_text(small, "default/p", labels)), "default/p")["fitsNow"] == ["n1"]
    big = text.replace("nodeSelector: {tier: web}, ", "")
    [more] = [s for s in what_if(load_scenario(big), "default/p")["suggestions"] if s["kind"] == "allocatable"]
    assert what_if(load_scenario(apply_to_text(big, "default/p", more)), "default/p")["fitsNow"] == ["n1"]


def test_every_claim_suggestion_applied_to_the_text_lets_the_gpu_pod_in():
    """A smaller count edits the ResourceClaim; evicting the holder removes its Pod and releases its claim."""
    from pathlib import Path

    from scheduler_core import load_scenario
    from scheduler_core.answers.whatif import what_if

    text = (Path(__file__).resolve().parents[2] / "fixtures" / "dra" / "pending_gpu.yaml").read_text()
    answer = what_if(load_scenario(text), "default/train-2")
    assert sorted(s["kind"] for s in answer["suggestions"]) == ["claimCount", "evictHolder"]
    for suggestion in answer["suggestions"]:
        changed = apply_to_text(text, "default/train-2", suggestion)
        assert what_if(load_scenario(changed), "default/train-2")["fitsNow"] == suggestion["nodes"]
    evicted = apply_to_text(
        text, "default/train-2", next(s for s in answer["suggestions"] if s["kind"] == "evictHolder")
    )
    held = next(d for d in docs(evicted) if d["kind"] == "ResourceClaim" and d["metadata"]["name"] == "train-1-gpu")
    assert "status" not in held and not any(
        d["kind"] == "Pod" and d["metadata"]["name"] == "train-1" for d in docs(evicted)
    )


def test_a_claim_class_change_made_from_a_template_edits_the_template():
    text = (
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: tpl, namespace: default}\n"
        "spec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly: {deviceClassName: a}\n"
    )
    changed = apply_to_text(
        text,
        "default/p",
        {"kind": "claimClass", "change": {"template": "default/tpl", "request": "gpu", "deviceClassName": "b"}},
    )
    assert docs(changed)[0]["spec"]["spec"]["devices"]["requests"][0]["exactly"] == {"deviceClassName": "b"}


def test_a_class_suggestion_for_a_template_s_claim_applied_to_the_template_lets_the_pod_in():
    """dra_alloc_0: job-tpu's template names a DeviceClass that does not exist (PreFilter rejects it)."""
    from pathlib import Path

    from scheduler_core import load_scenario
    from scheduler_core.answers.whatif import what_if

    path = Path(__file__).resolve().parents[4] / "shared" / "conformance-timeline-dra" / "public" / "dra_alloc_0.yaml"
    text = path.read_text()
    [first, *_] = [
        s for s in what_if(load_scenario(text), "default/job-tpu")["suggestions"] if s["kind"] == "claimClass"
    ]
    assert first["change"] == {"template": "default/x1-tpu", "request": "gpu", "deviceClassName": "gpu"}
    assert (
        what_if(load_scenario(apply_to_text(text, "default/job-tpu", first)), "default/job-tpu")["fitsNow"]
        == first["nodes"][:50]
    )
