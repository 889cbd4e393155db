"""Pods made from a workload's template, as the API server would store them.

The pod is written as a manifest and decoded by the loader's own decoder; then the Priority
admission plugin resolves its priority class (as for the scenario's pods)."""

from __future__ import annotations

from typing import Any, Optional

from scheduler_core.model import ControlledWorkload, Manifest, Pod, PriorityClass
from scheduler_core.release.gates import FeatureGates
from scheduler_core.scenario import manifests
from scheduler_core.scenario.pods import refused_at_load, settle_gated_fields
from scheduler_core.scenario.changes import owner_reference
from scheduler_core.scenario.objects import SYSTEM_PRIORITY_CLASSES


def pod_manifest(
    workload: ControlledWorkload,
    name: str,
    labels: dict[str, str],
    spec: Optional[dict[str, Any]] = None,
    template: Optional[Manifest] = None,
) -> Manifest:
    """The pod the controller creates: the template's (the workload's, or ``template``: a
    StatefulSet's revision) labels (plus ``labels``) and spec, an owner reference to the
    workload, status.phase Pending."""
    template = workload.template if template is None else template
    metadata = template.get("metadata") or {}
    owner = owner_reference(workload)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": workload.namespace,
            "labels": {**(metadata.get("labels") or {}), **labels},
            "annotations": dict(metadata.get("annotations") or {}),
            "ownerReferences": [
                {
                    "apiVersion": owner.api_version,
                    "kind": owner.kind,
                    "name": owner.name,
                    "uid": owner.uid,
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": spec if spec is not None else template.get("spec"),
        "status": {"phase": "Pending"},
    }


def make_pod(
    manifest: dict[str, Any],
    doc_index: int,
    classes: dict[str, PriorityClass],
    line: Optional[int],
    gates: Optional[FeatureGates] = None,
) -> Pod:
    """The pod a controller creates, as the API server stores it: decoded, its gated fields
    dropped as the release drops them (its template's refusals were said at load), admitted."""
    pod = manifests.decode_pod(manifest, doc_index, line)
    if gates is not None:
        settle_gated_fields(pod, gates, refused_at_load)
    pod.uid = pod.uid or f"uid-{pod.namespace}-{pod.name}"
    admit_priority(
        pod, manifests.pod_has_priority(manifest), "preemptionPolicy" in (manifest.get("spec") or {}), classes
    )
    return pod


def admit_priority(pod: Pod, priority_written: bool, policy_written: bool, classes: dict[str, PriorityClass]) -> None:
    """The Priority admission plugin (as the loader applies it to the scenario's pods)."""
    known = {**SYSTEM_PRIORITY_CLASSES, **classes}
    default = min((c for c in classes.values() if c.global_default), key=lambda c: c.value, default=None)
    priority_class = known.get(pod.priority_class_name) if pod.priority_class_name else default
    if priority_class is None:
        return
    if not priority_written:
        pod.priority = priority_class.value
        pod.priority_class_name = priority_class.name
    if not policy_written:
        pod.preemption_policy = priority_class.preemption_policy
