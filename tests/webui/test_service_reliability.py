"""Production mode (PostgreSQL, Redis, daphne, a Celery worker) when things go wrong: the database
refuses connections, a claim's connection is killed, a scenario is deleted while its run writes,
many fresh sessions start runs at once."""

from __future__ import annotations

import json
import re
import socket
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.webui import support

pytestmark = pytest.mark.service
LIMITED_ROLE = "schedlab_limited"  # not a superuser: CONNECTION LIMIT applies to it
POOL_MAX = 3
# Tens of seconds of engine time (120 pending pods took under 3 s once the engine got faster, and the
# run had finished by the time the test looked): each run is deleted after its first 300 events, so
# the size costs the suite nothing.
BIG = support.scenario_text(500, 1000, 200)


# --- the database out of connections ---------------------------------------------------------------


def limited_role(connection_limit: int) -> None:
    support.postgres_execute(
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{LIMITED_ROLE}') "
        f"THEN CREATE ROLE {LIMITED_ROLE} LOGIN; END IF; END $$"
    )
    support.postgres_execute(f"ALTER ROLE {LIMITED_ROLE} CONNECTION LIMIT {connection_limit}")
    support.postgres_execute(f"GRANT ALL ON SCHEMA public TO {LIMITED_ROLE}")


def role_connections() -> int:
    [(count,)] = support.postgres_rows("SELECT count(*) FROM pg_stat_activity WHERE usename = %s", LIMITED_ROLE)
    return count


@pytest.fixture
def limited_web(tmp_path, request):
    """daphne alone, as a role PostgreSQL lets open at most POOL_MAX + 2 connections. A request waits
    for a pooled connection up to the test's `pool_timeout` mark (seconds), else 1 s."""
    mark = request.node.get_closest_marker("pool_timeout")
    stack = support.Stack(
        tmp_path,
        DATABASE_URL=f"postgres://{LIMITED_ROLE}@127.0.0.1:5432/test",
        SCHEDLAB_DB_POOL_MAX_SIZE=str(POOL_MAX),
        SCHEDLAB_DB_POOL_TIMEOUT=str(mark.args[0] if mark else 1),
        SCHEDLAB_RETRY_AFTER_SECONDS="7",
        SCHEDLAB_MAX_QUEUED_RUNS_PER_ADDRESS="3",
    )
    stack.start(before_migrate=lambda: limited_role(POOL_MAX + 2))
    yield stack
    stack.stop()
    support.postgres_execute(f"ALTER ROLE {LIMITED_ROLE} CONNECTION LIMIT -1")


@pytest.mark.pool_timeout(60)  # here every request waits its turn: a busy CI box must not make 503s
def test_it_keeps_to_its_connection_budget_under_concurrent_requests(limited_web):
    """The issue's daphne kept a connection per thread until PostgreSQL refused clients."""
    clients = [limited_web.client() for _ in range(6)]
    owned = [
        c.request("POST", "/api/scenarios", {"name": "s", "text": support.scenario_text(20, 4)}).body["id"]
        for c in clients
    ]
    peak = 0

    def read(i: int) -> int:
        client, scenario_id = clients[i % len(clients)], owned[i % len(clients)]
        path = ["/api/scenarios", f"/api/scenarios/{scenario_id}", "/api/runs", "/api/session"][i % 4]
        return client.request("GET", path).status

    with ThreadPoolExecutor(30) as pool:
        pending = [pool.submit(read, i) for i in range(600)]
        while not all(f.done() for f in pending):
            peak = max(peak, role_connections())
            time.sleep(0.01)
        statuses = [f.result() for f in pending]
    assert Counter(statuses) == {200: 600}
    assert 1 <= peak <= POOL_MAX
    print(f"\n600 requests from 30 threads: peak {peak} PostgreSQL connections (pool max {POOL_MAX})")


def test_it_answers_503_json_with_retry_after_while_the_database_refuses_connections(limited_web):
    client = limited_web.client()
    created = client.request("POST", "/api/scenarios", {"name": "s", "text": support.scenario_text(3, 1)})
    assert created.status == 201
    support.postgres_execute(f"ALTER ROLE {LIMITED_ROLE} CONNECTION LIMIT 0")
    support.postgres_execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", LIMITED_ROLE)

    answers = [
        client.request("GET", "/api/runs"),  # the session read fails first
        client.request("GET", f"/api/scenarios/{created.body['id']}"),
        client.request("POST", "/api/scenarios", {"name": "t", "text": ""}),
    ]
    for answer in answers:
        assert answer.status == 503, answer.body
        assert answer.body["error"]["code"] == "service_unavailable", answer.body
        assert answer.body["error"]["details"] == {"retryAfter": 7}
    page = raw_get(limited_web.port, "/admin/", client.cookie_header())
    assert page.startswith(b"HTTP/1.1 503") and b"Retry-After: 7" in page and b"SchedLab is busy" in page

    support.postgres_execute(f"ALTER ROLE {LIMITED_ROLE} CONNECTION LIMIT {POOL_MAX + 2}")
    support.wait_until(lambda: client.request("GET", "/api/runs").status == 200, 60, 0.5, "the pool to reconnect")


def raw_get(port: int, path: str, cookie: str) -> bytes:
    """The raw answer, headers included (the test client keeps only status and body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n".encode()
        )
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


# Every request waits its turn for a pooled connection: the starts are serialized while each holds
# one, so on a busy machine a 1 s wait answered 503 (busy) before the limit could answer 429.
@pytest.mark.pool_timeout(60)
def test_it_holds_the_per_address_limit_against_fresh_sessions_starting_at_once(limited_web):
    visitors = [limited_web.client() for _ in range(10)]
    scenarios = [
        v.request("POST", "/api/scenarios", {"name": "s", "text": support.scenario_text(3, 1)}).body for v in visitors
    ]
    with ThreadPoolExecutor(10) as pool:
        answers = list(
            pool.map(
                lambda pair: pair[0].request("POST", f"/api/scenarios/{pair[1]['id']}/runs"), zip(visitors, scenarios)
            )
        )
    assert sorted(a.status for a in answers) == [201] * 3 + [429] * 7
    limits = {a.body["error"]["details"]["limit"] for a in answers if a.status == 429}
    assert limits == {"max_queued_runs_per_address"}


# --- a claim whose connection dies ---------------------------------------------------------------------


def kill_claims(times: int) -> None:
    """PostgreSQL itself kills the connection of the first `times` claims (queued -> running): the
    claim's UPDATE dies with 'terminating connection due to administrator command'. A sequence
    counts them: nextval is not rolled back with the killed transaction."""
    support.postgres_execute("CREATE SEQUENCE claim_kills")
    support.postgres_execute(f"""
        CREATE FUNCTION kill_claim() RETURNS trigger AS $$
        BEGIN
          IF OLD.status = 'queued' AND NEW.status = 'running' THEN
            IF nextval('claim_kills') <= {times} THEN
              PERFORM pg_terminate_backend(pg_backend_pid());
            END IF;
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql""")
    support.postgres_execute(
        "CREATE TRIGGER kill_claim BEFORE UPDATE ON webui_run FOR EACH ROW EXECUTE FUNCTION kill_claim()"
    )


def claims_seen() -> int:
    [(last, called)] = support.postgres_rows("SELECT last_value, is_called FROM claim_kills")
    return last if called else 0


@pytest.fixture
def recovering(tmp_path):
    stack = support.Stack(
        tmp_path,
        SCHEDLAB_QUEUED_STALE_SECONDS="2",
        SCHEDLAB_RECOVERY_SWEEP_SECONDS="0.5",
        SCHEDLAB_MAX_RUN_ATTEMPTS="2",
        SCHEDLAB_EVENT_FLUSH_SECONDS="0.05",
    ).start()
    yield stack
    stack.stop()


def test_it_runs_exactly_once_a_run_whose_claim_lost_its_database_connection(recovering):
    kill_claims(times=1)
    # The count starts once the worker consumes its queue (a worker still importing on a busy machine
    # would let the first send go stale before its claim was even tried).
    recovering.wait_for_worker("claims", recovering.start_worker("claims"))
    client = recovering.client()
    scenario = client.request("POST", "/api/scenarios", {"name": "s", "text": support.scenario_text(6, 4, 2)}).body
    run = client.request("POST", f"/api/scenarios/{scenario['id']}/runs").body
    final = support.wait_for_run(client, run["id"], 120)

    assert (final["status"], final["attempts"]) == ("succeeded", 1), final
    assert claims_seen() == 2  # the killed claim, then the one the recovery's message made
    [(enqueues,)] = support.postgres_rows("SELECT enqueues FROM webui_run WHERE id = %s", run["id"])
    assert enqueues == 2
    log = (recovering.tmp / "claims.log").read_text(errors="replace")
    assert f"run {run['id']}: claiming it failed" in log
    assert log.count(f"'run {run['id']}: succeeded'") == 1
    count, distinct, top, event_count = support.stored_seqs_ok(run["id"])
    assert count == distinct == top == event_count > 0


def test_it_fails_with_the_reason_a_run_that_no_claim_can_start(recovering):
    """Every claim is killed: the run fails after its second unclaimed send. The count of claims is
    what is checked, so the run starts only once the worker consumes its queue (a worker still
    importing on a busy machine let both sends go stale unseen: claims_seen() == 0), and each send
    is awaited by its claim, not by a time."""
    kill_claims(times=1000)
    recovering.wait_for_worker("claims", recovering.start_worker("claims"))
    client = recovering.client()
    scenario = client.request("POST", "/api/scenarios", {"name": "s", "text": support.scenario_text(3, 1)}).body
    run = client.request("POST", f"/api/scenarios/{scenario['id']}/runs").body
    support.wait_until(lambda: claims_seen() >= 1, 120, 0.1, "the first claim")
    final = support.wait_for_run(client, run["id"], 120)
    assert final["status"] == "failed" and final["attempts"] == 0
    assert final["error"].startswith("no worker could start it: its task was sent 2 times without being claimed")
    assert claims_seen() == 2


# --- deleting while the run writes -------------------------------------------------------------------


def running_run(stack, client, name: str) -> dict:
    scenario = client.request("POST", "/api/scenarios", {"name": name, "text": BIG}).body
    run = client.request("POST", f"/api/scenarios/{scenario['id']}/runs").body
    support.wait_until(
        lambda: client.request("GET", f"/api/runs/{run['id']}").body["eventCount"] >= 300, 120, 0.05, "300 events"
    )
    return {"scenario": scenario["id"], "run": run["id"]}


def rows_left(scenario_id: int, run_id: int) -> dict[str, int]:
    tables = {
        "scenario": ("webui_scenario", "id", scenario_id),
        "versions": ("webui_scenarioversion", "scenario_id", scenario_id),
        "run": ("webui_run", "id", run_id),
        "events": ("webui_runsegment", "run_id", run_id),
        "cycles": ("webui_runcycle", "run_id", run_id),
    }
    return {
        name: support.postgres_rows(f"SELECT count(*) FROM {table} WHERE {column} = %s", key)[0][0]
        for name, (table, column, key) in tables.items()
    }


def test_it_deletes_a_scenario_or_run_while_its_run_is_writing_events(recovering):
    # Runs are sent once the worker consumes its queue: a worker still importing on a busy machine let
    # both sends of the first run go stale unclaimed (SCHEDLAB_QUEUED_STALE_SECONDS=2), the run failed
    # with no event and the wait for its 300 events timed out (CI, stop 53).
    recovering.wait_for_worker("deletes", recovering.start_worker("deletes"))
    client = recovering.client()
    deleted = []
    for attempt in range(3):  # the issue: 3 of 3 deletes answered 500
        live = running_run(recovering, client, f"big-{attempt}")
        assert client.request("GET", f"/api/runs/{live['run']}").body["status"] == "running"
        answer = client.request("DELETE", f"/api/scenarios/{live['scenario']}")
        assert answer.status == 204, answer.body
        deleted.append(live)
    live = running_run(recovering, client, "big-run-delete")
    assert client.request("DELETE", f"/api/runs/{live['run']}").status == 204
    assert client.request("GET", f"/api/scenarios/{live['scenario']}").status == 200  # only the run went

    # The worker stops at its next write and picks up the next run.
    after = client.request("POST", "/api/scenarios", {"name": "after", "text": support.scenario_text(6, 4, 2)}).body
    final = support.wait_for_run(client, client.request("POST", f"/api/scenarios/{after['id']}/runs").body["id"], 120)
    assert final["status"] == "succeeded"
    for gone in deleted:
        assert rows_left(gone["scenario"], gone["run"]) == {
            "scenario": 0,
            "versions": 0,
            "run": 0,
            "events": 0,
            "cycles": 0,
        }
    assert rows_left(live["scenario"], live["run"])["events"] == 0
    logs = recovering.logs()
    assert "IntegrityError" not in logs and "Traceback" not in logs, logs
    assert (
        len(
            re.findall(
                r"cancelled, deleted or claimed by another worker; stopping",
                (recovering.tmp / "deletes.log").read_text(),
            )
        )
        == 4
    )
    print(json.dumps({"deleted while running": len(deleted) + 1}))
