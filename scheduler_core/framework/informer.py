"""What the scheduler's informer caches of storage and device objects share (client-go's
tools/cache): how an object is keyed, and what a cache takes from its informer."""

from __future__ import annotations

from typing import Any, Optional


def object_key(obj: Any) -> str:
    """cache.MetaNamespaceKeyFunc: ``namespace/name`` for an object of a namespaced kind (one with a
    ``namespace`` field), else its name."""
    namespace: Optional[str] = getattr(obj, "namespace", None)
    name: str = obj.name
    return name if namespace is None else f"{namespace}/{name}"


def take(table: dict[str, Any], old: Any, new: Any) -> str:
    """One watch event into an informer's store (cache.Indexer Add, Update, Delete: ``new`` None
    deletes, ``old`` None adds); the object's key."""
    key = object_key(new if new is not None else old)
    if new is None:
        table.pop(key, None)
    else:
        table[key] = new
    return key
