"""Data migrations: 0003_compact_events (compressed payloads, cycle index) and 0005_columnar_segments
(one columnar segment per cycle), the capacity and release fields (0010, 0011), the capacity answers
as the engine declares them (0012), forwards and back; each test leaves the database at the latest
migration for the next tests."""

import json
import zlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

from scheduler_core.encoding.columnar import RunNames, decode_segment

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE, AFTER = [("webui", "0002_run_trace")], [("webui", "0003_compact_events")]
SEGMENTS = [("webui", "0005_columnar_segments")]
LATEST = [node for node in MigrationLoader(None).graph.leaf_nodes() if node[0] == "webui"]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_it_compresses_existing_payloads_and_indexes_their_cycles():
    old = migrate(BEFORE)
    scenario = old.get_model("webui", "Scenario").objects.create(name="s")
    version = old.get_model("webui", "ScenarioVersion").objects.create(scenario=scenario, number=1)
    run = old.get_model("webui", "Run").objects.create(version=version)
    RunEvent = old.get_model("webui", "RunEvent")
    payloads = [
        {"pod": "default/p"},
        {"statuses": {"n1": {"code": "Unschedulable"}}},
        {"nodeName": None, "failedSchedulingMessage": "0/1 nodes"},
    ]
    for seq, (point, payload) in enumerate(zip(["CycleStart", "Filter", "CycleEnd"], payloads)):
        RunEvent.objects.create(run=run, seq=seq, cycle=0, extension_point=point, pod="default/p", payload=payload)

    new = migrate(AFTER)
    rows = new.get_model("webui", "RunEvent").objects.filter(run_id=run.pk).order_by("seq")
    assert [json.loads(zlib.decompress(row.payload_z)) for row in rows] == payloads
    assert new.get_model("webui", "Run").objects.get(pk=run.pk).stored_bytes == sum(
        len(bytes(r.payload_z)) for r in rows
    )
    cycle = new.get_model("webui", "RunCycle").objects.get(run_id=run.pk)
    assert (cycle.first_seq, cycle.end_seq, cycle.node_name, cycle.failed_scheduling_message) == (
        0,
        3,
        None,
        "0/1 nodes",
    )

    back = migrate(BEFORE)  # and back again
    assert [
        r.payload for r in back.get_model("webui", "RunEvent").objects.filter(run_id=run.pk).order_by("seq")
    ] == payloads
    migrate(LATEST)  # the latest state, for the next tests


def test_it_turns_stored_events_into_one_segment_per_cycle_and_back():
    old = migrate(AFTER)
    scenario = old.get_model("webui", "Scenario").objects.create(name="s")
    version = old.get_model("webui", "ScenarioVersion").objects.create(scenario=scenario, number=1)
    run = old.get_model("webui", "Run").objects.create(version=version)
    RunEvent = old.get_model("webui", "RunEvent")
    events = [  # two cycles; a payload key starting with "$" must survive the format's escaping
        (0, "CycleStart", None, {"pod": "default/a", "queue": ["default/a", "default/b"]}),
        (0, "Filter", "NodeName", {"statuses": {"n1": {"code": "Unschedulable", "reasons": ["x"]}}, "evaluated": 2}),
        (0, "CycleEnd", None, {"nodeName": "n2"}),
        (1, "CycleStart", None, {"pod": "default/b", "$odd": {"$deeper": [1, 2]}}),
        (1, "CycleEnd", None, {"nodeName": None, "failedSchedulingMessage": "0/2 nodes are available"}),
    ]
    for seq, (cycle, point, plugin, payload) in enumerate(events):
        RunEvent.objects.create(
            run=run,
            seq=seq,
            cycle=cycle,
            extension_point=point,
            plugin=plugin,
            pod="default/p",
            payload_z=zlib.compress(json.dumps(payload).encode()),
        )

    new = migrate(SEGMENTS)
    rows = list(new.get_model("webui", "RunSegment").objects.filter(run_id=run.pk).order_by("first_seq"))
    assert [(r.cycle, r.first_seq, r.end_seq) for r in rows] == [(0, 0, 3), (1, 3, 5)]
    decoded = [e for r in rows for e in decode_segment(bytes(r.blob), RunNames([], [])).events]
    assert [(e["cycle"], e["extensionPoint"], e["plugin"], e["payload"]) for e in decoded] == events
    assert new.get_model("webui", "Run").objects.get(pk=run.pk).stored_bytes == sum(len(bytes(r.blob)) for r in rows)

    back = migrate(AFTER)
    restored = back.get_model("webui", "RunEvent").objects.filter(run_id=run.pk).order_by("seq")
    assert [
        (r.cycle, r.extension_point, r.plugin, json.loads(zlib.decompress(r.payload_z))) for r in restored
    ] == events
    migrate(LATEST)  # the latest state, for the next tests


ONE_PASS_BEFORE, ONE_PASS = [("webui", "0009_capacity_recovery")], [("webui", "0010_capacity_one_pass")]


def test_capacity_questions_gain_the_one_pass_fields_and_lose_them_again():
    old = migrate(ONE_PASS_BEFORE)
    scenario = old.get_model("webui", "Scenario").objects.create(name="s")
    version = old.get_model("webui", "ScenarioVersion").objects.create(scenario=scenario, number=1)
    asked = old.get_model("webui", "CapacityQuestion").objects.create(
        version=version, kind="fit", parameters={"pod": "default/p"}, answer={"fit": {"fits": 3}}
    )

    new = migrate(ONE_PASS)
    question = new.get_model("webui", "CapacityQuestion").objects.get(pk=asked.pk)
    assert (
        question.method,
        question.why,
        question.copies_done,
        question.copies_per_second,
        question.per_node,
        question.stopped_by,
        question.stop_message,
        question.stopped_at_max,
        question.pass_claim,
    ) == ("", "", 0, None, None, "", "", False, 0)
    new.get_model("webui", "CapacityQuestion").objects.filter(pk=asked.pk).update(
        method="counted", copies_done=549_000, per_node={"n1": 110}, stopped_at_max=True
    )

    back = migrate(ONE_PASS_BEFORE)
    kept = back.get_model("webui", "CapacityQuestion").objects.get(pk=asked.pk)
    assert kept.answer == {"fit": {"fits": 3}} and not hasattr(kept, "copies_done")
    migrate(LATEST)  # the latest state, for the next tests


RELEASES = [("webui", "0011_releases_and_upgrades")]


def test_runs_from_before_releases_are_as_the_dump_says_and_upgrades_come_and_go():
    old = migrate(ONE_PASS)
    scenario = old.get_model("webui", "Scenario").objects.create(name="s")
    version = old.get_model("webui", "ScenarioVersion").objects.create(scenario=scenario, number=1)
    before = old.get_model("webui", "Run").objects.create(version=version)

    new = migrate(RELEASES)
    run = new.get_model("webui", "Run").objects.get(pk=before.pk)
    assert (run.release, run.feature_gates, run.release_choice) == ("", None, None)  # as the dump says; unknown
    upgrade = new.get_model("webui", "Upgrade").objects.create(
        version_id=version.pk, old_release="v1.35", new_release="v1.36"
    )
    new.get_model("webui", "ShareLink").objects.create(version_id=version.pk, upgrade=upgrade)

    back = migrate(ONE_PASS)
    kept = back.get_model("webui", "Run").objects.get(pk=before.pk)
    assert not hasattr(kept, "release")
    assert back.get_model("webui", "ShareLink").objects.count() == 0  # it would read every run of the version
    migrate(LATEST)


DECLARED = [("webui", "0012_capacity_answers_as_declared")]
STORED_BEFORE = {
    "fit": {"fits": 8, "stoppedBy": ["default/web-9"], "explanation": "No node passed every Filter plugin."},
    "copies": {"fits": 2, "stoppedBy": "default/p-copy-3", "explanation": None, "checkedNext": True},
    "removable": {"order": "o", "verdicts": [{"node": "n1", "removable": True, "reasons": []}], "trials": 1},
    "fragmentation": {
        "resources": [
            {
                "resource": "memory",
                "freeTotal": 3 << 30,
                "largestFit": 1 << 30,
                "strandedTotal": 512 << 20,
                "stranded": [{"node": "n1", "free": 512 << 20, "blockedBy": "cpu"}],
            }
        ],
        "trials": 1,
    },
}


def test_stored_capacity_answers_become_the_engine_s_declarations_and_back():
    old = migrate(RELEASES)
    scenario = old.get_model("webui", "Scenario").objects.create(name="s")
    version = old.get_model("webui", "ScenarioVersion").objects.create(scenario=scenario, number=1)
    stored = old.get_model("webui", "CapacityQuestion").objects
    ids = {
        kind: stored.create(version=version, kind="fit", answer={kind: answer}).pk
        for kind, answer in STORED_BEFORE.items()
    }
    stopped_at_max = stored.create(version=version, kind="fit", answer={"copies": {"stoppedBy": None}}).pk
    unanswered = stored.create(version=version, kind="nodes").pk

    new = migrate(DECLARED)
    answer = {
        kind: new.get_model("webui", "CapacityQuestion").objects.get(pk=pk).answer[kind] for kind, pk in ids.items()
    }
    assert answer["fit"] == {**STORED_BEFORE["fit"], "explanation": {"headline": "No node passed every Filter plugin."}}
    assert answer["copies"] == {**STORED_BEFORE["copies"], "stoppedBy": ["default/p-copy-3"]}
    assert answer["removable"]["verdicts"] == [{"node": "n1", "removable": True, "reasons": [], "knownBy": "trial"}]
    memory = answer["fragmentation"]["resources"][0]
    assert (memory["freeTotalText"], memory["largestFitText"], memory["strandedTotalText"]) == ("3Gi", "1Gi", "512Mi")
    assert memory["stranded"][0]["freeText"] == "512Mi"
    questions = new.get_model("webui", "CapacityQuestion").objects
    assert questions.get(pk=stopped_at_max).answer == {"copies": {"stoppedBy": []}}
    assert questions.get(pk=unanswered).answer is None

    back = migrate(RELEASES)
    questions = back.get_model("webui", "CapacityQuestion").objects
    assert questions.get(pk=ids["fit"]).answer == {"fit": STORED_BEFORE["fit"]}
    assert questions.get(pk=ids["copies"]).answer == {"copies": STORED_BEFORE["copies"]}
    assert questions.get(pk=stopped_at_max).answer == {"copies": {"stoppedBy": None}}
    migrate(LATEST)


UPLOADS, PIECES = [("webui", "0013_uploads")], [("webui", "0014_versions_in_pieces")]


def test_saved_texts_move_into_shared_pieces_and_back():
    old = migrate(UPLOADS)
    big = "".join(f"---\nkind: Node\nmetadata:\n  name: node-{i}\n" for i in range(30000))
    scenario = old.get_model("webui", "Scenario").objects.create(name="s", text=big + "---\nkind: Pod\n")
    versions = old.get_model("webui", "ScenarioVersion").objects
    first = versions.create(scenario=scenario, number=1, text=big).pk
    second = versions.create(scenario=scenario, number=2, text=big + "---\nkind: Pod\n").pk
    empty = versions.create(scenario=scenario, number=3, text="").pk

    new = migrate(PIECES)
    moved = new.get_model("webui", "ScenarioVersion").objects
    pieces = new.get_model("webui", "VersionPiece").objects
    for pk, text in ((first, big), (second, big + "---\nkind: Pod\n"), (empty, "")):
        version = moved.get(pk=pk)
        rows = pieces.filter(version=version).order_by("index").values_list("piece__data", flat=True)
        assert "".join(zlib.decompress(bytes(data)).decode() for data in rows) == text
        assert version.length == len(text)
    shared = new.get_model("webui", "TextPiece").objects.count()
    assert shared < pieces.count()  # the second version shares every piece of the first but its last

    back = migrate(UPLOADS)
    restored = back.get_model("webui", "ScenarioVersion").objects
    assert [restored.get(pk=pk).text for pk in (first, second, empty)] == [big, big + "---\nkind: Pod\n", ""]
    assert back.get_model("webui", "Scenario").objects.get(pk=scenario.pk).text == ""  # latest: version 3
    migrate(LATEST)
