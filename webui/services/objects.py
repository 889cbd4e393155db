"""A version's nodes and pods as the engine reads them (its own defaulting), for the browser's tables."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

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


# --- the cluster view's page (issue 50): what a person can read of a big cluster, never all of it ---------

PAGE_NODES = 50  # nodes in one page unless `limit` says otherwise
MAX_PAGE_NODES = 500
MAX_PENDING_SHOWN = 200  # pending pods listed in one answer (the count says how many in all)
MAX_GROUPS = 200  # domains listed (largest first); `groupCount` says how many in all
NO_VALUE = "(none)"
# The grouping key when none is asked: the cluster view's own preference (static/js/steps/common.js).
PREFERRED_KEYS = (
    "topology.kubernetes.io/zone",
    "zone",
    "topology.kubernetes.io/region",
    "region",
    "kubernetes.io/hostname",
)

_FOUND: engine.Memo[Objects] = engine.Memo(2)


def found_of(version: ScenarioVersion) -> Objects:
    """of_version, kept for the last versions asked (a page is asked many times: search, more, domain)."""
    return _FOUND.get_or_make((version.pk, engine.engine_limits()), lambda: of_version(version))


@dataclass(frozen=True)
class PageQuery:
    group_key: str = ""
    domain: str | None = None
    search: str = ""
    offset: int = 0
    limit: int = PAGE_NODES


@dataclass(frozen=True)
class RunPlacements:
    """A finished run's story, as the cluster view overlays it: where each pod ended (node, None: pending,
    "deleted": a preemption victim), its nomination, and the cycle that placed it."""

    final: dict[str, str | None]
    nominated: dict[str, str]
    placed_in: dict[str, int]


def run_placements(story: dict[str, Any]) -> RunPlacements | None:
    if story.get("mode") != "timeline" or not story.get("finished"):
        return None
    placed_in = {a["pod"]: a["cycle"] for a in story.get("attempts", []) if a.get("nodeName")}
    return RunPlacements(dict(story.get("final", {})), dict(story.get("nominated", {})), placed_in)


def _matches(name: str, labels: Mapping[str, str], needle: str) -> bool:
    if not needle:
        return True
    if needle in name.lower():
        return True
    return any(needle in f"{k}={v}".lower() for k, v in labels.items())


N = TypeVar("N")
P = TypeVar("P")


@dataclass(frozen=True)
class Shelf(Generic[N, P]):
    """A cluster as a page reads it, whoever's nodes and pods they are (a version's, a step's): each node's name
    and labels, each pod's labels, priority, the node it is drawn on (None: none), and whether it is pending (a pod
    drawn on no node and not pending — on a node the cluster lacks — is on no page)."""

    nodes: Sequence[N]
    node_name: Callable[[N], str]
    node_labels: Callable[[N], Mapping[str, str]]
    pods: Sequence[P]
    pod_labels: Callable[[P], Mapping[str, str]]
    pod_node: Callable[[P], str | None]
    pending: Callable[[P], bool]
    priority: Callable[[P], int]


@dataclass(frozen=True)
class Page(Generic[N, P]):
    counts: dict[str, Any]  # the answer's counts, keys, domains, search and window (ClusterPageOut's names)
    nodes: list[N]  # the page's nodes
    pods: list[P]  # the pods on them, then the first MAX_PENDING_SHOWN pending (highest priority first)


def page_of(shelf: Shelf[N, P], query: PageQuery) -> Page[N, P]:
    """One page of a cluster: the domains of `group_key` with their counts (all of them, largest first, up to
    MAX_GROUPS), the nodes matching `search` (a substring of a name or of a `key=value` label) and `domain` from
    `offset`, at most `limit`, with the pods on them, and the first pending pods. Counts say how many there are
    in all: the rest is a further request away. The one pager of the cluster view (a version's, a step's)."""
    name_of, labels_of = shelf.node_name, shelf.node_labels
    node_keys = sorted({k for node in shelf.nodes for k in labels_of(node)})
    pod_keys = sorted({k for pod in shelf.pods for k in shelf.pod_labels(pod)})
    group_key = (
        query.group_key
        if query.group_key in node_keys
        else next((k for k in PREFERRED_KEYS if k in node_keys), node_keys[0] if node_keys else "")
    )
    domain_of = {name_of(node): labels_of(node).get(group_key, NO_VALUE) for node in shelf.nodes}
    on_node: dict[str, list[P]] = {}
    pending: list[P] = []
    for pod in shelf.pods:
        at = shelf.pod_node(pod)
        if at is not None and at in domain_of:
            on_node.setdefault(at, []).append(pod)
        elif shelf.pending(pod):
            pending.append(pod)
    groups: dict[str, list[int]] = {}
    for node in shelf.nodes:
        counts = groups.setdefault(domain_of[name_of(node)], [0, 0])
        counts[0] += 1
        counts[1] += len(on_node.get(name_of(node), ()))
    ordered = sorted(groups.items(), key=lambda item: (-item[1][0], item[0]))
    needle = query.search.strip().lower()
    matched = [
        node
        for node in shelf.nodes
        if (query.domain is None or domain_of[name_of(node)] == query.domain)
        and _matches(name_of(node), labels_of(node), needle)
    ]
    offset = max(query.offset, 0)
    limit = min(max(query.limit, 1), MAX_PAGE_NODES)
    shown = matched[offset : offset + limit]
    pending.sort(key=lambda pod: -shelf.priority(pod))  # stable: document order within a priority
    said: dict[str, Any] = {
        "nodeCount": len(shelf.nodes),
        "podCount": len(shelf.pods),
        "pendingCount": len(pending),
        "nodeKeys": node_keys,
        "podKeys": pod_keys,
        "groupKey": group_key,
        "groupCount": len(groups),
        "groups": [{"domain": d, "nodes": n, "pods": p} for d, (n, p) in ordered[:MAX_GROUPS]],
        "domain": query.domain,
        "search": query.search,
        "matched": len(matched),
        "offset": offset,
        "limit": limit,
    }
    pods = [pod for node in shown for pod in on_node.get(name_of(node), ())] + pending[:MAX_PENDING_SHOWN]
    return Page(said, shown, pods)


def cluster_page(found: Objects, query: PageQuery, placed: RunPlacements | None) -> dict[str, Any]:
    """One page of a version's cluster (page_of), the run's placements applied: a pod is drawn on its own node,
    else on the run's (a victim stays on its node, crossed out)."""
    final = placed.final if placed else {}

    def where(pod: engine.Pod) -> str | None:
        if pod.node_name:
            return str(pod.node_name)
        at = final.get(pod.key)
        return at if at and at != "deleted" else None

    shelf: Shelf[engine.Node, engine.Pod] = Shelf(
        found.nodes,
        lambda node: node.name,
        lambda node: node.labels,
        found.pods,
        lambda pod: pod.labels,
        where,
        lambda pod: not pod.node_name,
        lambda pod: pod.priority,
    )
    page = page_of(shelf, query)
    shown_names = {node.name for node in page.nodes}
    pods = page.pods
    return {
        "version": found.version.number,
        **page.counts,
        "nodes": page.nodes,
        "pods": pods,
        "placements": {pod.key: final[pod.key] for pod in pods if pod.key in final},
        "nominated": {pod.key: placed.nominated[pod.key] for pod in pods if placed and pod.key in placed.nominated},
        "placedIn": {pod.key: placed.placed_in[pod.key] for pod in pods if placed and pod.key in placed.placed_in},
        "volumes": found.volumes,
        "devices": [d for d in found.devices if d.get("node") in shown_names],
    }
