"""/api/runs (webui/routers/runs.py) and /api/scenarios/{id}/runs: start, read, events pages and whole cycles,
explanations, a run's steps, trace, what if, another configuration, cancel, limits."""

import gzip
import json
from datetime import timedelta
from ipaddress import ip_network
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from scheduler_core.encoding.columnar import RunNames, decode_segment
from tests.scheduler_core.builders import node_text, numbers_scenario, pod_text, preemption_scenario
from tests.webui import support
from webui import presenters, responses
from webui.models import Run, RunSegment, RunStatus
from webui.schemas.runs import TimelineOut
from webui.services import claims, configs, demos, engine, events, execution, whatif
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"


# --- /api/scenarios/{id}/runs and /api/runs/*: start, read, events pages, trace, cancel, limits.


def start(client: Client, scenario_id: int):
    return client.post(f"/api/scenarios/{scenario_id}/runs")


def run_now(run_id: int) -> None:
    """What a worker does with the message (on_commit never fires inside a test transaction)."""
    execute_run.apply(args=[run_id])


def test_it_queues_a_run_of_the_latest_version(owner: Client, scenario: dict):
    response = start(owner, scenario["id"])
    assert response.status_code == 201
    body = response.json()
    assert (body["status"], body["version"], body["progress"]) == ("queued", 1, {"cycle": 0, "cycles": 2})
    assert body["error"] == "" and body["eventCount"] == 0


def test_it_enqueues_the_task_only_after_commit(
    owner: Client, scenario: dict, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr(execute_run, "delay", lambda run_id: sent.append(run_id))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = start(owner, scenario["id"]).json()
    assert sent == []
    for callback in callbacks:
        callback()
    assert sent == [run["id"]]


def test_a_run_is_replayed_as_the_release_asked_and_keeps_it_without_changing_the_text(owner: Client, scenario: dict):
    response = owner.post(
        f"/api/scenarios/{scenario['id']}/runs?release=1.33&featureGates=SchedulerAsyncPreemption%3Dfalse"
    )
    assert response.status_code == 201, response.content
    run = response.json()
    assert (run["releaseAsked"], run["featureGates"]) == ("v1.33", {"SchedulerAsyncPreemption": False})
    assert run["release"] == {
        "release": "v1.33",
        "version": "v1.33.13",
        "source": "asked",
        "where": None,
        "reported": None,
        "exact": True,
        "featureGates": {"SchedulerAsyncPreemption": False},
        "sentence": "replayed as kube-scheduler v1.33.13 with SchedulerAsyncPreemption=false (asked for)",
    }
    run_now(run["id"])
    assert owner.get(f"/api/runs/{run['id']}").json()["release"] == run["release"]
    [first] = owner.get(f"/api/runs/{run['id']}/events?since=0&limit=1").json()["events"]
    assert first["payload"]["release"] == "v1.33.13 with SchedulerAsyncPreemption=false"  # its RunStart
    assert owner.get(f"/api/scenarios/{scenario['id']}").json()["text"] == scenario["text"]  # never rewritten
    plain = start(owner, scenario["id"]).json()
    assert (plain["releaseAsked"], plain["featureGates"], plain["release"]["source"]) == ("", None, "default")
    older = owner.post(f"/api/scenarios/{scenario['id']}/runs?version=1&mode=single&release=v1.32").json()
    assert (older["version"], older["mode"], older["release"]["version"]) == (1, "single", "v1.32.13")


@pytest.mark.parametrize(
    ("query", "field", "says"),
    [
        ("release=v1.31", "release", "v1.31 is not a supported release; supported: v1.36, v1.35, v1.34, v1.33, v1.32"),
        ("featureGates=NodeDeclaredFeatures", "featureGates", "missing bool value for 'NodeDeclaredFeatures'"),
        ("release=v1.34&featureGates=NoSuchGate%3Dtrue", "featureGates", "unrecognized feature gate: NoSuchGate"),
        ("release=v1.36&featureGates=SidecarContainers%3Dfalse", "featureGates", "feature is locked to true"),
    ],
    ids=["an unsupported release", "a gate without value", "an unknown gate", "a locked gate"],
)
def test_a_refused_release_or_gate_is_a_400_with_the_message_and_starts_nothing(
    owner: Client, scenario: dict, query: str, field: str, says: str
):
    response = owner.post(f"/api/scenarios/{scenario['id']}/runs?{query}")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("release_invalid", field) and says in error["message"]
    assert not Run.objects.exists()
    assert owner.post(f"/api/scenarios/{scenario['id']}/runs?release={'v' * 41}").status_code == 422


def test_what_if_and_another_configuration_keep_the_run_s_release(owner: Client):
    created = owner.post("/api/scenarios", {"name": "taint", "text": WHATIF_SCENARIO}, content_type=JSON).json()
    run = owner.post(f"/api/scenarios/{created['id']}/runs?release=v1.34").json()
    run_now(run["id"])
    answer = owner.get(f"/api/runs/{run['id']}/whatif?pod=default/p").json()
    assert answer["release"] == run["release"]  # the engine call replayed the run's release
    applied = owner.post(
        f"/api/runs/{run['id']}/whatif/apply", {"pod": "default/p", "suggestion": 0}, content_type=JSON
    )
    assert applied.json()["releaseAsked"] == "v1.34"
    config = owner.get(f"/api/runs/{run['id']}/config").json()["config"]
    tried = owner.post(f"/api/runs/{run['id']}/try-config", {"config": config}, content_type=JSON).json()
    assert tried["release"]["version"] == "v1.34.9"


def test_it_refuses_to_run_an_invalid_version_with_all_errors(owner: Client, scenario: dict):
    owner.put(f"/api/scenarios/{scenario['id']}", {"text": "kind: [broken"}, content_type=JSON)
    response = start(owner, scenario["id"])
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "scenario_invalid"
    assert error["details"]["errors"] and error["details"]["errors"][0]["message"]
    assert Run.objects.count() == 0


def test_it_limits_queued_runs_per_owner(owner: Client, scenario: dict, settings):
    settings.SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER = 2
    assert [start(owner, scenario["id"]).status_code for _ in range(2)] == [201, 201]
    response = start(owner, scenario["id"])
    assert response.status_code == 429
    assert response.json()["error"]["details"] == {"limit": "max_queued_runs_per_owner", "max": 2}
    assert response["Retry-After"] == str(settings.SCHEDLAB_RETRY_AFTER_SECONDS)


def fresh_visitor_with_a_scenario(text: str, address: str = "127.0.0.1") -> tuple[Client, int]:
    """A new anonymous session (a cleared cookie jar): a new owner, from `address`."""
    client = Client(REMOTE_ADDR=address)
    created = client.post("/api/scenarios", {"name": "s", "text": text}, content_type=JSON)
    assert created.status_code == 201
    return client, created.json()["id"]


def test_it_limits_queued_runs_per_client_address_across_fresh_sessions(small_text: str, settings):
    settings.SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS = 3
    visitors = [fresh_visitor_with_a_scenario(small_text) for _ in range(10)]
    statuses = [start(client, scenario_id).status_code for client, scenario_id in visitors]
    assert statuses == [201] * 3 + [429] * 7
    refused = start(*visitors[-1]).json()["error"]
    assert refused["details"] == {"limit": "max_queued_runs_per_address", "max": 3}
    assert "SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS" in refused["message"]
    elsewhere = fresh_visitor_with_a_scenario(small_text, address="198.51.100.7")
    assert start(*elsewhere).status_code == 201  # another address has its own budget


def test_it_counts_the_address_a_trusted_proxy_forwards(small_text: str, settings):
    settings.SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS = 1
    settings.SCHEDLAB_TRUSTED_PROXIES = (ip_network("127.0.0.1/32"),)
    first, second = (fresh_visitor_with_a_scenario(small_text) for _ in range(2))
    forwarded = {"HTTP_X_FORWARDED_FOR": "198.51.100.1"}
    assert first[0].post(f"/api/scenarios/{first[1]}/runs", **forwarded).status_code == 201
    assert second[0].post(f"/api/scenarios/{second[1]}/runs", HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 201
    assert second[0].post(f"/api/scenarios/{second[1]}/runs", **forwarded).status_code == 429
    assert Run.objects.order_by("pk").first().client_address == "198.51.100.1"


def test_it_caps_queued_runs_on_the_whole_server(small_text: str, settings):
    settings.SCHEDLAB_MAX_QUEUED_RUNS = 2
    visitors = [fresh_visitor_with_a_scenario(small_text, address=f"198.51.100.{i}") for i in range(3)]
    assert [start(*visitor).status_code for visitor in visitors] == [201, 201, 429]
    assert start(*visitors[0]).json()["error"]["details"] == {"limit": "max_queued_runs", "max": 2}


def test_it_stops_counting_a_lost_queued_run_once_recovery_failed_it(owner: Client, scenario: dict, settings):
    settings.SCHEDLAB_MAX_QUEUED_RUNS_PER_OWNER = 1
    stuck = start(owner, scenario["id"]).json()
    assert start(owner, scenario["id"]).status_code == 429
    # Its task message was lost again and again, with no worker running anything meanwhile.
    long_ago = timezone.now() - timedelta(seconds=settings.SCHEDLAB_QUEUED_STALE_SECONDS + 1)
    Run.objects.filter(pk=stuck["id"]).update(queued_at=long_ago, enqueues=settings.SCHEDLAB_MAX_RUN_ATTEMPTS)
    read = owner.get(f"/api/runs/{stuck['id']}").json()  # reading it recovers it
    assert read["status"] == "failed" and read["error"].startswith("no worker could start it")
    assert start(owner, scenario["id"]).status_code == 201


def test_it_runs_and_pages_through_events(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    detail = owner.get(f"/api/runs/{run['id']}").json()
    assert detail["status"] == "succeeded"
    assert detail["progress"] == {"cycle": 2, "cycles": 2}
    seen, cursor, done = [], 0, False
    while not done:
        page = owner.get(f"/api/runs/{run['id']}/events?since={cursor}&limit=3").json()
        assert len(page["events"]) <= 3
        seen += page["events"]
        cursor, done = page["next"], page["done"]
    assert [e["seq"] for e in seen] == list(range(detail["eventCount"]))
    # A run is the scheduler run to the end by default: the stream opens with the cluster and ends with
    # where every pod is.
    assert seen[0]["extensionPoint"] == "RunStart" and seen[-1]["extensionPoint"] == "RunEnd"
    assert detail["mode"] == "timeline"
    assert set(seen[0]) == {"seq", "cycle", "pod", "extensionPoint", "plugin", "payload"}


def test_a_single_pass_run_is_the_traces_cycles_only(owner: Client, scenario: dict):
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs?mode=single").json()
    run_now(run["id"])
    events = owner.get(f"/api/runs/{run['id']}/events?limit=1000").json()["events"]
    assert run["mode"] == "single"
    assert events[0]["extensionPoint"] == "CycleStart" and events[-1]["extensionPoint"] == "CycleEnd"
    assert owner.post(f"/api/scenarios/{scenario['id']}/runs?mode=sideways").status_code == 422


def test_the_whole_timeline_streams_gzipped_to_clients_that_accept_it(owner: Client, scenario: dict, monkeypatch):
    monkeypatch.setattr(events, "STORY_CHUNK_ITEMS", 1)  # an item a chunk: the joins between chunks are tested
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    plain = owner.get(f"/api/runs/{run['id']}/timeline")
    zipped = owner.get(f"/api/runs/{run['id']}/timeline", headers={"Accept-Encoding": "gzip"})
    assert plain.streaming and "Content-Encoding" not in plain and zipped["Content-Encoding"] == "gzip"
    whole = streamed_json(plain)
    assert json.loads(gzip.decompress(b"".join(zipped.streaming_content))) == whole
    assert len(whole["attempts"]) > 1 and len(whole["final"]) > 1
    # The shape the schema writes (exclude_unset as before: a run without steps has none), key for key.
    assert TimelineOut.model_validate(whole).model_dump(by_alias=True, exclude_unset=True) == whole
    assert list(whole) == [
        "mode",
        "attempts",
        "moves",
        "changes",
        "entries",
        "final",
        "nominated",
        "timeMs",
        "finished",
        "outcome",
        "recorded",
    ]


def test_the_timeline_lists_attempts_moves_and_changes(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    story = streamed_json(owner.get(f"/api/runs/{run['id']}/timeline"))
    assert story["mode"] == "timeline" and story["finished"] is True
    assert [(a["cycle"], a["pod"], a["attempt"]) for a in story["attempts"]] == [
        (0, "default/pending-0", 1),
        (1, "default/pending-1", 1),
    ]
    assert all(a["nodeName"] and a["timeMs"] == 0 for a in story["attempts"])
    assert [(m["pod"], m["queue"], m["event"], m["text"]) for m in story["moves"]][:2] == [
        ("default/pending-0", "activeQ", "UnschedulablePodAdd", "default/pending-0 moved to activeQ: created"),
        ("default/pending-1", "activeQ", "UnschedulablePodAdd", "default/pending-1 moved to activeQ: created"),
    ]
    assert {c["kind"] for c in story["changes"]} == {"PodBound"}
    assert set(story["final"]) >= {"default/pending-0", "default/pending-1"}


def test_it_builds_the_trace_summary_from_stored_events(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    trace = streamed_json(owner.get(f"/api/runs/{run['id']}/trace"))
    assert [c["pod"] for c in trace["cycles"]] == ["default/pending-0", "default/pending-1"]
    assert all(c["nodeName"] for c in trace["cycles"])


def test_it_cancels_a_queued_run_once(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    body = owner.post(f"/api/runs/{run['id']}/cancel").json()
    assert body["status"] == "cancelled" and body["finished"]
    again = owner.post(f"/api/runs/{run['id']}/cancel")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "conflict"
    run_now(run["id"])  # a late worker must not resurrect it
    assert Run.objects.get(pk=run["id"]).status == RunStatus.CANCELLED


def test_it_deletes_a_run_with_its_events(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    assert RunSegment.objects.filter(run_id=run["id"]).exists()
    assert owner.delete(f"/api/runs/{run['id']}").status_code == 204
    assert not Run.objects.filter(pk=run["id"]).exists() and not RunSegment.objects.filter(run_id=run["id"]).exists()
    assert owner.get(f"/api/runs/{run['id']}").status_code == 404


def test_it_cancels_a_running_run_it_deletes_so_its_worker_stops(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    assert claims.claim(run["id"], "w")
    loaded = engine.load(owner.get(f"/api/scenarios/{scenario['id']}").json()["text"])
    writer = execution.writer_for(Run.objects.get(pk=run["id"]), "w", loaded)
    events = iter(engine.simulate_events(loaded))
    writer.add(next(events))
    writer.flush()  # the worker is mid-run, one batch stored
    assert owner.delete(f"/api/runs/{run['id']}").status_code == 204
    writer.add(next(events))
    with pytest.raises(execution.LostClaim):  # its next write finds the run gone: nothing written
        writer.flush()
    assert not RunSegment.objects.filter(run_id=run["id"]).exists()


def test_it_lets_only_the_owner_delete_a_run(owner: Client, stranger: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    assert stranger.delete(f"/api/runs/{run['id']}").status_code == 404
    assert Run.objects.filter(pk=run["id"]).exists()


def test_it_hides_runs_from_other_visitors(owner: Client, stranger: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    for path in (f"/api/runs/{run['id']}", f"/api/runs/{run['id']}/events", f"/api/runs/{run['id']}/trace"):
        assert stranger.get(path).status_code == 404
    assert stranger.post(f"/api/runs/{run['id']}/cancel").status_code == 404
    assert stranger.post(f"/api/scenarios/{scenario['id']}/runs").status_code == 404


def test_it_lets_anyone_run_a_demo_as_their_own_run(stranger: Client):
    from webui.services import demos

    demos.load_all()
    demo = stranger.get("/api/scenarios?q=conflict").json()[0]
    run = start(stranger, demo["id"]).json()
    run_now(run["id"])
    assert stranger.get("/api/runs").json()[0]["id"] == run["id"]


def test_it_lists_the_runs_of_a_scenario(owner: Client, scenario: dict):
    ids = [start(owner, scenario["id"]).json()["id"] for _ in range(2)]
    listed = owner.get(f"/api/scenarios/{scenario['id']}/runs").json()
    assert [r["id"] for r in listed] == ids[::-1]


def test_it_rejects_a_negative_or_silly_cursor_without_a_500(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    assert owner.get(f"/api/runs/{run['id']}/events?since=-5").json()["next"] == 0
    response = owner.get(f"/api/runs/{run['id']}/events?since=abc")
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_request"


def test_it_saves_a_version_over_the_node_limit_but_refuses_to_run_it_with_413(owner: Client, settings):
    from tests.webui import support

    settings.SCHEDLAB_MAX_NODES = 2
    created = owner.post(
        "/api/scenarios", {"name": "wide", "text": support.scenario_text(3, 1)}, content_type=JSON
    ).json()
    assert (created["valid"], created["version"]) == (False, 1)
    [problem] = created["errors"]
    assert (problem["code"], problem["limit"]) == ("limit_exceeded", "max_nodes")
    response = start(owner, created["id"])
    assert response.status_code == 413
    error = response.json()["error"]
    assert (error["code"], error["details"]["limit"], error["details"]["max"]) == ("limit_exceeded", "max_nodes", 2)
    assert "SCHEDLAB_MAX_NODES" in error["message"] and error["details"]["errors"] == [problem]


def test_it_answers_validate_over_a_size_limit_with_413_and_every_problem(owner: Client, settings):
    from tests.webui import support

    settings.SCHEDLAB_MAX_PENDING_PODS = 1
    response = owner.post("/api/validate", {"text": support.scenario_text(2, 3)}, content_type=JSON)
    assert response.status_code == 413
    error = response.json()["error"]
    assert (error["code"], error["details"]["limit"], error["details"]["max"]) == (
        "limit_exceeded",
        "max_pending_pods",
        1,
    )
    assert [e["limit"] for e in error["details"]["errors"]] == ["max_pending_pods"]


def test_it_still_refuses_an_invalid_run_with_400(owner: Client):
    created = owner.post("/api/scenarios", {"name": "bad", "text": "kind: [broken"}, content_type=JSON).json()
    response = start(owner, created["id"])
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "scenario_invalid" and error["details"]["errors"][0]["code"] == "invalid"


def streamed_json(response) -> dict:
    assert response.status_code == 200 and response.streaming
    return json.loads(b"".join(response.streaming_content))


def test_it_streams_the_trace_of_a_finished_run_cycle_by_cycle(owner: Client, scenario: dict):
    """Built from the stored events as it is sent (a 5,000-node run's trace, built whole, took the
    web process past 7 GB), the same answer each time."""
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    first = streamed_json(owner.get(f"/api/runs/{run['id']}/trace"))
    assert [cycle["pod"] for cycle in first["cycles"]] == ["default/pending-0", "default/pending-1"]
    assert streamed_json(owner.get(f"/api/runs/{run['id']}/trace")) == first


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
WHATIF_SCENARIO = (FIXTURES / "whatif" / "tainted.yaml").read_text()


def test_what_would_make_it_fit_then_apply_and_run_it(owner: Client):
    created = owner.post("/api/scenarios", {"name": "taint", "text": WHATIF_SCENARIO}, content_type=JSON).json()
    run = start(owner, created["id"]).json()
    run_now(run["id"])
    answer = owner.get(f"/api/runs/{run['id']}/whatif?pod=default/p").json()
    assert [s["text"] for s in answer["suggestions"]] == ["tolerate the taint gpu=a100:NoSchedule"]
    applied = owner.post(
        f"/api/runs/{run['id']}/whatif/apply", {"pod": "default/p", "suggestion": 0}, content_type=JSON
    )
    assert applied.status_code == 201, applied.content
    new_run = applied.json()
    assert new_run["version"] == 2
    run_now(new_run["id"])
    assert streamed_json(owner.get(f"/api/runs/{new_run['id']}/timeline"))["final"]["default/p"] == "n1"
    text = owner.get(f"/api/scenarios/{created['id']}").json()["text"]
    assert text.startswith("# a tainted node and a pod without the toleration\n")  # untouched documents keep their text
    assert "tolerations" in text


def test_the_what_if_answer_is_the_engine_s_as_typed_with_the_keys_it_has(owner: Client):
    """WhatIfOut: the service's answer unchanged; `rejectedBy` and `failedSchedulingMessage` only when the pod does not fit."""
    created = owner.post("/api/scenarios", {"name": "taint", "text": WHATIF_SCENARIO}, content_type=JSON).json()
    run = start(owner, created["id"]).json()
    run_now(run["id"])
    body = owner.get(f"/api/runs/{run['id']}/whatif?pod=default/p").json()
    assert body == json.loads(json.dumps(whatif.suggestions(Run.objects.get(pk=run["id"]), "default/p")))
    assert body["rejectedBy"] == {"TaintToleration": 1} and body["suggestions"][0]["nodeCount"] == 1
    untainted = owner.post(
        "/api/scenarios",
        {
            "name": "fits",
            "text": WHATIF_SCENARIO.replace("taints: [{key: gpu, value: a100, effect: NoSchedule}]", "taints: []"),
        },
        content_type=JSON,
    ).json()
    single = owner.post(f"/api/scenarios/{untainted['id']}/runs?mode=single").json()
    fits = owner.get(f"/api/runs/{single['id']}/whatif?pod=default/p").json()
    assert fits["fitsNow"] == ["n1"] and "rejectedBy" not in fits and "failedSchedulingMessage" not in fits


def test_the_story_config_and_trace_are_the_services_answers_as_typed(owner: Client, scenario: dict):
    """TimelineOut, RunConfigOut and TraceOut keep every key the services give (a run without steps has no `steps`)."""
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    stored = Run.objects.get(pk=run["id"])
    story = streamed_json(owner.get(f"/api/runs/{run['id']}/timeline"))
    assert story == {**json.loads(json.dumps(events.story(stored))), "recorded": None}
    assert owner.get(f"/api/runs/{run['id']}/config").json() == configs.config_of(stored.version.text)
    trace = streamed_json(owner.get(f"/api/runs/{run['id']}/trace"))
    assert trace == json.loads(json.dumps(events.trace(stored))) and trace["cycles"]


def test_what_if_for_a_pod_that_is_not_pending_is_a_clear_400(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    response = owner.get(f"/api/runs/{run['id']}/whatif?pod=default/nobody")
    assert response.status_code == 400 and "not a pending pod" in response.json()["error"]["message"]


def test_a_comparison_share_link_reads_both_runs_and_nothing_else(owner: Client, stranger: Client, scenario: dict):
    a, b, other = (start(owner, scenario["id"]).json() for _ in range(3))
    for run in (a, b, other):
        run_now(run["id"])
    link = owner.post(
        f"/api/scenarios/{scenario['id']}/share", {"run": a["id"], "compareRun": b["id"]}, content_type=JSON
    ).json()
    assert link["compareRun"] == b["id"]
    token = {"HTTP_X_SHARE_TOKEN": link["token"]}
    assert stranger.get(f"/api/comparisons?a={a['id']}&b={b['id']}", **token).status_code == 200
    assert stranger.get(f"/api/comparisons?a={a['id']}&b={other['id']}", **token).status_code == 404
    assert stranger.get(f"/api/share/{link['token']}").json()["compareRun"] == b["id"]
    tried = stranger.post(f"/api/runs/{a['id']}/try-config", {"config": MOST_ALLOCATED}, content_type=JSON, **token)
    assert tried.status_code == 403


MOST_ALLOCATED = (FIXTURES / "compare" / "most_allocated.yaml").read_text()


def test_another_configuration_is_a_scenario_of_its_own_run_and_compared(owner: Client, scenario: dict):
    """The tried configuration belongs to the comparison: the scenario's latest version, which the next
    plain Run uses, stays as it was (issue 51 item 4)."""
    first = start(owner, scenario["id"]).json()
    run_now(first["id"])
    assert owner.get(f"/api/runs/{first['id']}/config").json()["fromScenario"] is False
    response = owner.post(f"/api/runs/{first['id']}/try-config", {"config": MOST_ALLOCATED}, content_type=JSON)
    assert response.status_code == 201, response.content
    second = response.json()
    assert second["scenario"] != scenario["id"] and (second["version"], second["mode"]) == (1, first["mode"])
    tried = owner.get(f"/api/scenarios/{second['scenario']}").json()
    assert tried["name"].endswith("(another configuration)") and tried["owned"] is True
    assert [v["number"] for v in owner.get(f"/api/scenarios/{scenario['id']}/versions").json()] == [1]
    config = owner.get(f"/api/runs/{second['id']}/config").json()
    assert (config["config"], config["fromScenario"]) == (MOST_ALLOCATED, True) and config["presets"]
    run_now(second["id"])
    comparison = owner.get(f"/api/comparisons?a={first['id']}&b={second['id']}")
    assert comparison.status_code == 200 and comparison.json()["summary"]


def test_another_configuration_of_a_demo_runs_in_a_fork(stranger: Client):
    from webui.services import demos

    demos.load_all()
    demo = stranger.get("/api/scenarios?q=conflict").json()[0]
    first = start(stranger, demo["id"]).json()
    second = stranger.post(f"/api/runs/{first['id']}/try-config", {"config": MOST_ALLOCATED}, content_type=JSON).json()
    assert second["scenario"] != demo["id"] and second["version"] == 1
    fork = stranger.get(f"/api/scenarios/{second['scenario']}").json()
    assert fork["name"].endswith("(another configuration)") and "MostAllocated" in fork["text"]
    assert "MostAllocated" not in stranger.get(f"/api/scenarios/{demo['id']}").json()["text"]


def test_a_bad_configuration_names_its_own_line_and_changes_nothing(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    response = owner.post(
        f"/api/runs/{run['id']}/try-config",
        {"config": MOST_ALLOCATED.replace("MostAllocated", "Cheapest")},
        content_type=JSON,
    )
    assert response.status_code == 400
    [error] = response.json()["error"]["details"]["errors"]
    assert error["line"] == 9
    assert (
        owner.post(f"/api/runs/{run['id']}/try-config", {"config": "kind: Node\n"}, content_type=JSON).status_code
        == 400
    )
    assert len(owner.get(f"/api/scenarios/{scenario['id']}/versions").json()) == 1


def test_applying_a_what_if_to_a_demo_run_saves_it_in_a_fork(stranger: Client):
    from webui.services import demos

    demos.load_all()
    demo = stranger.get("/api/scenarios?q=conflict").json()[0]
    run = start(stranger, demo["id"]).json()
    run_now(run["id"])
    answer = stranger.get(f"/api/runs/{run['id']}/whatif?pod=default/mypod").json()
    assert answer["suggestions"][0]["kind"] == "maxSkew"
    applied = stranger.post(
        f"/api/runs/{run['id']}/whatif/apply", {"pod": "default/mypod", "suggestion": 0}, content_type=JSON
    )
    assert applied.status_code == 201, applied.content
    new_run = applied.json()
    assert new_run["scenario"] != demo["id"]
    run_now(new_run["id"])
    assert streamed_json(stranger.get(f"/api/runs/{new_run['id']}/timeline"))["final"]["default/mypod"] is not None
    assert stranger.get(f"/api/scenarios/{new_run['scenario']}").json()["name"].endswith("(what if)")


# --- GET /api/runs/{id}/cycles and /events?cycle=N: one cycle at a time for big runs.


@pytest.fixture
def run(owner: Client, scenario: dict) -> dict:
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    return owner.get(f"/api/runs/{run['id']}").json()


def all_events(client: Client, run_id: int) -> list[dict]:
    return client.get(f"/api/runs/{run_id}/events?limit=5000").json()["events"]


def test_it_lists_each_cycle_with_its_pod_node_and_seq_range(owner: Client, run: dict):
    events = all_events(owner, run["id"])
    cycles = owner.get(f"/api/runs/{run['id']}/cycles").json()
    assert [c["cycle"] for c in cycles] == [0, 1]
    for cycle in cycles:
        # The cycle's own events, CycleStart..CycleEnd (a run to the end has its moves around them).
        mine = [e for e in events if cycle["firstSeq"] <= e["seq"] < cycle["endSeq"]]
        assert all(e["cycle"] == cycle["cycle"] for e in mine)
        assert (mine[0]["extensionPoint"], mine[-1]["extensionPoint"]) == ("CycleStart", "CycleEnd")
        assert cycle["pod"] == mine[0]["pod"]
        assert cycle["nodeName"] == mine[-1]["payload"]["nodeName"] and cycle["nodeName"]
        assert cycle["failedSchedulingMessage"] is None


def test_it_reports_why_a_pod_was_not_scheduled(owner: Client, small_text: str):
    text = small_text.replace("memory: 64Mi", "memory: 64Ti")
    created = owner.post("/api/scenarios", {"name": "too big", "text": text}, content_type=JSON).json()
    run = owner.post(f"/api/scenarios/{created['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    [first, _] = owner.get(f"/api/runs/{run['id']}/cycles").json()
    assert first["nodeName"] is None and "Insufficient memory" in first["failedSchedulingMessage"]


def test_it_answers_all_events_of_one_cycle_at_once(owner: Client, run: dict):
    events = all_events(owner, run["id"])
    body = owner.get(f"/api/runs/{run['id']}/events?cycle=1&limit=1").json()
    assert body["events"] == [e for e in events if e["cycle"] == 1]
    assert (body["next"], body["done"]) == (body["events"][-1]["seq"] + 1, True)


def test_it_answers_an_unknown_cycle_with_no_events(owner: Client, run: dict):
    assert owner.get(f"/api/runs/{run['id']}/events?cycle=99").json() == {"events": [], "next": 0, "done": True}


def test_it_says_a_running_runs_unfinished_cycle_is_not_done(owner: Client, scenario: dict):
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    assert owner.get(f"/api/runs/{run['id']}/events?cycle=0").json() == {"events": [], "next": 0, "done": False}
    assert owner.get(f"/api/runs/{run['id']}/cycles").json() == []


def test_it_states_the_stored_bytes_per_cycle(owner: Client, run: dict):
    stored = Run.objects.get(pk=run["id"]).stored_bytes
    assert stored > 0
    assert (run["storedBytes"], run["storedBytesPerCycle"]) == (stored, stored // 2)


def test_it_lets_a_share_token_read_cycles_but_not_strangers(
    owner: Client, stranger: Client, scenario: dict, run: dict
):
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {"run": run["id"]}, content_type=JSON).json()["token"]
    headers = {"X-Share-Token": token}
    assert len(stranger.get(f"/api/runs/{run['id']}/cycles", headers=headers).json()) == 2
    assert stranger.get(f"/api/runs/{run['id']}/events?cycle=0", headers=headers).json()["events"]
    assert stranger.get(f"/api/runs/{run['id']}/cycles").status_code == 404
    assert stranger.get(f"/api/runs/{run['id']}/events?cycle=0").status_code == 404


def test_it_serves_a_cycle_as_its_stored_columnar_segment(owner: Client, run: dict):
    response = owner.get(f"/api/runs/{run['id']}/segment?cycle=1")
    assert response.status_code == 200 and response["Content-Type"] == "application/x-npz"
    names = owner.get(f"/api/runs/{run['id']}/names").json()
    decoded = decode_segment(response.content, RunNames([n["name"] for n in names["nodes"]], names["pods"]))
    expected = owner.get(f"/api/runs/{run['id']}/events?cycle=1").json()["events"]
    assert [{"seq": decoded.first_seq + i, **e} for i, e in enumerate(decoded.events)] == expected


def test_it_answers_404_for_a_cycle_not_stored(owner: Client, run: dict):
    response = owner.get(f"/api/runs/{run['id']}/segment?cycle=9")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"


def test_it_gives_the_runs_names_once_gzipped_when_accepted(owner: Client, run: dict, small_text: str):
    plain = owner.get(f"/api/runs/{run['id']}/names")
    zipped = owner.get(f"/api/runs/{run['id']}/names", HTTP_ACCEPT_ENCODING="gzip, br")
    assert zipped["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain
    assert json.loads(gzip.decompress(zipped.content)) == plain.json()
    scenario = engine.load(small_text)
    assert plain.json() == {
        "nodes": [{"name": n.name, "labels": dict(n.labels)} for n in scenario.nodes],
        "pods": [p.key for p in scenario.pending_pods],
    }


def test_it_builds_the_names_of_a_run_stored_before_they_were_kept(owner: Client, run: dict):
    Run.objects.filter(pk=run["id"]).update(names_gz=None)
    names = owner.get(f"/api/runs/{run['id']}/names").json()
    assert [n["name"] for n in names["nodes"]] and Run.objects.get(pk=run["id"]).names_gz is not None


def test_a_run_not_started_yet_says_ask_again_for_its_names_rather_than_reading_the_scenario(
    owner: Client, scenario: dict, monkeypatch: pytest.MonkeyPatch
):
    queued = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()  # no worker has claimed it
    monkeypatch.setattr(engine, "load_valid", lambda *args: pytest.fail("the web process read the scenario"))
    answer = owner.get(f"/api/runs/{queued['id']}/names")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "names_not_ready"
    assert "ask again" in answer.json()["error"]["message"]
    monkeypatch.undo()
    execute_run.apply(args=[queued["id"]])  # the worker keeps them before its first event
    assert [n["name"] for n in owner.get(f"/api/runs/{queued['id']}/names").json()["nodes"]]


def test_a_run_whose_worker_is_still_reading_says_so_when_asked_for_its_names(owner: Client, scenario: dict):
    queued = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    assert "has not started yet" in owner.get(f"/api/runs/{queued['id']}/names").json()["error"]["message"]
    Run.objects.filter(pk=queued["id"]).update(status=RunStatus.RUNNING, names_gz=None)  # claimed, reading
    answer = owner.get(f"/api/runs/{queued['id']}/names")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "names_not_ready"
    assert "still reading the scenario" in answer.json()["error"]["message"]


def test_it_lets_a_share_token_read_segments_and_names_but_not_strangers(
    owner: Client, stranger: Client, scenario: dict, run: dict
):
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {"run": run["id"]}, content_type=JSON).json()["token"]
    headers = {"X-Share-Token": token}
    assert stranger.get(f"/api/runs/{run['id']}/segment?cycle=0", headers=headers).status_code == 200
    assert stranger.get(f"/api/runs/{run['id']}/names", headers=headers).status_code == 200
    assert stranger.get(f"/api/runs/{run['id']}/segment?cycle=0").status_code == 404
    assert stranger.get(f"/api/runs/{run['id']}/names").status_code == 404


def test_a_finished_runs_segment_is_cached_by_its_owner_but_never_through_a_share_link(
    owner: Client, stranger: Client, scenario: dict, run: dict
):
    assert "immutable" in owner.get(f"/api/runs/{run['id']}/segment?cycle=0")["Cache-Control"]
    token = owner.post(f"/api/scenarios/{scenario['id']}/share", {"run": run["id"]}, content_type=JSON).json()["token"]
    shared = stranger.get(f"/api/runs/{run['id']}/segment?cycle=0", headers={"X-Share-Token": token})
    assert shared["Cache-Control"] == "no-store"


# --- GET /api/runs/{id}/cycles/{n}/explain: the engine's explanation of one cycle, served as typed JSON.


def finished_run(client: Client, text: str) -> dict:
    created = client.post("/api/scenarios", {"name": "explained", "text": text}, content_type=JSON).json()
    run = client.post(f"/api/scenarios/{created['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    return {**client.get(f"/api/runs/{run['id']}").json(), "scenario": created["id"]}


@pytest.fixture
def conflict_run(owner: Client) -> dict:
    return finished_run(owner, demos.get("seed_pts_conflict").text)


def test_it_says_why_the_conflicting_spread_example_fits_nowhere(owner: Client, conflict_run: dict):
    body = owner.get(f"/api/runs/{conflict_run['id']}/cycles/0/explain").json()
    assert (body["outcome"], body["node"], body["pod"]) == ("unschedulable", None, "default/mypod")
    assert body["headline"] == "zone allows zoneB (node3); node allows node2 (zoneA): no node is allowed by both."
    assert [(c["topologyKey"], c["allowed"]) for c in body["spread"]["constraints"]] == [
        ("zone", [{"value": "zoneB", "nodes": ["node3"]}]),
        ("node", [{"value": "node2", "nodes": ["node2"]}]),
    ]
    assert body["spread"]["allowedByAll"] == []
    assert body["filter"]["groups"] == [
        {
            "reason": "node(s) didn't match pod topology spread constraints",
            "count": 3,
            "plugins": ["PodTopologySpread"],
            "nodes": ["node1", "node2", "node3"],
            "outsidePreFilter": False,
        }
    ]
    assert body["winner"] is None


def test_it_explains_the_winner_of_a_scheduled_cycle(owner: Client):
    run = finished_run(owner, demos.get("seed_pts_single_constraint").text)
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    winner = body["winner"]
    assert (body["outcome"], body["node"], winner["node"], winner["runnerUp"]) == (
        "scheduled",
        "node4",
        "node4",
        "node3",
    )
    assert body["headline"] == winner["sentence"] == "node4 beat node3 by 2: NodeResourcesFit +2."
    by_plugin = {p["plugin"]: p["difference"] for p in winner["plugins"]}
    assert by_plugin["NodeResourcesFit"] == 2 and sum(by_plugin.values()) == winner["margin"] == 2


def test_it_answers_404_for_a_cycle_without_events(owner: Client, conflict_run: dict):
    response = owner.get(f"/api/runs/{conflict_run['id']}/cycles/7/explain")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_it_lets_a_share_token_read_explanations_but_not_strangers(owner: Client, stranger: Client, conflict_run: dict):
    token = owner.post(
        f"/api/scenarios/{conflict_run['scenario']}/share", {"run": conflict_run["id"]}, content_type=JSON
    ).json()["token"]
    path = f"/api/runs/{conflict_run['id']}/cycles/0/explain"
    assert stranger.get(path, headers={"X-Share-Token": token}).json()["outcome"] == "unschedulable"
    assert stranger.get(path).status_code == 404


def test_it_gives_the_numbers_behind_each_filter_reason(owner: Client):
    """The engine's facts (a replay of the run): request against free room, the taint, the port's
    holder, the label the nodeSelector wanted — in the sentence and typed per node and plugin."""
    run = finished_run(owner, numbers_scenario())
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    assert (
        "1 Insufficient cpu (full: cpu: asks 2500m; free 1800m of 4000m allocatable (2200m requested by 9 pod(s)))"
        in body["headline"]
    )
    nodes = body["filterDetails"]["nodes"]
    [cpu] = nodes["full"]["plugins"]["NodeResourcesFit"]["facts"]
    assert (cpu["requested"], cpu["free"], cpu["allocatable"], cpu["used"], cpu["pods"]) == (2500, 1800, 4000, 2200, 9)
    assert cpu["requested"] > cpu["allocatable"] - cpu["used"]
    assert (
        nodes["tainted"]["plugins"]["TaintToleration"]["facts"][0]["text"]
        == "untolerated taint dedicated=gpu:NoSchedule"
    )
    assert nodes["ports"]["plugins"]["NodePorts"]["facts"][0]["usedBy"] == ["default/web-0"]
    assert nodes["hdd"]["plugins"]["NodeAffinity"]["facts"][0]["nodeValue"] == "hdd"
    assert body["filterDetailsNote"] is None


def test_it_says_why_a_run_too_large_to_replay_has_no_numbers(owner: Client, monkeypatch):
    monkeypatch.setattr(events, "EXPLAIN_REPLAY_NODE_CYCLES", 3)
    run = finished_run(owner, numbers_scenario())
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    assert body["filterDetails"] is None
    assert body["filterDetailsNote"].startswith("the numbers behind the reasons need a replay of 1 cycles over 4 nodes")
    assert "(full, hdd, ports, tainted)" not in body["headline"] and "1 Insufficient cpu (full)" in body["headline"]


def test_it_ranks_the_preemption_candidates_with_the_deciding_criterion(owner: Client):
    run = finished_run(owner, preemption_scenario())
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    ranking = body["preemption"]
    assert (ranking["chosen"], ranking["deciding"]) == ("a", "highestPriority")
    assert ranking["sentence"] == "a won on lowest highest victim priority (criterion 2 of 5)."
    assert [(c["node"], c["highestPriority"], c["droppedAt"], c["chosen"]) for c in ranking["candidates"]] == [
        ("a", 1, None, True),
        ("b", 5, "highestPriority", False),
    ]
    assert [c["key"] for c in ranking["criteria"]] == [
        "pdbViolations",
        "highestPriority",
        "prioritySum",
        "victims",
        "latestStart",
    ]


def test_it_says_the_release_skipped_scoring_for_a_single_feasible_node(owner: Client):
    run = finished_run(owner, demos.get("seed_pts_two_constraints").text)
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    assert (body["scoring"]["skipped"], body["scoring"]["node"]) == (True, "node4")
    assert "When only one node after predicate, just use it" in body["scoring"]["sentence"]
    scored = finished_run(owner, demos.get("seed_pts_single_constraint").text)
    assert owner.get(f"/api/runs/{scored['id']}/cycles/0/explain").json()["scoring"]["skipped"] is False


def test_it_says_when_only_some_rejected_nodes_have_numbers(owner: Client, monkeypatch):
    monkeypatch.setattr(events, "EXPLAIN_NODES_PER_PLUGIN", 1)
    text = "---\n".join([node_text(name, cpu="1") for name in ("a", "b", "c")] + [pod_text("web", cpu="2")])
    run = finished_run(owner, text)
    body = owner.get(f"/api/runs/{run['id']}/cycles/0/explain").json()
    assert list(body["filterDetails"]["nodes"]) == ["a"]
    assert body["filterDetailsNote"] == "numbers for the first 1 nodes each plugin rejected (1 of 3 rejected nodes)"


# --- A run with steps through the API: the timeline's typed `steps` (each step's summary) and
# GET /api/runs/{id}/steps/{k}/cluster (the cluster at the end of a step, what moved marked).


EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "changes_scale_drain.yaml"


@pytest.fixture
def stepped_run(owner: Client) -> dict:
    """examples/changes_scale_drain.yaml run to the end: web 4 → 6, then node-1 drained under a budget."""
    created = owner.post(
        "/api/scenarios", {"name": "steps", "text": EXAMPLE.read_text()}, content_type="application/json"
    )
    assert created.status_code == 201, created.content
    run = owner.post(f"/api/scenarios/{created.json()['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    return owner.get(f"/api/runs/{run['id']}").json()


def test_the_timeline_gives_each_step_with_its_summary(owner: Client, stepped_run: dict):
    story = streamed_json(owner.get(f"/api/runs/{stepped_run['id']}/timeline"))
    assert [(s["step"], s["name"]) for s in story["steps"]] == [
        (0, "scenario"),
        (1, "scale web to 6"),
        (2, "maintenance on node-1"),
    ]
    scale, drain = story["steps"][1]["summary"], story["steps"][2]["summary"]
    assert len(scale["created"]) == 2 and len(scale["placed"]) == 2 and scale["pending"] == []
    assert story["steps"][2]["operations"] == ["drain node-1"]
    assert len(drain["evicted"]) == 2 and len(drain["created"]) == 2 and drain["blocked"] == []
    assert story["steps"][2]["text"].startswith("step 2 — maintenance on node-1: 2 created, 2 evicted, 2 placed")
    step_entries = [e["index"] for e in story["entries"] if e["kind"] == "step"]
    assert step_entries == [0, 1, 2]


def test_a_run_without_steps_has_no_steps_in_its_timeline(owner: Client, scenario: dict):
    run = owner.post(f"/api/scenarios/{scenario['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    assert "steps" not in streamed_json(owner.get(f"/api/runs/{run['id']}/timeline"))
    assert owner.get(f"/api/runs/{run['id']}/steps/0/cluster").status_code == 404


def test_the_cluster_at_the_end_of_a_step_marks_what_it_created_and_evicted(owner: Client, stepped_run: dict):
    url = f"/api/runs/{stepped_run['id']}/steps/{{}}/cluster"
    scaled = owner.get(url.format(1)).json()
    assert [n["name"] for n in scaled["nodes"]] == ["node-1", "node-2", "node-3"]
    marks = [p["mark"] for p in scaled["pods"]]
    assert marks.count("new") == 2 and marks.count("") == 4 and scaled["gone"] == []
    assert all(p["labels"]["app"] == "web" for p in scaled["pods"])
    drained = owner.get(url.format(2)).json()
    node_1 = next(n for n in drained["nodes"] if n["name"] == "node-1")
    assert node_1["unschedulable"] is True
    assert [(g["node"], g["how"]) for g in drained["gone"]] == [("node-1", "evicted"), ("node-1", "evicted")]
    assert all(p["node"] != "node-1" for p in drained["pods"])
    assert owner.get(url.format(3)).status_code == 404


def test_the_cluster_of_a_step_is_read_only_to_others(stranger: Client, stepped_run: dict):
    assert stranger.get(f"/api/runs/{stepped_run['id']}/steps/1/cluster").status_code == 404


def test_a_drain_blocked_by_a_budget_is_in_the_steps_summary_with_the_budget(owner: Client):
    text = (
        EXAMPLE.read_text().replace("minAvailable: 5", "minAvailable: 4").replace("replicas: 6}", "replicas: 4}")
    )  # 4 running, 4 wanted: no eviction is allowed
    created = owner.post("/api/scenarios", {"name": "blocked", "text": text}, content_type="application/json").json()
    run = owner.post(f"/api/scenarios/{created['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    drain = streamed_json(owner.get(f"/api/runs/{run['id']}/timeline"))["steps"][2]["summary"]
    assert drain["evicted"] == [] and drain["blocked"]
    assert {b["budget"] for b in drain["blocked"]} == {"default/web-pdb"}
    cluster = owner.get(f"/api/runs/{run['id']}/steps/2/cluster").json()
    assert cluster["gone"] == [] and next(n for n in cluster["nodes"] if n["name"] == "node-1")["unschedulable"] is True


def test_a_large_step_cluster_is_sent_gzipped_to_clients_that_accept_it(owner: Client, stepped_run: dict, monkeypatch):
    monkeypatch.setattr(responses, "GZIP_MIN_BYTES", 100)
    response = owner.get(f"/api/runs/{stepped_run['id']}/steps/1/cluster", HTTP_ACCEPT_ENCODING="gzip")
    assert response["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(response.content))["step"] == 1


def test_a_stuck_rollout_is_in_its_steps_summary_and_its_new_pod_has_the_new_templates_labels(owner: Client):
    example = EXAMPLE.parent / "rollout_stuck.yaml"
    created = owner.post(
        "/api/scenarios", {"name": "rollout", "text": example.read_text()}, content_type="application/json"
    ).json()
    run = owner.post(f"/api/scenarios/{created['id']}/runs").json()
    execute_run.apply(args=[run["id"]])
    story = streamed_json(owner.get(f"/api/runs/{run['id']}/timeline"))
    assert "rollouts" not in story["steps"][0]["summary"]
    (rollout,) = story["steps"][1]["summary"]["rollouts"]
    assert (rollout["kind"], rollout["complete"], rollout["updated"], rollout["available"], rollout["desired"]) == (
        "Deployment",
        False,
        1,
        3,
        3,
    )
    assert [p["pod"] for p in rollout["pending"]] == story["steps"][1]["summary"]["pending"]
    assert "Insufficient memory" in rollout["pending"][0]["failedSchedulingMessage"]
    cluster = owner.get(f"/api/runs/{run['id']}/steps/1/cluster").json()
    (new,) = [p for p in cluster["pods"] if p["mark"] == "new"]
    assert new["labels"]["app"] == "web" and new["pod"].startswith(f"default/web-{new['labels']['pod-template-hash']}-")
    assert rollout["updateRevision"] == new["pod"].rsplit("-", 1)[0]


# --- The run view's bounded reads (issue 50): the story's summary, its entries a page at a time, a step's
# cluster a page at a time; the whole story only as a streamed download.


def _share(owner: Client, run: dict) -> dict:
    """A share link to the run's version and the run: the headers a holder of it sends."""
    response = owner.post(f"/api/scenarios/{run['scenario']}/share", {"run": run["id"]}, content_type=JSON)
    assert response.status_code == 201, response.content
    return {"X-Share-Token": response.json()["token"]}


@pytest.fixture
def busy_run(owner: Client) -> dict:
    """6 pending pods on 3 nodes run to the end: attempts, queue moves and bindings to page through."""
    text = support.scenario_text(nodes=3, pending=6, running=1)
    created = owner.post("/api/scenarios", {"name": "busy", "text": text}, content_type=JSON).json()
    run = start(owner, created["id"]).json()
    run_now(run["id"])
    return owner.get(f"/api/runs/{run['id']}").json()


def test_the_timeline_summary_counts_the_story_and_leaves_its_entries_out(owner: Client, busy_run: dict):
    whole = streamed_json(owner.get(f"/api/runs/{busy_run['id']}/timeline"))
    summary = owner.get(f"/api/runs/{busy_run['id']}/timeline/summary").json()
    assert set(summary) == {"mode", "timeMs", "finished", "outcome", "counts", "recorded"}
    assert (summary["outcome"], summary["timeMs"], summary["finished"]) == (
        whole["outcome"],
        whole["timeMs"],
        True,
    )
    counts = summary["counts"]
    assert (counts["entries"], counts["attempts"], counts["moves"], counts["changes"]) == tuple(
        len(whole[key]) for key in ("entries", "attempts", "moves", "changes")
    )
    assert counts["pods"] == len(whole["final"]) == counts["placed"] + counts["pending"] + counts["deleted"]
    assert (counts["placed"], counts["pending"]) == (7, 0)  # the running pod and the 6 placed


def test_the_timeline_entries_are_read_a_page_at_a_time(owner: Client, busy_run: dict):
    url = f"/api/runs/{busy_run['id']}/timeline/entries"
    whole = streamed_json(owner.get(f"/api/runs/{busy_run['id']}/timeline"))
    total = len(whole["entries"])
    first = owner.get(f"{url}?limit=3").json()
    assert (first["total"], first["matched"], first["offset"], first["limit"]) == (total, total, 0, 3)
    second = owner.get(f"{url}?limit=3&offset=3").json()
    lists = {"attempt": "attempts", "move": "moves", "change": "changes"}
    paged = first["entries"] + second["entries"]
    assert [{"kind": e["kind"], "index": e["index"]} for e in paged] == whole["entries"][:6]
    assert all(e["item"] == whole[lists[e["kind"]]][e["index"]] for e in paged)
    past = owner.get(f"{url}?offset={total + 10}").json()
    assert past["entries"] == [] and (past["matched"], past["offset"]) == (total, total + 10)
    assert len(owner.get(url).json()["entries"]) == min(total, events.TIMELINE_PAGE)


def test_the_timeline_entries_filter_by_pod_and_kind_and_find_a_cycles_page(owner: Client, busy_run: dict):
    url = f"/api/runs/{busy_run['id']}/timeline/entries"
    whole = streamed_json(owner.get(f"/api/runs/{busy_run['id']}/timeline"))
    attempts = owner.get(f"{url}?kind=attempt&limit=1000").json()
    assert attempts["matched"] == len(whole["attempts"]) and {e["kind"] for e in attempts["entries"]} == {"attempt"}
    pod = owner.get(f"{url}?pod=pending-3").json()
    assert pod["matched"] >= 2 and pod["pod"] == "pending-3"  # its attempt and its binding at least
    assert all(e["item"]["pod"] == "default/pending-3" for e in pod["entries"])
    assert owner.get(f"{url}?pod=nobody").json()["matched"] == 0
    last = whole["attempts"][-1]["cycle"]
    found = owner.get(f"{url}?cycle={last}&limit=2").json()
    assert found["offset"] % 2 == 0 and any(
        e["kind"] == "attempt" and e["item"]["cycle"] == last for e in found["entries"]
    )
    assert owner.get(f"{url}?cycle=9999&offset=2&limit=2").json()["offset"] == 2  # no such attempt: as asked


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("offset=-1", "offset"),
        ("kind=pods", "kind"),
        ("cycle=-1", "cycle"),
    ],
)
def test_a_timeline_entries_parameter_out_of_its_range_is_refused_by_name(
    owner: Client, busy_run: dict, query: str, name: str
):
    response = owner.get(f"/api/runs/{busy_run['id']}/timeline/entries?{query}")
    assert response.status_code == 422
    assert [error["loc"][-1] for error in response.json()["error"]["details"]["errors"]] == [name]


def test_the_timeline_summary_and_entries_are_read_only_to_a_share_link_and_hidden_from_others(
    owner: Client, stranger: Client, busy_run: dict
):
    headers = _share(owner, busy_run)
    base = f"/api/runs/{busy_run['id']}/timeline"
    assert stranger.get(f"{base}/summary", headers=headers).json()["finished"] is True
    assert stranger.get(f"{base}/entries?limit=2", headers=headers).json()["entries"]
    assert stranger.get(f"{base}/summary").status_code == 404
    assert stranger.get(f"{base}/entries").status_code == 404
    assert stranger.post(f"/api/runs/{busy_run['id']}/cancel", headers=headers).status_code in (403, 404)
    assert stranger.delete(f"/api/runs/{busy_run['id']}", headers=headers).status_code in (403, 404)


def test_the_summary_of_a_run_with_steps_has_its_steps(owner: Client, stepped_run: dict):
    summary = owner.get(f"/api/runs/{stepped_run['id']}/timeline/summary").json()
    assert [s["step"] for s in summary["steps"]] == [0, 1, 2]
    assert (
        summary["steps"][1]["summary"]["created"]
        == streamed_json(owner.get(f"/api/runs/{stepped_run['id']}/timeline"))["steps"][1]["summary"]["created"]
    )
    headings = owner.get(f"/api/runs/{stepped_run['id']}/timeline/entries?pod=nobody").json()
    assert [e["kind"] for e in headings["entries"]] == ["step", "step", "step"]  # a pod's journey keeps the steps
    # A heading without its summary (whose lists name every pod the step touched): the summary's own.
    assert headings["entries"][1]["item"]["text"] == summary["steps"][1]["text"]
    assert all("summary" not in e["item"] for e in headings["entries"])


def test_the_cluster_at_the_end_of_a_step_is_read_a_page_at_a_time(owner: Client, stepped_run: dict):
    url = f"/api/runs/{stepped_run['id']}/steps/2/cluster"
    whole = owner.get(url).json()
    assert (whole["nodeCount"], whole["matched"], whole["step"], whole["goneCount"]) == (3, 3, 2, 2)
    assert whole["marks"]["gone"] == 2 and whole["marks"]["new"] == 2
    assert sum(whole["marks"][m] for m in ("new", "placed", "moved", "pending")) <= whole["podCount"]
    assert whole["nodes"][0]["allocatable"] and whole["nodes"][0]["allocatableText"]  # the version's
    first = owner.get(f"{url}?limit=1").json()
    assert [n["name"] for n in first["nodes"]] == ["node-1"] and first["matched"] == 3
    assert {g["node"] for g in first["gone"]} == {"node-1"}  # the pods that left from the page's node
    assert all(p["node"] == "node-1" or p["node"] is None for p in first["pods"])
    second = owner.get(f"{url}?limit=1&offset=1").json()
    assert [n["name"] for n in second["nodes"]] == ["node-2"] and second["gone"] == []
    assert owner.get(f"{url}?offset=9").json()["nodes"] == []
    assert [n["name"] for n in owner.get(f"{url}?search=NODE-3").json()["nodes"]] == ["node-3"]
    assert owner.get(f"{url}?groupKey=kubernetes.io/hostname").json()["groupCount"] == 3
    refused = owner.get(f"{url}?limit=501")
    assert refused.status_code == 422 and refused.json()["error"]["details"]["errors"][0]["loc"][-1] == "limit"


def test_the_cluster_of_a_step_is_read_only_to_a_share_link(owner: Client, stranger: Client, stepped_run: dict):
    headers = _share(owner, stepped_run)
    assert stranger.get(f"/api/runs/{stepped_run['id']}/steps/1/cluster", headers=headers).json()["step"] == 1


def test_the_summary_names_a_steps_first_pods_and_counts_them_all(owner: Client, stepped_run: dict, monkeypatch):
    monkeypatch.setattr(presenters, "STEP_PODS_LISTED", 1)
    scale = owner.get(f"/api/runs/{stepped_run['id']}/timeline/summary").json()["steps"][1]["summary"]
    whole = streamed_json(owner.get(f"/api/runs/{stepped_run['id']}/timeline"))["steps"][1]["summary"]
    assert scale["created"] == whole["created"][:1] and len(whole["created"]) == 2
    assert scale["counts"] == {"created": 2, "deleted": 0, "evicted": 0, "placed": 2, "pending": 0, "succeeded": 0}
    assert "counts" not in whole  # the download keeps every name, as timeline --json writes them
