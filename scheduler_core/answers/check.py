"""`python -m scheduler_core check PATH [--json]`: what was read, what was left out, what is missing.

Nothing is scheduled: the answer counts the objects the scheduler uses (the pods it sees: running
on a node of the scenario and pending, after what the notices leave out), lists the notices, and
the completeness findings (findings.py) with the kubectl lines that fetch what is missing.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from scheduler_core.answers.findings import MAX_NAMED, Finding, fetch_commands, find_all
from scheduler_core.model import Notice, Scenario
from scheduler_core.cluster.node_lifecycle import NodeTaintChange, NodeTaintChangeJSON
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.util.wire import Wire

# The order kinds are counted in (the scheduler's own first, then storage).
KIND_ORDER = (
    "Node",
    "Pod",
    "Namespace",
    "Service",
    "ReplicaSet",
    "StatefulSet",
    "ReplicationController",
    "PriorityClass",
    "PodDisruptionBudget",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "CSINode",
    "CSIDriver",
    "CSIStorageCapacity",
    "VolumeAttachment",
    "DeviceClass",
    "ResourceSlice",
    "ResourceClaim",
    "ResourceClaimTemplate",
    "KubeSchedulerConfiguration",
)


class PodCounts(Wire, frozen=True):  # type: ignore[misc]
    running: int
    pending: int


class CheckJSON(Wire, frozen=True):  # type: ignore[misc]
    """`check --json`'s answer (``CheckReport``'s wire form): the objects the scheduler uses by kind,
    its running and pending pods, the notices and findings with the kubectl lines that fetch what
    they lack, and, only when --add-node-taints applied them, the taints added."""

    objects: dict[str, int]
    pods: PodCounts
    notices: list[Notice]
    findings: list[Finding]
    fetch: list[str]
    added_node_taints: Optional[list[NodeTaintChangeJSON]] = None


@dataclass(frozen=True)
class CheckReport:
    objects: dict[str, int]  # kind -> objects the scheduler uses (Node and Pod always, others when present)
    running_pods: int
    pending_pods: int
    notices: list[Notice]
    findings: list[Finding]
    added_node_taints: Optional[list[NodeTaintChange]] = None  # set when --add-node-taints applied them
    fetch: list[str] = field(default_factory=list)  # kubectl lines fetching what the findings lack

    def wire(self) -> CheckJSON:
        """Its wire form (`check --json`)."""
        added = None if self.added_node_taints is None else [change.wire() for change in self.added_node_taints]
        return CheckJSON(
            dict(self.objects),
            PodCounts(self.running_pods, self.pending_pods),
            self.notices,
            self.findings,
            list(self.fetch),
            added,
        )

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()

    def lines(self) -> list[str]:
        """The readable report `check` prints without --json."""
        counts = ", ".join(f"{n} {kind}" for kind, n in self.objects.items())
        out = [f"read: {counts}", f"pods the scheduler sees: {self.running_pods} running, {self.pending_pods} pending"]
        if self.added_node_taints:
            out.append(
                "added the node lifecycle controller's taints: "
                + "; ".join(change.text for change in self.added_node_taints)
            )
        out.extend(_notice_line(notice) for notice in self.notices)
        if not self.findings:
            out.append("nothing the scheduler reads is missing")
        for finding in self.findings:
            out.append(f"finding [{finding.code}]: {finding.message}")
        if self.fetch:
            out.append("fetch what is missing with:")
            out.extend(f"  {line}" for line in self.fetch)
        return out


def _notice_line(notice: Notice) -> str:
    shown = ", ".join(notice.objects[:MAX_NAMED]) + (", …" if len(notice.objects) > MAX_NAMED else "")
    return f"note: {notice.message}" + (f": {shown}" if shown else "")


def check_scenario(scenario: Scenario, added_node_taints: Optional[list[NodeTaintChange]] = None) -> CheckReport:
    """The check of a loaded scenario (``added_node_taints``: the controller's taints the caller
    already applied, reported as such)."""
    # The collector paused as for the read just before (gcpause): its first full pass after the read
    # walks every object read and finds nothing (2.5 of 3.4 s of this check at 150,000 pods).
    with collector_paused():
        findings = find_all(scenario)
        running, pending = scenario.running_pods, scenario.pending_pods
        return CheckReport(
            _counts(scenario, len(running) + len(pending)),
            len(running),
            len(pending),
            scenario.scheduling_notices(),
            findings,
            added_node_taints,
            fetch_commands(findings),
        )


def _counts(scenario: Scenario, pods: int) -> dict[str, int]:
    storage = scenario.storage
    counts: Counter[str] = Counter(
        {
            "Node": len(scenario.nodes),
            "Pod": pods,
            "Namespace": sum(ns.declared for ns in scenario.namespaces.values()),
            "Service": len(scenario.services),
            "PriorityClass": len(scenario.priority_classes),
            "PodDisruptionBudget": len(scenario.pdbs),
            "PersistentVolumeClaim": len(storage.claims),
            "PersistentVolume": len(storage.volumes),
            "StorageClass": len(storage.classes),
            "CSINode": len(storage.csi_nodes),
            "CSIDriver": len(storage.csi_drivers),
            "CSIStorageCapacity": len(storage.capacities),
            "VolumeAttachment": len(storage.attachments),
            # DynamicResources reads them (they were read and used but not listed: issue 51 item 7)
            "DeviceClass": len(scenario.dra.classes),
            "ResourceSlice": len(scenario.dra.slices),
            "ResourceClaim": len(scenario.dra.claims),
            "ResourceClaimTemplate": len(scenario.dra.templates),
            "KubeSchedulerConfiguration": int(scenario.config is not None),
        }
    )
    counts.update(workload.kind for workload in scenario.workloads)
    return {kind: counts[kind] for kind in KIND_ORDER if counts[kind] or kind in ("Node", "Pod")}
