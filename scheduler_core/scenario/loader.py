"""load_scenario: a YAML stream (or a kind: List, YAML or JSON) of Kubernetes objects -> model.Scenario.

Reads everything, collects every problem (object, field path, line, message) and raises
``ScenarioInvalid`` with all of them; no other exception leaves ``load_scenario``.

``load_sources`` reads several files as one scenario (scenario/sources.py gathers them from
directories and archives): each problem then also names its file. Typed lists (``NodeList``,
``PodList``, any ``*List``, and lists or JSON arrays without a kind) give their items the kind
their own kind, or the file's place in a dump layout, says.
"""

from __future__ import annotations

import io
import pickle
import time
from collections import Counter
from dataclasses import dataclass, field, fields, replace
from typing import Callable, Iterator, Optional, Sequence, Union

from scheduler_core.model import (
    CONTROLLED_KINDS,
    DraObjects,
    Namespace,
    Node,
    Notice,
    NoticeCode,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Scenario,
    SchedulerConfiguration,
    Service,
    StorageObjects,
    Workload,
)
from scheduler_core.dra.claims import pods_held_at_pre_enqueue
from scheduler_core.plugins.node_resources.resource_names import is_dra_extended_resource_name
from scheduler_core.scenario import config as config_decoder
from scheduler_core.scenario import changes as changes_reader
from scheduler_core.scenario import dra, objects, pods, storage

# By name: in _Collected's body "dra" and "pods" are its fields, not these modules.
from scheduler_core.scenario.dra import AdminAccessRequest, GatedField, TaintRule
from scheduler_core.scenario.errors import ScenarioError, ScenarioInvalid
from scheduler_core.scenario.jsonstream import blank_container_logs
from scheduler_core.scenario.fields import Context, Field
from scheduler_core.scenario.gcpause import collector_paused
from scheduler_core.scenario.limits import Limits, megabytes
from scheduler_core.scenario.metadata import Metadata, read_metadata
from scheduler_core.scenario.pods import SpecKey, SpecMemo, check_gated_pod_fields, gated_as_written
from scheduler_core.scenario.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
)
from scheduler_core.scenario.yamltree import (
    Document,
    Halves,
    RunComposer,
    SyntaxProblem,
    YList,
    YMap,
    compose_runs,
    halves,
)
from scheduler_core.scenario import release_evidence
from scheduler_core.scenario.unknown_fields import (
    ReleaseField,
    SpecFields,
    check_fields,
    check_pod_fields,
    releases_of,
    served_by,
    served_by_all,
    serves,
    unknown_to,
    versions_served,
)
from scheduler_core.release.choice import ReleaseEvidence, ReleaseRequest, choose_release
from scheduler_core.release.gates import FeatureGateError
from scheduler_core.release.rules import DEFAULT_RULES, Rules
from scheduler_core.util import fastpickle
from scheduler_core.util.forked import Forked

DECLARED_FEATURES_GATE = "NodeDeclaredFeatures"

FILE = "scenario"  # the object named by whole-file problems


@dataclass(frozen=True, slots=True)
class Kind:
    api_versions: tuple[str, ...]
    name_check: Callable[[str], list[str]]
    namespaced: bool


KINDS: dict[str, Kind] = {
    "Namespace": Kind(("v1",), is_dns1123_label, False),
    "Node": Kind(("v1",), is_dns1123_subdomain, False),
    "Pod": Kind(("v1",), is_dns1123_subdomain, True),
    "Service": Kind(("v1",), is_dns1035_label, True),
    "ReplicationController": Kind(("v1",), is_dns1123_subdomain, True),
    "ReplicaSet": Kind(("apps/v1",), is_dns1123_subdomain, True),
    "StatefulSet": Kind(("apps/v1",), is_dns1123_subdomain, True),
    "PriorityClass": Kind(("scheduling.k8s.io/v1",), is_dns1123_subdomain, False),
    "PodDisruptionBudget": Kind(("policy/v1",), is_dns1123_subdomain, True),
    **{
        kind: Kind((api_version,), is_dns1123_subdomain, namespaced)
        for kind, (api_version, namespaced) in storage.KINDS.items()
    },
    **{kind: Kind(dra.API_VERSIONS, is_dns1123_subdomain, namespaced) for kind, namespaced in dra.KINDS.items()},
}
CONFIG_KIND = "KubeSchedulerConfiguration"
LIST_KIND = "List"
LIST_SUFFIX = "List"  # NodeList, PodList, ...: what the API answers a list request with


@dataclass(frozen=True, slots=True)
class SourceText:
    """One file's text, read with others into one scenario."""

    name: Optional[str]  # the file as errors name it (inside its directory or archive); None: the only text
    text: Union[str, bytes]
    kind_hint: str = ""  # the kind the file's place in a dump names, for objects written without one
    lenient: bool = False  # found in a directory or archive: a file holding no object is skipped with a notice


@dataclass(frozen=True, slots=True)
class _Seen:
    line: Optional[int]
    file: Optional[str]
    uid: str


@dataclass(slots=True)
class _Admitted:
    """A pod as the Priority admission plugin reads it once every PriorityClass is known (_finish):
    what it needs of the pod's document, not the document, whose tree goes with its run (compose_runs)."""

    pod: Pod
    ctx: Context
    priority_written: bool
    spec_path: Optional[str]  # None: the pod has no spec
    class_line: Optional[int]  # the line of spec.priorityClassName (the spec's when it is not written)
    policy_written: bool

    @classmethod
    def of(cls, pod: Pod, obj: Field) -> _Admitted:
        spec = obj.get("spec")
        if spec is None:
            return cls(pod, obj.ctx, False, None, None, False)
        lines = getattr(spec.value, "lines", None)
        line = lines.get("priorityClassName", spec.line) if isinstance(lines, dict) else spec.line
        written = spec.get("priority") is not None
        return cls(pod, obj.ctx, written, spec.path, line, spec.get("preemptionPolicy") is not None)


@dataclass
class _Collected:
    nodes: list[Node] = field(default_factory=list)
    pods: list[Pod] = field(default_factory=list)
    namespaces: dict[str, Namespace] = field(default_factory=dict)
    services: list[Service] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    config: Optional[SchedulerConfiguration] = None
    priority_classes: dict[str, PriorityClass] = field(default_factory=dict)
    pdbs: list[PodDisruptionBudget] = field(default_factory=list)
    storage: StorageObjects = field(default_factory=StorageObjects)
    dra: DraObjects = field(default_factory=DraObjects)
    dra_gated: list[GatedField] = field(default_factory=list)  # fields of DRA feature gates, as read
    dra_dropped: list[str] = field(default_factory=list)  # those the release's API server drops (gate off)
    pod_fields_dropped: list[str] = field(default_factory=list)  # gated pod fields the release drops
    taint_rules: list[TaintRule] = field(default_factory=list)  # DeviceTaintRule objects
    dra_admin: list[AdminAccessRequest] = field(default_factory=list)  # claims asking for admin access
    pending_volumes: list[str] = field(default_factory=list)  # PVs without status.phase
    seen: dict[tuple[str, str, str], _Seen] = field(default_factory=dict)  # (kind, ns, name) -> first one
    ignored: Counter[str] = field(default_factory=Counter)  # kind -> objects the scheduler does not read
    # (apiVersion, kind) -> objects written in a version some supported release does not serve
    partly_served: Counter[tuple[str, str]] = field(default_factory=Counter)
    not_objects: list[str] = field(default_factory=list)  # lenient files holding no Kubernetes object
    duplicates: list[str] = field(default_factory=list)  # objects met again in another file (same uid)
    container_logs: list[str] = field(default_factory=list)  # "ns/pod container" blocks skipped
    kept: list[ScenarioError] = field(default_factory=list)  # problems existing objects may keep (Context.keep)
    # Every pod with its object and whether spec.priority is written, for the Priority admission.
    admitted: list[_Admitted] = field(default_factory=list)
    pod_specs: SpecMemo = field(default_factory=dict)  # specs decoded so far (pods.decode_pod)
    checked_specs: SpecFields = field(default_factory=dict)  # specs checked for unknown fields so far
    # The Changes document and every object, for a run with steps (scenario/changes.py).
    changes_input: changes_reader.ChangesInput = field(default_factory=changes_reader.ChangesInput)
    # What the dump says of its release (scenario/release_evidence.py), in reading order.
    release_evidence: list[ReleaseEvidence] = field(default_factory=list)
    version_records: list[str] = field(default_factory=list)  # files read as version records
    config_obj: Optional[Field] = None  # the KubeSchedulerConfiguration, validated once the release is known
    declared_features_ignored: list[str] = field(default_factory=list)  # nodes whose declaredFeatures the gate ignores
    release_fields: list[ReleaseField] = field(default_factory=list)  # fields only some releases know


class _LimitReached(Exception):
    """Stop reading: the scenario is over a size limit (already recorded as an error)."""


def load_scenario(
    text: Union[str, bytes],
    *,
    limits: Optional[Limits] = None,
    release: ReleaseRequest = ReleaseRequest(),
    second_process: bool = False,
) -> Scenario:
    return load_sources([SourceText(None, text)], limits=limits, release=release, second_process=second_process)


def load_sources(
    sources: Sequence[SourceText],
    *,
    limits: Optional[Limits] = None,
    release: ReleaseRequest = ReleaseRequest(),
    second_process: bool = False,
    let_go: bool = False,
) -> Scenario:
    """Several files as one scenario, in the order given (the order of their Node objects is the
    tie-break's document order); raises ``ScenarioInvalid`` with every problem, each naming its file.
    ``release``: the release (and feature gates) asked for; unasked, what the dump says decides.
    ``second_process``: the caller may fork (a CLI, a worker process; not a threaded server): a big
    YAML text's second half is then read by a forked child meanwhile (``_read_halves``).
    ``let_go``: ``sources`` is a list its caller gives up: each file's text is taken out of it
    (left empty) as the file is read, so a big file's bytes go once decoded (the envelope's
    683 MB of JSON: 4.1 -> 3.45 GB at the CLI's peak)."""
    return _load_checked(sources, limits, None, release, second_process, let_go)[0]


def load_sources_or_with(
    sources: Sequence[SourceText],
    default: SourceText,
    *,
    limits: Optional[Limits] = None,
    release: ReleaseRequest = ReleaseRequest(),
) -> tuple[Scenario, bool]:
    """``load_sources(sources)`` when they hold a Changes document, else ``load_sources([*sources,
    default])`` — read once, not twice: ``default`` is read after the others only when none of them
    held one. The flag says whether it was read. Problems are those of the load that applies, except
    that the sources' own problems come with any ``default`` adds (a caller wanting exactly the
    first load's loads again on ``ScenarioInvalid``)."""
    return _load_checked(sources, limits, default, release)


def _load_checked(
    sources: Sequence[SourceText],
    limits: Optional[Limits],
    default: Optional[SourceText],
    release: ReleaseRequest = ReleaseRequest(),
    second_process: bool = False,
    let_go: bool = False,
) -> tuple[Scenario, bool]:
    limits = limits or Limits()
    errors: list[ScenarioError] = []
    read_default = [False]
    try:
        with collector_paused():
            scenario = _load(sources, limits, errors, default, read_default, release, second_process, let_go)
    except _LimitReached:
        scenario = None
    except RecursionError:
        errors.append(ScenarioError(FILE, "", None, "the scenario is nested too deeply to read"))
        scenario = None
    except Exception as err:  # noqa: BLE001 - the API promises ScenarioInvalid only; tests show none happen
        errors.append(ScenarioError(FILE, "", None, f"internal error while reading the scenario: {err!r}"))
        scenario = None
    if errors or scenario is None:
        raise ScenarioInvalid(errors or [ScenarioError(FILE, "", None, "the scenario could not be read")])
    return scenario, read_default[0]


def _load(
    sources: Sequence[SourceText],
    limits: Limits,
    errors: list[ScenarioError],
    default: Optional[SourceText] = None,
    read_default: Optional[list[bool]] = None,
    release: ReleaseRequest = ReleaseRequest(),
    second_process: bool = False,
    let_go: bool = False,
) -> Optional[Scenario]:
    if not _within_total_size(sources, limits, errors):
        return None
    collected = _Collected()
    # Every object is kept for a Changes document, which can come after them; none can without its
    # kind's name in a text read (a big dump's objects then go as they are read).
    collected.changes_input.keep_objects = default is not None or any(
        _may_name(source.text, changes_reader.KIND) for source in sources
    )
    for index in range(len(sources)):
        # The text goes to the read in a holder it empties: with let_go nothing else holds it then.
        held = [sources[index].text]
        if let_go:
            assert isinstance(sources, list) and default is None  # the caller's to give up; no sizes asked after
            sources[index] = replace(sources[index], text="")
        _read_source(sources[index], collected, limits, errors, second_process, held)
    if default is not None and not collected.changes_input.documents:
        # as the load of [*sources, default] would: its size counted with theirs, read after them
        if not _within_total_size([*sources, default], limits, errors):
            return None
        _read_source(default, collected, limits, errors)
        if read_default is not None:
            read_default[0] = True
    _finish(collected, limits, errors)
    try:
        choice = choose_release(collected.release_evidence, release)
    except FeatureGateError as err:
        errors.extend(ScenarioError(FILE, "featureGates", None, problem) for problem in err.problems)
        return None
    reading = _dra_reading(collected)
    collected.dra, collected.dra_dropped, gated_errors = dra.settle(reading, choice.rules)
    errors.extend(gated_errors)
    if choice.rules.gates.enabled(dra.ADMIN_ACCESS):  # AuthorizedForAdmin: only where adminAccess is kept
        errors.extend(dra.admin_access_errors(collected.dra_admin, collected.namespaces))
    if choice.rules.gates.enabled(dra.TAINT_RULES):  # the scheduler reads them: no longer ignored
        collected.ignored.pop(dra.TAINT_RULE_KIND, None)
    if collected.config_obj is not None and collected.config is not None:
        config_decoder.validate_config(collected.config, collected.config_obj, choice.rules.features)
    if not choice.rules.gates.enabled(DECLARED_FEATURES_GATE):
        _ignored_declared_features(collected)
    gated_pods = gated_as_written(collected.pods)
    collected.pod_fields_dropped = check_gated_pod_fields(collected.pods, choice.rules.gates, errors)
    changes = changes_reader.finish(
        collected.changes_input, collected.nodes, collected.pods, errors, choice.rules.gates
    )
    if changes is not None:  # the stand-in controllers read these kinds: no longer ignored
        for kind in CONTROLLED_KINDS:
            collected.ignored.pop(kind, None)
        # The disruption controller computes a budget's status from its spec: the object carries it.
        collected.pdbs = [replace(pdb, spec=changes.budgets.get(pdb.key)) for pdb in collected.pdbs]
    return Scenario(
        collected.nodes,
        collected.pods,
        collected.namespaces,
        collected.services,
        collected.workloads,
        collected.config,
        collected.priority_classes,
        _notices(
            collected,
            changes_make_work=changes is not None and bool(changes.steps or changes.workloads),
            rules=choice.rules,
        )
        + changes_reader.unusable_notice(changes)
        + _not_served_notice(collected, choice.rules)
        + _release_fields_notice(collected, choice.rules),
        pdbs=collected.pdbs,
        storage=collected.storage,
        changes=changes,
        dra=collected.dra,
        release=choice,
        dra_reading=reading,
        gated_pods=gated_pods,
    )


def _may_name(text: object, word: str) -> bool:
    """Whether ``word`` is in the text (or cannot be ruled out: not a text)."""
    if isinstance(text, str):
        return word in text
    if isinstance(text, bytes):
        return word.encode() in text
    return True


def _within_total_size(sources: Sequence[SourceText], limits: Limits, errors: list[ScenarioError]) -> bool:
    if len(sources) < 2:
        return True  # one text: _decode_text says it, with the file's own words
    size = sum(_size(source.text) for source in sources if isinstance(source.text, (str, bytes)))
    if size > limits.max_bytes:
        errors.append(
            ScenarioError(
                FILE,
                "",
                None,
                f"the scenario's files hold {megabytes(size)} together, more than the "
                f"limit of {megabytes(limits.max_bytes)} (Limits.max_bytes)",
            )
        )
        return False
    return True


def _size(text: Union[str, bytes]) -> int:
    return len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text)


def _read_source(
    source: SourceText,
    collected: _Collected,
    limits: Limits,
    errors: list[ScenarioError],
    second_process: bool = False,
    held: Optional[list[Union[str, bytes]]] = None,
) -> None:
    """``held``: the source's text in a list of one, taken out as it is decoded (else ``source.text``)."""
    decoded = _decode_text(held.pop() if held else source.text, source.name, limits, errors)
    if decoded is None:
        return
    decoded, logs = blank_container_logs(decoded)
    collected.container_logs.extend(logs)
    cut = halves(decoded, limits) if second_process and not collected.changes_input.keep_objects else None
    if cut is not None:
        _read_halves(cut, source, collected, limits, errors)
        return
    # A big text is composed a run of documents at a time, each run read and let go before the next
    # (compose_runs: its trees are ~7x the text). ScenarioInvalid sorts the problems by line.
    _read_runs(compose_runs(decoded, limits), source, collected, limits, errors)


Runs = Iterator[tuple[list[Document], list[SyntaxProblem]]]


def _read_runs(
    runs: Runs, source: SourceText, collected: _Collected, limits: Limits, errors: list[ScenarioError]
) -> None:
    for documents, problems in runs:
        errors.extend(ScenarioError(f"document {p.document}", "", p.line, p.message, source.name) for p in problems)
        for document in documents:
            _read_document(document, source, collected, limits, errors)
        del documents  # the run's trees go before the next run is composed


# ---------------------------------------------------------------------- a big text in two processes
# A forked child reads the text's second half into a _Collected of its own while this process reads
# the first; its objects are then taken as they are when that is what reading the whole text here
# would have given — its documents numbered as this half's composing numbered them, nothing in it
# that depends on what came before (no problem, no object of a name this half holds, no kind whose
# reading looks at earlier objects: the configuration, Changes, DRA), the limits not passed — and
# otherwise the second half is read here after all, from where this half ended. Either way the
# scenario is the one-process read's.


def _read_halves(
    cut: Halves, source: SourceText, collected: _Collected, limits: Limits, errors: list[ScenarioError]
) -> None:
    child = Forked.start(lambda: _second_half(cut, source, limits))
    runs = RunComposer(limits)
    started = time.monotonic()
    try:
        _read_runs(runs.runs(cut.first), source, collected, limits, errors)
    except BaseException:
        if child is not None:
            child.cancel()
        raise
    # A half like this one's takes the child about as long (and its pickling a fraction more): one
    # still at it long after is stuck, and the half is read here.
    patience = HALF_PATIENCE_FACTOR * (time.monotonic() - started) + HALF_PATIENCE_SECONDS
    answer = child.answer(patience) if child is not None else None
    numbered_alike = runs.documents == cut.documents_before and not runs.events_used and not runs.composer.stopped
    if answer is not None and numbered_alike and _merged(collected, pickle.loads(answer), limits, errors):
        return
    _read_runs(runs.runs(cut.second), source, collected, limits, errors)  # one process's way, from here


HALF_PATIENCE_FACTOR, HALF_PATIENCE_SECONDS = 4.0, 60.0


def _second_half(cut: Halves, source: SourceText, limits: Limits) -> Optional[bytes]:
    """The child's read of the second half: its _Collected pickled, or None when it cannot stand
    for the one-process read (the parent then reads the half itself)."""
    collected, errors = _Collected(), list[ScenarioError]()
    collected.changes_input.keep_objects = False  # as the parent's (no Changes document is named in the text)
    runs = RunComposer(limits, earlier=cut.documents_before, lines_before=cut.lines_before)
    try:
        for documents, problems in runs.runs(cut.second):
            if problems:
                return None
            for document in documents:
                _read_document(document, source, collected, limits, errors)
            del documents
            if errors:
                return None
    except _LimitReached:
        return None
    if runs.events_used or not _stands_alone(collected):
        return None
    # The specs decoded so far spare later pods of the same spec their decoding; nothing is read
    # after this half but other files: not worth sending (a fifth of the half's pickle; _NOT_SENT).
    collected.pod_specs, collected.checked_specs = {}, {}
    out = io.BytesIO()
    fastpickle.dump(collected, out)
    return out.getvalue()


def _stands_alone(half: _Collected) -> bool:
    """Nothing in the half read as it would have been after the first half's objects."""
    dra_objects = any(getattr(half.dra, kind.name) for kind in fields(DraObjects))
    return not (
        half.config is not None
        or half.config_obj is not None
        or half.changes_input.documents
        or half.changes_input.objects
        or dra_objects
        or half.dra_gated
        or half.dra_admin
        or half.taint_rules
        or half.kept
        or half.duplicates
        or half.not_objects
    )


def _merged(collected: _Collected, half: _Collected, limits: Limits, errors: list[ScenarioError]) -> bool:
    """``half`` (the second half's objects) added to ``collected`` as reading it here would have
    added them; False (nothing changed) when reading it here could have gone otherwise."""
    if any(key in collected.seen for key in half.seen):
        return False  # a name written in both halves: the one-process read names it a duplicate
    if (
        len(collected.pods) + len(half.pods) > limits.max_pods
        or len(collected.nodes) + len(half.nodes) > limits.max_nodes
    ):
        return False  # the one-process read stops at the object past the limit
    for node in half.nodes:
        node.doc_index += len(collected.nodes)
    for pod in half.pods:
        pod.doc_index += len(collected.pods)
    storage_objects, more = collected.storage, half.storage
    more.claims = [replace(claim, doc_index=claim.doc_index + len(storage_objects.claims)) for claim in more.claims]
    more.volumes = [
        replace(volume, doc_index=volume.doc_index + len(storage_objects.volumes)) for volume in more.volumes
    ]
    for admitted in half.admitted:  # its problems (the Priority admission's, _finish) go where this read's go
        admitted.ctx.errors = errors
        admitted.ctx.kept = collected.kept
    for kind in fields(StorageObjects):
        getattr(storage_objects, kind.name).extend(getattr(more, kind.name))
    for name in _CONCATENATED:
        getattr(collected, name).extend(getattr(half, name))
    for name in _UPDATED:
        getattr(collected, name).update(getattr(half, name))
    return True


# How _merged adds each of _Collected's fields (a test holds this to every field there is).
_CONCATENATED = (
    "nodes", "pods", "services", "workloads", "pdbs", "pending_volumes", "container_logs", "admitted",
    "release_evidence", "version_records", "release_fields",
)  # fmt: skip
_UPDATED = ("namespaces", "priority_classes", "seen", "ignored", "partly_served")  # no key in both: seen says so
_NOT_SENT = ("pod_specs", "checked_specs")  # specs decoded so far (_second_half): this half's stay
_MERGED_APART = ("storage",)
_EMPTY_IN_A_HALF_TAKEN = (  # _stands_alone, or set only once everything is read (_load)
    "config", "config_obj", "changes_input", "dra", "dra_gated", "dra_admin", "taint_rules", "kept",
    "duplicates", "not_objects", "dra_dropped", "pod_fields_dropped", "declared_features_ignored",
)  # fmt: skip


def _decode_text(
    text: Union[str, bytes], file: Optional[str], limits: Limits, errors: list[ScenarioError]
) -> Optional[str]:
    if not isinstance(text, (str, bytes)):
        errors.append(ScenarioError(FILE, "", None, f"expected text or bytes, got {type(text).__name__}", file))
        return None
    size = _size(text)
    if size > limits.max_bytes:
        errors.append(
            ScenarioError(
                FILE,
                "",
                None,
                f"the scenario is {megabytes(size)}, more than the limit of {megabytes(limits.max_bytes)} "
                "(Limits.max_bytes)",
                file,
            )
        )
        return None
    if isinstance(text, str):
        return _check_str(text, file, errors)
    try:
        return text.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = text.count(b"\n", 0, err.start) + 1
        errors.append(
            ScenarioError(
                FILE,
                "",
                line,
                f"the file is not valid UTF-8 (byte 0x{text[err.start]:02x} at offset {err.start})",
                file,
            )
        )
        return None


def _check_str(text: str, file: Optional[str], errors: list[ScenarioError]) -> Optional[str]:
    """A str can hold lone surrogates (from bad decoding upstream): not UTF-8, and libyaml would choke."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        line = text.count("\n", 0, err.start) + 1
        errors.append(ScenarioError(FILE, "", line, "the text is not valid UTF-8 (lone surrogate)", file))
        return None
    return text.removeprefix("\ufeff")


# ---------------------------------------------------------------------- documents


def _read_document(
    document: Document, source: SourceText, collected: _Collected, limits: Limits, errors: list[ScenarioError]
) -> None:
    value = document.value
    if value is None:
        return  # an empty document ("---" at the end of a stream)
    record = release_evidence.version_record_evidence(value, source.name)
    if record is not None:  # kubectl version, /version, a support bundle's record: the release, no objects
        collected.release_evidence.append(record)
        collected.version_records.append(source.name or FILE)
        return
    if source.lenient and not _holds_objects(value, source.kind_hint):
        if source.name not in collected.not_objects[-1:]:
            collected.not_objects.append(source.name or FILE)
        return
    label = f"document {document.index}"
    root = Field(value, "", getattr(value, "line", document.line), Context(label, errors, source.name, collected.kept))
    if isinstance(value, YList) and (not value or _named(value[0], source.kind_hint)):  # a JSON array (sonobuoy)
        _read_items(root, label, source.kind_hint, "", collected, limits, errors)
        return
    if not root.expect_map():
        return
    item_type = _list_item_type(value, source.kind_hint)
    if item_type is None:
        _read_object(root, collected, limits, source.kind_hint)
        return
    items = root.get("items")
    if items is not None:
        _read_items(items, label, *item_type, collected, limits, errors)


def _list_item_type(value: YMap, kind_hint: str) -> Optional[tuple[str, str]]:
    """(kind, apiVersion) a list gives its items written without them ("" for none), or None when
    the document is an object, not a list. ``kind: List`` items carry their own; a typed list
    (``NodeList``, as the API answers a list request) names its items' kind and its apiVersion is
    theirs; a list without a kind has the kind the file's place in a dump names, if any."""
    kind = value.get("kind", "")
    if kind == LIST_KIND:
        return kind_hint, ""
    if not isinstance(kind, str) or "items" not in value:
        return None
    if not kind:
        return kind_hint, ""
    if kind.endswith(LIST_SUFFIX) and kind not in KINDS and kind != CONFIG_KIND:
        api_version = value.get("apiVersion", "")
        return kind[: -len(LIST_SUFFIX)], api_version if isinstance(api_version, str) else ""
    return None


def _holds_objects(value: object, kind_hint: str) -> bool:
    """Whether a document found in a dump holds Kubernetes objects the loader can name: tools also
    write their own metadata, reports and objects of kinds nobody says (a kind-less object in a
    folder that names no kind); those files are skipped with a notice rather than refused."""
    if isinstance(value, YMap):
        if "kind" in value:
            return True
        items = value.get("items")
        if isinstance(items, YList):
            return not items or _named(items[0], kind_hint)
        return bool(kind_hint) and _object_like(value)
    if isinstance(value, YList):
        return not value or _named(value[0], kind_hint)
    return False


def _named(item: object, kind_hint: str) -> bool:
    return isinstance(item, YMap) and ("kind" in item or (bool(kind_hint) and _object_like(item)))


def _object_like(value: object) -> bool:
    return isinstance(value, YMap) and ("apiVersion" in value or "metadata" in value)


def _read_items(
    items: Field,
    label: str,
    item_kind: str,
    api_version: str,
    collected: _Collected,
    limits: Limits,
    errors: list[ScenarioError],
) -> None:
    file = items.ctx.file
    for index, item in enumerate(items.items()):
        item.ctx = Context(f"{label} items[{index}]", errors, file, collected.kept)
        if item.expect_map():
            _read_object(Field(item.value, "", item.line, item.ctx), collected, limits, item_kind, api_version)


def _read_object(
    obj: Field, collected: _Collected, limits: Limits, default_kind: str = "", default_api_version: str = ""
) -> None:
    kind_field = obj.get("kind")
    if kind_field is not None and not isinstance(kind_field.value, str):
        _name_the_object(obj)
        kind_field.as_str()  # the one error: kind is not a string (a list item names its object)
        return
    kind = kind_field.as_str() if kind_field is not None else default_kind
    api_version = obj.get_str("apiVersion") or (default_api_version if kind_field is None else "")
    if kind == CONFIG_KIND:
        _read_config(obj, api_version, collected)
        return
    if changes_reader.note_object(obj, kind, collected.changes_input, api_version):
        return
    spec = KINDS.get(kind)
    if spec is None:
        _other_kind(obj, kind, collected)
        return
    meta = read_metadata(obj, kind, spec.name_check, spec.namespaced)  # errors below name the object
    if api_version and api_version not in spec.api_versions:
        obj.error_at(
            "apiVersion",
            f'unsupported value "{api_version[:80]}" for kind {kind}: supported values: '
            + ", ".join(f'"{v}"' for v in spec.api_versions),
        )
    if meta.name and not _register(obj, kind, meta, collected):
        return
    if kind == "Pod":  # pods of one template share their spec: it is checked and decoded once
        value = obj.value.get("spec") if type(obj.value) is YMap else None
        key = pods.frozen_spec(value) if type(value) is YMap else None
        check_pod_fields(
            obj, api_version or spec.api_versions[0], collected.release_fields, key, collected.checked_specs
        )
        _add(obj, kind, meta, collected, limits, key)
        return
    check_fields(obj, api_version or spec.api_versions[0], kind, collected.release_fields)
    if api_version and not served_by_all(api_version, kind):
        collected.partly_served[(api_version, kind)] += 1
    _add(obj, kind, meta, collected, limits)


def _other_kind(obj: Field, kind: str, collected: _Collected) -> None:
    """Any other object is accepted and counted as ignored (the scheduler does not read it); an
    object without a kind is not a Kubernetes object at all. An OpenShift ClusterVersion says the
    release (it is counted as ignored too: the scheduler does not read it)."""
    if kind == release_evidence.OPENSHIFT_CLUSTER_VERSION and isinstance(obj.value, YMap):
        metadata = obj.value.get("metadata")
        name = metadata.get("name", "") if isinstance(metadata, dict) else ""
        found = release_evidence.cluster_version_evidence(obj.value, str(name))
        if found is not None:
            collected.release_evidence.append(found)
    if kind == dra.TAINT_RULE_KIND:  # read by the scheduler only while DRADeviceTaintRules is on (dra.settle)
        metadata = obj.get("metadata")
        name = metadata.get_str("name") if metadata is not None and isinstance(metadata.value, YMap) else ""
        collected.taint_rules.append(dra.taint_rule(obj, f"{kind} {name[:80]}".strip()))
    if kind:
        collected.ignored[kind[:80]] += 1
        return
    _name_the_object(obj)
    obj.error_at(
        "kind",
        "Required value: every object needs apiVersion and kind "
        f"(the scheduler reads {', '.join([*KINDS, CONFIG_KIND])}; other kinds are ignored)",
    )


def _name_the_object(obj: Field) -> None:
    """Errors about an object without a usable kind name it by metadata.name when it has one."""
    metadata = obj.get("metadata")
    name = metadata.get_str("name") if metadata is not None and metadata.expect_map() else ""
    if name:
        obj.ctx.object = f"object {name[:80]}"


def _register(obj: Field, kind: str, meta: Metadata, collected: _Collected) -> bool:
    """Duplicate names are refused as the API server would (AlreadyExists). A dump tool may write
    one object twice in two files (must-gather: a namespace's pods.yaml and each pod's own file):
    the same uid in another file is that same object, read once with a notice."""
    key = (kind, meta.namespace, meta.name)
    first = collected.seen.get(key)
    file = obj.ctx.file
    if first is not None:
        if meta.uid and first.uid == meta.uid and first.file != file:
            collected.duplicates.append(obj.ctx.object)
            return False
        where = f"line {first.line}" + (f" of {first.file}" if first.file != file and first.file else "")
        metadata = obj.get("metadata")
        (metadata or obj).error_at("name", f'Duplicate value: {kind} "{meta.name}" already defined at {where}')
        return False
    collected.seen[key] = _Seen(obj.line, file, meta.uid)
    return True


def _add(
    obj: Field, kind: str, meta: Metadata, collected: _Collected, limits: Limits, key: Optional[SpecKey] = None
) -> None:
    if kind == "Pod":
        _check_limit(obj, len(collected.pods), limits.max_pods, "pods", "max_pods")
        pod = pods.decode_pod(obj, meta, len(collected.pods), collected.pod_specs, key)
        collected.pods.append(pod)
        collected.admitted.append(_Admitted.of(pod, obj))
        if meta.namespace == release_evidence.CONTROL_PLANE_NAMESPACE and isinstance(obj.value, YMap):
            found = release_evidence.pod_evidence(obj.value, meta.namespace, meta.name)
            if found is not None:
                collected.release_evidence.append(found)
    elif kind == "Node":
        _check_limit(obj, len(collected.nodes), limits.max_nodes, "nodes", "max_nodes")
        collected.nodes.append(objects.decode_node(obj, meta, len(collected.nodes)))
        if isinstance(obj.value, YMap):
            found = release_evidence.node_evidence(obj.value, meta.name)
            if found is not None:
                collected.release_evidence.append(found)
    elif kind == "Namespace":
        collected.namespaces[meta.name] = objects.decode_namespace(meta)
    elif kind == "Service":
        collected.services.append(objects.decode_service(obj, meta))
    elif kind == "PodDisruptionBudget":
        collected.pdbs.append(objects.decode_pod_disruption_budget(obj, meta))
    elif kind == "PriorityClass":
        collected.priority_classes[meta.name] = objects.decode_priority_class(obj, meta)
    elif kind == "ReplicationController":
        collected.workloads.append(objects.decode_replication_controller(obj, meta))
    elif kind in dra.KINDS:
        dra.add(collected.dra, obj, kind, meta, collected.dra_gated, collected.dra_admin)
    elif kind in storage.KINDS:
        if storage.add(collected.storage, obj, kind, meta):
            collected.pending_volumes.append(meta.name)
    else:
        collected.workloads.append(objects.decode_workload(obj, meta, kind))


def _check_limit(obj: Field, count: int, limit: int, what: str, name: str) -> None:
    if count >= limit:
        obj.ctx.error("", obj.line, f"more than {limit} {what} (Limits.{name})")
        raise _LimitReached()


def _read_config(obj: Field, api_version: str, collected: _Collected) -> None:
    obj.ctx.object = CONFIG_KIND
    if api_version and api_version != config_decoder.CONFIG_API_VERSION:
        obj.error_at(
            "apiVersion",
            f'unsupported value "{api_version[:80]}": supported values: "{config_decoder.CONFIG_API_VERSION}"',
        )
    if collected.config is not None:
        obj.error(f"only one {CONFIG_KIND} is allowed (the first is at line {collected.config.line})")
        return
    errors_before = len(obj.ctx.errors)
    collected.config = config_decoder.decode_config(obj)
    if len(obj.ctx.errors) == errors_before:  # built into profiles once the release is known (_load)
        collected.config_obj = obj


# ---------------------------------------------------------------------- whole-scenario checks


def _asks_extended_resources(pod: Pod) -> bool:
    return any(
        is_dra_extended_resource_name(name)
        for container in (*pod.init_containers, *pod.containers)
        for name in container.requests
    )


def _finish(collected: _Collected, limits: Limits, errors: list[ScenarioError]) -> None:
    _ensure_namespaces(collected)
    _resolve_priorities(collected)
    storage.finish(collected.storage)
    for pod in collected.pods:
        # reservations and owner references name pods by uid: a pod with claims, or with requests
        # a DeviceClass may stand for (the claim the scheduler makes for it), gets the API server's
        if not pod.uid and (pod.claim_sources or _asks_extended_resources(pod)):
            pod.uid = f"uid-pod-{pod.namespace}-{pod.name}"
    pending = [pod for pod in collected.pods if not pod.node_name]
    if len(pending) > limits.max_pending_pods:
        errors.append(
            ScenarioError(
                FILE,
                "",
                pending[limits.max_pending_pods].line,
                f"{len(pending)} pending pods, more than {limits.max_pending_pods} (Limits.max_pending_pods)",
            )
        )


def _resolve_priorities(collected: _Collected) -> None:
    """The Priority admission plugin: a pod's class is the one it names (the two system classes
    always exist) or, naming none, the lowest-valued globalDefault class. A pod written without
    ``spec.priority`` takes the class's value (0 without a class); a pod without
    ``spec.preemptionPolicy`` takes the class's policy. A stored pod already carries both."""
    classes = {**objects.SYSTEM_PRIORITY_CLASSES, **collected.priority_classes}
    default = min(
        (c for c in collected.priority_classes.values() if c.global_default), key=lambda c: c.value, default=None
    )
    for admitted in collected.admitted:
        if admitted.spec_path is None:
            continue
        pod = admitted.pod
        priority_class = classes.get(pod.priority_class_name) if pod.priority_class_name else default
        if priority_class is None:
            if pod.priority_class_name and not admitted.priority_written:
                path = f"{admitted.spec_path}.priorityClassName" if admitted.spec_path else "priorityClassName"
                admitted.ctx.error(
                    path,
                    admitted.class_line,
                    f'no PriorityClass with name "{pod.priority_class_name}" '
                    "was found (add it to the scenario, or set spec.priority)",
                )
            continue
        if not admitted.priority_written:
            pod.priority = priority_class.value
            pod.priority_class_name = priority_class.name
        if not admitted.policy_written:
            pod.preemption_policy = priority_class.preemption_policy


def _dra_reading(collected: _Collected) -> dra.DraReading:
    """The DRA objects as read, with what a release may refuse (dra.settle)."""
    class_resources = []
    for admitted in collected.admitted:
        pod, ctx = admitted.pod, admitted.ctx
        for path, name in dra.class_resource_requests(pod):
            class_resources.append((ScenarioError(ctx.object, path, pod.line, "", ctx.file), name))
    return dra.DraReading(
        collected.dra, tuple(collected.dra_gated), tuple(collected.taint_rules), tuple(class_resources)
    )


def _ignored_declared_features(collected: _Collected) -> None:
    """The node strategy's dropDisabledFields: without NodeDeclaredFeatures the API server keeps no
    status.declaredFeatures, and nothing of the scheduler reads them (the plugin is not in the
    profile, the node-update extractor is off). Said in a notice, not silently; the model keeps
    them, for a replay of the same scenario under a release that has the gate on (an upgrade)."""
    for node in collected.nodes:
        if node.declared_features:
            collected.declared_features_ignored.append(f"Node {node.name}")


def _notices(collected: _Collected, changes_make_work: bool = False, rules: Optional[Rules] = None) -> list[Notice]:
    """What the loader leaves out, said once each: other kinds, finished pods, pods on absent nodes."""
    notices: list[Notice] = []
    if collected.ignored:
        counts = ", ".join(f"{n} {kind}" for kind, n in sorted(collected.ignored.items()))
        message = f"ignored (the scheduler does not read them): {counts}"
        workloads = [kind for kind in changes_reader.SCALABLE_KINDS if kind in collected.ignored]
        if workloads:
            # Said, so "ignored" does not read as "unused": the capacity questions place their replicas.
            message += (
                f"; the {'/'.join(workloads)} objects are read by the capacity questions, and by a run's "
                "stand-in controllers once the scenario has a Changes document"
            )
        notices.append(Notice(NoticeCode.IGNORED_KINDS, message))
    finished = [p for p in collected.pods if p.is_finished]
    if finished:
        notices.append(
            Notice(
                NoticeCode.FINISHED_PODS,
                f"{len(finished)} finished pod(s) (phase Succeeded or Failed) "
                "left out: the scheduler does not see them",
                tuple(f"Pod {p.key}" for p in finished),
            )
        )
    pending_volumes = storage.pending_volumes_notice(collected.pending_volumes)
    if pending_volumes is not None:
        notices.append(pending_volumes)
    if collected.pod_fields_dropped:
        dropped = collected.pod_fields_dropped
        notices.append(
            Notice(
                NoticeCode.POD_FEATURE_OFF,
                f"{len(dropped)} pod field(s) of features that are off in {_release_words(rules)} dropped, as "
                "the API server drops them",
                tuple(dropped),
            )
        )
    if collected.dra_dropped:
        notices.append(
            Notice(
                NoticeCode.DRA_FEATURE_OFF,
                # the fields are the notice's objects: every reader lists them after the message
                f"{len(collected.dra_dropped)} field(s) of DRA features that are off in "
                f"{_release_words(rules)} dropped, as the API server drops them",
                tuple(collected.dra_dropped),
            )
        )
    replayed = rules or DEFAULT_RULES
    # DynamicResources' PreEnqueue holds them only where the plugin runs (DynamicResourceAllocation
    # on; where it is off the finding dra-off names the pods)
    held = (
        pods_held_at_pre_enqueue(
            [p for p in collected.pods if not p.is_finished],
            collected.dra,
            replayed.features.claim_owner_message_capitalized,
        )
        if replayed.features.enable_dynamic_resource_allocation
        else []
    )
    if held:
        notices.append(
            Notice(
                NoticeCode.RESOURCE_CLAIMS,
                f"{len(held)} pending pod(s) whose resource claims are missing or not theirs: "
                "DynamicResources' PreEnqueue holds them, never attempted ("
                + held[0][1]
                + (", ..." if len(held) > 1 else "")
                + ")",
                tuple(f"Pod {p.key}" for p, _ in held),
            )
        )
    node_names = {node.name for node in collected.nodes}
    absent = [p for p in collected.pods if p.node_name and p.node_name not in node_names and not p.is_finished]
    if absent:
        missing = ", ".join(sorted({p.node_name for p in absent})[:5])
        notices.append(
            Notice(
                NoticeCode.MISSING_NODE,
                f"{len(absent)} pod(s) bound to node(s) not in the scenario "
                f"({missing}{', ...' if len({p.node_name for p in absent}) > 5 else ''}) ignored",
                tuple(f"Pod {p.key}" for p in absent),
            )
        )
    if collected.declared_features_ignored:
        dropped = collected.declared_features_ignored
        notices.append(
            Notice(
                NoticeCode.DECLARED_FEATURES_OFF,
                f"status.declaredFeatures of {len(dropped)} node(s) ignored: the feature gate "
                f"{DECLARED_FEATURES_GATE} is off in this release (its API server drops the field) "
                "and the NodeDeclaredFeatures plugin does not run",
                tuple(dropped),
            )
        )
    kept = _kept_notice(collected.kept)
    if kept is not None:
        notices.append(kept)
    if rules is not None and rules.gates.enabled(dra.DEVICE_TAINTS):
        notices.extend(_device_taint_evictions(collected.dra))
    notices.extend(_binding_conditions(collected.dra))
    return [*notices, *_reading_notices(collected), *_emptiness_notices(collected, changes_make_work)]


def _device_taint_evictions(objects: DraObjects) -> list[Notice]:
    """The pods the device taint eviction controller would evict (dra.untolerated_no_execute)."""
    found = dra.untolerated_no_execute(objects)
    if not found:
        return []
    pods = sorted({f"Pod {claim.split('/')[0]}/{pod}" for claim, pod in found})
    claims = sorted({claim for claim, _ in found})
    return [
        Notice(
            NoticeCode.DEVICE_TAINT_EVICTIONS,
            f"{len(pods)} running pod(s) use devices with a NoExecute taint their claim does not tolerate "
            f"(claim(s) {', '.join(claims[:5])}{', ...' if len(claims) > 5 else ''}): kube-controller-manager's "
            "device taint eviction controller would evict them; SchedLab does not replay it, so they stay running",
            tuple(pods),
        )
    ]


def _binding_conditions(objects: DraObjects) -> list[Notice]:
    """The slices with devices that have binding conditions (kept: the gates are on): who sets
    those conditions is not part of a replay."""
    slices = [s for s in objects.slices if any(device.binding_conditions for device in s.devices)]
    if not slices:
        return []
    count = sum(1 for s in slices for device in s.devices if device.binding_conditions)
    return [
        Notice(
            NoticeCode.BINDING_CONDITIONS,
            f"{count} device(s) have binding conditions: a pod allocated one waits in PreBind until its "
            "claim's status.devices conditions say the device is ready; no driver or controller sets them in a "
            "replay, so the binding fails when DynamicResources' bindingTimeout (600 s by default) has passed, "
            "unless the claim in the scenario already reports them (then as they are)",
            tuple(f"ResourceSlice {s.name}" for s in slices),
        )
    ]


def _not_served_notice(collected: _Collected, rules: Rules) -> list[Notice]:
    """Objects written in an API version the release's API server does not serve (a v1.32 cluster
    has no resource.k8s.io/v1): read as the same objects in a version it serves, their fields as it
    knows them (unknown_fields' twins; the fields it would not know are the next notice's)."""
    name = rules.release.name
    unserved = [
        (version, kind, n) for (version, kind), n in collected.partly_served.items() if not serves(name, version, kind)
    ]
    notices = []
    for version in dict.fromkeys(version for version, _, _ in unserved):
        kinds = [(kind, count) for other, kind, count in unserved if other == version]
        since = releases_of(served_by(version, kinds[0][0])).split(", ")[0]
        served = " and ".join(versions_served(name, kinds[0][0])) or "the versions it serves"
        counted = ", ".join(f"{count} {kind}" for kind, count in kinds)
        message = (
            f"{version} is not served by the {name} API server (it is from {since}): {counted} read as the same "
            f"objects in {served}, as a {name} cluster has them"
        )
        notices.append(Notice(NoticeCode.UNKNOWN_FIELDS, message))
    return notices


def _release_fields_notice(collected: _Collected, rules: Rules) -> list[Notice]:
    """Fields only other supported releases know (scenario/unknown_fields.py; those no release knows
    are errors): the release's API server would drop them, so the replay ignores them, said here."""
    dropped = unknown_to(rules.release.name, collected.release_fields)
    if not dropped:
        return []
    named = [f"{found.object} {found.path} (known to {releases_of(found.releases)})" for found in dropped]
    shown = "; ".join(named[:10]) + (f"; and {len(named) - 10} more" if len(named) > 10 else "")
    message = f"fields the {rules.release.name} API server does not know, ignored: {shown}"
    return [Notice(NoticeCode.UNKNOWN_FIELDS, message, tuple(dict.fromkeys(found.object for found in dropped)))]


def _release_words(rules: Optional[Rules]) -> str:
    """ "v1.36", or "v1.36 with --feature-gates DRADeviceTaints=false" when the gates were changed."""
    rules = rules or DEFAULT_RULES
    changed = rules.gates.differences_from_defaults()
    gates = ",".join(f"{gate}={str(on).lower()}" for gate, on in changed.items())
    return rules.release.name + (f" with --feature-gates {gates}" if gates else "")


def _kept_notice(kept: list[ScenarioError]) -> Optional[Notice]:
    """Values the API server lets existing pods keep though it refuses them on new ones (an
    invalid label value in a required node affinity term): loaded, each named with its field and
    line, and replayed as the release does (the term never matches a node)."""
    if not kept:
        return None
    where = "; ".join(
        f"{p.object} {p.path}" + (f" (line {p.line})" if p.line else "") + f": {p.message}" for p in kept[:5]
    )
    return Notice(
        NoticeCode.KEPT_INVALID,
        f"{len(kept)} value(s) kept as an existing pod may keep them (a new "
        f"pod would be refused): {where}" + ("; ..." if len(kept) > 5 else ""),
        tuple(dict.fromkeys(p.object for p in kept)),
    )


def _reading_notices(collected: _Collected) -> list[Notice]:
    """What was read around the objects: files of a dump that hold none, objects a dump tool wrote
    twice, the container logs of ``kubectl cluster-info dump``."""
    notices: list[Notice] = []
    if collected.not_objects:
        notices.append(
            Notice(
                NoticeCode.NOT_OBJECTS,
                f"{len(collected.not_objects)} YAML/JSON file(s) hold no "
                "Kubernetes object (a tool's own metadata or reports): not read",
                tuple(collected.not_objects),
            )
        )
    if collected.duplicates:
        notices.append(
            Notice(
                NoticeCode.DUPLICATE_OBJECTS,
                f"{len(collected.duplicates)} object(s) written again in another file with the same uid: read once",
                tuple(collected.duplicates),
            )
        )
    if collected.container_logs:
        notices.append(
            Notice(
                NoticeCode.CONTAINER_LOGS,
                f"the logs of {len(collected.container_logs)} container(s) "
                "between the lists (kubectl cluster-info dump): skipped, the scheduler does not read logs",
                tuple(collected.container_logs),
            )
        )
    return notices


def _emptiness_notices(collected: _Collected, changes_make_work: bool = False) -> list[Notice]:
    """A scenario with nothing to schedule against, or nothing to schedule, is never valid in silence:
    a dump read wrong (or a dump of something else) would otherwise answer "every pod is placed".
    ``changes_make_work``: a Changes document whose steps or controllers may create the pods."""
    notices: list[Notice] = []
    if not collected.nodes:
        notices.append(
            Notice(
                NoticeCode.NO_NODES,
                "no Node objects were read: there is nothing to schedule "
                "against, so every pending pod would stay pending (include the nodes: "
                "kubectl get nodes -o yaml)",
            )
        )
    waiting = sum(1 for pod in collected.pods if not pod.node_name and not pod.is_finished)
    if not waiting and not changes_make_work:
        # As `check` counts running pods: bound to a node of the scenario (one on an absent node is
        # left out with its own notice; counting it here made "4 already on nodes" beside "3 running").
        nodes = {node.name for node in collected.nodes}
        running = sum(1 for pod in collected.pods if not pod.is_finished and pod.node_name in nodes)
        notices.append(
            Notice(
                NoticeCode.NO_PENDING_PODS,
                f"no pending pods: nothing to schedule ({running} pod(s) "
                "already on nodes); add a pod without spec.nodeName to see where it would go",
            )
        )
    return notices


def _ensure_namespaces(collected: _Collected) -> None:
    """A namespace a pod lives in or an affinity term names exists, with no labels unless declared."""
    namespaces = collected.namespaces
    for pod in collected.pods:
        for name in (pod.namespace, *_term_namespaces(pod)):
            if name not in namespaces:
                namespaces[name] = Namespace(name, declared=False)


def _term_namespaces(pod: Pod) -> list[str]:
    affinity = pod.affinity
    if affinity is None:
        return []
    names: list[str] = []
    for group in (affinity.pod_affinity, affinity.pod_anti_affinity):
        if group is None:
            continue
        terms = [*group.required, *(w.term for w in group.preferred)]
        names.extend(ns for term in terms for ns in term.namespaces)
    return names
