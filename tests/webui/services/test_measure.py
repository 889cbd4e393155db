"""webui/services/measure.py: issue 11's figures for one file — the engine alone and the real task
over the same cycles. Sizes and counts are asserted, never times."""

import json

import pytest
from django.db import connection
from django.test import Client

from tests.webui import support
from webui.models import Scenario
from webui.services import engine, measure

pytestmark = pytest.mark.django_db


@pytest.fixture
def scenario_file(tmp_path):
    path = tmp_path / "small.yaml"
    path.write_text(support.scenario_text(nodes=3, pending=3))
    return path


def test_it_runs_the_file_through_the_task_and_counts_what_was_stored(scenario_file):
    result = measure.measure(scenario_file, first_cycles=2, repeat=2)
    events = list(engine.simulate_events(engine.load(scenario_file.read_text())))
    assert (result.status, result.error, result.cycles, result.pending_pods) == ("succeeded", "", 2, 3)
    ends = [seq for seq, e in enumerate(events) if e.extension_point is engine.ExtensionPoint.CYCLE_END]
    assert result.events == ends[1] + 1 < len(events)  # the cut comes right after the second CycleEnd
    assert len(result.app_to_engine_each) == 2 and result.app_to_engine > 0
    assert 0 < result.stored_bytes_per_cycle < result.json_bytes_per_cycle
    assert result.max_websocket_message_bytes > 0
    assert (result.table_bytes_per_cycle is None) == (connection.vendor != "postgresql")
    assert json.loads(result.to_json())["file"] == str(scenario_file)


def test_a_clock_turns_seconds_into_speeds_and_cpu_per_cycle():
    clock = measure.Clock(wall=2.0, cpu=0.5)
    assert (clock.pods_per_s(10), clock.cpu_ms(10), clock.cpu_ms(0)) == (5.0, 50.0, 500.0)
    assert measure.Clock(0.0, 0.0).pods_per_s(10) == 0.0


def test_the_ratio_is_engine_time_over_app_time_and_pairs_are_medians():
    assert measure._ratio(app=4.0, alone=1.0) == 0.25
    assert measure._ratio(app=0.0, alone=1.0) == 0.0
    median = measure._median_clock([measure.Clock(1, 3), measure.Clock(5, 1), measure.Clock(2, 2)])
    assert median == measure.Clock(2, 2)


def test_what_it_made_is_left_out_of_the_single_user_list(scenario_file, settings):
    """`make run` is single-user (everything made on the machine listed): a measurement is not listed."""
    settings.SCHEDLAB_SINGLE_USER = True
    measure.measure(scenario_file, first_cycles=1)
    client = Client()
    assert [s for s in client.get("/api/scenarios").json() if not s["demo"]] == []
    assert client.get("/api/runs").json() == []
    assert Scenario.objects.filter(owner_session_key=measure.OWNER).count() == 1  # kept, for a look in the admin
