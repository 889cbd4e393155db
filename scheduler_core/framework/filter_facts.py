"""What a Filter plugin compared on one node, as typed facts (the numbers behind its reason).

A plugin's ``filter_detail(state, pod, node_info)`` returns these for a node it rejects, computed
from the very state and NodeInfo its ``filter`` judged; they never change a Status or an event.
``scheduler_core.answers.filter_details`` asks for them only when a cycle is explained. Each fact names the
reason it explains (one of the plugin's Status reasons) and says itself in words (``text``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Union

from scheduler_core.framework.preemption.candidates import PreemptionRanking
from scheduler_core.model.quantity import format_amount

PODS = "pods"
NO_FACTS = "the plugin reports no numbers for this reason"


@dataclass(frozen=True, slots=True)
class ResourceFact:
    """NodeResourcesFit: one resource fitsRequest checked. For ``pods`` the pod asks for 1,
    ``used`` is the pods already on the node and ``allocatable`` how many it allows."""

    reason: str
    resource: str
    requested: int  # what the pod asks for
    used: int  # the node's requested amount (pods counted on it, nominated ones included when they were)
    allocatable: int
    pods: int  # pods on the node

    kind = "resource"

    @property
    def free(self) -> int:
        return self.allocatable - self.used

    def text(self) -> str:
        if self.resource == PODS:
            return f"pods: {self.used} of {self.allocatable} allowed already run here; the pod would be one more"

        def amount(value: int) -> str:
            return format_amount(self.resource, value)

        return (
            f"{self.resource}: asks {amount(self.requested)}; free {amount(self.free)} of "
            f"{amount(self.allocatable)} allocatable ({amount(self.used)} requested by {self.pods} pod(s))"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "resource": self.resource,
            "requested": self.requested,
            "used": self.used,
            "allocatable": self.allocatable,
            "free": self.free,
            "pods": self.pods,
            "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class TaintFact:
    """TaintToleration: the first NoSchedule / NoExecute taint no toleration of the pod tolerates."""

    reason: str
    key: str
    value: str
    effect: str

    kind = "taint"

    def text(self) -> str:
        shown = f"{self.key}={self.value}" if self.value else self.key
        return f"untolerated taint {shown}:{self.effect}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "key": self.key,
            "value": self.value,
            "effect": self.effect,
            "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class PortFact:
    """NodePorts: a host port the pod wants that is in use on the node, and the pods using it."""

    reason: str
    protocol: str
    host_ip: str
    port: int
    used_by: tuple[str, ...]  # pods on the node holding a conflicting port (namespace/name)

    kind = "port"

    def text(self) -> str:
        users = ", ".join(self.used_by) if self.used_by else "a pod counted on the node"
        return f"hostPort {self.port}/{self.protocol} on {self.host_ip} is in use by {users}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "protocol": self.protocol,
            "hostIP": self.host_ip,
            "port": self.port,
            "usedBy": list(self.used_by),
            "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class LabelFact:
    """NodeAffinity: a requirement the node fails, with the node's own value (None: no such label).
    ``source``: "nodeSelector", "required term N" (1-based) or "addedAffinity term N"."""

    reason: str
    source: str
    key: str
    operator: str
    values: tuple[str, ...]
    node_value: Optional[str]
    # The requirement is malformed for the release (a matchFields entry with several values, a value
    # that is no label value): it matches no node whatever the node's value.
    never_matches: bool = False

    kind = "label"

    def text(self) -> str:
        if self.operator == "In" and len(self.values) == 1:
            wanted = f"{self.key}={self.values[0]}"
        elif self.operator in ("Exists", "DoesNotExist"):
            wanted = f"{self.key} {self.operator}"
        else:
            wanted = f"{self.key} {self.operator} ({', '.join(self.values)})"
        has = (
            f"the node has {self.key}={self.node_value}"
            if self.node_value is not None
            else f"the node has no {self.key} label"
        )
        if self.never_matches:
            return f"{self.source} wants {wanted}, which as written matches no node; {has}"
        return f"{self.source} wants {wanted}; {has}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "source": self.source,
            "key": self.key,
            "operator": self.operator,
            "values": list(self.values),
            "nodeValue": self.node_value,
            "neverMatches": self.never_matches,
            "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class SpreadFact:
    """PodTopologySpread: one hard constraint on this node — its domain, the matching pods there,
    the pod itself (1 when it matches its own selector), the global minimum and the skew they make.
    ``domain`` None: the node lacks the constraint's key."""

    reason: str
    topology_key: str
    domain: Optional[str]
    matching: int
    self_match: int
    global_minimum: int
    max_skew: int

    kind = "spread"

    @property
    def skew(self) -> int:
        return self.matching + self.self_match - self.global_minimum

    def text(self) -> str:
        if self.domain is None:
            return f"the node has no {self.topology_key} label"
        verdict = ">" if self.skew > self.max_skew else "≤"
        return (
            f"{self.topology_key}={self.domain}: {self.matching} matching pod(s) + {self.self_match} (this pod) "
            f"− minimum {self.global_minimum} = skew {self.skew} {verdict} maxSkew {self.max_skew}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "topologyKey": self.topology_key,
            "domain": self.domain,
            "matching": self.matching,
            "selfMatch": self.self_match,
            "globalMinimum": self.global_minimum,
            "maxSkew": self.max_skew,
            "skew": self.skew,
            "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class AffinityFact:
    """InterPodAffinity: one required term (the pod's affinity or anti-affinity term, 1-based, or
    running pods' anti-affinity terms against the pod) and the matching pods counted in the node's
    domain. ``domain`` None: the node lacks the term's topology key."""

    reason: str
    term: str  # "affinity term 1", "anti-affinity term 2", "existing pods' anti-affinity"
    topology_key: str
    domain: Optional[str]
    matching: int

    kind = "affinity"

    def text(self) -> str:
        if self.domain is None:
            return f"{self.term}: the node has no {self.topology_key} label"
        where = f"{self.topology_key}={self.domain}"
        if self.term.startswith("affinity"):
            # PreFilter counts pods matching every affinity term of the pod (one count per key).
            return f"{self.term}: no pod matching all of the pod's affinity terms runs in {where}"
        if self.term.startswith("anti-affinity"):
            return f"{self.term}: {self.matching} pod(s) matching it run in {where}"
        return (
            f"{self.term}: {self.matching} running pod(s) whose required anti-affinity matches this pod are in {where}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "reason": self.reason,
            "term": self.term,
            "topologyKey": self.topology_key,
            "domain": self.domain,
            "matching": self.matching,
            "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class VolumeFact:
    """A volume plugin's finding on the node: the claim or volume concerned and what collided
    (another pod, a zone label, an attach limit); ``count``/``limit`` for NodeVolumeLimits."""

    reason: str
    subject: str  # the claim, volume or driver concerned
    detail: str  # what the plugin found, in words
    count: Optional[int] = None
    limit: Optional[int] = None

    kind = "volume"

    def text(self) -> str:
        return f"{self.subject}: {self.detail}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "reason": self.reason,
            "subject": self.subject,
            "detail": self.detail,
            "text": self.text(),
        }
        if self.count is not None:
            out["count"], out["limit"] = self.count, self.limit
        return out


@dataclass(frozen=True, slots=True)
class NodeFact:
    """A plain property of the node the plugin read (spec.unschedulable, its name)."""

    reason: str
    detail: str

    kind = "node"

    def text(self) -> str:
        return self.detail

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "reason": self.reason, "text": self.text()}


FilterFact = Union[ResourceFact, TaintFact, PortFact, LabelFact, SpreadFact, AffinityFact, VolumeFact, NodeFact]


# ---------------------------------------------------------------------------- per node, per cycle


@dataclass(frozen=True, slots=True)
class PluginDetail:
    """One plugin's rejection of one node: its status's reasons and the facts behind them."""

    plugin: str
    code: str
    reasons: tuple[str, ...]
    facts: tuple[FilterFact, ...]

    def facts_for(self, reason: str) -> tuple[FilterFact, ...]:
        return tuple(fact for fact in self.facts if fact.reason == reason)

    def text(self) -> str:
        return "; ".join(fact.text() for fact in self.facts) if self.facts else NO_FACTS

    def to_json(self) -> dict[str, Any]:
        return {
            "plugin": self.plugin,
            "code": self.code,
            "reasons": list(self.reasons),
            "facts": [fact.to_json() for fact in self.facts],
            "text": self.text(),
        }


@dataclass(frozen=True, slots=True)
class NodeDetail:
    """Every plugin that rejected the node, in Filter order (the first one decided the verdict)."""

    node: str
    plugins: tuple[PluginDetail, ...]
    nominated_pods: tuple[str, ...]  # pods nominated here that were counted (the first filter pass)

    def plugin(self, name: str) -> Optional[PluginDetail]:
        return next((p for p in self.plugins if p.plugin == name), None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"plugins": {p.plugin: p.to_json() for p in self.plugins}}
        if self.nominated_pods:
            out["nominatedPods"] = list(self.nominated_pods)
        return out


@dataclass(frozen=True, slots=True)
class CycleDetails:
    """What a replay learns of one cycle beyond its events: the facts behind each Filter rejection
    and, when DefaultPreemption picked among candidates, its ranking."""

    cycle: int
    pod: str
    nodes: dict[str, NodeDetail]  # rejected nodes, in evaluation order
    preemption: Optional[PreemptionRanking] = None

    def to_json(self) -> dict[str, Any]:
        """The Filter facts (the ranking is written by the explanation, beside them)."""
        return {"cycle": self.cycle, "pod": self.pod, "nodes": {name: d.to_json() for name, d in self.nodes.items()}}
