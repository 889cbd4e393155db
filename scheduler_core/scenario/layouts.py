"""Which kind a file's place in a dump names, for objects and lists written without ``kind``.

Dump tools store objects by kind: a directory or file named after it (``nodes.json``, ``Pods.json``,
``pods/<namespace>.json``, ``core/nodes/<name>.yaml``, ``config/node/<name>.json``). The loader
gives that kind only to objects written without one (an object's own ``kind`` always wins), and
only to files found in a directory or archive, or to a file given by a name that says it.

Recognised layouts (paths relative to the dump's root; docs/INPUT_FORMS.md lists them with sources):

- troubleshoot support bundles: ``cluster-resources/<plural>.json`` and
  ``cluster-resources/<plural>/<namespace>.json`` — the word after ``cluster-resources``;
- OpenShift must-gather (``oc adm inspect``): ``cluster-scoped-resources/<group>/<plural>.yaml``,
  ``cluster-scoped-resources/<group>/<plural>/<name>.yaml``, ``namespaces/<ns>/<group>/<plural>.yaml``
  and ``namespaces/<ns>/<plural>/<name>/<name>.yaml`` — the word after the group (or the namespace);
- OpenShift insights archives: ``config/<singular>/<name>.json``, ``config/<singular>/<ns>/<name>.json``
  — the word after ``config``;
- everything else (``kubectl cluster-info dump --output-directory``: ``nodes.json``,
  ``<ns>/pods.json``, ``<ns>/replication-controllers.json``; sonobuoy: ``resources/cluster/Nodes.json``,
  ``resources/ns/<ns>/Pods.json``): the file's name, else its directory's name.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Optional, Sequence

# Kinds the scheduler does not read but dumps hold: named here so their files count as ignored
# objects of that kind rather than as files holding no object.
OTHER_KINDS = (
    "Event",
    "Deployment",
    "DaemonSet",
    "Job",
    "CronJob",
    "ConfigMap",
    "Secret",
    "Endpoints",
    "EndpointSlice",
    "Ingress",
    "ServiceAccount",
    "Role",
    "RoleBinding",
    "ClusterRole",
    "ClusterRoleBinding",
    "CustomResourceDefinition",
    "HorizontalPodAutoscaler",
    "NetworkPolicy",
    "LimitRange",
    "ResourceQuota",
    "Lease",
    "ControllerRevision",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
    "APIService",
)

YAML_OR_JSON = (".yaml", ".yml", ".json")

# anchor directory -> positions after it (first naming a kind wins)
_ANCHORS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("cluster-resources", (0,)),  # troubleshoot
    ("cluster-scoped-resources", (1,)),  # must-gather: <group>/<plural>
    ("namespaces", (1, 2)),  # must-gather: <ns>/<plural>/<name>/ (a pod's own folder) or <ns>/<group>/<plural>
    ("config", (0,)),  # insights
)


def vocabulary(kinds: Iterable[str]) -> dict[str, str]:
    """Words (lowercase, no '-' or '_') -> kind: each kind's name and its plural."""
    words: dict[str, str] = {}
    for kind in (*kinds, *OTHER_KINDS):
        word = kind.lower()
        words.setdefault(word, kind)
        words.setdefault(_plural(word), kind)
    return words


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "o", "u"):
        return word[:-1] + "ies"  # policy -> policies, capacity -> capacities
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"  # class -> classes, ingress -> ingresses
    return word + "s"


def _word(part: str) -> str:
    lowered = part.lower()
    for suffix in YAML_OR_JSON:
        if lowered.endswith(suffix):
            lowered = lowered[: -len(suffix)]
            break
    return lowered.replace("-", "").replace("_", "")


def kind_from_path(parts: Sequence[str], words: Mapping[str, str]) -> str:
    """The kind a path (its parts, relative to the dump's root) names, or "" for none."""
    if not parts:
        return ""
    for anchor, positions in _ANCHORS:
        if anchor in parts[:-1]:
            after = parts[parts.index(anchor) + 1 :]
            return next((kind for kind in (_kind_at(after, p, words) for p in positions) if kind), "")
    for part in (parts[-1], *parts[-2:-1]):  # the file's name, then its directory's
        kind = words.get(_word(part))
        if kind:
            return kind
    return ""


def _kind_at(parts: Sequence[str], position: int, words: Mapping[str, str]) -> Optional[str]:
    return words.get(_word(parts[position])) if position < len(parts) else None


def is_yaml_or_json(name: str) -> bool:
    return name.lower().endswith(YAML_OR_JSON)
