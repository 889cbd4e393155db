"""Objects written during a run with steps (../shared/spec/CHANGES.md), decoded as the loader decodes them.

The stand-in controllers make pods from templates and claims from volumeClaimTemplates, a step
creates objects or patches them (JSON merge patch, RFC 7386). Each of these is a manifest — a
mapping as YAML would give it — decoded by the same decoders as the scenario's own objects, so a
made pod is exactly the pod the same YAML would load as. Values keep the lines of the YAML they
came from (a template's, a patch's), so a problem still names a line.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from typing import Any, Callable, Optional, TypeVar

from scheduler_core.model import (
    BudgetSpec,
    Manifest,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    StorageClass,
    PodDisruptionBudget,
)
from scheduler_core.scenario import objects, pods, storage
from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.metadata import Metadata, read_metadata
from scheduler_core.scenario.validation import is_dns1123_subdomain
from scheduler_core.scenario.yamltree import YList, YMap

T = TypeVar("T")


def to_tree(value: Any, line: Optional[int]) -> Any:
    """A plain value as located YAML values: mappings and lists that are already located keep
    their lines, new ones take ``line``."""
    if isinstance(value, dict):
        tree = YMap(getattr(value, "line", line) or line or 0)
        source_lines = getattr(value, "lines", {})
        for key, item in value.items():
            tree[key] = to_tree(item, source_lines.get(key, tree.line))
            tree.lines[key] = source_lines.get(key, tree.line)
        return tree
    if isinstance(value, list):
        tree_list = YList(getattr(value, "line", line) or line or 0)
        source_list_lines = getattr(value, "lines", [])
        for index, item in enumerate(value):
            item_line = source_list_lines[index] if index < len(source_list_lines) else tree_list.line
            tree_list.append(to_tree(item, item_line))
            tree_list.lines.append(item_line)
        return tree_list
    return value


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: mappings merge key by key, null removes a key, anything else
    (lists included) replaces. Neither argument is changed."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def plain(value: Any) -> Any:
    """Located YAML values as plain dicts and lists (what canonical JSON is made of)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def _decode(
    kind: str, manifest: Manifest, line: Optional[int], decode: Callable[[Field, Metadata], T], namespaced: bool
) -> T:
    """Decode one manifest; its problems raise ScenarioInvalid (located at the manifest's lines)."""
    errors: list[ScenarioError] = []
    tree = to_tree(manifest, line)
    root = Field(tree, "", tree.line, Context(kind, errors))
    meta = read_metadata(root, kind, is_dns1123_subdomain, namespaced)
    decoded = decode(root, meta)
    if errors:
        raise ScenarioInvalid(errors)
    return decoded


def decode_pod(manifest: Manifest, doc_index: int, line: Optional[int] = None) -> Pod:
    return _decode("Pod", manifest, line, lambda obj, meta: pods.decode_pod(obj, meta, doc_index), True)


def pod_has_priority(manifest: Manifest) -> bool:
    return "priority" in (manifest.get("spec") or {})


def decode_node(manifest: Manifest, doc_index: int, line: Optional[int] = None) -> Node:
    return _decode("Node", manifest, line, lambda obj, meta: objects.decode_node(obj, meta, doc_index), False)


def decode_claim(manifest: Manifest, doc_index: int, line: Optional[int] = None) -> PersistentVolumeClaim:
    return _decode(
        "PersistentVolumeClaim", manifest, line, lambda obj, meta: storage.decode_claim(obj, meta, doc_index), True
    )


def decode_volume(manifest: Manifest, doc_index: int, line: Optional[int] = None) -> PersistentVolume:
    return _decode(
        "PersistentVolume", manifest, line, lambda obj, meta: storage.decode_volume(obj, meta, doc_index), False
    )


def decode_storage_class(manifest: Manifest, line: Optional[int] = None) -> StorageClass:
    return _decode("StorageClass", manifest, line, storage.decode_storage_class, False)


def decode_budget(manifest: Manifest, line: Optional[int] = None) -> tuple[PodDisruptionBudget, BudgetSpec]:
    def both(obj: Field, meta: Metadata) -> tuple[PodDisruptionBudget, BudgetSpec]:
        spec = budget_spec(obj, meta)
        return replace(objects.decode_pod_disruption_budget(obj, meta), spec=spec), spec

    return _decode("PodDisruptionBudget", manifest, line, both, True)


def budget_spec(obj: Field, meta: Metadata) -> BudgetSpec:
    """spec.minAvailable / spec.maxUnavailable (an integer or a percentage string)."""
    spec = obj.get_map("spec")
    values: dict[str, Any] = {}
    for key in ("minAvailable", "maxUnavailable"):
        child = spec.get(key) if spec is not None else None
        if child is None:
            continue
        value = child.value
        if isinstance(value, str) and not _is_percent(value):
            child.error(f'expected an integer or a percentage ("50%"), got "{value[:40]}"')
            continue
        if isinstance(value, (int, str)) and not isinstance(value, bool):
            values[key] = value
    return BudgetSpec(meta.namespace, meta.name, values.get("minAvailable"), values.get("maxUnavailable"))


def _is_percent(value: str) -> bool:
    return value.endswith("%") and value[:-1].isdigit()


def parse_time(value: object) -> Optional[datetime]:
    """A metav1.Time of a manifest (RFC 3339, or a datetime YAML already read), naive as UTC;
    None when absent or not a time."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def creation_time(manifest: Manifest) -> Optional[datetime]:
    """metadata.creationTimestamp of a manifest, when it gives one."""
    metadata = manifest.get("metadata")
    return parse_time(metadata.get("creationTimestamp")) if isinstance(metadata, dict) else None
