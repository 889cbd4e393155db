"""Where every pod is at the end of each step (scheduler_core.answers.stepplacements), read from the run's
own events: what a step created, placed, evicted, and the nodes it added, cordoned or lost."""

from __future__ import annotations

from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario import load_scenario
from scheduler_core.answers.stepplacements import step_placements
from tests.scheduler_core.builders import (
    changes_text,
    gpu_devices_text,
    node_text,
    pod_text,
    scenario_text,
    workload_text,
)


def placements_of(text: str):
    scenario = load_scenario(text)
    return step_placements(scenario, (event.to_json() for event in run_to_the_end(scenario, tie_break="first")))


def test_it_gives_no_placements_for_a_run_without_steps():
    assert placements_of(scenario_text(node_text("n1"), pod_text("p"))) == []


def test_it_marks_the_pods_a_scale_creates_as_new_with_their_template_labels():
    steps = placements_of(
        scenario_text(
            node_text("n1", cpu="4"),
            workload_text("Deployment", "web", replicas=1),
            changes_text(["scale: {kind: Deployment, namespace: default, name: web, replicas: 3}"]),
        )
    )
    assert [s.step for s in steps] == [0, 1]
    assert [(p.mark, p.node) for p in steps[0].pods] == [("new", "n1")]
    assert [(p.mark, p.node) for p in steps[1].pods] == [("", "n1"), ("new", "n1"), ("new", "n1")]
    assert all(p.labels["app"] == "web" and "pod-template-hash" in p.labels for p in steps[1].pods)


def test_a_rollouts_new_pods_carry_the_new_templates_labels_from_their_pod_created_event():
    # The new ReplicaSet's pods are made from the template the step's set wrote (issue 41: they were drawn
    # without labels, the new ReplicaSet being unknown to the scenario).
    text = scenario_text(
        node_text("n1", cpu="4"),
        workload_text("Deployment", "web", replicas=2, labels=", tier: front"),
        changes_text(["set: {kind: Deployment, name: web, image: 'nginx:2'}"]),
    )
    before, after = placements_of(text)
    old_hash = before.pods[0].labels["pod-template-hash"]
    new = [p for p in after.pods if p.mark == "new"]
    assert new and all(p.labels["app"] == "web" and p.labels["tier"] == "front" for p in new)
    assert {p.labels["pod-template-hash"] for p in new} != {old_hash}
    assert all(p.pod.startswith(f"default/web-{p.labels['pod-template-hash']}-") for p in new)
    gone = {g.pod: g.labels for g in after.gone}
    assert gone and all(labels["pod-template-hash"] == old_hash for labels in gone.values())


def test_a_controller_made_pod_carries_its_templates_claims():
    text = scenario_text(
        node_text("n1", cpu="8"),
        gpu_devices_text(),
        workload_text(
            "Deployment",
            "train",
            replicas=1,
            pod_spec="      resourceClaims: [{name: gpu, resourceClaimTemplateName: one-gpu}]\n",
        ),
        changes_text(["scale: {kind: Deployment, namespace: default, name: train, replicas: 2}"]),
    )
    steps = placements_of(text)
    assert [p.claims for p in steps[1].pods] == [[{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]] * 2
    assert all(p.to_json()["claims"] == p.claims for p in steps[1].pods)


def test_a_stored_run_without_labels_on_pod_created_falls_back_to_the_templates():
    scenario = load_scenario(
        scenario_text(
            node_text("n1", cpu="4"),
            workload_text("Deployment", "web", replicas=1),
            changes_text(["scale: {kind: Deployment, namespace: default, name: web, replicas: 2}"]),
        )
    )
    events = [event.to_json() for event in run_to_the_end(scenario, tie_break="first")]
    for event in events:  # as written before PodCreated carried them
        event["payload"].pop("labels", None) if event["extensionPoint"] == "Cluster" else None
    steps = step_placements(scenario, events)
    assert all(p.labels["app"] == "web" for p in steps[1].pods)


def test_it_keeps_the_pods_a_drain_evicts_on_their_old_node_and_cordons_it():
    text = scenario_text(
        node_text("n1", cpu="2"),
        node_text("n2", cpu="2"),
        workload_text("ReplicaSet", "web", replicas=2),
        pod_text("solo", node_name="n1"),
        changes_text(["drain: {node: n1}"]),
    )
    steps = placements_of(text)
    drained = steps[1]
    assert next(n for n in drained.nodes if n.name == "n1").unschedulable
    assert not next(n for n in steps[0].nodes if n.name == "n1").unschedulable
    gone = {g.pod: (g.node, g.how) for g in drained.gone}
    assert gone["default/solo"] == ("n1", "evicted")
    assert all(p.node == "n2" for p in drained.pods)
    on_n1_before = [p.pod for p in steps[0].pods if p.node == "n1"]
    assert all(pod in gone for pod in on_n1_before)


def test_it_lists_added_nodes_with_their_models_labels_and_drops_lost_ones():
    text = scenario_text(
        node_text("n1", labels=", zone: a"),
        node_text("n2", labels=", zone: b"),
        pod_text("p", node_name="n2"),
        changes_text(["addNodes: {like: n1, count: 2, prefix: extra-}"], ["deleteNodes: {selector: {zone: b}}"]),
    )
    added, lost = placements_of(text)[1:]
    assert [(n.name, n.added, n.labels.get("zone"), n.labels["kubernetes.io/hostname"]) for n in added.nodes] == [
        ("n1", False, "a", "n1"),
        ("n2", False, "b", "n2"),
        ("extra-1", True, "a", "extra-1"),
        ("extra-2", True, "a", "extra-2"),
    ]
    assert "n2" not in [n.name for n in lost.nodes] and lost.deleted_nodes == ["n2"]
    assert [(g.pod, g.node, g.how) for g in lost.gone] == [("default/p", "n2", "deleted")]


def test_it_marks_a_pod_pending_before_and_placed_after_a_node_is_added():
    text = scenario_text(
        node_text("n1", cpu="1"),
        pod_text("big", cpu="2"),
        changes_text(
            [
                "addNodes: {like: n1, count: 1, prefix: big-}",
                "patch: {kind: Node, name: big-1, patch: {status: {allocatable: {cpu: '4'}}}}",
            ]
        ),
    )
    before, after = placements_of(text)
    assert [(p.pod, p.mark, p.node) for p in before.pods] == [("default/big", "pending", None)]
    assert [(p.pod, p.mark, p.node, p.previous_node) for p in after.pods] == [("default/big", "placed", "big-1", None)]
