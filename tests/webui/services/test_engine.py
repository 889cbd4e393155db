"""webui.services.engine: the one door to scheduler_core, loading each distinct text once."""

from __future__ import annotations

import threading

from django.test import override_settings

from webui.services import engine

SCENARIO = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{}\n"


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
