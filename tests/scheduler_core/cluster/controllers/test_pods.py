"""controllers/pods.py: the pod a controller creates from its template, as the API server stores it
(owner reference, Pending) and as the Priority admission plugin resolves its priority."""

from __future__ import annotations

from scheduler_core.cluster.controllers.pods import admit_priority, make_pod, pod_manifest
from scheduler_core.model import PriorityClass
from scheduler_core.release.rules import rules_for
from scheduler_core.release.versions import release_named
from tests.scheduler_core.builders import controlled_workload
from tests.scheduler_core.builders import make_pod as pod_of

HIGH = PriorityClass("high", 1000, preemption_policy="Never")
DEFAULT = PriorityClass("default-class", 10, global_default=True)


def test_the_manifest_carries_the_template_an_owner_reference_and_extra_labels():
    web = controlled_workload("ReplicaSet", "web")
    manifest = pod_manifest(web, "web-abcde", {"pod-template-hash": "h1"})
    assert manifest["metadata"]["labels"] == {"app": "web", "pod-template-hash": "h1"}
    assert manifest["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "name": "web",
            "uid": "uid-web",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert manifest["spec"] == web.template["spec"] and manifest["status"] == {"phase": "Pending"}
    assert pod_manifest(web, "w", {}, spec={"containers": []})["spec"] == {"containers": []}


def test_make_pod_decodes_the_manifest_and_admits_its_priority():
    web = controlled_workload(
        "Job", "batch", template_spec={"priorityClassName": "high", "containers": [{"name": "c", "image": "x"}]}
    )
    pod = make_pod(pod_manifest(web, "batch-1", {}), doc_index=7, classes={"high": HIGH}, line=None)
    assert (pod.name, pod.uid, pod.priority, pod.preemption_policy) == ("batch-1", "uid-default-batch-1", 1000, "Never")
    assert pod.owner_references[0].api_version == "batch/v1"


def test_make_pod_drops_what_the_release_drops():
    """v1.32 (UserNamespacesSupport off) drops hostUsers as its API server does; v1.36 keeps it."""
    spec = {"hostNetwork": True, "hostUsers": False, "containers": [{"name": "c", "image": "x"}]}
    web = controlled_workload("ReplicaSet", "web", template_spec=spec)
    manifest = pod_manifest(web, "web-1", {})
    old = make_pod(manifest, 0, {}, None, rules_for(release_named("v1.32")).gates)
    new = make_pod(manifest, 0, {}, None, rules_for(release_named("v1.36")).gates)
    assert (old.host_users, new.host_users) == (None, False)


def test_admission_takes_the_global_default_and_keeps_what_the_pod_wrote():
    pod = pod_of("p")
    admit_priority(pod, priority_written=False, policy_written=False, classes={"default-class": DEFAULT})
    assert (pod.priority, pod.priority_class_name) == (10, "default-class")
    written = pod_of("q", priority=5, priority_class_name="high", preemption_policy="PreemptLowerPriority")
    admit_priority(written, priority_written=True, policy_written=True, classes={"high": HIGH})
    assert (written.priority, written.preemption_policy) == (5, "PreemptLowerPriority")
    system = pod_of("s", priority_class_name="system-node-critical")
    admit_priority(system, priority_written=False, policy_written=False, classes={})
    assert system.priority == 2000001000
