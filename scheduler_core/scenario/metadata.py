"""ObjectMeta: the name (and so the object's display name in errors), namespace, labels, uid."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from scheduler_core.scenario.fields import Field
from scheduler_core.scenario.validation import check, is_dns1123_label, label_map

DEFAULT_NAMESPACE = "default"
NameCheck = Callable[[str], list[str]]


@dataclass(slots=True)
class Metadata:
    name: str
    namespace: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    uid: str = ""


def read_metadata(obj: Field, kind: str, name_check: NameCheck, namespaced: bool) -> Metadata:
    """Reads metadata first so every later error names the object ("Pod default/web-1")."""
    metadata = obj.get_map("metadata")
    if metadata is None:
        obj.error_at("metadata", "Required value")
        return Metadata("", DEFAULT_NAMESPACE if namespaced else "")
    name_field = metadata.get("name")
    name = name_field.as_str() if name_field is not None else ""
    namespace = metadata.get_str("namespace") or DEFAULT_NAMESPACE if namespaced else ""
    if name_field is not None and name:  # a name implies its field
        obj.ctx.object = f"{kind} {namespace}/{name}" if namespaced else f"{kind} {name}"
        check(name_field, name, name_check(name))
    else:
        # generateName alone is not enough: the API server would invent the name.
        metadata.error_at("name", "Required value")
    namespace_field = metadata.get("namespace")
    if namespaced and namespace_field is not None:
        check(namespace_field, namespace, is_dns1123_label(namespace))
    labels = label_map(metadata.get("labels"))
    return Metadata(name, namespace, labels, metadata.get_str("uid"))
