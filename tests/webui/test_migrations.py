"""0003_compact_events converts stored JSON payloads and rebuilds the cycle index of old runs."""

import json
import zlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE, AFTER = [("webui", "0002_run_trace")], [("webui", "0003_compact_events")]


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
    payloads = [{"pod": "default/p"}, {"statuses": {"n1": {"code": "Unschedulable"}}}, {"nodeName": None, "failedSchedulingMessage": "0/1 nodes"}]
    for seq, (point, payload) in enumerate(zip(["CycleStart", "Filter", "CycleEnd"], payloads)):
        RunEvent.objects.create(run=run, seq=seq, cycle=0, extension_point=point, pod="default/p", payload=payload)

    new = migrate(AFTER)
    rows = new.get_model("webui", "RunEvent").objects.filter(run_id=run.pk).order_by("seq")
    assert [json.loads(zlib.decompress(row.payload_z)) for row in rows] == payloads
    assert new.get_model("webui", "Run").objects.get(pk=run.pk).stored_bytes == sum(len(bytes(r.payload_z)) for r in rows)
    cycle = new.get_model("webui", "RunCycle").objects.get(run_id=run.pk)
    assert (cycle.first_seq, cycle.end_seq, cycle.node_name, cycle.failed_scheduling_message) == (0, 3, None, "0/1 nodes")

    back = migrate(BEFORE)  # and back again
    assert [r.payload for r in back.get_model("webui", "RunEvent").objects.filter(run_id=run.pk).order_by("seq")] == payloads
    migrate(AFTER)
