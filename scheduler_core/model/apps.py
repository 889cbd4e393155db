"""apps/v1 and batch/v1 workloads: what the default spreading lists (``Workload``) and what the
stand-in controllers read (``ControlledWorkload``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, TYPE_CHECKING

if TYPE_CHECKING:
    from scheduler_core.model.core import LabelSelector, OwnerReference


@dataclass(frozen=True, slots=True)
class Workload:
    """A ReplicaSet, StatefulSet or ReplicationController: only its selector matters here."""

    kind: str
    namespace: str
    name: str
    selector: Optional[LabelSelector]


# ============================================================================ workloads and changes
# ../shared/spec/CHANGES.md: the objects the stand-in controllers read, and the steps of a run. Manifests are
# kept as the YAML gave them (plain mappings): pods are made from templates, and a JSON merge
# patch applies to the object as written, then the object is decoded again.

Manifest = dict[str, Any]  # a Kubernetes object as a mapping (the loader's located YAML values)

KIND_DEPLOYMENT = "Deployment"
KIND_REPLICA_SET = "ReplicaSet"
KIND_STATEFUL_SET = "StatefulSet"
KIND_DAEMON_SET = "DaemonSet"
KIND_JOB = "Job"
CONTROLLED_KINDS = (KIND_DEPLOYMENT, KIND_REPLICA_SET, KIND_STATEFUL_SET, KIND_DAEMON_SET, KIND_JOB)
POLICY_PARALLEL = "Parallel"
POLICY_ORDERED_READY = "OrderedReady"


@dataclass(slots=True, eq=False)
class ControlledWorkload:
    """A Deployment, ReplicaSet, StatefulSet, DaemonSet or Job as its stand-in controller reads it.
    ``replicas`` is a Job's ``parallelism``; a DaemonSet has none."""

    kind: str
    namespace: str
    name: str
    uid: str
    selector: Optional[LabelSelector]
    template: Manifest  # spec.template (metadata and spec)
    replicas: int = 1
    labels: dict[str, str] = field(default_factory=dict)
    owner: Optional[OwnerReference] = None  # a ReplicaSet's Deployment
    revision: int = 0  # deployment.kubernetes.io/revision
    pod_management_policy: str = POLICY_ORDERED_READY
    claim_templates: tuple[Manifest, ...] = ()  # a StatefulSet's volumeClaimTemplates
    min_ready_seconds: int = 0  # spec.minReadySeconds (a ready pod is available only this long after)
    # metadata.annotations the controllers read: a ReplicaSet's deployment.kubernetes.io/desired-replicas
    # and max-replicas (the Deployment's proportional scaling).
    annotations: dict[str, str] = field(default_factory=dict)
    created_ms: int = -1  # when a step created it (-1: in the scenario)
    manifest: Manifest = field(default_factory=dict)  # the object as written (a patch applies to it)
    line: Optional[int] = None
    resource_version: int = 0  # metadata.resourceVersion: the run's cluster gives each write its own

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"
