"""A what-if suggestion (scheduler_core/answers/whatif.py) written into the scenario text.

The engine describes each suggestion once, as a `kind` and a `change` (Suggestion.to_json); this
module is the one place that change is applied to the text, so what the web app saves as a new
version is what the engine verified. Applying edits only the documents it must: the pod's own
document, the node's for a node-side change (labels, allocatable), the claim's or its template's
for a claim change; for an eviction, the victims' documents are removed (and, for devices' holders,
their claims released). Every other document keeps its text, comments and layout; an object inside
a `kind: List` is edited inside that List document (which is then written anew). The text edits
themselves are scenario/textedit.py's, shared with the node taints the controller would add.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from scheduler_core.scenario.textedit import KEEP, edit_objects

# Both are untyped: a scenario document as parsed from the text (YAML), and a suggestion's
# `change` as the web app stored it (JSON).
Document = dict[str, Any]
Change = Mapping[str, Any]
DocumentEdit = Callable[[Document, Change], Document]


def apply_to_text(text: str, pod_key: str, suggestion: Mapping[str, Any]) -> str:
    """The text with `suggestion` (one entry of what_if's `suggestions`) applied for the pod `pod_key`."""
    kind, change = suggestion["kind"], suggestion["change"]
    if kind == "evict":
        victims = set(change["victims"])
        return edit_objects(text, "Pod", lambda key, _: None if key in victims else KEEP)
    if kind == "evictHolder":
        return _evict_holders(text, change)
    if kind in _CLAIM_EDITS:
        edit = _CLAIM_EDITS[kind]
        document_kind, key = (
            ("ResourceClaimTemplate", change["template"])
            if "template" in change
            else ("ResourceClaim", change["claim"])
        )
        return edit_objects(text, document_kind, lambda found, obj: edit(obj, change) if found == key else KEEP)
    if kind in _NODE_EDITS:
        edit = _NODE_EDITS[kind]
        return edit_objects(text, "Node", lambda key, obj: edit(obj, change) if key == change["node"] else KEEP)
    edit = _EDITS[kind]
    return edit_objects(text, "Pod", lambda key, obj: edit(obj, change) if key == pod_key else KEEP)


def _spec(pod: Document) -> Document:
    pod = dict(pod)
    pod["spec"] = dict(pod.get("spec") or {})
    return pod


def _toleration(pod: Document, change: Change) -> Document:
    pod = _spec(pod)
    toleration = {"key": change["key"], "operator": change["operator"], "effect": change["effect"]}
    if change["operator"] == "Equal":
        toleration["value"] = change["value"]
    pod["spec"]["tolerations"] = [*(pod["spec"].get("tolerations") or []), toleration]
    return pod


def _constraint(pod: Document, change: Change, update: Document) -> Document:
    pod = _spec(pod)
    constraints = [dict(c) for c in pod["spec"].get("topologySpreadConstraints") or []]
    constraints[change["constraint"]].update(update)
    if update.get("whenUnsatisfiable") == "ScheduleAnyway":
        constraints[change["constraint"]].pop("minDomains", None)
    pod["spec"]["topologySpreadConstraints"] = constraints
    return pod


def _drop_affinity_term(pod: Document, change: Change) -> Document:
    pod = _spec(pod)
    field = "podAffinity" if change["kind"] == "affinity" else "podAntiAffinity"
    affinity = dict(pod["spec"].get("affinity") or {})
    section = dict(affinity.get(field) or {})
    required = list(section.get("requiredDuringSchedulingIgnoredDuringExecution") or [])
    del required[change["term"]]
    section["requiredDuringSchedulingIgnoredDuringExecution"] = required
    affinity[field] = section
    pod["spec"]["affinity"] = affinity
    return pod


def _drop_node_selector(pod: Document, change: Change) -> Document:
    pod = _spec(pod)
    if "nodeSelector" in change:
        pod["spec"].pop("nodeSelector", None)
    else:
        affinity = dict(pod["spec"].get("affinity") or {})
        node_affinity = dict(affinity.get("nodeAffinity") or {})
        node_affinity.pop("requiredDuringSchedulingIgnoredDuringExecution", None)
        affinity["nodeAffinity"] = node_affinity
        pod["spec"]["affinity"] = affinity
    return pod


def _requests(pod: Document, change: Change) -> Document:
    pod = _spec(pod)
    resources = dict(pod["spec"].get("resources") or {})
    requests = dict(resources.get("requests") or {})
    amount = change["amount"]
    requests[change["resource"]] = f"{amount}m" if change["resource"] == "cpu" else str(amount)
    resources["requests"] = requests
    pod["spec"]["resources"] = resources  # pod-level requests (PodLevelResources)
    return pod


_EDITS: dict[str, DocumentEdit] = {
    "toleration": _toleration,
    "maxSkew": lambda pod, change: _constraint(pod, change, {"maxSkew": change["maxSkew"]}),
    "scheduleAnyway": lambda pod, change: _constraint(pod, change, {"whenUnsatisfiable": "ScheduleAnyway"}),
    "dropAffinityTerm": _drop_affinity_term,
    "dropNodeSelector": _drop_node_selector,
    "requests": _requests,
}


def _node_labels(node: Document, change: Change) -> Document:
    node = dict(node)
    metadata = dict(node.get("metadata") or {})
    labels = dict(metadata.get("labels") or {})
    for key, value in change["labels"].items():
        if value is None:
            labels.pop(key, None)
        else:
            labels[key] = value
    metadata["labels"] = labels
    node["metadata"] = metadata
    return node


def _node_allocatable(node: Document, change: Change) -> Document:
    node = dict(node)
    status = dict(node.get("status") or {})
    # A node that lists only capacity has that as its allocatable: keep the rest of it.
    allocatable = dict(status.get("allocatable") or status.get("capacity") or {})
    for resource, amount in change["allocatable"].items():
        allocatable[resource] = f"{amount}m" if resource == "cpu" else str(amount)
    status["allocatable"] = allocatable
    node["status"] = status
    return node


_NODE_EDITS: dict[str, DocumentEdit] = {
    "nodeLabels": _node_labels,
    "allocatable": _node_allocatable,
}


# ---------------------------------------------------------------------------- claims (DynamicResources)


def _claim_request(obj: Document, change: Change, update: Document) -> Document:
    """The named request's `exactly` updated, in a ResourceClaim (spec.devices) or a
    ResourceClaimTemplate (spec.spec.devices)."""
    obj = dict(obj)
    spec = dict(obj.get("spec") or {})
    inner = dict(spec.get("spec") or {}) if obj.get("kind") == "ResourceClaimTemplate" else spec
    devices = dict(inner.get("devices") or {})
    requests = []
    for request in devices.get("requests") or []:
        if isinstance(request, dict) and request.get("name") == change["request"]:
            request = {**request, "exactly": {**(request.get("exactly") or {}), **update}}
        requests.append(request)
    devices["requests"] = requests
    inner["devices"] = devices
    if obj.get("kind") == "ResourceClaimTemplate":
        spec["spec"] = inner
    obj["spec"] = inner if obj.get("kind") != "ResourceClaimTemplate" else spec
    return obj


_CLAIM_EDITS: dict[str, DocumentEdit] = {
    "claimCount": lambda obj, change: _claim_request(obj, change, {"count": change["count"]}),
    "claimClass": lambda obj, change: _claim_request(obj, change, {"deviceClassName": change["deviceClassName"]}),
}


def _evict_holders(text: str, change: Change) -> str:
    """The victims' documents removed and their claims released as the resourceclaim controller
    releases them: a claim owned by a victim is removed, another loses status.allocation and
    status.reservedFor."""
    victims, released = set(change["victims"]), set(change["claims"])
    text = edit_objects(text, "Pod", lambda key, _: None if key in victims else KEEP)

    def release(key: str, claim: Document) -> Any:
        if key not in released:
            return KEEP
        namespace = key.split("/", 1)[0]
        owners = (claim.get("metadata") or {}).get("ownerReferences") or []
        if any(
            isinstance(o, dict) and o.get("kind") == "Pod" and f"{namespace}/{o.get('name')}" in victims for o in owners
        ):
            return None
        status = {k: v for k, v in (claim.get("status") or {}).items() if k not in ("allocation", "reservedFor")}
        return {k: v for k, v in {**claim, "status": status}.items() if k != "status" or status}

    return edit_objects(text, "ResourceClaim", release)
