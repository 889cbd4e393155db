"""The Deployment stand-in (pkg/controller/deployment: getNewReplicaSet, scale): a Deployment's
current ReplicaSet is the one it owns with the highest revision; it carries the Deployment's
replicas. Rolling updates are not modelled (spec/CHANGES.md)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from scheduler_core.cluster.controllers.state import ClusterState
from scheduler_core.model import KIND_DEPLOYMENT, KIND_REPLICA_SET, ControlledWorkload, LabelSelector
from scheduler_core.scenario.changes import owner_reference
from scheduler_core.scenario.manifests import plain

POD_TEMPLATE_HASH = "pod-template-hash"
ANN_REVISION = "deployment.kubernetes.io/revision"


def owned_replica_sets(state: ClusterState, deployment: ControlledWorkload) -> list[ControlledWorkload]:
    return [rs for rs in state.workloads if rs.kind == KIND_REPLICA_SET and rs.namespace == deployment.namespace
            and rs.owner is not None and rs.owner.kind == KIND_DEPLOYMENT and rs.owner.name == deployment.name
            and (not rs.owner.uid or rs.owner.uid == deployment.uid)]


def reconcile(state: ClusterState, deployment: ControlledWorkload) -> list[ControlledWorkload]:
    """Scale the current ReplicaSet to the Deployment's replicas; create it when there is none.
    Returns the ReplicaSets created."""
    owned = owned_replica_sets(state, deployment)
    if owned:
        current = max(owned, key=lambda rs: rs.revision)  # max keeps the first of equal revisions
        current.replicas = deployment.replicas
        return []
    created = new_replica_set(deployment, state.now_ms)
    state.workloads.append(created)
    return [created]


def template_hash(template: Any) -> str:
    """The first 10 characters of the lower-case hex SHA-256 of the pod template as canonical
    JSON (sorted keys, no spaces): spec/CHANGES.md's fixed stand-in for ComputeHash."""
    canonical = json.dumps(plain(template), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:10]


def new_replica_set(deployment: ControlledWorkload, now_ms: int) -> ControlledWorkload:
    """``<deployment>-<hash>`` with the pod-template-hash label on itself, its selector and its
    pods' template, owned by the Deployment, revision 1."""
    hash_ = template_hash(deployment.template)
    template = plain(deployment.template)
    metadata = template.setdefault("metadata", {})
    metadata["labels"] = {**(metadata.get("labels") or {}), POD_TEMPLATE_HASH: hash_}
    selector = deployment.selector or LabelSelector()
    selector = LabelSelector(tuple(sorted({**dict(selector.match_labels), POD_TEMPLATE_HASH: hash_}.items())),
                             selector.match_expressions)
    name = f"{deployment.name}-{hash_}"
    return ControlledWorkload(KIND_REPLICA_SET, deployment.namespace, name, f"uid-{deployment.namespace}-{name}",
                              selector, template, deployment.replicas,
                              labels={**metadata["labels"]}, owner=owner_reference(deployment), revision=1,
                              created_ms=now_ms, line=deployment.line)
