"""The one place the web app talks to scheduler_core, through its published API (scheduler_core.api) only."""

from __future__ import annotations

import dataclasses
import functools
import gzip
import hashlib
import json
import threading
from pathlib import Path
from collections import OrderedDict
from collections.abc import Callable, Generator, Hashable, Iterable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from django.conf import settings

import scheduler_core.api
from scheduler_core.api import (
    add_node_taints_to_text,
    ANSWER_PAYLOADS,
    apply_to_text,
    as_yaml_stream,
    can_fork,
    CapacityAnswer,
    CapacityError,
    check_scenario,
    cluster_volume_json,
    ClusterVolume,
    compare_events,
    compare_reads,
    compare_recorded,
    compare_releases,
    controller_taint_changes,
    copies_by_trials,
    cycle_details,
    CycleDetails,
    CycleEnd,
    CycleExplanation,
    DECIDING_TEXT_MOST,
    decode_segment,
    decode_selected,
    DEFAULT_RELEASE,
    documents,
    Event,
    EventFilter,
    events_in_child,
    explain_events,
    explain_pod as scheduler_explain_pod,
    ExtensionPoint,
    feature_gates,
    FEATURE_SPECS,
    FeatureGateError,
    FitAnswer,
    FitAnswerJSON,
    FormatError,
    format_amount,
    FragmentationAnswer,
    FragmentationAnswerJSON,
    is_archive as scheduler_is_archive,
    kind_named_by as scheduler_kind_named_by,
    holds,
    reaches,
    Limits,
    load_scenario,
    collector_paused,
    dump_pickled,
    Forked,
    frozen_after_first,
    YAML_DUMPER,
    YAML_LOADER,
    megabytes,
    in_own_words,
    setting_value,
    NeedsTrials,
    Node,
    NODE_TAINTS_MISSING,
    DRA_OFF,
    NodesAnswer,
    NodesAnswerJSON,
    NotBound,
    NotPending,
    one_pass,
    parse_feature_gates,
    PassAnswer,
    PassAnswerJSON,
    payload_schema,
    Pod,
    pod_requests,
    PodPlacementExplanation,
    Question,
    read_events,
    rechoose,
    RecordedAnswers,
    RecordedComparison,
    Release,
    release_named,
    ReleaseChoice,
    ReleaseSaid,
    ReleaseRequest,
    RemovableAnswer,
    RemovableAnswerJSON,
    replay,
    resolve_plain_scalar,
    replayed_from_timeline,
    replayed_from_trace,
    run_story,
    run_to_the_end,
    run_trial,
    RunNames,
    SCALABLE_KINDS,
    Scenario,
    scenario_devices,
    DeviceEntry,
    NodeDevices,
    PodClaim,
    ScenarioError,
    ScenarioErrorJSON,
    ScenarioInvalid,
    search_for,
    SegmentEncoder,
    simulate,
    spec_at,
    SpreadCountedJSON,
    step_placements,
    StepPlacement,
    STEP_MARKS,
    GonePod,
    NodeAtStep,
    PodAtStep,
    story_reads,
    SUPPORTED_RELEASES,
    trace_cycles,
    trace_summary,
    Trial,
    TrialBase,
    TrialChanges,
    TrialJSON,
    TrialOutcome,
    UnknownRelease,
    upgrade_counts,
    UpgradeComparison,
    upload_to_text as scheduler_upload_to_text,
    what_if as scheduler_what_if,
    without_trials,
    Finding,
    Notice,
    WhatIfAnswerJSON,
)

from webui.services.errors import InvalidScenario, LimitExceeded, ReleaseInvalid
from webui.services import loaded_cache

V = TypeVar("V")

__all__ = [
    "Forked",
    "WhatIfAnswerJSON",
    "ClusterVolume",
    "ScenarioErrorJSON",
    "DeviceEntry",
    "NodeDevices",
    "PodClaim",
    "Finding",
    "Notice",
    "Scenario",
    "megabytes",
    "resolve_plain_scalar",
    "Node",
    "Pod",
    "Check",
    "CycleEnd",
    "CycleExplanation",
    "as_yaml_stream",
    "Event",
    "ExtensionPoint",
    "FormatError",
    "RunNames",
    "ScenarioInvalid",
    "EventFilter",
    "SegmentEncoder",
    "check",
    "check_soon",
    "known_check",
    "remember_check",
    "check_json",
    "check_of_json",
    "check_fingerprint",
    "compare_reads",
    "decode_segment",
    "decode_selected",
    "story_reads",
    "engine_limits",
    "explain",
    "load",
    "load_stored",
    "kept_run_names",
    "run_names_document",
    "run_names_gz",
    "names_document_gz",
    "let_reading_fork",
    "collector_paused",
    "load_valid",
    "pod_requests",
    "simulate_events",
    "run_events",
    "story",
    "steps_cluster",
    "StepPlacement",
    "STEP_MARKS",
    "GonePod",
    "NodeAtStep",
    "PodAtStep",
    "ReleaseSaid",
    "filter_details",
    "CycleDetails",
    "cluster_volumes",
    "compare",
    "what_if",
    "NotPending",
    "trace",
    "MODE_SINGLE",
    "MODE_TIMELINE",
    "NotBound",
    "PodPlacementExplanation",
    "RecordedAnswers",
    "RecordedComparison",
    "explain_pod",
    "recorded",
    "with_node_taints",
    "is_archive",
    "kind_named_by",
    "upload_to_text",
    # Editing a version's text document by document (another configuration, a what-if applied).
    "YAML_DUMPER",
    "YAML_LOADER",
    "documents",
    "apply_to_text",
    # Capacity questions (webui/services/capacity.py stores and dispatches; the engine answers).
    "CapacityAnswer",
    "CapacityError",
    "FitAnswer",
    "FragmentationAnswer",
    "NodesAnswer",
    "RemovableAnswer",
    "Trial",
    "TrialBase",
    "TrialChanges",
    "TrialOutcome",
    "run_trial",
    "DECIDING_TEXT_MOST",
    "NeedsTrials",
    "PassAnswer",
    "one_pass",
    "copies_by_trials",
    "Question",
    "replay",
    "search_for",
    "SCALABLE_KINDS",
    # The capacity answers' declarations: the API's schemas of them are made from these
    # (webui/schemas/capacity.py), the stored answers are their JSON less the trials (without_trials).
    "FitAnswerJSON",
    "PassAnswerJSON",
    "SpreadCountedJSON",
    "NodesAnswerJSON",
    "RemovableAnswerJSON",
    "FragmentationAnswerJSON",
    "TrialJSON",
    "without_trials",
    "holds",
    "reaches",
    "format_amount",
    # Releases (scheduler_core/release): what a run is replayed as, and what changes on an upgrade.
    "NO_RELEASE",
    "Release",
    "ReleaseRequest",
    "UpgradeComparison",
    "TooManyEvents",
    "asked_release",
    "check_gates",
    "compare_upgrade",
    "next_release",
    "release_choice",
    "release_of_json",
    "release_request",
    "replayed_release",
    "supported_releases",
    "upgrade_counts",
    "payload_json_schema",
]


@dataclass(frozen=True)
class Summary:
    nodes: int
    pods: int
    pending_pods: int


@dataclass(frozen=True)
class Check:
    errors: list[dict[str, Any]] = field(default_factory=list)
    summary: Summary | None = None
    # What the scheduler leaves out of a valid scenario (ignored kinds, finished pods, pods for another
    # scheduler, gated pods, pods on missing nodes, no nodes at all): Notice.to_json() each, shown
    # beside the summary — what `check --json` calls notices.
    notices: list[dict[str, Any]] = field(default_factory=list)
    objects: dict[str, int] = field(default_factory=dict)  # `check --json`'s objects: kind -> count
    findings: list[dict[str, Any]] = field(default_factory=list)  # its completeness findings, as JSON
    fetch: list[str] = field(default_factory=list)  # the findings' kubectl lines, each once
    # The release it is replayed as and why (ReleaseChoice.to_json()): None while it does not load.
    release: dict[str, Any] | None = None

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def valid_summary(self) -> Summary:
        """The counts of a text that checked valid (callers raise_if_invalid first)."""
        if self.summary is None:
            raise ValueError("an invalid text has no summary")
        return self.summary

    @property
    def over_limit(self) -> LimitExceeded | None:
        """The first size limit the scenario exceeds, as the error the API answers with (413)."""
        return next((_limit_exceeded(e, self.errors) for e in self.errors if e.get("limit")), None)

    def raise_if_invalid(self) -> None:
        if self.over_limit is not None:
            raise self.over_limit
        if self.errors:
            raise InvalidScenario(self.errors)


def _limit_exceeded(error: dict[str, Any], errors: list[dict[str, Any]]) -> LimitExceeded:
    limit = error["limit"]
    maximum: int | None = getattr(engine_limits(), limit, None)  # None: a limit Limits does not hold (max_depth)
    exc = LimitExceeded(limit, maximum, error["message"])
    exc.details["errors"] = errors  # every problem, as with scenario_invalid
    return exc


def error_json(error: ScenarioError) -> dict[str, Any]:
    """The problem as every answer gives it: `file` always present (null for a single text), so an
    error's details list and the scenario's `errors` (ScenarioErrorOut) are the same JSON; a size
    limit named in the server's words."""
    out = {"file": None, **error.to_json()}
    out["message"] = in_server_words(out["message"])
    return out


# The settings that set the engine's size limits here (engine_limits); the other limits are fixed.
LIMIT_SETTINGS = {
    "max_bytes": "SCHEDLAB_MAX_BYTES",
    "max_nodes": "SCHEDLAB_MAX_NODES",
    "max_pods": "SCHEDLAB_MAX_PODS",
    "max_pending_pods": "SCHEDLAB_MAX_PENDING_PODS",
    "max_unpacked_bytes": "SCHEDLAB_MAX_UNPACKED_BYTES",
    "max_files": "SCHEDLAB_MAX_ARCHIVE_FILES",
}


def in_server_words(message: str) -> str:
    """The engine ends a size-limit message with its field ("(Limits.max_pending_pods)"), which
    the CLI turns into its flag; here the user is told the server setting that raises it, with the
    value that would take this scenario when the message says it."""
    return in_own_words(message, _raised_with)


def _raised_with(limit: str, value: int | None) -> str:
    setting = LIMIT_SETTINGS.get(limit)
    if setting is None:
        return "a fixed limit that keeps a hostile file from exhausting the server"
    return f"this server's administrator raises it with {setting}={setting_value(limit, value)}"


def engine_limits() -> Limits:
    return Limits(
        max_bytes=settings.SCHEDLAB_MAX_BYTES,
        max_nodes=settings.SCHEDLAB_MAX_NODES,
        max_pods=settings.SCHEDLAB_MAX_PODS,
        max_pending_pods=settings.SCHEDLAB_MAX_PENDING_PODS,
        max_unpacked_bytes=settings.SCHEDLAB_MAX_UNPACKED_BYTES,
        max_files=settings.SCHEDLAB_MAX_ARCHIVE_FILES,
    )


def enforce_size(text: str) -> None:
    """Refuse (rather than store) text over the byte limit: everything else typed is kept."""
    enforce_size_bytes(len(text.encode("utf-8")))


def enforce_size_bytes(size: int) -> None:
    if size > settings.SCHEDLAB_MAX_BYTES:
        raise size_refusal("the scenario", size)


def size_refusal(what: str, size: int | None) -> LimitExceeded:
    """``what`` ("the scenario", "the upload") is over SCHEDLAB_MAX_BYTES: its size in MB (when known),
    the limit and the setting that raises it. Sizes that read alike in MB are said in bytes too: "1 MB,
    more than the limit of 1 MB" would read as nonsense."""
    limit = settings.SCHEDLAB_MAX_BYTES
    size_said, limit_said = megabytes(size or 0), megabytes(limit)
    if size_said == limit_said:
        size_said, limit_said = f"{size} bytes", f"{limit_said} ({limit} bytes)"
    said = f"{what} is {size_said}," if size else f"{what} is"
    return LimitExceeded(
        "max_bytes", limit, in_server_words(f"{said} more than the limit of {limit_said} (Limits.max_bytes)")
    )


NO_RELEASE = ReleaseRequest()  # nothing asked: the release the dump says (else the default one)


def load(text: str, release: ReleaseRequest = NO_RELEASE) -> Scenario:
    """Loads once per distinct text (and release asked): versions never change, and a 5000-node
    file takes seconds. ``release``: what a run asked for (the loader's ReleaseRequest)."""
    return _load_keyed(_digest(text), len(text), lambda: text, release)


def load_stored(digest: str, length: int, text_of: Callable[[], str], release: ReleaseRequest = NO_RELEASE) -> Scenario:
    """``load`` of a stored text named by its digest and length (ScenarioVersion.digest, .length):
    the text is read (``text_of``) only when neither this process nor loaded_cache has the
    scenario — a run's worker skips reading and hashing a dump another process has read (a second
    for 150,000 pods). A text stored without its digest is read as ``load`` reads it."""
    if not digest:
        return load(text_of(), release)
    return _load_keyed(digest, length, text_of, release)


def _load_keyed(digest: str, length: int, text_of: Callable[[], str], release: ReleaseRequest) -> Scenario:
    key = (digest, engine_limits(), _release_key(release))
    scenario = _LOADED.get(key)
    if scenario is None:
        # Callers only read the Scenario (simulate() copies the pods it binds), so sharing it is safe.
        scenario = _LOADED.put(key, _loaded(text_of, length, key, release))
    return scenario


ENGINE_PACKAGE = Path(scheduler_core.api.__file__).parent  # its code names the files loaded_cache keeps


def _loaded(
    text_of: Callable[[], str], length: int, key: tuple[str, Limits, Hashable], release: ReleaseRequest
) -> Scenario:
    """Read from the text, or from what another of the app's processes read from it (loaded_cache:
    a big text's worker has it in a fraction of the time); kept there for them when it is big,
    with the run's names beside it (kept_run_names: a run of it has them before its worker starts)."""
    keep = loaded_cache.wanted(length)
    if keep:
        # A million objects pickled or unpickled, none of them garbage: with the collector on, its
        # passes over them took more than half of each (2.9 of 4.2 s reading 5,000 nodes' back).
        with collector_paused():
            kept = loaded_cache.get(key, ENGINE_PACKAGE)
        if isinstance(kept, Scenario):
            return kept
    scenario = load_scenario(text_of(), limits=key[1], release=release, second_process=_reading_may_fork)
    if keep:
        # Paused through the names too: the collector's first full pass after the read walks every
        # object read and finds nothing (~1.5 s at 150,000 pods, where the names' lists set it off).
        with collector_paused():
            if not _kept_by_a_child(key, scenario):
                _keep(key, scenario)  # before anyone uses it: as read
            names = run_names_gz(scenario)
        loaded_cache.put(_names_key(key), ENGINE_PACKAGE, names, suffix=loaded_cache.SIDECAR_SUFFIX)
    return scenario


def _keep(key: tuple[str, Limits, Hashable], scenario: Scenario) -> bytes:
    loaded_cache.put(key, ENGINE_PACKAGE, scenario, dump_pickled)
    return b"kept"


class KeptMeanwhile:
    """Work a forked child does meanwhile for this process (``kept_meanwhile``): keeping a scenario
    read, a version's index; each with the work this process does itself when the child fails."""

    def __init__(self) -> None:
        self.children: list[tuple[Forked, Callable[[], object]]] = []

    def start(self, work: Callable[[], bytes]) -> bool:
        """``work`` done by a forked child, or False when none can be forked here (do it yourself):
        only in a process that may fork (a worker's). Waited for by ``wait``, which does it itself
        when the child failed or hung."""
        if not _reading_may_fork:
            return False
        child = Forked.start(work)
        if child is None:
            return False
        self.children.append((child, work))
        return True

    def wait(self) -> None:
        """Every child's work done: waited for, or done here when a child failed or hung."""
        children, self.children = self.children, []
        for child, work in children:
            if child.answer(KEEP_PATIENCE_SECONDS) is None:
                with collector_paused():
                    work()


KEEP_PATIENCE_SECONDS = 300.0  # a child still working after this is stuck: killed, and its work done here
_kept_meanwhile: KeptMeanwhile | None = None


@contextmanager
def kept_meanwhile() -> Iterator[KeptMeanwhile]:
    """Within it, a big text read in a process that may fork (a worker's) is written to loaded_cache
    by a forked child while this process goes on (the envelope's 150,000 pods: ~4 s of pickling,
    during an upload's save and index of the text); ``wait`` (or the block's end) waits for it — an
    upload is called read only once its scenario is there for the run's worker. Other work for
    later readers may be started as well (``KeptMeanwhile.start``: a version's index)."""
    global _kept_meanwhile
    kept, previous = KeptMeanwhile(), _kept_meanwhile
    _kept_meanwhile = kept
    try:
        yield kept
    finally:
        _kept_meanwhile = previous
        kept.wait()


def _kept_by_a_child(key: tuple[str, Limits, Hashable], scenario: Scenario) -> bool:
    kept = _kept_meanwhile
    return kept is not None and kept.start(lambda: _keep(key, scenario))


# A big text's second half read by a forked child meanwhile (the loader's second_process): only in
# a Celery worker's process (webui/celery.py says so when one starts), never in the web server,
# whose other threads may hold locks a forked child would wait on forever.
_reading_may_fork = False


def let_reading_fork() -> None:
    """This process may fork to read a big text (a Celery worker's pool process)."""
    global _reading_may_fork
    _reading_may_fork = True


def _names_key(key: tuple[str, Limits, Hashable]) -> tuple[Hashable, ...]:
    return ("run-names", *key)


def kept_run_names(digest: str, release: ReleaseRequest = NO_RELEASE) -> bytes | None:
    """The run names (run_names_gz) of the scenario a stored text loads to, when another of the
    app's processes loaded it and kept them (loaded_cache); None otherwise. Never reads the text."""
    if not digest:
        return None
    key = _names_key((digest, engine_limits(), _release_key(release)))
    kept = loaded_cache.get(key, ENGINE_PACKAGE, loaded_cache.SIDECAR_SUFFIX)
    return kept if isinstance(kept, bytes) else None


RUN_NAMES_GZIP_LEVEL = 6  # once per run: ~45 KB for 5000 nodes with their labels


def run_names_document(scenario: Scenario) -> dict[str, Any]:
    """What a run's segments' indices refer to: nodes in document order (with labels), pending pods in queue order."""
    return {
        "nodes": [{"name": node.name, "labels": dict(node.labels)} for node in scenario.nodes],
        "pods": [pod.key for pod in scenario.pending_pods],
    }


def run_names_gz(scenario: Scenario) -> bytes:
    """run_names_document as stored with a run (Run.names_gz)."""
    return names_document_gz(run_names_document(scenario))


def names_document_gz(document: dict[str, Any]) -> bytes:
    """A run_names_document as stored with a run: gzip of its compact JSON."""
    body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return gzip.compress(body, compresslevel=RUN_NAMES_GZIP_LEVEL, mtime=0)


def _release_key(release: ReleaseRequest) -> Hashable:
    gates = None if release.gates is None else tuple(sorted(release.gates.items()))
    return (release.release, gates)


def _digest(text: str) -> str:
    known = getattr(_digested, "pair", None)
    if known is not None and known[0] is text:
        return str(known[1])
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


_digested = threading.local()  # (text, its digest) while digest_remembered lasts, in its thread


@contextmanager
def digest_remembered(text: str) -> Iterator[None]:
    """Within it, this thread hashes ``text`` (this very object) once: an upload's read asks its
    digest for the check, the load and the save's own check (0.25 s each for the envelope's 261 MB
    on a quiet machine, 1.7 s by the third with the children of the read working beside it). Only
    within: the text is not kept past the block."""
    _digested.pair = (text, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    try:
        yield
    finally:
        _digested.pair = None


_ALL_MEMOS: list["_Memo[Any]"] = []


def forget_everything() -> None:
    """Empty every per-process memo. Production ids are never reused, so this is for tests, whose
    database is rolled back between them (the next test's run 1 is another run)."""
    for memo in _ALL_MEMOS:
        memo.clear()


@dataclass
class _Making:
    """A value being made: its lock, and how many callers wait for it."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    waiting: int = 0


class _Memo(Generic[V]):
    """A small LRU keyed by a text's digest (never by the text, which may be megabytes)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()
        self._making: dict[Hashable, _Making] = {}
        _ALL_MEMOS.append(self)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return None

    def put(self, key: Hashable, value: V) -> V:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def get_or_make(self, key: Hashable, make: Callable[[], V], keep: bool = True) -> V:
        """The kept value, or make() — once at a time per key: requests that ask meanwhile wait for
        it instead of making it again (several page loads of one big run at once). ``keep`` False:
        made for this caller only (e.g. a run still being written)."""
        found = self.get(key)
        if found is not None:
            return found
        with self._lock:
            making = self._making.setdefault(key, _Making())
            making.waiting += 1
        try:
            with making.lock:
                found = self.get(key)
                if found is None:
                    found = make()
                    if keep:
                        self.put(key, found)
                return found
        finally:
            with self._lock:
                making.waiting -= 1
                if not making.waiting:
                    self._making.pop(key, None)


Memo = _Memo  # for the services' own per-version caches

_LOADED: _Memo[Scenario] = _Memo(4)  # loaded scenarios can be large: keep a few
_CHECKED: _Memo[Check] = _Memo(256)  # a Check is small: its errors, or three counts


def load_valid(text: str, release: ReleaseRequest = NO_RELEASE) -> Scenario:
    """The loaded scenario, or the API's error for a version that does not validate (400 / 413)."""
    try:
        return load(text, release)
    except ScenarioInvalid as exc:
        Check(errors=[error_json(error) for error in exc.errors]).raise_if_invalid()
        raise  # pragma: no cover - ScenarioInvalid always carries errors


def check(text: str, release: ReleaseRequest = NO_RELEASE) -> Check:
    """Every problem of a text, or its summary; remembered per distinct text (and limits, and
    release asked). A check of the same text already under way (check_soon) is waited for, not
    started again."""
    key = (_digest(text), engine_limits(), _release_key(release))
    return _CHECKED.get_or_make(key, lambda: _check(text, release))


def known_check(digest: str) -> Check | None:
    """The check of the text with this digest (ScenarioVersion.digest) as the dump says, when this
    process has made it: never waits, never reads the text."""
    return _CHECKED.get((digest, engine_limits(), _release_key(NO_RELEASE)))


def remember_check(digest: str, check: Check) -> Check:
    """A check made elsewhere (a long-work worker's, read back) kept as this process's."""
    return _CHECKED.put((digest, engine_limits(), _release_key(NO_RELEASE)), check)


def check_json(check: Check) -> dict[str, Any]:
    """The check as stored (TextCheck.result); check_of_json reads it back."""
    return dataclasses.asdict(check)


def check_of_json(stored: dict[str, Any]) -> Check:
    summary = stored.get("summary")
    return Check(**{**stored, "summary": Summary(**summary) if summary else None})


def check_fingerprint() -> str:
    """What a check depends on besides the text: the limits and the engine's code."""
    made_with = f"{engine_limits()!r}|{loaded_cache.code_fingerprint(ENGINE_PACKAGE)}"
    return hashlib.sha256(made_with.encode()).hexdigest()[:32]


def check_soon(text: str) -> None:
    """Start checking a text in the background (an import answers once it is saved): the next
    check() of it, the editor's, waits for this one. Seconds on a 5 MB dump."""
    threading.Thread(target=check, args=(text,), name="schedlab-check", daemon=True).start()


def _check(text: str, release: ReleaseRequest = NO_RELEASE) -> Check:
    try:
        scenario = load(text, release)
    except ScenarioInvalid as exc:
        return Check(errors=[error_json(error) for error in exc.errors])
    summary = Summary(nodes=len(scenario.nodes), pods=len(scenario.pods), pending_pods=len(scenario.pending_pods))
    report = check_scenario(scenario).to_json()  # what `python -m scheduler_core check --json` prints
    return Check(
        summary=summary,
        notices=report["notices"],
        objects=report["objects"],
        findings=[_finding_json(finding) for finding in report["findings"]],
        fetch=report["fetch"],
        release=scenario.release.to_json(),
    )


# The findings the API changes in one click (POST /api/scenarios/{id}/fixes/...), by code.
# The one-click change the page makes for a finding: the node taints added to the text (a new
# version); DynamicResourceAllocation turned on in the release selector (the text untouched).
FINDING_ACTIONS = {NODE_TAINTS_MISSING: "add-node-taints", DRA_OFF: "turn-dra-on"}


def _finding_json(finding: dict[str, Any]) -> dict[str, Any]:
    """A finding as the API gives it: its kubectl lines under `kubectl` (the engine's `fix`), and the
    one-click change the API makes for it, if any."""
    return {
        "code": finding["code"],
        "message": finding["message"],
        "objects": finding["objects"],
        "kubectl": finding["fix"],
        "action": FINDING_ACTIONS.get(finding["code"]),
    }


MODE_TIMELINE, MODE_SINGLE = "timeline", "single"


def simulate_events(scenario: Scenario, mode: str = MODE_TIMELINE, hand_over_only: bool = False) -> Iterator[Event]:
    """The run's one stream: the scheduler run to the end (timeline), or the single pass (trace).
    Deterministic tie-break: a retried run must reproduce the same (seq -> event) stream.
    ``hand_over_only``: in the engine's own process (its node lists stay positions)."""
    if mode == MODE_SINGLE:
        return simulate(scenario, tie_break="first", hand_over_only=hand_over_only)
    return run_to_the_end(scenario, tie_break="first", hand_over_only=hand_over_only)


# Nodes × pending pods from which a run's engine gets a process of its own (SCHEDLAB_ENGINE_PROCESS
# "auto"): below it the fork and the hand-over cost more than storing alongside saves.
ENGINE_PROCESS_FROM_CELLS = 100_000


def run_events(
    scenario: Scenario, mode: str = MODE_TIMELINE, on_first_event: Callable[[], None] | None = None
) -> Generator[Event, None, None]:
    """``simulate_events`` as a run stores it: for a big run, in a forked engine process while this
    one stores (scheduler_core.encoding.pipe), so scheduling and storing use two cores; the events are
    the same either way (SCHEDLAB_ENGINE_PROCESS: auto, child or inline). Every one of these streams
    is a generator (the engine declares an Iterator): closing it early stops a forked engine.
    ``on_first_event`` is called once the first event has arrived, before it is handed on: what came
    before is the scheduler's set-up (its snapshot of the nodes and pods), which measure.py times apart."""
    if engine_in_child(scenario):
        # This process freezes what is alive at the first event too (the loaded scenario), as the
        # engine's own process does: the collector need not walk a million objects that stay.
        events = frozen_after_first(
            events_in_child(lambda in_child: simulate_events(scenario, mode, hand_over_only=in_child))
        )
    else:
        events = simulate_events(scenario, mode)
    stream = cast(Generator[Event, None, None], events)
    return stream if on_first_event is None else _telling_first(stream, on_first_event)


def _telling_first(events: Generator[Event, None, None], told: Callable[[], None]) -> Generator[Event, None, None]:
    with closing(events):  # closing this stream closes the engine's (a forked engine stops)
        first = next(events, None)
        told()
        if first is not None:
            yield first
            yield from events


def engine_in_child(scenario: Scenario) -> bool:
    choice = settings.SCHEDLAB_ENGINE_PROCESS
    if choice == "inline" or not can_fork():
        return False
    return choice == "child" or len(scenario.nodes) * len(scenario.pending_pods) >= ENGINE_PROCESS_FROM_CELLS


def cluster_devices(scenario: Scenario) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """DRA devices per node (scheduler_core.dra.inventory: classes, holder claim and its pods) and
    each pod's claims (requests, allocated devices, reserved for), keyed by namespace/name; both
    empty for a scenario without ResourceSlices or claims."""
    devices, claims = scenario_devices(scenario)
    return [listed.to_json() for listed in devices], {
        pod: [claim.to_json() for claim in listed] for pod, listed in claims.items()
    }


def cluster_volumes(scenario: Scenario) -> list[dict[str, Any]]:
    """The scenario's PersistentVolumes with the topology domains they can be used in."""
    return [cluster_volume_json(volume) for volume in scenario.storage.volumes]


def what_if(
    scenario: Scenario, pod: str, placements: dict[str, Any] | None = None, nominated: dict[str, str] | None = None
) -> dict[str, Any]:
    """Single changes that would let a pending pod fit, each verified by the engine (scheduler_core.answers.whatif)."""
    return scheduler_what_if(scenario, pod, placements, nominated)


def compare(
    events_a: Iterable[dict[str, Any]], events_b: Iterable[dict[str, Any]], pod: str | None = None
) -> dict[str, Any]:
    """Two stored runs side by side (scheduler_core.answers.compare), their events read back typed."""
    return compare_events(read_events(events_a), read_events(events_b), pod=pod)


def story(events_json: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A timeline run's attempts, queue moves and cluster changes (scheduler_core.encoding.timeline.run_story)."""
    return run_story(events_json)


def steps_cluster(scenario: Scenario, events_json: Iterable[dict[str, Any]]) -> list[StepPlacement]:
    """Where every pod is at the end of each step of a run with steps (scheduler_core.answers.stepplacements)."""
    return step_placements(scenario, events_json)


def trace(events_json: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """A stored run's trace summary (scheduler_core.encoding.trace), its events read back typed."""
    return trace_summary(read_events(events_json))


def trace_cycle_by_cycle(events_json: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The same summary's cycles one at a time (a download streamed in one cycle's memory)."""
    return trace_cycles(read_events(events_json))


def explain(
    events_json: Iterable[dict[str, Any]], details: CycleDetails | None = None, details_note: str | None = None
) -> CycleExplanation:
    """One cycle's explanation (why nothing fits, why the chosen node won), from its stored events,
    with the numbers behind its Filter reasons when given them (filter_details)."""
    return explain_events(read_events(events_json), details, details_note)


def filter_details(
    scenario: Scenario, cycle: int, mode: str = MODE_TIMELINE, per_plugin: int | None = None
) -> CycleDetails | None:
    """The facts behind a cycle's Filter rejections (of the first ``per_plugin`` nodes each plugin
    rejected), from a replay of the run as simulate_events runs it (same mode and tie-break)."""
    return cycle_details(scenario, cycle, mode=mode, tie_break="first", per_plugin=per_plugin)


def with_node_taints(text: str) -> str:
    """The text with the taints the node lifecycle controller would add (or remove) written into its
    node documents; the text itself when no node needs a change. 400/413 when it does not load."""
    changes = controller_taint_changes(load_valid(text))
    return add_node_taints_to_text(text, changes) if changes else text


def explain_pod(scenario: Scenario, pod: str) -> PodPlacementExplanation:
    """Why is this running pod here: its cycle re-run without it (scheduler_core.answers.explain_pod);
    NotBound when the pod is not running on a node of the scenario."""
    return scheduler_explain_pod(scenario, pod)


def recorded(scenario: Scenario, mode: str, summary: dict[str, Any]) -> RecordedComparison:
    """Each pending pod's recorded PodScheduled condition beside the replay's answer for it, read
    from the run's timeline story (a run to the end) or its trace summary (a single pass), with the
    dump's findings as likely causes (scheduler_core.answers.recorded)."""
    replayed = replayed_from_trace(summary) if mode == MODE_SINGLE else replayed_from_timeline(summary)
    return compare_recorded(scenario, replayed)  # the findings, as likely causes, only when some pod differs


def is_archive(data: bytes) -> bool:
    """An uploaded archive (.tar, .tar.gz/.tgz, .zip), told by its first bytes, not its name."""
    return scheduler_is_archive(data)


def kind_named_by(file_name: str) -> str:
    """The kind a file's name says ("nodes.json": Node), or ""."""
    return scheduler_kind_named_by(file_name)


def upload_to_text(files: list[tuple[str, bytes]]) -> str:
    """Several uploaded files, or an archive, read by the engine as one scenario and written out as
    one YAML stream of every object (scheduler_core.scenario.sources.upload_to_text); the API's
    error (400 naming file and line, 413 naming the limit) when they do not load."""
    try:
        return scheduler_upload_to_text(files, limits=engine_limits())
    except ScenarioInvalid as exc:
        Check(errors=[error_json(error) for error in exc.errors]).raise_if_invalid()
        raise  # pragma: no cover - ScenarioInvalid always carries errors


# --- releases (scheduler_core/release) ------------------------------------------------------------


def supported_releases() -> list[dict[str, Any]]:
    """The releases a run can be replayed as, newest first, each with the feature gates its
    kube-scheduler reads (what --feature-gates may set: its default, stage and lock)."""
    return [
        {
            "name": release.name,
            "version": release.version,
            "default": release == DEFAULT_RELEASE,
            "gates": [
                {"name": gate, "default": spec.default, "stage": spec.stage.value, "locked": spec.locked}
                for gate in sorted(FEATURE_SPECS)
                if (spec := spec_at(gate, release.minor)) is not None
            ],
        }
        for release in SUPPORTED_RELEASES
    ]


def asked_release(name: str) -> Release:
    """A supported release by name (``v1.36``, ``1.36``, ``v1.36.3``); ReleaseInvalid naming the
    supported ones otherwise."""
    try:
        return release_named(name)
    except UnknownRelease as exc:
        raise ReleaseInvalid("release", [str(exc)]) from None


def release_request(release: str | None, gates: str | dict[str, bool] | None) -> ReleaseRequest:
    """What a user asked: a release by name ("" or None: the dump's) and kube-scheduler's
    --feature-gates, as the flag's text ("A=true,B=false") or a mapping (None: the release's
    defaults, or the dump's kube-scheduler's). ReleaseInvalid names a name or gate that does not read."""
    asked = asked_release(release) if release else None
    if isinstance(gates, str):
        try:
            read: dict[str, bool] | None = parse_feature_gates(gates) if gates.strip() else None
        except FeatureGateError as exc:
            raise ReleaseInvalid("featureGates", exc.problems) from None
    else:
        read = dict(gates) if gates else None
    return ReleaseRequest(asked, read)


def release_choice(scenario: Scenario, release: ReleaseRequest) -> dict[str, Any]:
    """The release ``scenario`` (loaded as the dump says) is replayed as when ``release`` is asked,
    and why (ReleaseChoice.to_json()); ReleaseInvalid when that release refuses the gates asked."""
    try:
        choice: ReleaseChoice = rechoose(scenario.release, release)
    except FeatureGateError as exc:
        raise ReleaseInvalid("featureGates", exc.problems, _release_name(scenario, release)) from None
    return choice.to_json()


def _release_name(scenario: Scenario, release: ReleaseRequest) -> str:
    return (release.release or scenario.release.release).name


def check_gates(release: Release, gates: dict[str, bool] | None) -> None:
    """ReleaseInvalid when ``release``'s kube-scheduler refuses ``gates`` (an unknown gate, a locked one)."""
    try:
        feature_gates(release, gates)
    except FeatureGateError as exc:
        raise ReleaseInvalid("featureGates", exc.problems, release.name) from None


def next_release(release: Release) -> Release | None:
    """The next newer supported release (an upgrade's default target); None for the newest."""
    newer = [r for r in SUPPORTED_RELEASES if r.minor > release.minor]
    return min(newer, key=lambda r: r.minor) if newer else None


def replayed_release(scenario: Scenario) -> Release:
    """The release ``scenario`` is replayed as."""
    return scenario.release.release


def release_of_json(choice: dict[str, Any]) -> Release:
    """The release a stored choice (ReleaseChoice.to_json()) names."""
    return release_named(str(choice["release"]))


# compare_releases' progress: (done, total, what): after each run to the end of the comparison.
UpgradeProgress = Callable[[int, int, str], None]


class TooManyEvents(Exception):
    """One run of an upgrade comparison went over the events a run may have (``max_events``)."""


def compare_upgrade(
    scenario: Scenario,
    old: Release,
    new: Release,
    gates: dict[str, bool] | None = None,
    progress: UpgradeProgress | None = None,
    still_wanted: Callable[[], None] | None = None,
    max_events: int | None = None,
) -> UpgradeComparison:
    """What changes if the cluster is upgraded from ``old`` to ``new``
    (scheduler_core.answers.upgrade.compare_releases, as `compare --release OLD --release NEW`):
    every run to the end with the first tie-break, as runs are stored. ``still_wanted`` is called
    every UPGRADE_CHECK_EVENTS events of each run and raises to stop (a cancel); a run of more than
    ``max_events`` events raises TooManyEvents (as a stored run is failed over its limit)."""

    def run(replayed: Scenario) -> Iterator[Event]:
        for count, event in enumerate(run_to_the_end(replayed, tie_break="first"), start=1):
            if still_wanted is not None and count % UPGRADE_CHECK_EVENTS == 0:
                still_wanted()
            if max_events is not None and count > max_events:
                raise TooManyEvents(max_events)
            yield event

    return compare_releases(scenario, old, new, run, gates=gates, progress=progress)


UPGRADE_CHECK_EVENTS = 2000  # events between two asks whether an upgrade comparison is still wanted


def payload_json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of an engine payload the API serves as is (UpgradeComparison, UpgradeCounts),
    from its one declaration as the served payloads.json has it, every $ref inlined (for OpenAPI)."""
    defs = _served_schema()["$defs"]
    inlined: dict[str, Any] = _inline(defs[name], defs)
    return inlined


@functools.cache
def _served_schema() -> dict[str, Any]:
    return payload_schema(extra=ANSWER_PAYLOADS)


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return _inline(defs[ref.removeprefix("#/$defs/")], defs)
        return {key: _inline(value, defs) for key, value in node.items()}
    if isinstance(node, list):
        return [_inline(value, defs) for value in node]
    return node
