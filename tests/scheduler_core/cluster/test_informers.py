"""cluster/informers.py: the scheduler's storage and device caches are informers of the cluster —
filled by its list, kept by its watch events (the cache at once, the handlers' notification queued
for the run's points) — and nothing outside scheduler_core/cluster/ writes them."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from scheduler_core.cluster import informers
from scheduler_core.cluster.objects import ObjectWrites
from scheduler_core.cluster.store import KIND_CLAIM, KIND_SLICE, Cluster
from scheduler_core.framework.cluster_events import ActionType, EventResource
from scheduler_core.framework.dra_state import DraState
from scheduler_core.backend.cache.snapshot import Snapshot
from scheduler_core.framework.storage import StorageState
from scheduler_core.model import (
    CSIDriver,
    CSINode,
    CSIStorageCapacity,
    DeviceClass,
    DraObjects,
    ResourceClaimTemplate,
    ResourceSlice,
    StorageObjects,
    VolumeAttachment,
)
from tests.scheduler_core.builders import make_claim, make_class, make_resource_claim, make_volume

ENGINE = Path(__file__).resolve().parents[3] / "scheduler_core"
STORAGE = StorageObjects(
    claims=[make_claim("data")],
    volumes=[make_volume("pv")],
    classes=[make_class("fast")],
    csi_nodes=[CSINode("n1")],
    csi_drivers=[CSIDriver("csi.example.com")],
    capacities=[CSIStorageCapacity("default", "cap", "fast")],
    attachments=[VolumeAttachment("va", "csi.example.com", "n1")],
)
DRA = DraObjects(
    [DeviceClass("gpu")],
    [ResourceSlice("n1-gpu", "gpu.example.com", "n1", node_name="n1")],
    [make_resource_claim("c")],
    [ResourceClaimTemplate("default", "tpl")],
)


def _informed() -> tuple[Cluster, Snapshot]:
    api = Cluster([], [], storage=STORAGE, dra=DRA)
    snapshot = Snapshot([])
    informers.start(api, snapshot)
    return api, snapshot


def test_the_caches_start_from_the_clusters_list_and_notify_nobody():
    _, snapshot = _informed()
    storage, dra = snapshot.storage, snapshot.dra
    assert (list(storage.claims), list(storage.volumes), list(storage.classes)) == (["default/data"], ["pv"], ["fast"])
    assert (list(storage.csi_nodes), list(storage.csi_drivers)) == (["n1"], ["csi.example.com"])
    assert (storage.capacities, storage.attachments) == (tuple(STORAGE.capacities), tuple(STORAGE.attachments))
    assert (list(dra.classes), dra.slices, list(dra.claims), list(dra.templates)) == (
        ["gpu"],
        tuple(DRA.slices),
        ["default/c"],
        ["default/tpl"],
    )
    assert snapshot.cluster_changes == []


def test_a_write_reaches_the_cache_at_once_and_its_notification_waits_in_write_order():
    api, snapshot = _informed()
    writes = ObjectWrites(api)
    bound = writes.write_claim(replace(make_claim("data"), volume_name="pv"))
    assert snapshot.storage.claim("default", "data") is bound  # the informer's store, at once
    api.delete(KIND_SLICE, "n1-gpu")
    assert snapshot.dra.slices == ()
    assert [(c.event.resource, c.event.action, c.new) for c in snapshot.cluster_changes] == [
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.UPDATE, bound),
        (EventResource.RESOURCE_SLICE, ActionType.DELETE, None),
    ]
    assert api.object(KIND_CLAIM, "default/data") is bound


# ---------------------------------------------------------------------- only cluster/ writes them


def _cache_private_names() -> set[str]:
    """Every private attribute of the two caches: their informer stores and assume caches."""
    return {name for cache in (StorageState(), DraState()) for name in vars(cache) if name.startswith("_")}


# The caches' read-only views (a view put in their place would be a write, too).
VIEWS = {"claims", "volumes", "classes", "csi_nodes", "csi_drivers", "capacities", "attachments", "slices", "templates"}
MUTATORS = {"pop", "popitem", "clear", "update", "setdefault", "append", "extend", "insert", "remove", "__setitem__"}


def _on_a_cache(node: ast.expr) -> bool:
    """``<anything>.storage.<view>`` or ``<anything>.dra.<view>``."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr in VIEWS
        and isinstance(node.value, ast.Attribute)
        and node.value.attr in ("storage", "dra")
    )


def outside_writes(source: str, where: str) -> list[str]:
    """What in one engine module outside scheduler_core/cluster/ writes the scheduler's storage and
    device caches: a call of their informer entry point, a reach into their private stores (on
    anything but ``self``), a view replaced, or an item of a view set, deleted or mutated."""
    private = _cache_private_names()
    found = []
    for node in ast.walk(ast.parse(source)):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "informed":
            found.append(f"{line}: calls the caches' informer entry point")
        elif isinstance(node, ast.Attribute) and node.attr in private and not _is_self(node.value):
            found.append(f"{line}: reaches into a cache's {node.attr}")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if _on_a_cache(target) or (isinstance(target, ast.Subscript) and _on_a_cache(target.value)):
                    found.append(f"{line}: writes a cache's {ast.unparse(target)}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            if _on_a_cache(node.func.value):
                found.append(f"{line}: mutates a cache's {ast.unparse(node.func.value)}")
    return found


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _engine_modules_outside_cluster() -> list[Path]:
    owners = {ENGINE / "framework" / "storage.py", ENGINE / "framework" / "dra_state.py"}  # their own
    return sorted(
        path
        for path in ENGINE.rglob("*.py")
        if (ENGINE / "cluster") not in path.parents and path not in owners and "__pycache__" not in path.parts
    )


def test_the_engine_has_modules_to_check():
    modules = _engine_modules_outside_cluster()
    assert len(modules) > 150 and ENGINE / "plugins" / "dynamic_resources" / "plugin.py" in modules


def test_nothing_outside_the_cluster_package_writes_the_schedulers_storage_and_device_caches():
    found = [
        problem
        for path in _engine_modules_outside_cluster()
        for problem in outside_writes(path.read_text(), str(path.relative_to(ENGINE)))
    ]
    assert found == []


@pytest.mark.parametrize(
    "violation",
    [
        "self.handle.snapshot.dra.claims[claim.key] = claim",
        "del snapshot.storage.volumes['pv']",
        "snapshot.storage.claims.pop('default/data')",
        "base.scheduler.snapshot.dra.claims = {}",
        "dra = self.dra\ndra._claims[claim.key] = claim",
        "storage = snapshot.storage\nstorage._assumed_claims.clear()",
        "snapshot.storage.informed(None, claim)",
    ],
)
def test_the_check_catches_a_write_from_outside(violation):
    assert outside_writes(violation, "plugins/example.py")
