"""webui.services.engine: the one door to scheduler_core, loading each distinct text once."""

from __future__ import annotations

import gzip
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
from webui.services.errors import ReleaseInvalid

SCENARIO = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{}\n"
SHARED = Path(__file__).resolve().parents[4] / "shared"


@pytest.fixture
def reads(monkeypatch) -> list[bool]:
    """Each read of a text by the engine, as whether it may fork (load_scenario's second_process)."""
    calls: list[bool] = []
    real = engine.load_scenario

    def reading(text, limits, release, second_process):
        calls.append(second_process)
        return real(text, limits=limits, release=release, second_process=second_process)

    monkeypatch.setattr(engine, "load_scenario", reading)
    monkeypatch.setattr(engine, "_reading_may_fork", False)  # as in any process until a worker's starts
    return calls


def test_it_loads_a_text_once_however_often_it_is_checked(reads):
    text = SCENARIO.format("memo-1")
    first, second = engine.check(text), engine.check(text)
    assert first.valid and first.summary.nodes == 1
    assert second is first and engine.load(text) is engine.load(text)
    assert reads == [False]  # read once, in one process: this is no worker's pool process


def test_a_worker_s_pool_process_reads_a_text_with_a_forked_child_s_help(reads):
    engine.let_reading_fork()  # webui/celery.py, when a pool process starts
    assert engine.check(SCENARIO.format("forking-1")).valid and reads == [True]


def test_a_check_is_known_by_the_texts_digest_and_one_made_elsewhere_reads_back_the_same(settings):
    from webui import textstore

    text, broken = SCENARIO.format("known-1"), "apiVersion: v1\nkind: Node\nmetadata: {}\n"
    digest = textstore.digest_of(text)
    assert engine.known_check(digest) is None  # never made here: not waited for, not made
    made = engine.check(text)
    assert engine.known_check(digest) is made
    for check in (made, engine.check(broken)):
        stored = json.loads(json.dumps(engine.check_json(check)))  # as a JSONField keeps it
        assert engine.check_of_json(stored) == check
    engine.forget_everything()
    assert engine.remember_check(digest, made) is engine.known_check(digest)
    fingerprint = engine.check_fingerprint()
    settings.SCHEDLAB_MAX_NODES = 3
    assert engine.check_fingerprint() != fingerprint and engine.known_check(digest) is None


def test_changed_limits_are_checked_afresh():
    text = SCENARIO.format("memo-2") + "---\n" + SCENARIO.format("memo-3")
    assert engine.check(text).valid
    with override_settings(SCHEDLAB_MAX_NODES=1):
        check = engine.check(text)
    assert not check.valid and check.over_limit is not None
    assert check.errors[0]["limit"] == "max_nodes"


def test_a_big_text_read_by_one_process_is_read_from_disk_by_the_next(monkeypatch, settings, tmp_path):
    """loaded_cache: the worker that runs a big dump has what the web process read to check it."""
    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    text = SCENARIO.format("kept-1") + "---\n" + SCENARIO.format("kept-2")
    first = engine.load(text)
    kept = Path(settings.SCHEDLAB_LOADED_CACHE_DIR)
    assert len(list(kept.glob("*.pickle"))) == len(list(kept.glob("*.sidecar"))) == 1  # the scenario, its run names
    engine.forget_everything()  # as another process: nothing in memory
    monkeypatch.setattr(engine, "load_scenario", lambda *args, **kwargs: pytest.fail("read from the text again"))
    again = engine.load(text)
    assert again is not first and [n.name for n in again.nodes] == [n.name for n in first.nodes] == [
        "nkept-1",
        "nkept-2",
    ]
    with override_settings(SCHEDLAB_MAX_NODES=1), pytest.raises(pytest.fail.Exception):
        engine.load(text)  # other limits: another file, read from the text


def test_a_stored_text_is_read_only_when_no_process_has_its_scenario_and_its_run_names_are_kept(monkeypatch, settings):
    from webui import textstore

    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    text = SCENARIO.format("stored-1") + "---\n" + SCENARIO.format("stored-2")
    digest, reads = textstore.digest_of(text), []

    def text_of() -> str:
        reads.append(1)
        return text

    assert engine.kept_run_names(digest) is None  # nobody has read it yet
    first = engine.load_stored(digest, len(text), text_of)
    assert reads == [1] and engine.load(text) is first  # the same key as the text's own
    kept = engine.kept_run_names(digest)
    assert kept is not None and json.loads(gzip.decompress(kept)) == engine.run_names_document(first)
    assert kept == engine.run_names_gz(first)
    assert engine.kept_run_names(digest, engine.ReleaseRequest(engine.asked_release("v1.33"))) is None
    engine.forget_everything()  # as another process: read back from disk, the text never read
    again = engine.load_stored(digest, len(text), text_of)
    assert reads == [1] and [n.name for n in again.nodes] == ["nstored-1", "nstored-2"]
    assert engine.load_stored("", len(text), text_of) is engine.load(text)  # no digest: the text's own
    assert reads == [1, 1]


def test_a_workers_big_read_is_kept_on_disk_by_a_child_before_the_block_that_asked_ends(reads, settings):
    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    engine.let_reading_fork()
    text = SCENARIO.format("meanwhile-1") + "---\n" + SCENARIO.format("meanwhile-2")
    kept_dir = Path(settings.SCHEDLAB_LOADED_CACHE_DIR)
    with engine.kept_meanwhile() as kept:
        first = engine.load(text)
        assert len(kept.children) == 1  # a child writes it meanwhile
    assert not kept.children and len(list(kept_dir.glob("*.pickle"))) == 1
    engine.forget_everything()  # as the run's worker: read back from disk
    assert [n.name for n in engine.load(text).nodes] == [n.name for n in first.nodes] and reads == [True]


def test_a_scenario_a_child_did_not_keep_is_kept_by_the_process_that_waits(reads, settings, monkeypatch):
    class Failed:
        def answer(self, patience=None):
            return None  # the child failed, or was killed after its patience

    settings.SCHEDLAB_LOADED_CACHE_MIN_BYTES = 0
    engine.let_reading_fork()
    monkeypatch.setattr(engine.Forked, "start", classmethod(lambda cls, work: Failed()))
    with engine.kept_meanwhile():
        engine.load(SCENARIO.format("meanwhile-3") + "---\n" + SCENARIO.format("meanwhile-4"))
        assert not list(Path(settings.SCHEDLAB_LOADED_CACHE_DIR).glob("*.pickle"))
    assert len(list(Path(settings.SCHEDLAB_LOADED_CACHE_DIR).glob("*.pickle"))) == 1


def test_an_uploads_text_is_hashed_once_while_its_digest_is_remembered(monkeypatch):
    import hashlib
    from types import SimpleNamespace

    hashed: list[int] = []
    monkeypatch.setattr(
        engine, "hashlib", SimpleNamespace(sha256=lambda data: (hashed.append(len(data)), hashlib.sha256(data))[1])
    )
    text = SCENARIO.format("digest-1")
    same_characters = "".join(list(text))  # equal, but another object
    expected = hashlib.sha256(text.encode()).hexdigest()
    with engine.digest_remembered(text):
        assert len(hashed) == 1
        assert engine.check(text).valid and engine.load(text) is engine.load(text)
        assert engine._digest(text) == expected and len(hashed) == 1
        assert engine._digest(same_characters) == expected and len(hashed) == 2
    assert engine._digest(text) == expected and len(hashed) == 3  # not remembered past the block


def test_a_small_text_is_not_kept_on_disk(settings):
    engine.load(SCENARIO.format("small"))
    assert not Path(settings.SCHEDLAB_LOADED_CACHE_DIR).exists()


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


# --- releases (issue 48) ---------------------------------------------------------------------------


def test_a_text_is_loaded_and_checked_once_per_release_asked():
    text = support.scenario_text(2, 1)
    plain, asked = engine.load(text), engine.load(text, engine.release_request("v1.33", None))
    assert engine.load(text) is plain and engine.load(text, engine.release_request("1.33", "")) is asked
    assert (plain.release.release.name, asked.release.release.name) == ("v1.35", "v1.33")
    assert engine.check(text).release["version"] == "v1.35.4"
    assert engine.check(text, engine.release_request("v1.33", None)).release["version"] == "v1.33.13"


def test_the_supported_releases_are_listed_newest_first_with_the_gates_each_reads():
    listed = engine.supported_releases()
    assert [r["name"] for r in listed] == ["v1.36", "v1.35", "v1.34", "v1.33", "v1.32"]
    assert [r["default"] for r in listed] == [False, True, False, False, False]
    assert all(g["stage"] in ("Alpha", "Beta", "GA") for r in listed for g in r["gates"])


def test_the_next_newer_release_is_an_upgrade_s_default_target():
    named = engine.asked_release
    assert engine.next_release(named("v1.32")) == named("v1.33")
    assert engine.next_release(named("v1.35")) == named("v1.36")
    assert engine.next_release(named("v1.36")) is None
    assert engine.release_of_json(engine.check(support.scenario_text(1, 1)).release) == named("v1.35")


def test_a_gate_a_release_refuses_is_named_with_that_release():
    engine.check_gates(engine.asked_release("v1.36"), {"NodeDeclaredFeatures": False})
    with pytest.raises(ReleaseInvalid) as refused:
        engine.check_gates(engine.asked_release("v1.32"), {"NodeDeclaredFeatures": True})
    assert refused.value.details == {
        "field": "featureGates",
        "problems": [
            "unrecognized feature gate: NodeDeclaredFeatures (not a gate of v1.32 that SchedLab models: the scheduler "
            "of that release does not read it)"
        ],
        "release": "v1.32",
    }


def test_an_upgrade_comparison_asks_whether_it_is_still_wanted_as_its_runs_go(monkeypatch):
    scenario = engine.load(support.scenario_text(3, 3, 1))
    monkeypatch.setattr(engine, "UPGRADE_CHECK_EVENTS", 10)
    asked: list[int] = []
    told: list[tuple[int, int, str]] = []
    result = engine.compare_upgrade(
        scenario,
        engine.asked_release("v1.35"),
        engine.asked_release("v1.36"),
        progress=lambda done, total, what: told.append((done, total, what)),
        still_wanted=lambda: asked.append(1),
    )
    assert asked and told[0][:1] == (1,) and told[-1][0] == told[-1][1]
    assert (result.old, result.new) == ("v1.35.4", "v1.36.3")

    class Cancelled(Exception):
        pass

    def cancelled() -> None:
        raise Cancelled

    with pytest.raises(Cancelled):
        engine.compare_upgrade(
            scenario, engine.asked_release("v1.35"), engine.asked_release("v1.36"), still_wanted=cancelled
        )


def test_a_payload_s_schema_for_openapi_is_its_served_declaration_inlined():
    served = json.loads((Path(__file__).resolve().parents[3] / "static" / "schema" / "payloads.json").read_text())
    inlined = engine.payload_json_schema("UpgradeComparison")
    assert inlined["properties"]["old"] == served["$defs"]["UpgradeComparison"]["properties"]["old"]
    assert inlined["properties"]["pods"]["items"]["properties"] == served["$defs"]["PodUpgrade"]["properties"]
    assert "$ref" not in json.dumps(inlined)


def test_an_upgrade_comparison_s_runs_are_bounded_as_stored_runs_are():
    scenario = engine.load(support.scenario_text(3, 3, 1))
    with pytest.raises(engine.TooManyEvents):
        engine.compare_upgrade(scenario, engine.asked_release("v1.35"), engine.asked_release("v1.36"), max_events=10)


@pytest.mark.parametrize("where", ["inline", "child"])
def test_a_run_s_stream_says_when_its_first_event_arrives_and_closes_the_engine_s(settings, where):
    settings.SCHEDLAB_ENGINE_PROCESS = where
    scenario = engine.load(support.scenario_text(3, 2))
    seen: list[engine.Event] = []
    told: list[int] = []
    stream = engine.run_events(scenario, on_first_event=lambda: told.append(len(seen)))
    seen.extend(stream)
    assert told == [0]  # once, before the first event was handed on
    assert [e.to_json() for e in seen] == [e.to_json() for e in engine.simulate_events(scenario)]
    early = engine.run_events(scenario, on_first_event=lambda: None)
    next(early)
    early.close()
    assert early.gi_frame is None  # closed, and the engine's stream with it (a forked engine is stopped)
