"""Imported text: `kubectl get -o yaml` output is tidied into an editable YAML stream.

kubectl writes one `kind: List` document full of server bookkeeping (managedFields, uid,
resourceVersion...). The engine reads Lists as they are, but a stream of plain objects is what a
person wants to edit. Text that does not parse is kept exactly as given: nothing typed is lost.
"""

from __future__ import annotations

from typing import Any

import yaml

SERVER_METADATA = ("managedFields", "uid", "resourceVersion", "creationTimestamp", "generation", "selfLink")
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def normalize(text: str) -> str:
    try:
        documents = [doc for doc in yaml.safe_load_all(text) if doc is not None]
    except (yaml.YAMLError, RecursionError):  # deep nesting overflows PyYAML; the engine's max_depth names it
        return text
    if not _is_kubectl_list(documents):
        return text
    items = [_without_server_fields(item) for item in documents[0].get("items") or []]
    return yaml.safe_dump_all(items, sort_keys=False, default_flow_style=False)


def _is_kubectl_list(documents: list[Any]) -> bool:
    return len(documents) == 1 and isinstance(documents[0], dict) and documents[0].get("kind") == "List"


def _without_server_fields(item: Any) -> Any:
    if not isinstance(item, dict) or not isinstance(item.get("metadata"), dict):
        return item
    metadata = {key: value for key, value in item["metadata"].items() if key not in SERVER_METADATA}
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k != LAST_APPLIED}
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)
    return {**item, "metadata": metadata}
