"""A scenario as loaded: every object of the cluster, the configuration, and the notices of what
the loader left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Optional, TYPE_CHECKING

from scheduler_core.model.core import DEFAULT_SCHEDULER_NAME
from scheduler_core.model.storage import StorageObjects
from scheduler_core.model.resource import DraObjects
from scheduler_core.release.choice import DEFAULT_CHOICE, ReleaseChoice
from scheduler_core.release.rules import Rules
from scheduler_core.util.wire import Wire

if TYPE_CHECKING:
    from scheduler_core.model.core import Namespace, Node, Pod, Service
    from scheduler_core.model.apps import Workload
    from scheduler_core.model.policy import PodDisruptionBudget
    from scheduler_core.model.scheduling import PriorityClass, SchedulerConfig, SchedulerConfiguration
    from scheduler_core.model.changes import Changes


class NoticeCode(str, Enum):
    """What the loader or the scheduler left out, and why: shown beside the result, never silent."""

    IGNORED_KINDS = "ignored-kinds"  # objects of kinds the scheduler does not read
    FINISHED_PODS = "finished-pods"  # phase Succeeded/Failed: not in the scheduler's cache
    MISSING_NODE = "missing-node"  # bound to a node the scenario does not hold
    OTHER_SCHEDULER = "other-scheduler"  # spec.schedulerName names no profile
    SCHEDULING_GATED = "scheduling-gated"  # spec.schedulingGates: never attempted
    PENDING_VOLUMES = "pending-volumes"  # PersistentVolumes without status.phase: stored as Pending
    RESOURCE_CLAIMS = "resource-claims"  # pending pods whose claims are missing: PreEnqueue holds them
    DRA_FEATURE_OFF = "dra-feature-off"
    # Pod fields of features off in the release (spec.resources without PodLevelResources, ...): dropped.
    POD_FEATURE_OFF = "pod-feature-off"  # resource.k8s.io fields of features off in the release: dropped
    NO_NODES = "no-nodes"  # no Node objects: nothing to schedule against (the CLI exits 3)
    NO_PENDING_PODS = "no-pending-pods"  # no pod waits for a node: nothing to schedule
    UNREAD_FILES = "unread-files"  # files of a directory or archive that are not YAML/JSON (logs, ...)
    NOT_OBJECTS = "not-objects"  # YAML/JSON files of a dump that hold no Kubernetes object (tool metadata)
    LINKS = "links"  # symbolic/hard links and special files of a directory or archive: not followed
    CONTAINER_LOGS = "container-logs"  # container logs between the lists of `kubectl cluster-info dump`
    DUPLICATE_OBJECTS = "duplicate-objects"  # the same object (same uid) written twice by a dump tool: read once
    # Invalid values the API server lets an existing pod keep (a required node affinity term's label
    # values): loaded as they are, never matching.
    KEPT_INVALID = "kept-invalid"
    # Node status.declaredFeatures with NodeDeclaredFeatures off: the API server drops the field.
    DECLARED_FEATURES_OFF = "declared-features-off"
    # Workloads the stand-in controllers cannot use (a dump's Deployment without its pod template):
    # set aside, each named with why (a Changes document's unusableWorkloads: Ignore; capacity's).
    UNUSABLE_WORKLOADS = "unusable-workloads"
    # Fields of the object's type in other supported releases only (scenario/unknown_fields.py): the
    # release's API server drops them; fields no supported release knows are errors instead.
    UNKNOWN_FIELDS = "unknown-fields"
    # Running pods whose allocated devices carry a NoExecute taint their claim does not tolerate
    # (DRADeviceTaints on): kube-controller-manager would evict them; the replay keeps them.
    DEVICE_TAINT_EVICTIONS = "device-taint-evictions"
    # Devices with binding conditions (DRADeviceBindingConditions on): nobody in a replay sets the
    # conditions, so a pod allocated one waits in PreBind until bindingTimeout, then fails.
    BINDING_CONDITIONS = "binding-conditions"


class Notice(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """Something the scheduler leaves out of a valid scenario, said once (never silently dropped)."""

    code: NoticeCode
    message: str  # one sentence a user reads ("ignored: 3 Deployment, 12 ConfigMap")
    objects: tuple[str, ...] = ()  # the objects concerned ("Pod ns/name"), in document order


@dataclass(slots=True)
class Scenario:
    nodes: list[Node]
    pods: list[Pod]  # every pod in document order, running, pending and finished
    namespaces: dict[str, Namespace]
    services: list[Service] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    config: Optional[SchedulerConfiguration] = None
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    notices: list[Notice] = field(default_factory=list)  # the loader's; see scheduling_notices()
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    storage: "StorageObjects" = field(default_factory=lambda: StorageObjects())  # PVs, claims, classes...
    # A run with steps (../shared/spec/CHANGES.md): the Changes document and what the stand-in controllers
    # read. None: no Changes document, the run is exactly ../shared/spec/TIMELINE.md's.
    changes: Optional["Changes"] = None
    dra: "DraObjects" = field(default_factory=lambda: DraObjects())  # resource.k8s.io objects
    # The release it is replayed as, and why (release/choice.py): what the dump says, else the default.
    release: ReleaseChoice = DEFAULT_CHOICE
    # The resource.k8s.io objects as read, before the release's API server settled their gated
    # fields: a scenario/dra.py DraReading (typed there: the model does not import the loader's
    # layer), which replaying as another release settles again (replayed_as).
    dra_reading: Optional[object] = None
    # The pods with gated fields (pod-level resources, hostUsers, restart rules) as written, before
    # the release's API server settled them, by their index in ``pods``: replaying as another
    # release settles them again (scenario/pods.py pods_as_released).
    gated_pods: dict[int, Pod] = field(default_factory=dict)

    @property
    def rules(self) -> Rules:
        """The release's rules every part of a replay follows (release/rules.py)."""
        return self.release.rules

    @property
    def profile_configs(self) -> list[Optional[SchedulerConfig]]:
        """One entry per profile; ``[None]`` (the release's default profile) without a configuration."""
        return list(self.config.profiles) if self.config is not None else [None]

    @property
    def scheduler_names(self) -> set[str]:
        return {c.scheduler_name if c else DEFAULT_SCHEDULER_NAME for c in self.profile_configs}

    @property
    def running_pods(self) -> list[Pod]:
        """Pods bound to a node that exists and not finished (others are ignored, with a notice)."""
        names = {n.name for n in self.nodes}
        return [p for p in self.pods if p.node_name and p.node_name in names and not p.is_finished]

    @property
    def pending_pods(self) -> list[Pod]:
        """Pods without a node that this scheduler would try, in queue order (higher priority
        first, then document order): not finished, for one of its profiles, not gated."""
        names = self.scheduler_names
        pending = [
            p
            for p in self.pods
            if not p.node_name and not p.is_finished and p.scheduler_name in names and not p.scheduling_gates
        ]
        return sorted(pending, key=lambda p: (-p.priority, p.doc_index))

    def scheduling_notices(self) -> list[Notice]:
        """The loader's notices plus the pods this scheduler leaves alone (other scheduler, gated)."""
        names = self.scheduler_names
        waiting = [p for p in self.pods if not p.node_name and not p.is_finished]
        other = [p for p in waiting if p.scheduler_name not in names]
        gated = [p for p in waiting if p.scheduler_name in names and p.scheduling_gates]
        notices = list(self.notices)
        if other:
            schedulers = ", ".join(sorted({p.scheduler_name for p in other}))
            notices.append(
                Notice(
                    NoticeCode.OTHER_SCHEDULER,
                    f"{len(other)} pending pod(s) not for this scheduler (schedulerName {schedulers}): never attempted",
                    tuple(f"Pod {p.key}" for p in other),
                )
            )
        if gated:
            notices.append(
                Notice(
                    NoticeCode.SCHEDULING_GATED,
                    f"{len(gated)} pending pod(s) with scheduling gates (SchedulingGated): "
                    "never attempted until the gates are removed",
                    tuple(f"Pod {p.key}" for p in gated),
                )
            )
        return notices
