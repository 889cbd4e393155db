"""What a Filter plugin compared on one node, as typed facts (the numbers behind its reason).

A plugin's ``filter_detail(state, pod, node_info)`` returns these for a node it rejects, computed
from the very state and NodeInfo its ``filter`` judged; they never change a Status or an event.
``scheduler_core.answers.filter_details`` asks for them only when a cycle is explained. Each fact names the
reason it explains (one of the plugin's Status reasons) and says itself in words (``text``).

Each fact, a plugin's rejection of a node and a cycle's rejected nodes are declared once, as the
payloads the explanation writes (``Wire``: the API's schemas are made from these, webui/schemas/runs.py):
a fact is tagged with its ``kind``, and what it derives (``text``, a resource's ``free``, a spread's
``skew``) is filled in when it is made, so the JSON says what the sentences say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import msgspec
from msgspec.structs import force_setattr

from scheduler_core.util.wire import Wire
from scheduler_core.framework.preemption.candidates import PreemptionRanking
from scheduler_core.model.quantity import format_amount

PODS = "pods"
NO_FACTS = "the plugin reports no numbers for this reason"


class ResourceFact(Wire, frozen=True, omit_defaults=False, tag_field="kind", tag="resource"):  # type: ignore[misc]
    """NodeResourcesFit: one resource fitsRequest checked. For ``pods`` the pod asks for 1,
    ``used`` is the pods already on the node and ``allocatable`` how many it allows."""

    reason: str
    resource: str
    requested: int  # what the pod asks for
    used: int  # the node's requested amount (pods counted on it, nominated ones included when they were)
    allocatable: int
    pods: int  # pods on the node

    free: int = 0  # derived: filled in when made
    text: str = ""  # derived: the fact in words, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "free", self.allocatable - self.used)
        force_setattr(self, "text", self._said())

    def _said(self) -> str:
        if self.resource == PODS:
            return f"pods: {self.used} of {self.allocatable} allowed already run here; the pod would be one more"

        def amount(value: int) -> str:
            return format_amount(self.resource, value)

        return (
            f"{self.resource}: asks {amount(self.requested)}; free {amount(self.free)} of "
            f"{amount(self.allocatable)} allocatable ({amount(self.used)} requested by {self.pods} pod(s))"
        )


class TaintFact(Wire, frozen=True, omit_defaults=False, tag_field="kind", tag="taint"):  # type: ignore[misc]
    """TaintToleration: the first NoSchedule / NoExecute taint no toleration of the pod tolerates."""

    reason: str
    key: str
    value: str
    effect: str

    text: str = ""  # derived: the fact in words, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "text", self._said())

    def _said(self) -> str:
        shown = f"{self.key}={self.value}" if self.value else self.key
        return f"untolerated taint {shown}:{self.effect}"


class PortFact(Wire, frozen=True, omit_defaults=False, tag_field="kind", tag="port"):  # type: ignore[misc]
    """NodePorts: a host port the pod wants that is in use on the node, and the pods using it."""

    reason: str
    protocol: str
    host_ip: str = msgspec.field(name="hostIP")  # the API's spelling
    port: int
    used_by: tuple[str, ...]  # pods on the node holding a conflicting port (namespace/name)

    text: str = ""  # derived: the fact in words, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "text", self._said())

    def _said(self) -> str:
        users = ", ".join(self.used_by) if self.used_by else "a pod counted on the node"
        return f"hostPort {self.port}/{self.protocol} on {self.host_ip} is in use by {users}"


class LabelFact(Wire, frozen=True, omit_defaults=False, tag_field="kind", tag="label"):  # type: ignore[misc]
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

    text: str = ""  # derived: the fact in words, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "text", self._said())

    def _said(self) -> str:
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


class SpreadFact(Wire, frozen=True, omit_defaults=False, tag_field="kind", tag="spread"):  # type: ignore[misc]
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

    skew: int = 0  # derived: filled in when made
    text: str = ""  # derived: the fact in words, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "skew", self.matching + self.self_match - self.global_minimum)
        force_setattr(self, "text", self._said())

    def _said(self) -> str:
        if self.domain is None:
            return f"the node has no {self.topology_key} label"
        verdict = ">" if self.skew > self.max_skew else "≤"
        return (
            f"{self.topology_key}={self.domain}: {self.matching} matching pod(s) + {self.self_match} (this pod) "
            f"− minimum {self.global_minimum} = skew {self.skew} {verdict} maxSkew {self.max_skew}"
        )


class AffinityFact(Wire, frozen=True, omit_defaults=False, tag_field="kind", tag="affinity"):  # type: ignore[misc]
    """InterPodAffinity: one required term (the pod's affinity or anti-affinity term, 1-based, or
    running pods' anti-affinity terms against the pod) and the matching pods counted in the node's
    domain. ``domain`` None: the node lacks the term's topology key."""

    reason: str
    term: str  # "affinity term 1", "anti-affinity term 2", "existing pods' anti-affinity"
    topology_key: str
    domain: Optional[str]
    matching: int

    text: str = ""  # derived: the fact in words, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "text", self._said())

    def _said(self) -> str:
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


class VolumeFact(Wire, frozen=True, tag_field="kind", tag="volume"):  # type: ignore[misc]
    """A volume plugin's finding on the node: the claim or volume concerned and what collided
    (another pod, a zone label, an attach limit); ``count``/``limit`` for NodeVolumeLimits."""

    reason: str
    subject: str  # the claim, volume or driver concerned
    detail: str  # what the plugin found, in words
    count: Optional[int] = None
    limit: Optional[int] = None

    text: str = ""  # derived: the fact in words, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "text", self._said())

    def _said(self) -> str:
        return f"{self.subject}: {self.detail}"


class NodeFact(Wire, frozen=True, omit_defaults=False, tag_field="kind", tag="node"):  # type: ignore[misc]
    """A plain property of the node the plugin read (spec.unschedulable, its name)."""

    reason: str
    text: str  # the property, in words


FilterFact = Union[ResourceFact, TaintFact, PortFact, LabelFact, SpreadFact, AffinityFact, VolumeFact, NodeFact]


# ---------------------------------------------------------------------------- per node, per cycle


class PluginDetail(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """One plugin's rejection of one node: its status's reasons and the facts behind them."""

    plugin: str
    code: str
    reasons: tuple[str, ...]
    facts: tuple[FilterFact, ...]
    text: str = ""  # derived: the facts in words, filled in when made

    def __post_init__(self) -> None:
        force_setattr(self, "text", "; ".join(fact.text for fact in self.facts) if self.facts else NO_FACTS)

    def facts_for(self, reason: str) -> tuple[FilterFact, ...]:
        return tuple(fact for fact in self.facts if fact.reason == reason)


class NodeDetail(Wire, frozen=True):  # type: ignore[misc]
    """Every plugin that rejected the node, by name in Filter order (the first one decided the verdict)."""

    plugins: dict[str, PluginDetail]
    nominated_pods: tuple[str, ...] = ()  # pods nominated here that were counted (the first filter pass)

    def plugin(self, name: str) -> Optional[PluginDetail]:
        return self.plugins.get(name)


class FilterDetails(Wire, frozen=True, omit_defaults=False):  # type: ignore[misc]
    """The facts behind each Filter rejection of one cycle, as an explanation writes them."""

    cycle: int
    pod: str
    nodes: dict[str, NodeDetail]  # rejected nodes, in evaluation order


@dataclass(frozen=True, slots=True)
class CycleDetails:
    """What a replay learns of one cycle beyond its events: the facts behind each Filter rejection
    and, when DefaultPreemption picked among candidates, its ranking (an explanation writes the two
    side by side)."""

    facts: FilterDetails
    preemption: Optional[PreemptionRanking] = None

    @property
    def cycle(self) -> int:
        return self.facts.cycle

    @property
    def pod(self) -> str:
        return self.facts.pod

    @property
    def nodes(self) -> dict[str, NodeDetail]:
        return self.facts.nodes
