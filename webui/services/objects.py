"""A version's nodes and pods as the engine reads them (its own defaulting), for the browser's tables."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from django import db

from webui.models import ScenarioVersion
from webui.services import engine

BINARY_SUFFIXES = (("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))
CPU = "cpu"
BYTE_RESOURCES = ("memory", "ephemeral-storage")


@dataclass(frozen=True)
class Objects:
    version: ScenarioVersion
    nodes: list[engine.Node]  # document order
    pods: list[engine.Pod]  # document order
    pending: set[int]  # id() of the pending pods
    volumes: list[dict[str, Any]]  # PersistentVolumes as the cluster view draws them (the engine's picture)
    devices: list[dict[str, Any]]  # DRA devices per node (scheduler_core.dra.inventory.NodeDevices JSON)
    claims: dict[str, list[dict[str, Any]]]  # pod namespace/name -> its claims (inventory.PodClaim JSON)


def of_version(version: ScenarioVersion) -> Objects:
    """Raises the API's 400 (scenario_invalid) or 413 (limit_exceeded) when the version does not validate."""
    scenario = engine.load_valid(version.text)
    devices, claims = engine.cluster_devices(scenario)
    return Objects(
        version,
        list(scenario.nodes),
        list(scenario.pods),
        {id(pod) for pod in scenario.pending_pods},
        engine.cluster_volumes(scenario),
        devices,
        claims,
    )


# Versions never change: their JSON answers are computed once per process and kept (a few, they
# can be megabytes). Keyed by the version's id and the engine's limits (a limit change may make a
# version unloadable).
_NODES_JSON: engine.Memo[bytes] = engine.Memo(8)
_OBJECTS_JSON: engine.Memo[bytes] = engine.Memo(4)
# key -> Lock held while one thread builds it (a warm-up and a request never both parse)
_BUILDING: dict[Hashable, threading.Lock] = {}
_BUILDING_LOCK = threading.Lock()


def _once(memo: engine.Memo[bytes], key: Hashable, build: Callable[[], bytes]) -> bytes:
    cached = memo.get(key)
    if cached is not None:
        return cached
    with _BUILDING_LOCK:
        lock = _BUILDING.setdefault(key, threading.Lock())
    with lock:
        cached = memo.get(key)
        if cached is None:
            cached = memo.put(key, build())
    with _BUILDING_LOCK:
        _BUILDING.pop(key, None)
    return cached


def nodes_json(version: ScenarioVersion) -> bytes:
    """{"version", "nodes": [{"name", "labels"}]}: all the run view needs to group nodes by domain."""

    def build() -> bytes:
        found = of_version(version)
        body = {
            "version": version.number,
            "nodes": [{"name": node.name, "labels": dict(node.labels)} for node in found.nodes],
        }
        return json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    return _once(_NODES_JSON, (version.pk, engine.engine_limits()), build)


def nodes_ready(version_id: int) -> bool:
    return _NODES_JSON.get((version_id, engine.engine_limits())) is not None


def objects_json(version: ScenarioVersion, build: Callable[[Objects], bytes]) -> bytes:
    """The /objects answer as JSON bytes, built (by `build(Objects)`) once per version."""
    return _once(_OBJECTS_JSON, (version.pk, engine.engine_limits()), lambda: build(of_version(version)))


def warm(version_id: int | None) -> threading.Thread | None:
    """Load a version and its node list in the background (a run was just started: its view will
    ask for the labels). None when they are ready already (or no version). Not done when a run page
    opens: in a cold process the parse would hold the GIL the step's own requests need."""
    if version_id is None or nodes_ready(version_id):
        return None

    def work() -> None:
        try:
            version = ScenarioVersion.objects.filter(pk=version_id).first()
            if version is not None:
                nodes_json(version)
        except Exception:  # a version that does not load answers its error when asked
            pass
        finally:
            db.connection.close()  # this thread's own connection

    thread = threading.Thread(target=work, name=f"warm-version-{version_id}", daemon=True)
    thread.start()
    return thread


def quantity_text(resource: str, amount: int) -> str:
    """The engine's integer as a Kubernetes quantity: 1500 (cpu) -> "1500m", 2 GiB -> "2Gi"."""
    if resource == CPU:
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if resource in BYTE_RESOURCES and amount:
        for suffix, size in BINARY_SUFFIXES:
            if amount % size == 0:
                return f"{amount // size}{suffix}"
    return str(amount)


def quantities_text(amounts: dict[str, int]) -> dict[str, str]:
    return {name: quantity_text(name, amount) for name, amount in amounts.items()}
