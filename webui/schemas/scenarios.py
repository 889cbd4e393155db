"""/api/scenarios: scenarios, their versions, the objects the engine reads in them and "why here?"
(webui/routers/scenarios.py; the runs and share links it makes answer with schemas/runs.py's and
schemas/shares.py's)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from webui.schemas.common import ApiInput, ApiSchema, EngineSchema
from webui.schemas.releases import ReleaseOut
from webui.schemas.validate import FindingOut, NoticeOut, ScenarioErrorOut, SummaryOut
from webui.services import engine


class ScenarioIn(ApiInput):
    name: str = Field(..., min_length=1, max_length=200)
    text: str = ""
    description: str = ""


class ScenarioUpdateIn(ApiInput):
    text: str
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = None


class ForkIn(ApiInput):
    version: int | None = None
    name: str | None = Field(default=None, min_length=1, max_length=200)


class FixIn(ApiInput):
    version: int | None = None  # default: the latest version


class ScenarioSummaryOut(ApiSchema):
    id: int
    name: str
    description: str
    version: int | None
    demo: bool
    owned: bool
    updated: datetime


class ScenarioOut(ScenarioSummaryOut):
    # The version's whole text in "text" mode; null in "objects" mode (a text over
    # SCHEDLAB_EDITOR_MAX_BYTES, `editorMaxBytes`): read and edit it object by object
    # (GET /api/scenarios/{id}/documents), or download it (/export).
    text: str | None
    mode: Literal["text", "objects"] = "text"
    size: int = 0  # the version's text, in characters
    editor_max_bytes: int = 0
    created: datetime
    forked_from: int | None  # the scenario id this one was forked from
    valid: bool
    errors: list[ScenarioErrorOut]
    summary: SummaryOut | None
    notices: list[NoticeOut] = []
    objects: dict[str, int] = {}
    findings: list[FindingOut] = []
    fetch: list[str] = []  # every finding's kubectl lines, each once: fetch everything the dump lacks
    release: ReleaseOut | None = None  # the release it is replayed as (as the dump says) and why
    dump_release: ReleaseOut | None = None  # the same, here (a validation with a release asked differs)
    # False only in the answer to an import with check=later: valid/errors/summary are not known
    # yet (GET /api/scenarios/{id} gives them, waiting for the check under way).
    checked: bool = True


class VersionSummaryOut(ApiSchema):
    number: int
    created: datetime
    size: int


class VersionOut(VersionSummaryOut):
    scenario: int
    text: str


class DiffOut(ApiSchema):
    old: int
    new: int
    diff: str


class NodeObjectOut(ApiSchema):
    name: str
    labels: dict[str, str]
    taints: list[dict[str, str]]
    allocatable: dict[str, int]  # the engine's integers: millicores for cpu, bytes for memory, else units
    allocatable_text: dict[str, str]  # the same as Kubernetes quantities ("500m", "16Gi")
    unschedulable: bool


class PodClaimOut(EngineSchema, payload=engine.PodClaim):
    """One of a pod's ResourceClaims (scheduler_core.dra.inventory ``PodClaim``, as it declares it):
    its requests ("gpu: 2 x gpu.example.com", "gpu: first of ..."), the devices of its allocation
    and the pods it is reserved for; ``claim`` is null while a template's claim is not created yet."""


class PodObjectOut(ApiSchema):
    namespace: str
    name: str
    labels: dict[str, str]
    node_name: str | None
    priority: int
    requests: dict[str, int]  # the pod's effective requests (containers, init containers, overhead)
    requests_text: dict[str, str]
    pending: bool
    claims: list[PodClaimOut] = []  # its ResourceClaims (DRA), in spec.resourceClaims order


class NodeDevicesOut(EngineSchema, payload=engine.NodeDevices):
    """A node's DRA devices (scheduler_core.dra.inventory ``NodeDevices`` and ``DeviceEntry``, as they
    declare them): each with the DeviceClasses whose selectors accept it, the claim holding it (null
    when free) and that claim's pods."""


class VolumeObjectOut(EngineSchema, payload=engine.ClusterVolume):
    """A PersistentVolume as the cluster view draws it (scheduler_core.volume.pictures ``ClusterVolume``,
    as it declares it): where it can be used per topology key (its labels and node affinity), its
    bound claim ("namespace/name") and size."""


class ObjectsOut(ApiSchema):
    version: int
    nodes: list[NodeObjectOut]
    pods: list[PodObjectOut]
    volumes: list[VolumeObjectOut] = []
    devices: list[NodeDevicesOut] = []  # DRA devices per node (nodes with ResourceSlices)


class DomainCountOut(ApiSchema):
    domain: str  # the grouping key's value, "(none)" for nodes without the label
    nodes: int
    pods: int  # the pods on its nodes (a run's placements applied)


class ClusterPageQuery(ApiInput):
    """Which page of a cluster (GET /api/scenarios/{id}/cluster, GET /api/runs/{id}/steps/{k}/cluster)."""

    group_key: str = Field(default="", max_length=317)  # default: zone, region, hostname, the first key
    domain: str | None = Field(default=None, max_length=1000)  # only that domain's nodes
    search: str = Field(default="", max_length=317)  # a substring of a node's name or of a key=value label
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=50, ge=1, le=500)


class ClusterQuery(ClusterPageQuery):
    """The query of GET /api/scenarios/{id}/cluster (docs/WEB_API.md)."""

    version: int | None = None  # default: the latest version
    run: int | None = None  # a finished run of it whose final placements are drawn


class ClusterCountsOut(ApiSchema):
    """What a page of a cluster says of the whole (services/objects.py page_of): counts, keys, domains, window."""

    node_count: int
    pod_count: int
    pending_count: int
    node_keys: list[str]  # every node label key (what nodes can be grouped by)
    pod_keys: list[str]  # every pod label key (what pods can be coloured by)
    group_key: str  # the key asked, else the default (zone, region, hostname, the first)
    group_count: int  # domains in all
    groups: list[DomainCountOut]  # the largest first, at most 200
    domain: str | None  # the domain asked (only its nodes), or null
    search: str
    matched: int  # nodes matching domain and search; the page is nodes[offset:offset+limit] of them
    offset: int
    limit: int


class ClusterPageOut(ClusterCountsOut):
    """One page of the cluster view (GET .../cluster): counts of the whole, the domains, a page of nodes."""

    version: int
    nodes: list[NodeObjectOut]
    pods: list[PodObjectOut]  # the pods on the page's nodes, then at most 200 pending pods (highest priority first)
    placements: dict[str, str | None] = {}  # with run=: where the run left each of those pods (null pending, "deleted")
    nominated: dict[str, str] = {}  # with run=: their nominations at the end
    placed_in: dict[str, int] = {}  # with run=: the cycle that placed each
    volumes: list[VolumeObjectOut] = []
    devices: list[NodeDevicesOut] = []  # the page's nodes' DRA devices


class NodeLabelsOut(ApiSchema):
    name: str
    labels: dict[str, str]


class NodesOut(ApiSchema):
    version: int
    nodes: list[NodeLabelsOut]


class ExplainPodOut(EngineSchema, payload=engine.PodPlacementExplanation):
    """Why is this running pod here: its cycle re-run now, the pod taken off its node, against the rest of
    the cluster (its node included) — scheduler_core.answers.explain_pod's answer, as it declares it."""

    release: ReleaseOut | None = None  # the release the cycle was re-run as (the version's, as the dump says)


class DocumentQuery(ApiInput):
    """The query of GET /api/scenarios/{id}/documents (docs/WEB_API.md, "Editing a big scenario")."""

    version: int | None = None  # default: the latest version
    kind: str = Field(default="", max_length=253)  # only this kind ("Pod", "Changes"); "" every kind
    search: str = Field(default="", max_length=317)  # a substring of namespace/name, any case
    offset: int = Field(default=0, ge=0)
    limit: int = Field(default=50, ge=1, le=500)


class DocumentOut(ApiSchema):
    """One document of a version: its position (what the edits name), what it is and where."""

    index: int
    kind: str  # "" for comments only, or a document whose kind does not read
    namespace: str
    name: str
    line: int  # the line of its first line in the version's text
    size: int  # its characters


class DocumentsOut(ApiSchema):
    version: int
    mode: Literal["text", "objects"]
    size: int  # the version's text, in characters
    total: int  # documents in all
    counts: dict[str, int]  # documents per kind ("" : comments only or unreadable)
    kind: str
    search: str
    matched: int  # documents matching kind and search; the page is documents[offset:offset+limit] of them
    offset: int
    limit: int
    documents: list[DocumentOut]


class DocumentTextOut(DocumentOut):
    version: int
    text: str  # the document as saved, without the `---` line before it


class DocumentIn(ApiInput):
    text: str
    # The version the editor shows (its positions): 409 when another was saved since. Default: the latest.
    version: int | None = None
