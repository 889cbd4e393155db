"""`python -m scheduler_core snapshot`: a scenario file from a live cluster, without kubectl.

It reads, through the official `kubernetes` client and a kubeconfig, exactly the kinds the
scheduler's informers read (and our loader uses), each listed across all namespaces and paged as
kube-scheduler's informers page them. Secrets, ConfigMaps and every other kind are never asked for.

The objects are taken as the API server sends them (raw JSON, not the client's generated models,
which drop fields a client release does not know yet, such as pod-level resources), without
`metadata.managedFields` and the last-applied annotation, and written as one YAML stream the loader
reads back. Pods are listed as the scheduler lists them: `status.phase!=Succeeded,status.phase!=Failed`.
A kind the cluster does not serve, or the user may not list, is left out with a comment in the
file's header and a line on stderr, so the scenario says what it lacks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Optional

import yaml

PAGE_SIZE = 500  # what client-go's reflector asks for per page
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
UNFINISHED_PODS = "status.phase!=Succeeded,status.phase!=Failed"  # the scheduler's pod informer


@dataclass(frozen=True)
class Resource:
    kind: str
    api_version: str  # "v1", "apps/v1", ...
    plural: str
    field_selector: str = ""
    # versions to ask for, in order, when the cluster does not serve api_version (404)
    older_versions: tuple[str, ...] = ()

    def at(self, api_version: str) -> Resource:
        return Resource(self.kind, api_version, self.plural, self.field_selector)

    @property
    def path(self) -> str:
        """The list path across all namespaces (a namespaced kind listed at the cluster scope)."""
        group = "/api/v1" if self.api_version == "v1" else f"/apis/{self.api_version}"
        return f"{group}/{self.plural}"


DRA_OLDER = ("resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1")

# In the order a reader wants them: the cluster's shape first, the pods last.
RESOURCES: tuple[Resource, ...] = (
    Resource("Namespace", "v1", "namespaces"),
    Resource("Node", "v1", "nodes"),
    Resource("PriorityClass", "scheduling.k8s.io/v1", "priorityclasses"),
    Resource("StorageClass", "storage.k8s.io/v1", "storageclasses"),
    Resource("CSIDriver", "storage.k8s.io/v1", "csidrivers"),
    Resource("CSINode", "storage.k8s.io/v1", "csinodes"),
    Resource("CSIStorageCapacity", "storage.k8s.io/v1", "csistoragecapacities"),
    Resource("VolumeAttachment", "storage.k8s.io/v1", "volumeattachments"),
    Resource("PersistentVolume", "v1", "persistentvolumes"),
    Resource("PersistentVolumeClaim", "v1", "persistentvolumeclaims"),
    Resource("Service", "v1", "services"),
    Resource("ReplicationController", "v1", "replicationcontrollers"),
    Resource("ReplicaSet", "apps/v1", "replicasets"),
    Resource("StatefulSet", "apps/v1", "statefulsets"),
    Resource("PodDisruptionBudget", "policy/v1", "poddisruptionbudgets"),
    # Dynamic resource allocation (resource.k8s.io/v1, GA in v1.34; v1.33 serves v1beta2 and
    # v1beta1, v1.32 v1beta1): what DynamicResources reads, in the newest version the cluster serves.
    Resource("DeviceClass", "resource.k8s.io/v1", "deviceclasses", older_versions=DRA_OLDER),
    Resource("ResourceSlice", "resource.k8s.io/v1", "resourceslices", older_versions=DRA_OLDER),
    Resource("ResourceClaimTemplate", "resource.k8s.io/v1", "resourceclaimtemplates", older_versions=DRA_OLDER),
    Resource("ResourceClaim", "resource.k8s.io/v1", "resourceclaims", older_versions=DRA_OLDER),
    Resource("Pod", "v1", "pods", UNFINISHED_PODS),
)


class SnapshotError(Exception):
    """The cluster could not be read at all (no kubeconfig, unreachable, unauthorized)."""


@dataclass
class Snapshot:
    objects: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # kind -> objects read
    skipped: dict[str, str] = field(default_factory=dict)  # kind -> why it was not read
    source: str = ""  # the API server's address (no credentials)

    def to_yaml(self, taken: Optional[datetime] = None) -> str:
        taken = taken or datetime.now(timezone.utc)
        header = [
            f"# Snapshot of {self.source} taken {taken.strftime('%Y-%m-%dT%H:%M:%SZ')} by `python -m scheduler_core snapshot`.",
            "# Read: " + ", ".join(f"{n} {kind}" for kind, n in self.counts.items()) + ".",
        ]
        header += [f"# Not read: {kind} ({why})." for kind, why in self.skipped.items()]
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        body = yaml.dump_all(self.objects, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
        return "\n".join(header) + "\n" + body


# A page reader: (path, query) -> the decoded list answer. Raises ApiStatus for an HTTP error.
PageReader = Callable[[str, dict[str, str]], dict[str, Any]]


class ApiStatus(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(f"{status} {reason}")
        self.status = status
        self.reason = reason


def take(read_page: PageReader, source: str = "") -> Snapshot:
    snapshot = Snapshot(source=source)
    for wanted in RESOURCES:
        for resource in (wanted, *(wanted.at(version) for version in wanted.older_versions)):
            try:
                items = list(_list_all(read_page, resource))
            except ApiStatus as status:
                if status.status in (401,):
                    raise SnapshotError(f"the API server refused the credentials ({status})") from None
                snapshot.skipped[wanted.kind] = f"HTTP {status}"  # 403 forbidden, 404 not served
                if status.status == 404:
                    continue  # an older version the cluster may serve
                break
            snapshot.skipped.pop(wanted.kind, None)
            snapshot.counts[wanted.kind] = len(items)
            snapshot.objects.extend(_as_object(item, resource) for item in items)
            break
    return snapshot


def _list_all(read_page: PageReader, resource: Resource) -> Iterator[dict[str, Any]]:
    token = ""
    while True:
        query = {"limit": str(PAGE_SIZE)}
        if resource.field_selector:
            query["fieldSelector"] = resource.field_selector
        if token:
            query["continue"] = token
        answer = read_page(resource.path, query)
        yield from answer.get("items") or []
        token = (answer.get("metadata") or {}).get("continue") or ""
        if not token:
            return


def _as_object(item: dict[str, Any], resource: Resource) -> dict[str, Any]:
    """List items carry no apiVersion/kind: put them first, as `kubectl get -o yaml` does."""
    metadata = dict(item.get("metadata") or {})
    metadata.pop("managedFields", None)
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k != LAST_APPLIED}
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)
    rest = {k: v for k, v in item.items() if k not in ("apiVersion", "kind", "metadata")}
    return {"apiVersion": resource.api_version, "kind": resource.kind, "metadata": metadata, **rest}


# --------------------------------------------------------------------------- the kubernetes client


def kubeconfig_reader(kubeconfig: Optional[str], context: Optional[str]) -> tuple[PageReader, str]:
    """A page reader over the official client's ApiClient (auth, TLS and exec plugins as kubectl)."""
    try:
        from kubernetes import client, config  # optional: pip install 'schedlab[snapshot]'
        from kubernetes.client.exceptions import ApiException
        from kubernetes.config.config_exception import ConfigException
    except ImportError:
        raise SnapshotError("the `kubernetes` package is not installed: pip install -e '.[snapshot]'") from None
    configuration = client.Configuration()
    try:
        config.load_kube_config(config_file=kubeconfig, context=context, client_configuration=configuration)
    except (ConfigException, OSError, TypeError, ValueError) as err:
        raise SnapshotError(f"cannot use the kubeconfig: {err}") from None
    api = client.ApiClient(configuration)

    def read_page(path: str, query: dict[str, str]) -> dict[str, Any]:
        try:
            response = api.call_api(
                path,
                "GET",
                query_params=list(query.items()),
                header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"],
                _preload_content=False,
                _return_http_data_only=True,
                _request_timeout=60,
            )
        except ApiException as err:
            raise ApiStatus(err.status or 0, str(err.reason or "error")) from None
        except Exception as err:  # urllib3: refused, DNS, TLS — the cluster cannot be reached
            raise SnapshotError(f"cannot reach {configuration.host}: {type(err).__name__}: {err}") from None
        answer: dict[str, Any] = json.loads(response.data)  # a list answer: untyped JSON
        return answer

    return read_page, configuration.host
