"""whatif: single changes that let a pending pod in, each verified by re-running PreFilter/Filter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scheduler_core import load_scenario
from scheduler_core.cli import main
from scheduler_core.answers.whatif import NotPending, what_if

SEEDS = Path(__file__).resolve().parents[4] / "shared" / "conformance" / "public"


def node(name: str, cpu: str = "4", taint: str = "") -> str:
    taints = f"\n  taints: [{taint}]" if taint else ""
    return (
        f"apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n"
        f'spec:{taints or " {}"}\nstatus: {{allocatable: {{cpu: "{cpu}", memory: 8Gi, pods: "110"}}}}\n'
    )


def pod(name: str, cpu: str, priority: int = 0, node_name: str = "") -> str:
    bound = f"\n  nodeName: {node_name}" if node_name else ""
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:{bound}\n"
        f'  priority: {priority}\n  containers: [{{name: c, resources: {{requests: {{cpu: "{cpu}"}}}}}}]\n'
    )


def answer(*docs: str, target: str = "default/p") -> dict:
    return what_if(load_scenario("---\n".join(docs)), target)


def test_the_conflicting_spread_example_suggests_relaxing_either_constraint():
    # seed 003: no node satisfies both constraints; raising either maxSkew to 2 opens a node.
    result = what_if(load_scenario((SEEDS / "seed_pts_conflict.yaml").read_text()), "default/mypod")
    relaxed = {
        (s["change"]["constraint"], s["change"]["maxSkew"]): s["nodes"]
        for s in result["suggestions"]
        if s["kind"] == "maxSkew"
    }
    assert relaxed == {(0, 2): ["node2"], (1, 2): ["node3"]}
    assert result["suggestions"][0]["kind"] == "maxSkew" and not result["noSingleChange"]


def test_a_toleration_for_the_taint_in_the_way():
    result = answer(node("n1", taint="{key: gpu, value: a100, effect: NoSchedule}"), pod("p", "1"))
    [suggestion] = result["suggestions"]
    assert suggestion["text"] == "tolerate the taint gpu=a100:NoSchedule" and suggestion["nodes"] == ["n1"]


def test_no_single_change_when_a_node_needs_two():
    # n1 is tainted and too small: a toleration alone or smaller requests alone open nothing.
    result = answer(node("n1", cpu="1", taint="{key: gpu, effect: NoSchedule}"), pod("p", "2"))
    assert result["noSingleChange"] is True and result["suggestions"] == []
    assert result["summary"] == "No single change lets default/p onto any node."


def test_evicting_lower_priority_pods_is_verified_by_the_preemption_dry_run():
    result = answer(node("n1", cpu="2"), pod("low", "1500m", priority=0, node_name="n1"), pod("p", "1", priority=100))
    evict = [s for s in result["suggestions"] if s["kind"] == "evict"]
    assert evict == [
        {
            "kind": "evict",
            "text": "evict default/low from n1",
            "change": {"node": "n1", "victims": ["default/low"]},
            "nodes": ["n1"],
            "nodeCount": 1,
        }
    ]
    assert [s["kind"] for s in result["suggestions"]][0] == "requests"  # asking for less is less intrusive


def test_a_pod_that_fits_needs_nothing_and_a_bound_one_is_refused():
    assert answer(node("n1"), pod("p", "1"))["fitsNow"] == ["n1"]
    with pytest.raises(NotPending):
        answer(node("n1"), pod("p", "1", node_name="n1"))


def test_the_cli_prints_the_same_answer(tmp_path, capsys):
    path = tmp_path / "s.yaml"
    path.write_text("---\n".join([node("n1", taint="{key: gpu, effect: NoSchedule}"), pod("p", "1")]))
    assert main(["whatif", str(path), "default/p", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["suggestions"][0]["kind"] == "toleration"
    assert main(["whatif", str(path), "default/nobody"]) == 2


def test_against_the_cluster_a_run_to_the_end_left():
    from scheduler_core.run.loop import run_to_the_end
    from scheduler_core.encoding.timeline import timeline_summary

    text = "---\n".join([node("n1", cpu="2"), pod("a", "1500m", priority=10), pod("p", "1")])
    summary = timeline_summary(run_to_the_end(load_scenario(text)))
    assert summary["final"] == {"default/a": "n1", "default/p": None}
    result = what_if(load_scenario(text), "default/p", summary["final"], summary.get("nominated"))
    assert [s["text"] for s in result["suggestions"]] == [
        "request at most 500m of cpu (the most any node has free)",
        "give node n1 more allocatable: cpu 2000m → 2500m",
    ]


def labelled(name: str, labels: str) -> str:
    return node(name).replace(
        "labels: {kubernetes.io/hostname: %s}" % name, "labels: {kubernetes.io/hostname: %s, %s}" % (name, labels)
    )


def selective(name: str, spec: str) -> str:
    return pod(name, "1").replace("  priority: 0\n", "  priority: 0\n" + spec)


def test_the_labels_a_node_lacks_for_the_node_selector_and_the_cheapest_required_term():
    affinity = (
        "  nodeSelector: {tier: web}\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a, b]}, {key: spot, operator: DoesNotExist}]}, "
        "{matchExpressions: [{key: gen, operator: Gt, values: ['3']}]}]}}}\n"
    )
    result = answer(
        labelled("n1", "tier: db, zone: c, spot: 'yes'"),
        labelled("n2", "tier: web, gen: '2', spot: 'yes'"),
        selective("p", affinity),
    )
    labels = [s for s in result["suggestions"] if s["kind"] == "nodeLabels"]
    # n1 needs tier plus the cheaper term's gen (the zone/spot term would take two); n2 only gen.
    assert labels == [
        {
            "kind": "nodeLabels",
            "text": "label node n2: gen=4",
            "nodes": ["n2"],
            "nodeCount": 1,
            "change": {"node": "n2", "labels": {"gen": "4"}},
        }
    ]
    assert not any(s["kind"] == "allocatable" for s in result["suggestions"])


def test_a_label_that_must_go_is_removed_and_a_name_pinned_term_gets_no_label_suggestion():
    not_in = "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: spot, operator: NotIn, values: ['yes']}]}]}}}\n"
    [suggestion] = [
        s
        for s in answer(labelled("n1", "spot: 'yes'"), selective("p", not_in))["suggestions"]
        if s["kind"] == "nodeLabels"
    ]
    assert suggestion["text"] == "label node n1: remove spot" and suggestion["change"]["labels"] == {"spot": None}
    pinned = "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n9]}]}]}}}\n"
    assert not [
        s for s in answer(labelled("n1", "a: b"), selective("p", pinned))["suggestions"] if s["kind"] == "nodeLabels"
    ]


def test_the_allocatable_a_node_would_need_is_verified_on_the_rebuilt_cluster():
    # n1 lacks 1 cpu, n2 lacks 3: n1 is the smaller change. n3 is also tainted: two changes, not offered.
    result = answer(
        node("n2", cpu="1"),
        node("n1", cpu="3"),
        node("n3", cpu="1", taint="{key: k, effect: NoSchedule}"),
        pod("p", "4"),
    )
    [more] = [s for s in result["suggestions"] if s["kind"] == "allocatable"]
    assert more["text"] == "give node n1 more allocatable: cpu 3000m → 4000m"
    assert more["change"] == {"node": "n1", "allocatable": {"cpu": 4000}} and more["nodes"] == ["n1"]


def test_only_the_least_intrusive_suggestions_are_listed_the_rest_counted():
    from scheduler_core.answers import whatif

    nodes = [node(f"n{i}", cpu="2") for i in range(30)]
    victims = [pod(f"low{i}", "1500m", priority=0, node_name=f"n{i}") for i in range(30)]
    result = answer(*nodes, *victims, pod("p", "1", priority=100))
    assert len(result["suggestions"]) == whatif.MAX_SUGGESTIONS
    # one eviction per node, smaller requests, and the allocatable of the first node: 32 in all
    assert result["moreSuggestions"] == 32 - whatif.MAX_SUGGESTIONS
    assert result["summary"].startswith("32 single change(s)")


def test_an_extended_resource_is_offered_as_a_count_not_in_memory_units():
    """Issue 28: "nvidia.com/gpu 0Mi → 5" put units of memory on a count of devices."""
    gpu_pod = pod("p", "1").replace(
        'requests: {cpu: "1"}', 'requests: {cpu: "1", nvidia.com/gpu: "5"}, limits: {nvidia.com/gpu: "5"}'
    )
    [more] = [s for s in answer(node("n1"), gpu_pod)["suggestions"] if s["kind"] == "allocatable"]
    assert more["text"] == "give node n1 more allocatable: nvidia.com/gpu 0 → 5"
    assert more["change"] == {"node": "n1", "allocatable": {"nvidia.com/gpu": 5}}


PENDING_GPU = Path(__file__).resolve().parents[2] / "fixtures" / "dra" / "pending_gpu.yaml"


def test_a_claim_asking_more_devices_than_any_node_has_free_gets_a_smaller_count_and_the_holder_s_eviction():
    """DynamicResources rejects both nodes (1 free each, 2 asked); each suggestion re-runs PreFilter/Filter."""
    result = what_if(load_scenario(PENDING_GPU.read_text()), "default/train-2")
    by_kind = {s["kind"]: s for s in result["suggestions"]}
    assert by_kind["claimCount"]["change"] == {"claim": "default/train-2-gpu", "request": "gpu", "count": 1}
    assert by_kind["claimCount"]["nodes"] == ["node-1", "node-2"]
    assert by_kind["evictHolder"]["change"] == {
        "node": "node-1",
        "victims": ["default/train-1"],
        "claims": ["default/train-1-gpu"],
    }
    assert by_kind["evictHolder"]["nodes"] == ["node-1"]
    assert "claimClass" not in by_kind  # gpu-small selects index 0 only: one device per node


def test_another_claim_class_whose_devices_are_free_is_suggested_when_the_class_is_missing():
    """PreFilter rejects a request naming a class that does not exist (dynamicresources.go PreFilter)."""
    text = (
        PENDING_GPU.read_text()
        .replace("count: 2}", "count: 1}")
        .replace(
            "exactly: {deviceClassName: gpu.example.com, count: 1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: train-2",
            "exactly: {deviceClassName: missing.example.com, count: 1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: train-2",
        )
    )
    result = what_if(load_scenario(text), "default/train-2")
    classes = [s["change"]["deviceClassName"] for s in result["suggestions"] if s["kind"] == "claimClass"]
    assert sorted(classes) == ["gpu-small.example.com", "gpu.example.com"]


def test_a_partition_without_counters_left_suggests_evicting_the_holder_of_the_partition_using_them():
    """DRAPartitionableDevices (v1.36): infer-2's halves on gpu-node-1 are free but train-0's whole GPU
    uses the counters they draw on; evicting train-0 alone lets it in (fewer victims than gpu-node-2's)."""
    example = Path(__file__).resolve().parents[3] / "examples" / "dra_partitioned_gpu.yaml"
    result = what_if(load_scenario(example.read_text()), "default/infer-2")
    holders = [s for s in result["suggestions"] if s["kind"] == "evictHolder"]
    assert [(s["change"]["node"], s["change"]["victims"], s["nodes"]) for s in holders] == [
        ("gpu-node-1", ["default/train-0"], ["gpu-node-1"]),
        ("gpu-node-2", ["default/infer-0", "default/infer-1"], ["gpu-node-2"]),
    ]


def test_a_shared_device_out_of_capacity_suggests_evicting_one_pod_holding_a_share():
    """DRAConsumableCapacity (v1.36): web-2 finds both NICs free of owners but out of bandwidth; the
    claims holding shares are the holders, each on its own: evicting db-0 (or web-1) frees enough of
    node-1's NIC. Before shares counted, no single change was found."""
    example = Path(__file__).resolve().parents[3] / "examples" / "dra_shared_nic.yaml"
    result = what_if(load_scenario(example.read_text()), "default/web-2")
    holders = [s for s in result["suggestions"] if s["kind"] == "evictHolder"]
    assert [(s["change"]["node"], s["change"]["victims"], s["nodes"]) for s in holders][:2] == [
        ("node-1", ["default/db-0"], ["node-1"]),
        ("node-1", ["default/web-1"], ["node-1"]),
    ]
    assert holders[0]["text"] == "evict default/db-0 from node-1, freeing the share of default/db-0-nic"
