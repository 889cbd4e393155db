"""The cyclic collector pauses while scenarios are read and resumes as it was, across threads."""

from __future__ import annotations

import gc
import threading

import pytest

from scheduler_core import load_scenario
from scheduler_core.scenario.errors import ScenarioInvalid
from scheduler_core.scenario.gcpause import collector_paused

NODE = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n"


@pytest.fixture(autouse=True)
def collector_on():
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_while_reading_and_on_again_after():
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_it_resumes_only_when_the_last_of_overlapping_readers_is_done():
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with collector_paused():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second():
        first_in.wait(5)
        with collector_paused():
            second_in.set()
            first_out.wait(5)
            seen["after the first left"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert seen == {"after the first left": False}
    assert gc.isenabled()


def test_a_load_pauses_the_collector_and_restores_it_also_when_the_scenario_is_invalid(monkeypatch):
    from scheduler_core.scenario import loader

    during = []
    real = loader._read_document
    monkeypatch.setattr(loader, "_read_document", lambda *args: during.append(gc.isenabled()) or real(*args))
    load_scenario(NODE)
    with pytest.raises(ScenarioInvalid):
        load_scenario(NODE + "spec:\n  unschedulable: maybe\n")
    assert during == [False, False]
    assert gc.isenabled()
