"""/api/scenarios/{id}/runs and /api/runs/*: start, read, events pages, trace, cancel, limits."""

from datetime import timedelta
from ipaddress import ip_network
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from webui.models import Run, RunSegment, RunStatus
from webui.services import claims, engine, execution, runs
from webui.tasks import execute_run

pytestmark = pytest.mark.django_db
JSON = "application/json"


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


def test_it_enqueues_the_task_only_after_commit(owner: Client, scenario: dict, django_capture_on_commit_callbacks, monkeypatch):
    sent = []
    monkeypatch.setattr(execute_run, "delay", lambda run_id: sent.append(run_id))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        run = start(owner, scenario["id"]).json()
    assert sent == []
    for callback in callbacks:
        callback()
    assert sent == [run["id"]]


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


def test_the_timeline_lists_attempts_moves_and_changes(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    story = owner.get(f"/api/runs/{run['id']}/timeline").json()
    assert story["mode"] == "timeline" and story["finished"] is True
    assert [(a["cycle"], a["pod"], a["attempt"]) for a in story["attempts"]] == \
        [(0, "default/pending-0", 1), (1, "default/pending-1", 1)]
    assert all(a["nodeName"] and a["timeMs"] == 0 for a in story["attempts"])
    assert [(m["pod"], m["queue"], m["event"], m["text"]) for m in story["moves"]][:2] == [
        ("default/pending-0", "activeQ", "UnschedulablePodAdd", "default/pending-0 moved to activeQ: created"),
        ("default/pending-1", "activeQ", "UnschedulablePodAdd", "default/pending-1 moved to activeQ: created")]
    assert {c["kind"] for c in story["changes"]} == {"PodBound"}
    assert set(story["final"]) >= {"default/pending-0", "default/pending-1"}


def test_it_builds_the_trace_summary_from_stored_events(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    trace = owner.get(f"/api/runs/{run['id']}/trace").json()
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
    created = owner.post("/api/scenarios", {"name": "wide", "text": support.scenario_text(3, 1)}, content_type=JSON).json()
    assert (created["valid"], created["version"]) == (False, 1)
    [problem] = created["errors"]
    assert (problem["code"], problem["limit"]) == ("limit_exceeded", "max_nodes")
    response = start(owner, created["id"])
    assert response.status_code == 413
    error = response.json()["error"]
    assert (error["code"], error["details"]["limit"], error["details"]["max"]) == ("limit_exceeded", "max_nodes", 2)
    assert "max_nodes" in error["message"] and error["details"]["errors"] == [problem]


def test_it_answers_validate_over_a_size_limit_with_413_and_every_problem(owner: Client, settings):
    from tests.webui import support

    settings.SCHEDLAB_MAX_PENDING_PODS = 1
    response = owner.post("/api/validate", {"text": support.scenario_text(2, 3)}, content_type=JSON)
    assert response.status_code == 413
    error = response.json()["error"]
    assert (error["code"], error["details"]["limit"], error["details"]["max"]) == ("limit_exceeded", "max_pending_pods", 1)
    assert [e["limit"] for e in error["details"]["errors"]] == ["max_pending_pods"]


def test_it_still_refuses_an_invalid_run_with_400(owner: Client):
    created = owner.post("/api/scenarios", {"name": "bad", "text": "kind: [broken"}, content_type=JSON).json()
    response = start(owner, created["id"])
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "scenario_invalid" and error["details"]["errors"][0]["code"] == "invalid"


def test_it_keeps_the_trace_of_a_finished_run(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    run_now(run["id"])
    first = owner.get(f"/api/runs/{run['id']}/trace").json()
    assert Run.objects.get(pk=run["id"]).trace == first
    assert owner.get(f"/api/runs/{run['id']}/trace").json() == first


def test_it_compares_two_runs_of_two_configurations(owner: Client):
    from pathlib import Path

    here = Path(__file__).resolve().parents[1] / "fixtures" / "compare"
    text = (here / "two_nodes.yaml").read_text()
    created = owner.post("/api/scenarios", {"name": "cmp", "text": text}, content_type=JSON).json()
    first = start(owner, created["id"]).json()
    run_now(first["id"])
    owner.put(f"/api/scenarios/{created['id']}", {"text": text + "---\n" + (here / "most_allocated.yaml").read_text()},
              content_type=JSON)
    second = start(owner, created["id"]).json()
    run_now(second["id"])
    result = owner.get(f"/api/comparisons?a={first['id']}&b={second['id']}&pod=default/web").json()
    assert result["summary"] == "1 pod(s) land elsewhere in B than in A."
    assert {"pod": "default/web", "a": "n2", "b": "n1"} in result["pods"]  # LeastAllocated, then MostAllocated
    assert result["scores"]["pod"] == "default/web" and result["modes"] == ["timeline", "timeline"]


def test_it_refuses_to_compare_a_run_that_has_not_finished(owner: Client, scenario: dict):
    finished = start(owner, scenario["id"]).json()
    run_now(finished["id"])
    queued = start(owner, scenario["id"]).json()
    response = owner.get(f"/api/comparisons?a={finished['id']}&b={queued['id']}")
    assert response.status_code == 400 and "have not succeeded" in response.json()["error"]["message"]


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
WHATIF_SCENARIO = (FIXTURES / "whatif" / "tainted.yaml").read_text()


def test_what_would_make_it_fit_then_apply_and_run_it(owner: Client):
    created = owner.post("/api/scenarios", {"name": "taint", "text": WHATIF_SCENARIO}, content_type=JSON).json()
    run = start(owner, created["id"]).json()
    run_now(run["id"])
    answer = owner.get(f"/api/runs/{run['id']}/whatif?pod=default/p").json()
    assert [s["text"] for s in answer["suggestions"]] == ["tolerate the taint gpu=a100:NoSchedule"]
    applied = owner.post(f"/api/runs/{run['id']}/whatif/apply", {"pod": "default/p", "suggestion": 0}, content_type=JSON)
    assert applied.status_code == 201, applied.content
    new_run = applied.json()
    assert new_run["version"] == 2
    run_now(new_run["id"])
    assert owner.get(f"/api/runs/{new_run['id']}/timeline").json()["final"]["default/p"] == "n1"
    text = owner.get(f"/api/scenarios/{created['id']}").json()["text"]
    assert text.startswith("# a tainted node and a pod without the toleration\n")  # untouched documents keep their text
    assert "tolerations" in text


def test_what_if_for_a_pod_that_is_not_pending_is_a_clear_400(owner: Client, scenario: dict):
    run = start(owner, scenario["id"]).json()
    response = owner.get(f"/api/runs/{run['id']}/whatif?pod=default/nobody")
    assert response.status_code == 400 and "not a pending pod" in response.json()["error"]["message"]


def test_a_comparison_share_link_reads_both_runs_and_nothing_else(owner: Client, stranger: Client, scenario: dict):
    a, b, other = (start(owner, scenario["id"]).json() for _ in range(3))
    for run in (a, b, other):
        run_now(run["id"])
    link = owner.post(f"/api/scenarios/{scenario['id']}/share", {"run": a["id"], "compareRun": b["id"]}, content_type=JSON).json()
    assert link["compareRun"] == b["id"]
    token = {"HTTP_X_SHARE_TOKEN": link["token"]}
    assert stranger.get(f"/api/comparisons?a={a['id']}&b={b['id']}", **token).status_code == 200
    assert stranger.get(f"/api/comparisons?a={a['id']}&b={other['id']}", **token).status_code == 404
    assert stranger.get(f"/api/share/{link['token']}").json()["compareRun"] == b["id"]
    tried = stranger.post(f"/api/runs/{a['id']}/try-config", {"config": MOST_ALLOCATED}, content_type=JSON, **token)
    assert tried.status_code == 403


MOST_ALLOCATED = (FIXTURES / "compare" / "most_allocated.yaml").read_text()


def test_another_configuration_is_a_new_version_run_and_compared(owner: Client, scenario: dict):
    first = start(owner, scenario["id"]).json()
    run_now(first["id"])
    assert owner.get(f"/api/runs/{first['id']}/config").json()["fromScenario"] is False
    response = owner.post(f"/api/runs/{first['id']}/try-config", {"config": MOST_ALLOCATED}, content_type=JSON)
    assert response.status_code == 201, response.content
    second = response.json()
    assert (second["scenario"], second["version"], second["mode"]) == (scenario["id"], 2, first["mode"])
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
    response = owner.post(f"/api/runs/{run['id']}/try-config", {"config": MOST_ALLOCATED.replace("MostAllocated", "Cheapest")},
                          content_type=JSON)
    assert response.status_code == 400
    [error] = response.json()["error"]["details"]["errors"]
    assert error["line"] == 9
    assert owner.post(f"/api/runs/{run['id']}/try-config", {"config": "kind: Node\n"}, content_type=JSON).status_code == 400
    assert len(owner.get(f"/api/scenarios/{scenario['id']}/versions").json()) == 1


def test_applying_a_what_if_to_a_demo_run_saves_it_in_a_fork(stranger: Client):
    from webui.services import demos

    demos.load_all()
    demo = stranger.get("/api/scenarios?q=conflict").json()[0]
    run = start(stranger, demo["id"]).json()
    run_now(run["id"])
    answer = stranger.get(f"/api/runs/{run['id']}/whatif?pod=default/mypod").json()
    assert answer["suggestions"][0]["kind"] == "maxSkew"
    applied = stranger.post(f"/api/runs/{run['id']}/whatif/apply", {"pod": "default/mypod", "suggestion": 0}, content_type=JSON)
    assert applied.status_code == 201, applied.content
    new_run = applied.json()
    assert new_run["scenario"] != demo["id"]
    run_now(new_run["id"])
    assert stranger.get(f"/api/runs/{new_run['id']}/timeline").json()["final"]["default/mypod"] is not None
    assert stranger.get(f"/api/scenarios/{new_run['scenario']}").json()["name"].endswith("(what if)")
