"""webui.services.engine: the one door to scheduler_core, loading each distinct text once."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from django.test import override_settings

from scheduler_core import load_scenario, simulate, trace_summary
from scheduler_core.answers.compare import compare_events
from scheduler_core.encoding.events import UnknownEventKind
from scheduler_core.answers.explain import explain_events
from scheduler_core.run.loop import run_to_the_end
from tests.webui import support
from webui.services import engine

SCENARIO = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{}\n"
SHARED = Path(__file__).resolve().parents[4] / "shared"


def test_it_loads_a_text_once_however_often_it_is_checked(monkeypatch):
    calls = []
    real = engine.load_scenario
    monkeypatch.setattr(engine, "load_scenario", lambda text, limits: calls.append(1) or real(text, limits=limits))
    text = SCENARIO.format("memo-1")
    first, second = engine.check(text), engine.check(text)
    assert first.valid and first.summary.nodes == 1
    assert second is first and engine.load(text) is engine.load(text)
    assert len(calls) == 1


def test_changed_limits_are_checked_afresh():
    text = SCENARIO.format("memo-2") + "---\n" + SCENARIO.format("memo-3")
    assert engine.check(text).valid
    with override_settings(SCHEDLAB_MAX_NODES=1):
        check = engine.check(text)
    assert not check.valid and check.over_limit is not None
    assert check.errors[0]["limit"] == "max_nodes"


def test_a_memo_makes_a_value_once_while_several_threads_ask_for_it():
    memo = engine.Memo(4)
    started, release = threading.Event(), threading.Event()
    made = []

    def make():
        made.append(1)
        started.set()
        release.wait(5)
        return {"story": len(made)}

    results = []
    threads = [threading.Thread(target=lambda: results.append(memo.get_or_make("run-1", make))) for _ in range(4)]
    threads[0].start()
    started.wait(5)
    for thread in threads[1:]:
        thread.start()
    release.set()
    for thread in threads:
        thread.join(5)
    assert made == [1] and results == [{"story": 1}] * 4
    assert memo.get("run-1") == {"story": 1} and not memo._making


def test_a_memo_value_not_kept_is_made_again():
    memo = engine.Memo(4)
    made = []
    assert memo.get_or_make("live", lambda: made.append(1) or len(made), keep=False) == 1
    assert memo.get_or_make("live", lambda: made.append(1) or len(made), keep=False) == 2
    assert memo.get("live") is None


# ---------------------------------------------------------------- stored events read back typed


def _stored(events) -> list[dict]:
    """Events as the run's segments give them back: JSON, with their sequence numbers."""
    return [{"seq": seq, **json.loads(json.dumps(event.to_json()))} for seq, event in enumerate(events)]


def test_a_stored_run_gives_the_trace_and_explanation_of_the_live_one():
    scenario = load_scenario((SHARED / "conformance" / "public" / "seed_pts_conflict.yaml").read_bytes())
    live = list(simulate(scenario))
    assert engine.trace(_stored(live)) == trace_summary(live)
    first_cycle = [event for event in live if event.cycle == 0]
    assert engine.explain(_stored(first_cycle)).to_json() == explain_events(first_cycle).to_json()


def test_two_stored_runs_compare_as_the_live_ones():
    corpus = SHARED / "conformance-timeline" / "public"
    a = list(run_to_the_end(load_scenario((corpus / "preempt_3.yaml").read_bytes())))
    b = list(run_to_the_end(load_scenario(sorted(corpus.glob("*.yaml"))[0].read_bytes())))
    assert engine.compare(_stored(a), _stored(b)) == compare_events(a, b)


def test_a_stored_event_of_a_kind_the_engine_does_not_write_is_refused():
    stored = [{"seq": 0, "cycle": 0, "pod": "default/p", "extensionPoint": "Reprieve", "plugin": None, "payload": {}}]
    with pytest.raises(UnknownEventKind, match="Reprieve"):
        engine.trace(stored)


def test_a_big_run_gets_its_engine_a_process_of_its_own_unless_told_otherwise(settings):
    small = engine.load(support.scenario_text(3, 2))
    big = engine.load(support.scenario_text(400, 250))  # 100,000 nodes × pending pods
    settings.SCHEDLAB_ENGINE_PROCESS = "auto"
    assert (engine.engine_in_child(small), engine.engine_in_child(big)) == (False, True)
    settings.SCHEDLAB_ENGINE_PROCESS = "inline"
    assert not engine.engine_in_child(big)
    settings.SCHEDLAB_ENGINE_PROCESS = "child"
    assert engine.engine_in_child(small)
