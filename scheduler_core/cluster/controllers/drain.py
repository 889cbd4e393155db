"""`kubectl drain` (kubectl/pkg/drain: GetPodsForDeletion's filters, the retry of a refused eviction);
the eviction API itself is the cluster's (cluster/eviction.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from scheduler_core.model import Manifest, Pod

MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
RETRY_MS = 5000  # kubectl drain retries a refused eviction every 5 s
GIVE_UP_MS = 60000  # ... until nothing else has happened for 60 s (../shared/spec/CHANGES.md)


@dataclass
class Drain:
    """One drain under way: the pods still to evict, in namespace/name order."""

    node: str
    step: int
    waiting: list[Pod] = field(default_factory=list)
    refused_by: dict[str, str] = field(default_factory=dict)  # pod key -> budget
    retry_at: Optional[int] = None


def pods_to_evict(pods_on_node: list[Pod], manifests: dict[str, Manifest]) -> list[Pod]:
    """GetPodsForDeletion with --ignore-daemonsets, --delete-emptydir-data and --force (as
    ../shared/spec/CHANGES.md says): every pod but DaemonSet pods and mirror pods, namespace/name order."""
    kept = []
    for pod in pods_on_node:
        if any(ref.controller and ref.kind == "DaemonSet" for ref in pod.owner_references):
            continue
        annotations = ((manifests.get(pod.key) or {}).get("metadata") or {}).get("annotations") or {}
        if MIRROR_POD_ANNOTATION in annotations:
            continue
        kept.append(pod)
    return sorted(kept, key=lambda pod: pod.key)
