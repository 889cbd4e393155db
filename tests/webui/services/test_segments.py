"""webui.services.segments: reading a run's stored segments (pages across cycles, one cycle, counts)."""

import gzip
import json

import pytest

from tests.webui import support
from webui.models import Run, RunSegment, Scenario, ScenarioVersion
from webui.services import engine, segments
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def run() -> Run:
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=support.scenario_text(4, 3))
    run = Run.objects.create(version=version, cycles=3, owner_session_key="k")
    execute_run.apply(args=[run.pk])
    run.refresh_from_db()
    return run


def engine_events(run: Run) -> list[dict]:
    return [{"seq": seq, **e.to_json()} for seq, e in enumerate(engine.simulate_events(engine.load(run.version.text)))]


@pytest.mark.parametrize(
    "since, limit",
    [(0, 5000), (0, 7), (5, 30), (44, 3), (1000, 10)],
    ids=["everything", "a first page", "a page across cycle boundaries", "the tail", "past the end"],
)
def test_it_pages_events_across_segments_by_seq(run: Run, since: int, limit: int):
    expected = [e for e in engine_events(run) if e["seq"] >= since][:limit]
    assert segments.events_from(run, since, limit) == expected


def test_it_reads_one_cycle_and_counts_what_is_stored(run: Run):
    expected = engine_events(run)
    assert segments.cycle_events(run, 1) == [e for e in expected if e["cycle"] == 1]
    assert segments.stored_event_count(run.pk) == len(expected) == run.event_count
    assert (
        segments.stored_bytes(run.pk)
        == run.stored_bytes
        == sum(len(r.blob) for r in RunSegment.objects.filter(run=run))
    )


def test_a_cycle_stored_in_two_segments_is_served_as_one(run: Run):
    whole = segments.cycle_events(run, 2)
    row = RunSegment.objects.get(run=run, cycle=2)
    names = segments.run_names(run)
    encoders = (engine.SegmentEncoder(names, whole[0]["seq"]), engine.SegmentEncoder(names, whole[3]["seq"]))
    for event in whole[:3]:
        encoders[0].add_json(event)
    for event in whole[3:]:
        encoders[1].add_json(event)
    row.delete()
    RunSegment.objects.create(
        run=run, cycle=2, first_seq=whole[0]["seq"], end_seq=whole[3]["seq"], blob=encoders[0].finish()
    )
    RunSegment.objects.create(
        run=run, cycle=2, first_seq=whole[3]["seq"], end_seq=whole[-1]["seq"] + 1, blob=encoders[1].finish()
    )
    joined = engine.decode_segment(segments.cycle_blob(run, 2), names)
    assert [{"seq": joined.first_seq + i, **e} for i, e in enumerate(joined.events)] == whole
    assert segments.cycle_blob(run, 7) is None


def test_the_names_document_lists_nodes_with_labels_and_pending_pods_in_queue_order(run: Run):
    document = json.loads(gzip.decompress(segments.stored_names_gz(run)))
    scenario = engine.load(run.version.text)
    assert document["nodes"] == [{"name": n.name, "labels": dict(n.labels)} for n in scenario.nodes]
    assert document["pods"] == [p.key for p in scenario.pending_pods]


def test_a_stream_page_ends_where_a_stored_cycle_ends(run: Run):
    expected = engine_events(run)
    page = segments.events_from(run, 2, 5, whole_segments=True)
    segment_ends = set(RunSegment.objects.filter(run=run).values_list("end_seq", flat=True))
    assert page[0]["seq"] == 2 and page[-1]["seq"] + 1 in segment_ends
    assert page == [e for e in expected if e["seq"] >= 2][: len(page)] and len(page) > 5


def test_a_run_read_while_queued_gets_the_names_its_worker_kept_since():
    # A request reads the run, its worker then starts it (names, then segments), and the request
    # finds those segments: it is answered with the names, not told to ask again.
    scenario = Scenario.objects.create(name="s", owner_session_key="k")
    version = ScenarioVersion.objects.create(scenario=scenario, number=1, text=support.scenario_text(4, 3))
    queued = Run.objects.create(version=version, cycles=3, owner_session_key="k")
    read_early = Run.objects.get(pk=queued.pk)
    with pytest.raises(segments.NamesNotReady, match="has not started yet"):
        segments.stored_names_gz(read_early)
    execute_run.apply(args=[queued.pk])
    assert read_early.names_gz is None
    names = json.loads(gzip.decompress(segments.stored_names_gz(read_early)))
    assert [node["name"] for node in names["nodes"]] == [node.name for node in engine.load(version.text).nodes]
