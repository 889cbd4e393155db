"""Pod signatures for OpportunisticBatching (kube-scheduler/framework/signers.go).

Two pods with the same signature get the same Filter and Score results on the same nodes in the
same state, so the scheduler may reuse one's sorted nodes for the next. Each plugin that reads a
part of the pod contributes that part as a fragment (``sign_pod``); a plugin that cannot vouch for
a pod (InterPodAffinity for a pod with pod affinity, PodTopologySpread with constraints of any
kind) says so with ``Unsignable``, and then the pod has no signature at all.

The release compares signatures as JSON bytes. Here each fragment's value is a hashable tuple
built so that two values are equal exactly when the release's JSON is: lists it sorts are sorted
here, maps become sorted items, and what it leaves out (configMap and secret volumes) is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Hashable, Optional, Protocol, Sequence, Union, runtime_checkable

from scheduler_core.util.gosort import sorted_slice
from scheduler_core.model import NodeSelectorRequirement, NodeSelectorTerm, Pod

# The fragments' keys (what the release calls its signer names): fragments with the same key
# carry the same part of the pod, whichever plugin adds them.
DYNAMIC_RESOURCES = "v1.Pod.Spec.DynamicResources"
IMAGE_NAMES = "v1.Pod.Spec.CanonicalImageNames()"
LABELS = "v1.Pod.Labels"
NODE_NAME = "v1.Pod.Spec.NodeName"
NODE_AFFINITY = "v1.Pod.Spec.Affinity.NodeAffinity"
NODE_SELECTOR = "v1.Pod.Spec.Affinity.NodeSelector"
HOST_PORTS = "v1.Pod.Spec.HostPorts()"
RESOURCES = "v1.Pod.Spec.ContainerRequestsAndOverheads()"
REQUIRED_FEATURES = "v1.Pod.Spec.RequiredFeatures()"
SCHEDULER_NAME = "v1.Pod.Spec.SchedulerName"
TOLERATIONS = "v1.Pod.Spec.Tolerations"
VOLUMES = "v1.Pod.Spec.Volumes.NonSyntheticSources()"

SignFragment = tuple[str, Hashable]
SignedPart = tuple[Hashable, ...]  # one fragment's value: hashable, compared whole
Signature = tuple[SignFragment, ...]


@dataclass(frozen=True, slots=True)
class Unsignable:
    """A plugin's refusal to sign a pod (the release's Unschedulable status from SignPod)."""

    plugin: str
    reason: str


SignResult = Union[list[SignFragment], Unsignable]


@runtime_checkable
class SignPlugin(Protocol):
    """framework.SignPlugin: a plugin that says which parts of a pod its verdicts depend on."""

    name: ClassVar[str]

    def sign_pod(self, pod: Pod) -> SignResult: ...


def host_ports(pod: Pod) -> tuple[int, ...]:
    """HostPortsSigner: the distinct non-zero host ports of containers and init containers, sorted
    (protocol and host IP are not part of it)."""
    ports = {
        port.host_port
        for container in (*pod.containers, *pod.init_containers)
        for port in container.ports
        if port.host_port
    }
    return tuple(sorted(ports))


def _requirements(requirements: tuple[NodeSelectorRequirement, ...]) -> SignedPart:
    """NodeSelectorRequirementsSigner: each requirement with its values sorted; the list sorted."""
    return tuple(sorted((r.key, r.operator, tuple(sorted(r.values))) for r in requirements))


def _term(term: NodeSelectorTerm) -> SignedPart:
    return _requirements(term.match_expressions), _requirements(term.match_fields)


def node_affinity(pod: Pod) -> Optional[SignedPart]:
    """NodeAffinitySigner: None without spec.affinity.nodeAffinity; else its required terms and its
    weighted preferred terms, each list sorted (term order never matters to the plugin)."""
    affinity = pod.affinity.node_affinity if pod.affinity is not None else None
    if affinity is None:
        return None
    required = tuple(sorted(_term(t) for t in affinity.required.terms)) if affinity.required is not None else ()
    preferred = tuple(sorted((t.weight, _term(t.preference)) for t in affinity.preferred))
    return required, preferred


def node_selector(pod: Pod) -> SignedPart:
    return tuple(sorted(pod.node_selector.items()))


def tolerations(pod: Pod) -> SignedPart:
    """TolerationsSigner: every toleration, whole, in the order Go's sort.Slice by key then value
    leaves them (not a stable sort: tolerations equal in both keep the order it gives them)."""
    ordered = sorted_slice(pod.tolerations, lambda a, b: a.key < b.key or (a.key == b.key and a.value < b.value))
    return tuple((t.key, t.operator, t.value, t.effect, t.seconds) for t in ordered)


def volumes(pod: Pod) -> SignedPart:
    """VolumesSigner: every volume source but configMap and secret ones (they never matter to
    scheduling and would make every pod unique), as its canonical JSON, sorted. The volume's name is
    not part of it."""
    return tuple(sorted(v.source_key for v in pod.volumes if v.kind not in ("configMap", "secret")))


def labels(pod: Pod) -> SignedPart:
    return tuple(sorted(pod.labels.items()))


@runtime_checkable
class RefusingSigner(Protocol):
    """A SignPlugin that may refuse a pod: it can say so before any fragment is built."""

    def refuses_to_sign(self, pod: Pod) -> Optional[Unsignable]: ...


def sign_pod(
    pod: Pod, plugins: Sequence[SignPlugin], refusers: Sequence[RefusingSigner] = ()
) -> Union[Signature, Unsignable]:
    """SignPod: the schedulerName and every signing plugin's fragments (a later fragment with the
    same key replaces an earlier one, as in the release's map); the first refusal wins.
    ``refusers``: those of ``plugins`` that may refuse, in their order, asked first — the same
    first refusal, without building the others' fragments for a pod that gets none (with the
    system's default spread constraints, every pod)."""
    for refuser in refusers:
        refusal = refuser.refuses_to_sign(pod)
        if refusal is not None:
            return refusal
    fragments: dict[str, Hashable] = {SCHEDULER_NAME: pod.scheduler_name}
    for plugin in plugins:
        result = plugin.sign_pod(pod)
        if isinstance(result, Unsignable):
            return result
        fragments.update(result)
    return tuple(sorted(fragments.items()))
