"""The Deployment stand-in: the current ReplicaSet (highest revision) carries the replicas; a
Deployment without one gets <deployment>-<hash> (spec/CHANGES.md)."""

from __future__ import annotations

import hashlib
import json

from scheduler_core.cluster.controllers import deployment
from scheduler_core.model import OwnerReference
from tests.scheduler_core.builders import cluster_state, controlled_workload


def test_it_names_a_new_replica_set_by_the_sha256_of_the_canonical_template():
    """getNewReplicaSet with spec/CHANGES.md's hash: sorted keys, no spaces, first 10 hex characters."""
    web = controlled_workload("Deployment", "web", replicas=3)
    state = cluster_state(workloads=[web])
    [created] = deployment.reconcile(state, web)
    canonical = json.dumps(web.template, sort_keys=True, separators=(",", ":"))
    hash_ = hashlib.sha256(canonical.encode()).hexdigest()[:10]
    assert created.name == f"web-{hash_}" and created.replicas == 3 and created.revision == 1
    assert dict(created.selector.match_labels) == {"app": "web", "pod-template-hash": hash_}
    assert created.template["metadata"]["labels"] == {"app": "web", "pod-template-hash": hash_}
    assert created.owner == OwnerReference("Deployment", "web", "apps/v1", True, "uid-web")


def test_it_scales_the_replica_set_with_the_highest_revision():
    """scale: only the newest ReplicaSet follows the Deployment (rolling updates not modelled)."""
    web = controlled_workload("Deployment", "web", replicas=5)
    owner = OwnerReference("Deployment", "web", "apps/v1", True, "uid-web")
    old = controlled_workload("ReplicaSet", "web-old", replicas=1, owner=owner, revision=1)
    new = controlled_workload("ReplicaSet", "web-new", replicas=2, owner=owner, revision=2)
    state = cluster_state(workloads=[web, old, new])
    assert deployment.reconcile(state, web) == []
    assert (old.replicas, new.replicas) == (1, 5)
