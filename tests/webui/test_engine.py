"""webui.services.engine: the one door to scheduler_core, loading each distinct text once."""

from __future__ import annotations

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
