"""What would make a pending pod fit? (`python -m scheduler_core whatif SCENARIO POD`)

The pod is taken where the single pass meets it (the pods before it in the queue placed as the
scheduler places them). Every suggestion is one change, and it is kept only if the engine's own
PreFilter and Filter, re-run on the changed input (nominated pods included), then let the pod onto
at least one node — nothing is guessed. Changes come from what rejected the pod:

- TaintToleration: tolerate one of the taints that kept it off a node;
- PodTopologySpread: the smallest maxSkew (up to +8) that opens a node, or ScheduleAnyway;
- InterPodAffinity: drop one required (anti-)affinity term;
- NodeAffinity: drop the nodeSelector or the required node affinity;
- NodeResourcesFit: ask for no more of a resource than the roomiest node has free;
- on the node side, for a node that only NodeAffinity rejected, the labels it lacks (fewest first),
  and for a node that only NodeResourcesFit rejected, the allocatable it would need (smallest
  shortfall first) — a changed node is checked by rebuilding the cluster with it, so only the best
  few nodes are tried;
- DefaultPreemption: the victims its dry run finds per node (it verifies that the pod then fits);
- DynamicResources (a claim not yet allocated): a smaller device count in a request, another device
  class, or, on a node it rejected, evicting the pods the devices' holding claims are reserved for
  (their claims then released, as the resourceclaim controller releases them) — claim changes are
  checked by re-running PreFilter/Filter with the changed claim in the scheduler's claim cache, an
  eviction by rebuilding the cluster without those pods.

They are ranked by how intrusive the change is, then by how many nodes it opens. When none of them
opens a node, the answer says that no single change suffices.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from scheduler_core.model import names
from scheduler_core.model.labels import parse_int64
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.dra.inventory import node_devices
from scheduler_core.model import (
    ALLOCATION_MODE_EXACT_COUNT,
    CPU,
    MEMORY,
    DraObjects,
    ExactRequest,
    Node,
    NodeSelectorTerm,
    Pod,
    ResourceClaim,
    ResourceSlice,
    Scenario,
    Toleration,
    TopologySpreadConstraint,
)
from scheduler_core.model.quantity import format_amount
from scheduler_core.encoding.events import CycleEnd, PostFilterOutcome
from scheduler_core.util.wire import Wire
from scheduler_core.run.schedule_one import Cycle, Scheduler, fresh_copy

MAX_SKEW_STEPS = 8
MAX_SUGGESTIONS = 25  # the least intrusive; on a big cluster eviction alone can offer one per node
NODES_TRIED = 2  # node-side changes: the best few nodes are rebuilt and re-checked
DELETED = "deleted"  # a run's final place of a preemption victim
MAX_NODES_LISTED = 50  # nodes an answer names (the counts say how many more)
SHRINKABLE = (CPU, MEMORY)  # pod-level requests (PodLevelResources) may set only these


class NotPending(ValueError):
    """The pod is not one this scheduler would try (unknown, bound, gated, another scheduler)."""


@dataclass
class Suggestion:
    kind: str  # toleration | maxSkew | scheduleAnyway | dropAffinityTerm | dropNodeSelector | requests
    #            | nodeLabels | allocatable | evict | claimCount | claimClass | evictHolder
    text: str
    cost: int  # how intrusive: lower first
    nodes: list[str] = field(default_factory=list)  # where the pod then fits (document order)
    change: dict[str, Any] = field(default_factory=dict)

    def wire(self) -> SuggestionJSON:
        return SuggestionJSON(self.kind, self.text, self.change, self.nodes[:MAX_NODES_LISTED], len(self.nodes))

    def to_json(self) -> dict[str, Any]:
        return self.wire().to_json()


class SuggestionJSON(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One verified change as the answer writes it; ``change`` is what whatif_text writes into the text."""

    kind: str  # toleration | maxSkew | scheduleAnyway | dropAffinityTerm | dropNodeSelector | requests | nodeLabels
    #            | allocatable | evict | claimCount | claimClass | evictHolder
    text: str
    change: dict[str, Any]  # its fields depend on ``kind`` (docs/WEB_API.md)
    nodes: list[str]  # where the pod then fits (the first MAX_NODES_LISTED)
    node_count: int


class WhatIfAnswerJSON(Wire, frozen=True):  # type: ignore[misc]
    """What single change would let a pending pod in (``what_if``'s answer, `whatif --json`).
    ``rejectedBy`` and ``failedSchedulingMessage`` are absent when the pod fits now."""

    pod: str
    fits_now: list[str]  # the nodes it fits as things stand (the first MAX_NODES_LISTED)
    suggestions: list[SuggestionJSON]  # least intrusive first
    more_suggestions: int  # verified but not listed
    no_single_change: bool
    summary: str
    rejected_by: Optional[dict[str, int]] = None  # plugin -> how many nodes it rejected
    failed_scheduling_message: Optional[str] = None


@dataclass
class _Feasibility:
    fits: list[str]  # nodes the pod fits (document order)
    rejected_by: dict[str, list[str]]  # plugin -> nodes it rejected (document order)
    only_by: dict[str, list[str]]  # plugin -> nodes no other plugin rejected


@dataclass
class _Baseline:
    scheduler: Scheduler
    scenario: Scenario  # the cluster as the pod meets it (earlier pods placed), for node variants
    pod: Pod
    feasibility: _Feasibility
    message: str = ""  # its FailedScheduling text
    preemption_candidates: dict[str, list[str]] = field(default_factory=dict)  # node -> victims (dry run)

    @property
    def fits(self) -> list[str]:
        return self.feasibility.fits

    @property
    def rejected_by(self) -> dict[str, list[str]]:
        return self.feasibility.rejected_by

    @property
    def only_by(self) -> dict[str, list[str]]:
        return self.feasibility.only_by


def what_if(
    scenario: Scenario,
    pod_key: str,
    placements: Optional[dict[str, Optional[str]]] = None,
    nominated: Optional[dict[str, str]] = None,
) -> dict[str, Any]:
    """Suggestions for `pod_key`. Without `placements` the pod is taken where the single pass meets
    it; with them (a run's result: pod -> node, None for pending, "deleted" for a preemption victim,
    and `nominated` pods -> node), against the cluster as that run left it."""
    baseline = (
        _baseline(scenario, pod_key)
        if placements is None
        else _baseline_after(scenario, pod_key, placements, nominated or {})
    )
    if baseline.fits:
        return WhatIfAnswerJSON(
            pod_key,
            baseline.fits[:MAX_NODES_LISTED],
            [],
            0,
            False,
            f"{pod_key} already fits on {len(baseline.fits)} node(s): nothing needs to change.",
        ).to_json()
    suggestions = [s for s in _candidates(baseline) if s.nodes]
    suggestions.sort(key=lambda s: (s.cost, -len(s.nodes), s.text))
    summary = (
        f"{len(suggestions)} single change(s) would let {pod_key} in; the least intrusive: {suggestions[0].text}."
        if suggestions
        else f"No single change lets {pod_key} onto any node."
    )
    return WhatIfAnswerJSON(
        pod_key,
        [],
        [s.wire() for s in suggestions[:MAX_SUGGESTIONS]],
        max(0, len(suggestions) - MAX_SUGGESTIONS),
        not suggestions,
        summary,
        {k: len(v) for k, v in baseline.rejected_by.items()},
        baseline.message,
    ).to_json()


# ---------------------------------------------------------------------------- the pod where it is tried


def _baseline(scenario: Scenario, pod_key: str) -> _Baseline:
    scenario = fresh_copy(scenario)  # the cycles below bind its pods
    scheduler = Scheduler(scenario)
    index = _queue_index(scheduler, pod_key)
    for earlier in range(index):  # the pods before it are placed as the single pass places them
        for _ in Cycle(scheduler, earlier, scheduler.queue[earlier]).run():
            pass
    return _measured(scheduler, scenario, index)


def _queue_index(scheduler: Scheduler, pod_key: str) -> int:
    index = next((i for i, pod in enumerate(scheduler.queue) if pod.key == pod_key), None)
    if index is None:
        raise NotPending(f"{pod_key} is not a pending pod this scheduler tries")
    return index


def _measured(scheduler: Scheduler, scenario: Scenario, index: int) -> _Baseline:
    pod = scheduler.queue[index]
    base = _Baseline(scheduler, scenario, pod, _feasibility(scheduler, pod))
    if not base.fits:
        base.message, base.preemption_candidates = _own_cycle(scheduler, index, pod)
    return base


def _baseline_after(
    scenario: Scenario, pod_key: str, placements: dict[str, Optional[str]], nominated: dict[str, str]
) -> _Baseline:
    """The cluster as a run left it: its bindings made, its victims gone, its nominations kept."""
    pods = []
    for pod in scenario.pods:
        placed = placements.get(pod.key, pod.node_name or None)
        if placed == DELETED:
            continue
        copied = copy.copy(pod)
        if not copied.node_name and placed and pod.key != pod_key:
            copied.node_name = placed
        copied.nominated_node_name = nominated.get(pod.key, "") if not copied.node_name else copied.nominated_node_name
        pods.append(copied)
    scenario = dataclasses.replace(scenario, pods=pods)
    scheduler = Scheduler(scenario)
    return _measured(scheduler, scenario, _queue_index(scheduler, pod_key))


def _own_cycle(scheduler: Scheduler, index: int, pod: Pod) -> tuple[str, dict[str, list[str]]]:
    """The pod's own cycle (it binds nothing: the pod fits nowhere, and a single pass's preemption
    is a dry run): its FailedScheduling text, and the victims DefaultPreemption found per node."""
    message, candidates = "", dict[str, list[str]]()
    for event in Cycle(scheduler, index, pod).run():
        point, payload = event.extension_point.value, event.payload
        if point == "PostFilter" and event.plugin == names.DEFAULT_PREEMPTION:
            assert isinstance(payload, PostFilterOutcome)  # a plugin's PostFilter event
            candidates = payload.candidates
        elif point == "CycleEnd":
            assert isinstance(payload, CycleEnd)
            message = payload.failed_scheduling_message or ""
    return message, candidates


def _feasibility(scheduler: Scheduler, pod: Pod) -> _Feasibility:
    """Nodes the pod fits as the cluster stands, and per Filter plugin the nodes it rejected and
    those it alone rejected."""
    pre, passed = Cycle(scheduler, 0, pod).feasibility()
    table = scheduler.snapshot.table
    if pre.status is not None:
        return _Feasibility([], {pre.status.plugin or "PreFilter": [n.name for n in scheduler.snapshot.node_infos]}, {})
    failures = sum(
        (verdict.failed.astype(np.int32) for _, verdict in passed.verdicts),
        np.zeros(len(passed.evaluated), dtype=np.int32),
    )
    rejected: dict[str, list[str]] = {}
    only_by: dict[str, list[str]] = {}
    for plugin, verdict in passed.verdicts:
        if verdict.failed.any():
            rejected[plugin] = table.names_at(passed.evaluated[verdict.failed])
        alone = verdict.failed & (failures == 1)
        if alone.any():
            only_by[plugin] = table.names_at(passed.evaluated[alone])
    return _Feasibility(table.names_at(passed.feasible), rejected, only_by)


def _fits(scheduler: Scheduler, pod: Pod) -> list[str]:
    return _feasibility(scheduler, pod).fits


# ---------------------------------------------------------------------------- candidate changes


def _candidates(base: _Baseline) -> list[Suggestion]:
    rejected = base.rejected_by
    out: list[Suggestion] = []
    if names.TAINT_TOLERATION in rejected:
        out += _tolerations(base)
    if names.POD_TOPOLOGY_SPREAD in rejected:
        out += _relaxed_spread(base)
    if names.INTER_POD_AFFINITY in rejected:
        out += _dropped_pod_affinity_terms(base)
    if names.NODE_AFFINITY in rejected:
        out += _dropped_node_affinity(base)
    if names.NODE_RESOURCES_FIT in rejected:
        out += _smaller_requests(base)
    if names.NODE_AFFINITY in base.only_by:
        out += _node_labels(base)
    if names.NODE_RESOURCES_FIT in base.only_by:
        out += _more_allocatable(base)
    if names.DYNAMIC_RESOURCES in rejected:
        out += _claim_changes(base)
        out += _holder_evictions(base)
    out += _evictions(base)
    return out


def _verified(base: _Baseline, variant: Pod, suggestion: Suggestion) -> Suggestion:
    suggestion.nodes = _fits(base.scheduler, variant)
    return suggestion


def _tolerations(base: _Baseline) -> list[Suggestion]:
    pod = base.pod
    taints = []
    for node_name in base.rejected_by[names.TAINT_TOLERATION]:
        node = base.scheduler.snapshot.by_name[node_name].node
        for taint in node.taints:
            if (
                taint.effect in ("NoSchedule", "NoExecute")
                and not any(t.tolerates(taint) for t in pod.tolerations)
                and taint not in taints
            ):
                taints.append(taint)
    out = []
    for taint in taints:
        toleration = Toleration(taint.key, "Equal" if taint.value else "Exists", taint.value, taint.effect)
        variant = dataclasses.replace(pod, tolerations=(*pod.tolerations, toleration))
        value = f"={taint.value}" if taint.value else ""
        out.append(
            _verified(
                base,
                variant,
                Suggestion(
                    "toleration",
                    f"tolerate the taint {taint.key}{value}:{taint.effect}",
                    1,
                    change={
                        "key": taint.key,
                        "operator": toleration.operator,
                        "value": taint.value,
                        "effect": taint.effect,
                    },
                ),
            )
        )
    return out


def _relaxed_spread(base: _Baseline) -> list[Suggestion]:
    pod = base.pod
    out = []
    for index, constraint in enumerate(pod.topology_spread_constraints):
        if constraint.when_unsatisfiable != "DoNotSchedule":
            continue
        for skew in range(constraint.max_skew + 1, constraint.max_skew + MAX_SKEW_STEPS + 1):
            variant = _with_constraint(pod, index, dataclasses.replace(constraint, max_skew=skew))
            found = _verified(
                base,
                variant,
                Suggestion(
                    "maxSkew",
                    f"raise maxSkew of the {constraint.topology_key} spread constraint from {constraint.max_skew} to {skew}",
                    2 + (skew - constraint.max_skew),
                    change={"constraint": index, "maxSkew": skew},
                ),
            )
            if found.nodes:
                out.append(found)
                break
        variant = _with_constraint(
            pod, index, dataclasses.replace(constraint, when_unsatisfiable="ScheduleAnyway", min_domains=None)
        )
        out.append(
            _verified(
                base,
                variant,
                Suggestion(
                    "scheduleAnyway",
                    f"make the {constraint.topology_key} spread constraint ScheduleAnyway",
                    4,
                    change={"constraint": index, "whenUnsatisfiable": "ScheduleAnyway"},
                ),
            )
        )
    return out


def _with_constraint(pod: Pod, index: int, constraint: TopologySpreadConstraint) -> Pod:
    constraints = list(pod.topology_spread_constraints)
    constraints[index] = constraint
    return dataclasses.replace(pod, topology_spread_constraints=tuple(constraints))


def _dropped_pod_affinity_terms(base: _Baseline) -> list[Suggestion]:
    pod, affinity = base.pod, base.pod.affinity
    out: list[Suggestion] = []
    if affinity is None:
        return out
    for word, terms in (("affinity", affinity.pod_affinity), ("anti-affinity", affinity.pod_anti_affinity)):
        if terms is None:
            continue
        for index, term in enumerate(terms.required):
            kept = dataclasses.replace(terms, required=terms.required[:index] + terms.required[index + 1 :])
            changed = (
                dataclasses.replace(affinity, pod_affinity=kept)
                if word == "affinity"
                else dataclasses.replace(affinity, pod_anti_affinity=kept)
            )
            variant = dataclasses.replace(pod, affinity=changed)
            out.append(
                _verified(
                    base,
                    variant,
                    Suggestion(
                        "dropAffinityTerm",
                        f"drop required pod {word} term {index} (topologyKey {term.topology_key})",
                        3,
                        change={"kind": word, "term": index},
                    ),
                )
            )
    return out


def _dropped_node_affinity(base: _Baseline) -> list[Suggestion]:
    pod = base.pod
    out = []
    if pod.node_selector:
        out.append(
            _verified(
                base,
                dataclasses.replace(pod, node_selector={}),
                Suggestion(
                    "dropNodeSelector",
                    "drop the nodeSelector " + ", ".join(f"{k}={v}" for k, v in sorted(pod.node_selector.items())),
                    5,
                    change={"nodeSelector": None},
                ),
            )
        )
    if pod.affinity and pod.affinity.node_affinity and pod.affinity.node_affinity.required:
        affinity = dataclasses.replace(
            pod.affinity, node_affinity=dataclasses.replace(pod.affinity.node_affinity, required=None)
        )
        out.append(
            _verified(
                base,
                dataclasses.replace(pod, affinity=affinity),
                Suggestion(
                    "dropNodeSelector", "drop the required node affinity", 5, change={"requiredNodeAffinity": None}
                ),
            )
        )
    return out


def _smaller_requests(base: _Baseline) -> list[Suggestion]:
    from scheduler_core.model.resources import pod_requests

    pod = base.pod
    asked = pod_requests(pod)
    out = []
    for resource in SHRINKABLE:
        if not asked.get(resource):
            continue
        free = max(
            (
                info.allocatable.get(resource, 0) - info.requested.get(resource, 0)
                for info in base.scheduler.snapshot.node_infos
            ),
            default=0,
        )
        if free <= 0 or free >= asked[resource]:
            continue
        variant = dataclasses.replace(pod, pod_level_requests={**pod.pod_level_requests, resource: free})
        shown = format_amount(resource, free)
        out.append(
            _verified(
                base,
                variant,
                Suggestion(
                    "requests",
                    f"request at most {shown} of {resource} (the most any node has free)",
                    6,
                    change={"resource": resource, "amount": free},
                ),
            )
        )
    return out


# ---------------------------------------------------------------------------- node-side changes


def _node_labels(base: _Baseline) -> list[Suggestion]:
    """A node only NodeAffinity rejected: the labels it lacks for the nodeSelector and the required
    term needing fewest changes (None removes a label). Nodes needing fewest changes are tried."""
    wanted = []
    for node_name in base.only_by[names.NODE_AFFINITY]:
        node = base.scheduler.snapshot.by_name[node_name].node
        changes = _labels_needed(base.pod, node)
        if changes:
            wanted.append((len(changes), base.scheduler.snapshot.position[node_name], node, changes))
    wanted.sort(key=lambda w: w[:2])
    out = []
    for _, _, node, changes in wanted[:NODES_TRIED]:
        labels = {k: v for k, v in {**node.labels, **changes}.items() if v is not None}
        shown = ", ".join(f"{k}={v}" if v is not None else f"remove {k}" for k, v in changes.items())
        suggestion = Suggestion(
            "nodeLabels",
            f"label node {node.name}: {shown}",
            5 + len(changes),
            change={"node": node.name, "labels": changes},
        )
        suggestion.nodes = _fits_with_node(base, dataclasses.replace(node, labels=labels))
        if suggestion.nodes:
            out.append(suggestion)
            break
    return out


def _labels_needed(pod: Pod, node: Node) -> Optional[dict[str, Optional[str]]]:
    """Label changes that make `node` match the pod's nodeSelector and required node affinity;
    None when no label change can (a term on metadata.name, say)."""
    changes: dict[str, Optional[str]] = {k: v for k, v in pod.node_selector.items() if node.labels.get(k) != v}
    required = pod.affinity.node_affinity.required if pod.affinity and pod.affinity.node_affinity else None
    if required is not None:
        labels: dict[str, Optional[str]] = {**node.labels, **changes}  # None: a label to remove
        options = [c for c in (_term_changes(term, labels) for term in required.terms) if c is not None]
        if not options:
            return None
        fewest = min(options, key=len)
        changes.update(fewest)
    return changes


def _term_changes(term: NodeSelectorTerm, labels: Mapping[str, Optional[str]]) -> Optional[dict[str, Optional[str]]]:
    if term.match_fields or not term.match_expressions:
        return None
    changes: dict[str, Optional[str]] = {}
    for requirement in term.match_expressions:
        key, values, current = requirement.key, requirement.values, labels.get(requirement.key)
        if requirement.operator == "In" and current not in values and values:
            changes[key] = values[0]
        elif requirement.operator == "NotIn" and current in values:
            changes[key] = None
        elif requirement.operator == "Exists" and current is None:
            changes[key] = "true"
        elif requirement.operator == "DoesNotExist" and current is not None:
            changes[key] = None
        elif requirement.operator in ("Gt", "Lt"):
            bound = parse_int64(values[0]) if len(values) == 1 else None
            have = parse_int64(current) if current is not None else None
            if bound is None:
                return None
            if have is None or (have <= bound if requirement.operator == "Gt" else have >= bound):
                changes[key] = str(bound + 1 if requirement.operator == "Gt" else bound - 1)
    return changes


def _more_allocatable(base: _Baseline) -> list[Suggestion]:
    """A node only NodeResourcesFit rejected: how much more allocatable it would need, for the
    nodes with the smallest shortfall (relative to what they have)."""
    from scheduler_core.plugins.node_resources.fit import fits

    wanted = []
    for node_name in base.only_by[names.NODE_RESOURCES_FIT]:
        info = base.scheduler.snapshot.by_name[node_name]
        needs = {s.resource: s.used + s.requested for s in fits(base.pod, info)}
        if needs:
            relative = sum(need / max(info.allocatable.get(r, 0), 1) for r, need in needs.items())
            wanted.append((relative, base.scheduler.snapshot.position[node_name], info.node, needs))
    wanted.sort(key=lambda w: w[:2])
    out = []
    for _, _, node, needs in wanted[:NODES_TRIED]:
        shown = ", ".join(
            f"{r} {format_amount(r, node.allocatable.get(r, 0))} → {format_amount(r, n)}" for r, n in needs.items()
        )
        suggestion = Suggestion(
            "allocatable",
            f"give node {node.name} more allocatable: {shown}",
            8,
            change={"node": node.name, "allocatable": needs},
        )
        suggestion.nodes = _fits_with_node(base, dataclasses.replace(node, allocatable={**node.allocatable, **needs}))
        if suggestion.nodes:
            out.append(suggestion)
            break
    return out


def _fits_with_node(base: _Baseline, changed: Node) -> list[str]:
    """The pod's feasible nodes in the cluster rebuilt with `changed` in place of its node."""
    nodes = [changed if node.name == changed.name else node for node in base.scenario.nodes]
    variant = fresh_copy(dataclasses.replace(base.scenario, nodes=nodes))
    scheduler = Scheduler(variant)
    return _fits(scheduler, scheduler.queue[_queue_index(scheduler, base.pod.key)])


def _evictions(base: _Baseline) -> list[Suggestion]:
    """DefaultPreemption's dry run in the pod's own cycle: per candidate node, the victims it would
    evict (it checked that the pod fits once they are gone)."""
    return [
        Suggestion(
            "evict",
            f"evict {', '.join(victims)} from {node}",
            7 + len(victims),
            [node],
            change={"node": node, "victims": victims},
        )
        for node, victims in base.preemption_candidates.items()
    ]


# ---------------------------------------------------------------------------- claims (DynamicResources)


@dataclass(frozen=True)
class _PodClaim:
    claim: ResourceClaim
    target: dict[str, str]  # what an edit changes: {"claim": ns/name} or {"template": ns/name}


def _unallocated_claims(base: _Baseline) -> list[_PodClaim]:
    """The pod's claims DynamicResources must allocate, with the object a change is written to (a
    claim made from a template is changed through its template)."""
    dra, pod = base.scheduler.snapshot.dra, base.pod
    statuses = dict(pod.claim_statuses)
    out = []
    for source in pod.claim_sources:
        name = source.claim_name or statuses.get(source.name, "")
        claim = dra.claim(pod.namespace, name) if name else None
        if claim is None or claim.allocation is not None:
            continue
        target = (
            {"template": f"{pod.namespace}/{source.template_name}"} if source.template_name else {"claim": claim.key}
        )
        out.append(_PodClaim(claim, target))
    return out


def _claim_changes(base: _Baseline) -> list[Suggestion]:
    out: list[Suggestion] = []
    classes = sorted(base.scheduler.snapshot.dra.classes)
    for owned in _unallocated_claims(base):
        claim = owned.claim
        for index, request in enumerate(claim.spec.requests):
            exact = request.exactly
            if exact is None:
                continue
            where = f"request `{request.name}` of claim {claim.key}" + (
                f" (made from template {owned.target['template']}, which the change edits)"
                if "template" in owned.target
                else ""
            )
            change = {**owned.target, "request": request.name}
            if exact.allocation_mode == ALLOCATION_MODE_EXACT_COUNT:
                for count in range(exact.count - 1, 0, -1):
                    found = _verified_claim(
                        base,
                        claim,
                        index,
                        dataclasses.replace(exact, count=count),
                        Suggestion(
                            "claimCount",
                            f"ask for {count} device(s) instead of {exact.count} in {where}",
                            4 + exact.count - count,
                            change={**change, "count": count},
                        ),
                    )
                    if found.nodes:
                        out.append(found)
                        break
            for other in classes:
                if other != exact.device_class_name:
                    out.append(
                        _verified_claim(
                            base,
                            claim,
                            index,
                            dataclasses.replace(exact, device_class_name=other),
                            Suggestion(
                                "claimClass",
                                f"use device class `{other}` instead of `{exact.device_class_name}` in {where}",
                                6,
                                change={**change, "deviceClassName": other},
                            ),
                        )
                    )
    return out


def _verified_claim(
    base: _Baseline, claim: ResourceClaim, index: int, exact: ExactRequest, suggestion: Suggestion
) -> Suggestion:
    """PreFilter/Filter re-run with the changed claim written to the scheduler's API server (its
    claim cache follows), and the claim written back after."""
    requests = list(claim.spec.requests)
    requests[index] = dataclasses.replace(requests[index], exactly=exact)
    changed = dataclasses.replace(claim, spec=dataclasses.replace(claim.spec, requests=tuple(requests)))
    writes = ObjectWrites(base.scheduler.api)
    writes.write_resource_claim(changed)
    try:
        suggestion.nodes = _fits(base.scheduler, base.pod)
    finally:
        writes.write_resource_claim(claim)
    return suggestion


def _holder_evictions(base: _Baseline) -> list[Suggestion]:
    """On the nodes DynamicResources rejected: the claims holding devices of the classes the pod
    asks for, or partitions drawing on the counter sets those devices draw on (DRAPartitionableDevices),
    or each claim holding a share of such a device (DRAConsumableCapacity), and the pods they are
    reserved for. The options needing fewest evictions are tried."""
    snapshot = base.scheduler.snapshot
    wanted = {
        request.exactly.device_class_name
        for owned in _unallocated_claims(base)
        for request in owned.claim.spec.requests
        if request.exactly is not None
    }
    infos = [snapshot.get(name) for name in base.rejected_by[names.DYNAMIC_RESOURCES]]
    nodes = [info.node for info in infos if info is not None]
    options = []
    features = base.scheduler.rules.features
    listing = node_devices(
        snapshot.dra, nodes, features.dra_allocator_skips_unusable_pools, features.enable_dra_partitionable_devices
    )
    draws = _counter_draws(snapshot.dra.slices)
    for listed in listing:
        needed = {draw for d in listed.devices if wanted.intersection(d.classes) for draw in draws.get(d.device, ())}
        holders = sorted(
            {
                d.claim
                for d in listed.devices
                if d.claim and (wanted.intersection(d.classes) or needed.intersection(draws.get(d.device, ())))
            }
        )
        # Shared devices (DRAConsumableCapacity): each claim holding a share, on its own, frees
        # what its share consumes.
        sharing = sorted({key for d in listed.devices if wanted.intersection(d.classes) for key in d.shared_by})
        groups = ([("the devices", holders)] if holders else []) + [("the share", [key]) for key in sharing]
        for freed, group in groups:
            claims = [snapshot.dra.claims[key] for key in group if key in snapshot.dra.claims]
            if claims:
                victims = sorted({f"{claim.namespace}/{ref.name}" for claim in claims for ref in claim.reserved_for})
                options.append((len(victims), snapshot.position[listed.node], listed.node, claims, victims, freed))
    options.sort(key=lambda option: option[:2])
    out = []
    for _, _, node, claims, victims, freed in options[:NODES_TRIED]:
        keys = [claim.key for claim in claims]
        who = (
            f"evict {', '.join(victims)} from {node}" if victims else f"release {', '.join(keys)} (reserved for no pod)"
        )
        suggestion = Suggestion(
            "evictHolder",
            f"{who}, freeing {freed} of {', '.join(keys)}",
            7 + len(victims),
            change={"node": node, "victims": victims, "claims": keys},
        )
        suggestion.nodes = _fits_without_holders(base, set(victims), set(keys))
        if suggestion.nodes:
            out.append(suggestion)
    return out


def _counter_draws(slices: Sequence[ResourceSlice]) -> dict[str, set[tuple[str, str]]]:
    """Per device ("driver/pool/device"), the counter sets it consumes from, as (pool, counter set)."""
    draws: dict[str, set[tuple[str, str]]] = {}
    for slice_ in slices:
        pool = f"{slice_.driver}/{slice_.pool}"
        for device in slice_.devices:
            if device.consumes_counters:
                draws.setdefault(f"{pool}/{device.name}", set()).update(
                    (pool, consumption.counter_set) for consumption in device.consumes_counters
                )
    return draws


def _fits_without_holders(base: _Baseline, victims: set[str], released: set[str]) -> list[str]:
    """The pod's feasible nodes in the cluster rebuilt without the victims, their claims released as
    the resourceclaim controller releases them: a claim owned by a victim is deleted, another one
    loses its allocation and reservations."""
    dra = base.scheduler.snapshot.dra
    claims = []
    for claim in dra.claims.values():
        if claim.key not in released:
            claims.append(claim)
        elif not any(
            f"{claim.namespace}/{owner.name}" in victims for owner in claim.owner_references if owner.kind == "Pod"
        ):
            claims.append(dataclasses.replace(claim, allocation=None, reserved_for=()))
    objects = DraObjects(list(dra.classes.values()), list(dra.slices), claims, list(dra.templates.values()))
    pods = [pod for pod in base.scenario.pods if pod.key not in victims]
    variant = fresh_copy(dataclasses.replace(base.scenario, pods=pods, dra=objects))
    scheduler = Scheduler(variant)
    return _fits(scheduler, scheduler.queue[_queue_index(scheduler, base.pod.key)])
