"""NodeDeclaredFeatures (nodedeclaredfeatures): a pod that needs a node feature goes only to nodes
that declare it in ``status.declaredFeatures``.

The release infers what a pod needs from its spec with component-helpers' nodedeclaredfeatures
framework: each registered feature says whether scheduling the pod requires it. In v1.35 and
v1.36 two of them can (the others are about pod updates only):

- ``RestartAllContainersOnContainerExits``: a container or init container has a restartPolicyRules
  entry whose action is ``RestartAllContainers``;
- ``UserNamespacesHostNetworkSupport`` (v1.36): the pod uses the host network in its own user
  namespace (``hostNetwork: true`` with ``hostUsers: false``).

A pod needing none is skipped at PreFilter (so it never appears in a trace), as are all pods while
the gate is off (the plugin is then built disabled, with no events). The node's side is
``FeatureMapper.TryMap`` of its declared features: unknown names are ignored. v1.35 names the
missing features in its reason; v1.36 gives one fixed reason (it no longer computes the
difference).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Optional

from scheduler_core.framework import signers
from scheduler_core.framework.cluster_events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
)
from scheduler_core.framework.cycle_state import CycleState, StateKey
from scheduler_core.framework.filter_facts import NodeFact
from scheduler_core.framework.interfaces import Handle, PreFilterResult
from scheduler_core.framework.node_info import NodeInfo
from scheduler_core.framework.status import SKIP, MaybeStatus, Status
from scheduler_core.model import Node, Pod, names
from scheduler_core.plugins.helper import same_pod
from scheduler_core.release import Features

# The registered features' names (features.AllFeatures), sorted as the framework sorts them: the
# position of a name is its bit in a FeatureSet, and FeatureSet.String() writes them in this order.
RESTART_ALL_CONTAINERS = "RestartAllContainersOnContainerExits"
USER_NAMESPACES_HOST_NETWORK = "UserNamespacesHostNetworkSupport"
REGISTERED_V1_35 = ("GuaranteedQoSPodCPUResize", "InPlacePodLevelResourcesVerticalScaling", RESTART_ALL_CONTAINERS)
REGISTERED_V1_36 = (
    "ExtendWebSocketsToKubelet",
    "InPlacePodLevelResourcesVerticalScaling",
    "InPlacePodVerticalScalingInitContainers",
    RESTART_ALL_CONTAINERS,
    USER_NAMESPACES_HOST_NETWORK,
)

ACTION_RESTART_ALL_CONTAINERS = "RestartAllContainers"  # v1.ContainerRestartRuleActionRestartAllContainers

REASON_UNSATISFIED = "node(s) didn't match Pod's required features"  # v1.36
REASON_UNSATISFIED_V1_35 = "node declared features check failed - unsatisfied requirements: "  # + names

# Features required by a pod: the registered names it needs, in registry order.
FeatureSet = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _PreFilterState:
    required: FeatureSet

    def clone(self) -> "_PreFilterState":
        return self  # other pods never change it

    def memo_content(self) -> FeatureSet:
        return self.required


_PRE_FILTER = StateKey[_PreFilterState]("PreFilter" + names.NODE_DECLARED_FEATURES)


def required_features(pod: Pod, registered: tuple[str, ...] = REGISTERED_V1_36) -> FeatureSet:
    """InferForPodScheduling: each registered feature whose InferForScheduling holds for the pod
    (no feature has a MaxVersion yet, so the scheduler's version never drops one)."""
    needed = []
    if RESTART_ALL_CONTAINERS in registered and _restarts_all_containers(pod):
        needed.append(RESTART_ALL_CONTAINERS)
    if USER_NAMESPACES_HOST_NETWORK in registered and pod.host_network and pod.host_users is False:
        needed.append(USER_NAMESPACES_HOST_NETWORK)
    return tuple(name for name in registered if name in needed)


def _restarts_all_containers(pod: Pod) -> bool:
    return any(
        action == ACTION_RESTART_ALL_CONTAINERS
        for container in (*pod.containers, *pod.init_containers)
        for action in container.restart_rule_actions
    )


def node_features(node: Node, registered: tuple[str, ...] = REGISTERED_V1_36) -> frozenset[str]:
    """FeatureMapper.TryMap(node.status.declaredFeatures): a walk of the node's list (sorted, as the
    API server keeps it) beside the sorted registered names; names it does not know are skipped."""
    found = []
    declared, i, j = node.declared_features, 0, 0
    while i < len(declared) and j < len(registered):
        if declared[i] == registered[j]:
            found.append(declared[i])
            i, j = i + 1, j + 1
        elif declared[i] < registered[j]:
            i += 1
        else:
            j += 1
    return frozenset(found)


class NodeDeclaredFeatures:
    name: ClassVar[str] = names.NODE_DECLARED_FEATURES

    def __init__(self, features: Features) -> None:
        self.enabled = features.enable_node_declared_features
        self.reason_unnamed = features.declared_features_reason_unnamed
        self.registered = (
            REGISTERED_V1_36 if features.declared_features_user_namespaces_host_network else REGISTERED_V1_35
        )

    def required(self, pod: Pod) -> FeatureSet:
        return required_features(pod, self.registered)

    def sign_pod(self, pod: Pod) -> signers.SignResult:
        """SignPod: the inferred features (the release writes them as a bitmap string, v1.35 as a
        sorted list: either is equal exactly when the sets are)."""
        return [(signers.REQUIRED_FEATURES, self.required(pod))]

    def events_to_register(self) -> list[ClusterEventWithHint]:
        """EventsToRegister: none while disabled; else a node added or its declared features
        updated, and an update of the pod itself."""
        if not self.enabled:
            return []
        return [
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE),
                node_changed_hint,
            ),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.UPDATE), self.pod_updated_hint),
        ]

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: list[NodeInfo]
    ) -> tuple[Optional[PreFilterResult], MaybeStatus]:
        if not self.enabled:
            return None, SKIP
        required = self.required(pod)
        if not required:
            return None, SKIP
        state.write(_PRE_FILTER, _PreFilterState(required))
        return None, None

    def pre_filter_extensions(self) -> None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> MaybeStatus:
        if not self.enabled:
            return None
        pre_filter = state.read_optional(_PRE_FILTER)
        if pre_filter is None:
            return Status.error(f'error reading "{_PRE_FILTER.name}" from cycle-state: not found')
        missing = self._missing(pre_filter.required, node_info.node)
        if not missing:
            return None
        if self.reason_unnamed:
            return Status.unresolvable(REASON_UNSATISFIED)
        # v1.35 lists them in its map's order: at most one can be missing there (one feature is inferred)
        return Status.unresolvable(REASON_UNSATISFIED_V1_35 + ", ".join(missing))

    def filter_detail(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[NodeFact, ...]:
        """Explanations only: the features the pod needs that the node does not declare."""
        status = self.filter(state, pod, node_info)
        pre_filter = state.read_optional(_PRE_FILTER)
        if status is None or pre_filter is None or not status.reasons:
            return ()
        missing = self._missing(pre_filter.required, node_info.node)
        declared = ", ".join(node_info.node.declared_features) or "none"
        detail = f"the pod needs {', '.join(missing)}; the node's status.declaredFeatures: {declared}"
        return (NodeFact(status.reasons[0], detail),)

    def _missing(self, required: FeatureSet, node: Node) -> list[str]:
        declared = node_features(node, self.registered)
        return [name for name in required if name not in declared]

    def pod_updated_hint(self, pod: Pod, old: Pod, new: Pod) -> QueueingHint:
        """isSchedulableAfterPodUpdate: only the pod's own update, when what it needs changed."""
        if not same_pod(pod, new):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE_SKIP if self.required(old) == self.required(new) else QueueingHint.QUEUE


def node_changed_hint(pod: Pod, old: Optional[Node], new: Node) -> QueueingHint:
    """isSchedulableAfterNodeChange: a node added, or its declared features changed (as lists)."""
    if old is not None and old.declared_features == new.declared_features:
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


def new(args: Optional[Mapping[str, Any]], handle: Handle, features: Features) -> NodeDeclaredFeatures:
    return NodeDeclaredFeatures(features)
