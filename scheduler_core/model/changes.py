"""A run's Changes document (../shared/spec/CHANGES.md): its steps and operations."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, TYPE_CHECKING, Union

if TYPE_CHECKING:
    from scheduler_core.model.core import Taint
    from scheduler_core.model.apps import ControlledWorkload, Manifest
    from scheduler_core.model.policy import BudgetSpec


@dataclass(frozen=True, slots=True)
class ObjectRef:
    kind: str
    namespace: str  # "" for a cluster-scoped kind
    name: str

    def __str__(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"


@dataclass(frozen=True, slots=True)
class ScaleOp:
    target: ObjectRef
    replicas: int


@dataclass(frozen=True, slots=True)
class DrainOp:
    node: str


@dataclass(frozen=True, slots=True)
class CordonOp:
    node: str
    unschedulable: bool  # cordon: True, uncordon: False


@dataclass(frozen=True, slots=True)
class AddNodesOp:
    like: str
    count: int
    prefix: str
    labels: tuple[tuple[str, str], ...] = ()
    taints: tuple[Taint, ...] = ()


@dataclass(frozen=True, slots=True)
class DeleteNodesOp:
    selector: tuple[tuple[str, str], ...] = ()  # label = value, all must hold
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PatchOp:
    target: ObjectRef
    patch: Manifest  # a JSON merge patch (RFC 7386)


@dataclass(frozen=True, slots=True)
class CreateOp:
    target: ObjectRef
    manifest: Manifest


@dataclass(frozen=True, slots=True)
class DeleteOp:
    target: ObjectRef


@dataclass(frozen=True, slots=True)
class CompleteOp:
    target: ObjectRef  # a Job


OperationSpec = Union[ScaleOp, DrainOp, CordonOp, AddNodesOp, DeleteNodesOp, PatchOp, CreateOp, DeleteOp, CompleteOp]


@dataclass(frozen=True, slots=True)
class Operation:
    verb: str  # the key written: "scale", "drain", "cordon", ...
    spec: OperationSpec
    index: int  # position in the step's operations
    line: Optional[int] = None

    @property
    def text(self) -> str:
        """How reports name it: "drain node-7", "scale Deployment default/web to 30"."""
        spec = self.spec
        if isinstance(spec, ScaleOp):
            return f"scale {spec.target} to {spec.replicas}"
        if isinstance(spec, (DrainOp, CordonOp)):
            return f"{self.verb} {spec.node}"
        if isinstance(spec, AddNodesOp):
            return f"add {spec.count} node(s) like {spec.like}"
        if isinstance(spec, DeleteNodesOp):
            chosen = [f"{k}={v}" for k, v in spec.selector] + list(spec.names)
            return f"delete nodes {', '.join(chosen)}"
        return f"{self.verb} {spec.target}"


@dataclass(frozen=True, slots=True)
class Step:
    number: int  # 1, 2, ... (step 0 is the scenario itself)
    name: str
    operations: tuple[Operation, ...]
    line: Optional[int] = None

    @property
    def title(self) -> str:
        return self.name or "; ".join(op.text for op in self.operations) or "no operations"


@dataclass(frozen=True, slots=True)
class UnusableWorkload:
    """A workload the stand-in controllers cannot use — a dump trimmed of what the API server always
    stores (a Deployment without its pod template) — set aside and said, never a failed load (the
    Changes document's ``unusableWorkloads: Ignore``, which capacity questions write)."""

    kind: str
    namespace: str
    name: str
    reason: str  # its first problem: field path, message, file and line

    @property
    def label(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}"

    @property
    def text(self) -> str:
        return f"{self.label}: {self.reason}"


@dataclass(slots=True)
class Changes:
    """The Changes document and what the stand-ins need from the rest of the scenario."""

    steps: tuple[Step, ...]
    workloads: list[ControlledWorkload] = field(default_factory=list)  # document order
    budgets: dict[str, BudgetSpec] = field(default_factory=dict)  # "namespace/name" -> spec
    manifests: dict[ObjectRef, Manifest] = field(default_factory=dict)  # nodes and pods as written
    line: Optional[int] = None
    unusable: list[UnusableWorkload] = field(default_factory=list)  # set aside (unusableWorkloads: Ignore)
