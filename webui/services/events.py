"""Reading a run's stored event log as JSON (API pages, websocket catch-up, trace)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import orjson

from webui import publisher
from webui.models import Run, RunCycle, RunSegment, RunStatus
from webui.services import engine, objects, releases, segments
from webui.services.errors import DomainError, NotFound

CYCLE_START = engine.ExtensionPoint.CYCLE_START.value
CYCLE_END = engine.ExtensionPoint.CYCLE_END.value
PAGE_SIZE = 500
MAX_PAGE_SIZE = 5000


def page(run: Run, since: int, limit: int = PAGE_SIZE) -> list[publisher.EventMessage]:
    """Events with seq >= since, in order; `since` is a cursor (the next seq the reader wants)."""
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    return [cast(publisher.EventMessage, dict(event)) for event in segments.events_from(run, since, limit)]


def stream_page(run: Run, since: int) -> list[publisher.EventMessage]:
    """The websocket's next batch: about PAGE_SIZE events, ending where a stored cycle ends."""
    return [
        cast(publisher.EventMessage, dict(event))
        for event in segments.events_from(run, since, PAGE_SIZE, whole_segments=True)
    ]


def cycle_page_json(run: Run, cycle: int, run_finished: bool) -> bytes:
    """The ?cycle= answer (EventsPageOut) as JSON bytes: every event of one cycle."""
    found = segments.cycle_events(run, cycle)
    cursor = found[-1]["seq"] + 1 if found else 0
    # In a run to the end a cycle's events go on after its CycleEnd (AttemptEnd, queue moves, cluster
    # changes): the cycle is done once its CycleEnd is among them, wherever it stands.
    done = any(event["extensionPoint"] == CYCLE_END for event in found) or run_finished
    return json.dumps(
        {"events": found, "next": cursor, "done": done}, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


def _all_events(run: Run, wanted: engine.EventFilter | None = None) -> Iterator[dict[str, Any]]:
    """Every stored event in order, or only those ``wanted`` picks (the rest are never decoded)."""
    names = None  # read with the first segment: a run not started yet has neither
    for row in RunSegment.objects.filter(run=run).order_by("first_seq").iterator(chunk_size=16):
        names = names or segments.run_names(run)
        yield from segments.decode(row, names) if wanted is None else segments.decode_selected(row, names, wanted)


# The numbers behind Filter reasons come from a replay of the run up to the cycle: at most this many
# node-cycles (nodes × cycles replayed: 100 cycles of a 5000-node run, ~1-2 s on 2 cores), and for
# at most so many nodes per rejecting plugin (what the Filter step lists of one domain or reason).
EXPLAIN_REPLAY_NODE_CYCLES = 500_000
EXPLAIN_NODES_PER_PLUGIN = 300
_DETAILS: engine.Memo[engine.CycleDetails | None] = engine.Memo(64)  # (run id, cycle) -> CycleDetails of a finished run


def explanation(run: Run, cycle: int) -> engine.CycleExplanation:
    """Why the cycle's pod went where it did (or nowhere), put into words by the engine, with the
    numbers behind each Filter rejection when the run can be replayed that far."""
    found = segments.cycle_events(run, cycle)
    if not found:
        raise NotFound(f"cycle {cycle} of run {run.pk} has no events (yet)")
    plain = engine.explain(found)
    if plain.filter is None or not plain.filter.groups:
        return plain  # nothing was rejected: no numbers to give
    details, note = _filter_details(run, cycle, plain)
    return engine.explain(found, details, note)


def _filter_details(
    run: Run, cycle: int, plain: engine.CycleExplanation
) -> tuple[engine.CycleDetails | None, str | None]:
    """The replay's facts, or why there are none; a note also says when only some nodes have them."""
    if run.status != RunStatus.SUCCEEDED:
        return None, "the numbers behind the reasons are given once the run has finished"
    scenario = engine.load_valid(run.version.text, releases.request_of(run))
    replayed = len(scenario.nodes) * (cycle + 1)
    if replayed > EXPLAIN_REPLAY_NODE_CYCLES:
        return None, (
            f"the numbers behind the reasons need a replay of {cycle + 1} cycles over {len(scenario.nodes)} nodes, "
            f"more than this server does per request; `python -m scheduler_core trace` prints them"
        )
    details = _DETAILS.get_or_make(
        (run.pk, cycle), lambda: engine.filter_details(scenario, cycle, run.mode, EXPLAIN_NODES_PER_PLUGIN)
    )
    assert plain.filter is not None  # explanation() asks only when Filter rejected some node
    rejected = {node for group in plain.filter.groups for node in group.nodes}
    if details is None or details.pod != plain.pod or not details.nodes.keys() <= rejected:
        return None, "the replay did not reach this cycle as recorded: no numbers are given rather than other ones"
    if len(details.nodes) < len(rejected):
        return details, (
            f"numbers for the first {EXPLAIN_NODES_PER_PLUGIN} nodes each plugin rejected "
            f"({len(details.nodes)} of {len(rejected)} rejected nodes)"
        )
    return details, None


def cycles(run_id: int) -> list[RunCycle]:
    """The finished cycles' index rows, written with each CycleEnd (no payload is decoded here)."""
    return list(RunCycle.objects.filter(run_id=run_id).order_by("cycle"))


_STORIES: engine.Memo[dict[str, Any]] = engine.Memo(32)  # run id -> story of a finished run (its events never change)


def story(run: Run) -> dict[str, Any]:
    """The run's attempts, queue moves and cluster changes (a single pass has attempts only)."""
    found = _STORIES.get_or_make(
        run.pk, lambda: engine.story(_all_events(run, engine.story_reads)), keep=run.status == RunStatus.SUCCEEDED
    )
    return {"mode": run.mode, **found}


_STEP_CLUSTERS: engine.Memo[list[engine.StepPlacement]] = engine.Memo(
    8
)  # run id -> the cluster at the end of each step (a finished run's)


def step_cluster(run: Run, step: int) -> engine.StepPlacement:
    """The cluster at the end of one step of a run with steps: every node and pod, what the step
    created, placed, moved, evicted or deleted (the engine's projection of the stored story events
    over the run's own version). 404 when the run has no such step (yet)."""
    found = _STEP_CLUSTERS.get_or_make(
        run.pk,
        lambda: engine.steps_cluster(
            engine.load_valid(run.version.text, releases.request_of(run)), _all_events(run, engine.story_reads)
        ),
        keep=run.status == RunStatus.SUCCEEDED,
    )
    for placement in found:
        if placement.step == step:
            return placement
    raise NotFound(f"run {run.pk} has no step {step}" + ("" if found else " (it has no steps, or none has ended yet)"))


_COMPARISONS: engine.Memo[dict[str, Any]] = engine.Memo(16)  # (run a, run b, pod) -> comparison of two finished runs


def comparison(a: Run, b: Run, pod: str | None) -> dict[str, Any]:
    """Two finished runs side by side: where each pod ended, the counts, the first divergence and,
    for `pod`, its weighted scores per node and plugin in both."""
    unfinished = [run.pk for run in (a, b) if run.status != RunStatus.SUCCEEDED]
    if unfinished:
        raise DomainError(
            f"run(s) {', '.join(map(str, unfinished))} have not succeeded: only finished runs are compared",
            {"runs": unfinished},
        )
    reads = engine.compare_reads(pod)
    found = _COMPARISONS.get_or_make(
        (a.pk, b.pk, pod), lambda: engine.compare(_all_events(a, reads), _all_events(b, reads), pod=pod)
    )
    return {"a": a.pk, "b": b.pk, "modes": [a.mode, b.mode], **found, "releases": releases_of(a, b)}


def releases_of(a: Run, b: Run) -> dict[str, Any]:
    """The release each run was replayed as (its stored choice), and whether they are the same."""

    def key(run: Run) -> tuple[Any, ...] | None:
        choice = run.release_choice
        return None if choice is None else (choice.get("version"), sorted((choice.get("featureGates") or {}).items()))

    return {"a": a.release_choice, "b": b.release_choice, "same": key(a) == key(b)}


TRACE_CHUNK_BYTES = 256 * 1024


def trace_chunks(run: Run) -> Iterator[bytes]:
    """The trace download as JSON bytes, built cycle by cycle from the stored events: one cycle and
    one chunk in memory whatever the run's size (a 5,000-node run's trace is hundreds of MB; built
    whole, then serialized, it took the web process past 7 GB)."""
    if run.trace is not None:  # kept on a small run by trace() below
        yield orjson.dumps(run.trace)
        return
    chunk = bytearray(b'{"cycles":[')
    separator = b""
    for cycle in engine.trace_cycle_by_cycle(_all_events(run)):
        chunk += separator + orjson.dumps(cycle)
        separator = b","
        if len(chunk) >= TRACE_CHUNK_BYTES:
            yield bytes(chunk)
            chunk.clear()
    chunk += b"]}"
    yield bytes(chunk)


STORY_CHUNK_ITEMS = 2000  # attempts, moves, changes, entries or placements written at a time


def story_chunks(story: dict[str, Any], tail: dict[str, Any]) -> Iterator[bytes]:
    """The whole story as JSON bytes (TimelineOut's keys in its order, `tail` — steps, recorded — last), written
    a few thousand items at a time: a 150,000-pod run's story is hundreds of MB written whole. The items are the
    engine's (RunStory declares them), written as they are."""
    yield b'{"mode":' + orjson.dumps(story["mode"])
    for key in ("attempts", "moves", "changes", "entries"):
        items: list[Any] = story.get(key) or []
        yield b',"' + key.encode() + b'":['
        for start in range(0, len(items), STORY_CHUNK_ITEMS):
            yield (b"," if start else b"") + orjson.dumps(items[start : start + STORY_CHUNK_ITEMS])[1:-1]
        yield b"]"
    for key in ("final", "nominated"):
        pairs = list((story.get(key) or {}).items())
        yield b',"' + key.encode() + b'":{'
        for start in range(0, len(pairs), STORY_CHUNK_ITEMS):
            yield (b"," if start else b"") + orjson.dumps(dict(pairs[start : start + STORY_CHUNK_ITEMS]))[1:-1]
        yield b"}"
    rest = {"timeMs": story.get("timeMs"), "finished": story.get("finished"), "outcome": story.get("outcome"), **tail}
    yield b"," + orjson.dumps(rest)[1:]


def trace(run: Run) -> dict[str, Any]:
    if run.trace is not None:
        stored: dict[str, Any] = run.trace
        return stored
    summary = engine.trace(_all_events(run))
    if run.status == RunStatus.SUCCEEDED:  # a running run's trace is partial: build it again next time
        Run.objects.filter(pk=run.pk).update(trace=summary)
    return summary


# --- the run view's bounded reads (issue 50): a page of the story's entries, a page of a step's cluster ---------

TIMELINE_PAGE = 200  # entries in one page unless `limit` says otherwise
MAX_TIMELINE_PAGE = 1000
ENTRY_KINDS = ("attempt", "move", "change", "step")
_ENTRY_LISTS = {"attempt": "attempts", "move": "moves", "change": "changes", "step": "steps"}


@dataclass(frozen=True)
class EntryQuery:
    pod: str = ""  # a substring of the entry's pod (step headings are kept: a run with steps reads by step)
    kind: str | None = None  # only that kind (ENTRY_KINDS)
    cycle: int | None = None  # the page holding this cycle's attempt (over `offset`)
    offset: int = 0
    limit: int = TIMELINE_PAGE


def timeline_summary(story: dict[str, Any]) -> dict[str, Any]:
    """What the run view needs of the story at once: how it ended and how many of each there are (its steps and
    recorded answers are added by the router). Never the entries, nor every pod's placement."""
    final: dict[str, str | None] = story.get("final", {})
    return {
        "mode": story["mode"],
        "timeMs": story.get("timeMs"),
        "finished": story.get("finished", False),
        "outcome": story.get("outcome", ""),
        "counts": {
            "entries": len(story.get("entries", ())),
            "attempts": len(story.get("attempts", ())),
            "moves": len(story.get("moves", ())),
            "changes": len(story.get("changes", ())),
            "pods": len(final),
            "placed": sum(1 for node in final.values() if node and node != "deleted"),
            "pending": sum(1 for node in final.values() if node is None),
            "deleted": sum(1 for node in final.values() if node == "deleted"),
            "nominated": len(story.get("nominated", {})),
        },
    }


def timeline_entries(story: dict[str, Any], query: EntryQuery) -> dict[str, Any]:
    """A window of the story's entries in the order they happened, each with its item (an attempt, a queue move,
    a cluster change as the engine wrote it, or a step's heading): those of `kind`, those whose pod contains
    `pod`, `limit` of them from `offset` — or from the start of the page holding `cycle`'s attempt. `matched` says
    how many match in all."""
    lists = {kind: story.get(name) or [] for kind, name in _ENTRY_LISTS.items()}
    needle = query.pod.strip()

    def wanted(entry: dict[str, Any]) -> bool:
        kind = entry["kind"]
        if query.kind is not None and kind != query.kind:
            return False
        if not needle or kind == "step":
            return True
        return needle in lists[kind][entry["index"]].get("pod", "")

    matched = [entry for entry in story.get("entries", ()) if wanted(entry)]
    limit = min(max(query.limit, 1), MAX_TIMELINE_PAGE)
    offset = max(query.offset, 0)
    if query.cycle is not None:
        attempts = lists["attempt"]
        at = next(
            (
                i
                for i, entry in enumerate(matched)
                if entry["kind"] == "attempt" and attempts[entry["index"]].get("cycle") == query.cycle
            ),
            None,
        )
        if at is not None:
            offset = at - at % limit
    return {
        "total": len(story.get("entries", ())),
        "matched": len(matched),
        "offset": offset,
        "limit": limit,
        "pod": query.pod,
        "kind": query.kind,
        "entries": [
            {"kind": entry["kind"], "index": entry["index"], "item": _item(lists, entry)}
            for entry in matched[offset : offset + limit]
        ],
    }


def _item(lists: dict[str, list[dict[str, Any]]], entry: dict[str, Any]) -> dict[str, Any]:
    """An entry's item as the story has it; a step's heading without its summary (the summary's lists name every
    pod the step created or placed: the timeline summary carries them, cut)."""
    item = lists[entry["kind"]][entry["index"]]
    return {key: value for key, value in item.items() if key != "summary"} if entry["kind"] == "step" else item


def step_page(run: Run, step: int, query: objects.PageQuery) -> dict[str, Any]:
    """One page of the cluster at the end of a step (objects.page_of over step_cluster): the counts of the whole
    with the step's marks, the domains, a page of nodes (with the version's taints and allocatable for those it
    has) with the pods on them and the first pending pods, and the pods that left during the step from the page's
    nodes (or pending when they left)."""
    found = step_cluster(run, step)
    shelf: objects.Shelf[engine.NodeAtStep, engine.PodAtStep] = objects.Shelf(
        found.nodes,
        lambda node: node.name,
        lambda node: node.labels,
        found.pods,
        lambda pod: pod.labels,
        lambda pod: pod.node,
        lambda pod: pod.node is None,
        lambda pod: 0,
    )
    page = objects.page_of(shelf, query)
    shown = {node.name for node in page.nodes}
    marks = {mark: 0 for mark in engine.STEP_MARKS}
    for pod in found.pods:
        if pod.mark in marks:
            marks[pod.mark] += 1
    marks["gone"] = len(found.gone)
    gone_pending = [g for g in found.gone if g.node is None][: objects.MAX_PENDING_SHOWN]
    written = {node.name: node for node in objects.found_of(run.version).nodes}
    return {
        "step": found.step,
        "name": found.name,
        "deletedNodes": found.deleted_nodes,
        **page.counts,
        "marks": marks,
        "goneCount": len(found.gone),
        "nodes": [(node, written.get(node.name)) for node in page.nodes],
        "pods": page.pods,
        "gone": [g for g in found.gone if g.node in shown] + gone_pending,
    }
