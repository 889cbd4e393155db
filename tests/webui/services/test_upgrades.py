"""webui/services/upgrades.py: what changes if we upgrade — a comparison asked, sent to the long-work
queue, run to the engine's answer with its progress, cancelled, recovered; fleet checks of several
scenarios, each from its own release (driven in this process: InProcessLongWorkers)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from scheduler_core.answers.upgrade import compare_releases
from scheduler_core.release.versions import release_named
from scheduler_core.run.loop import run_to_the_end
from scheduler_core.scenario.loader import load_scenario
from tests.webui import support
from tests.webui.upgrade_support import MOVES_ON_UPGRADE, InProcessLongWorkers, said_to_run
from webui import publisher
from webui.models import FleetCheck, Run, Scenario, ScenarioVersion, ShareLink, Upgrade, UpgradeStatus
from webui.services import engine, upgrades
from webui.services.access import Actor
from webui.services.errors import Conflict, DomainError, InvalidScenario, LimitExceeded, NotFound, ReleaseInvalid

pytestmark = pytest.mark.django_db
ME = Actor(session_key="me")


def scenario_of(text: str, name: str = "s", owner: str = "me") -> Scenario:
    scenario = Scenario.objects.create(name=name, owner_session_key=owner)
    ScenarioVersion.objects.create(scenario=scenario, number=1, text=text)
    return scenario


@pytest.fixture
def workers(monkeypatch) -> InProcessLongWorkers:
    return InProcessLongWorkers(monkeypatch)


@pytest.fixture
def told(monkeypatch) -> list[tuple[int, int | None]]:
    published: list[tuple[int, int | None]] = []
    monkeypatch.setattr(publisher, "publish_upgrade", lambda pk, fleet=None: published.append((pk, fleet)))
    return published


def test_by_default_it_compares_the_dump_s_release_with_the_next_newer_one(
    workers, told, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        asked = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())
    assert (asked.old_release, asked.new_release, asked.status) == ("v1.35", "v1.36", UpgradeStatus.QUEUED)
    assert asked.release_choice["source"] == "default" and asked.feature_gates is None
    assert workers.sent == [asked.pk]  # sent once the row is committed
    assert workers.drain() == [f"upgrade {asked.pk}: succeeded"]
    done = Upgrade.objects.get(pk=asked.pk)
    expected = compare_releases(
        load_scenario(MOVES_ON_UPGRADE), release_named("v1.35"), release_named("v1.36"), run_to_the_end
    )
    assert done.answer == expected.to_json()  # the engine's answer, as it wrote it
    assert done.counts == {
        "elsewhere": 1,
        "morePending": 0,
        "rescored": 1,
        "reworded": 0,
        "causes": ["balanced_allocation_scores_the_change"],
    }
    assert done.done == done.total > 2 and done.what.startswith("v1.36.3 without ")
    assert (done.attempts, done.claimed_by, done.finished is not None) == (1, "test-worker", True)
    assert (asked.pk, None) in told  # every report told the watchers


def test_the_releases_and_gates_asked_are_the_comparison_s(workers, django_capture_on_commit_callbacks):
    scenario = scenario_of(MOVES_ON_UPGRADE)
    wanted = upgrades.Wanted("v1.33", "v1.35", "SchedulerAsyncPreemption=false")
    with django_capture_on_commit_callbacks(execute=True):
        asked = upgrades.ask(ME, scenario, wanted)
    assert (asked.old_release, asked.new_release) == ("v1.33", "v1.35")
    assert asked.feature_gates == {"SchedulerAsyncPreemption": False}
    assert asked.release_choice["sentence"].startswith("replayed as kube-scheduler v1.33.13 with")
    workers.drain()
    answer = Upgrade.objects.get(pk=asked.pk).answer
    assert (answer["old"], answer["new"]) == (
        "v1.33.13 with SchedulerAsyncPreemption=false",
        "v1.35.4 with SchedulerAsyncPreemption=false",
    )


@pytest.mark.parametrize(
    ("wanted", "says"),
    [
        (upgrades.Wanted("v1.36"), "v1.36 is the newest supported release"),
        (upgrades.Wanted("v1.34", "v1.34"), "from and to are the same release (v1.34)"),
        (upgrades.Wanted("v1.20"), "v1.20 is not a supported release"),
        (upgrades.Wanted(gates="NoSuchGate=true"), "unrecognized feature gate: NoSuchGate"),
        (upgrades.Wanted("v1.32", "v1.33", "SidecarContainers=false"), "feature gates (v1.33): cannot set"),
    ],
    ids=["nothing newer", "the same release", "unsupported", "an unknown gate", "a gate the target refuses"],
)
def test_what_cannot_be_compared_is_refused_before_anything_is_sent(wanted, says, workers):
    with pytest.raises(ReleaseInvalid) as refused:
        upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), wanted)
    assert says in refused.value.message
    assert not Upgrade.objects.exists() and workers.sent == []


def test_a_version_that_does_not_validate_is_refused_with_its_problems():
    with pytest.raises(InvalidScenario):
        upgrades.ask(ME, scenario_of("apiVersion: v1\nkind: Node\nmetadata: {}\n"), upgrades.Wanted())


def test_asked_from_a_run_it_starts_from_the_run_s_release_and_gates(django_capture_on_commit_callbacks, workers):
    scenario = scenario_of(MOVES_ON_UPGRADE)
    choice = engine.release_choice(engine.load(MOVES_ON_UPGRADE), engine.release_request("v1.34", None))
    run = Run.objects.create(
        version=scenario.versions.get(),
        owner_session_key="me",
        release="v1.34",
        feature_gates={"SchedulerAsyncPreemption": False},
        release_choice=choice,
    )
    asked = upgrades.ask(ME, scenario, upgrades.Wanted(), from_run=run)
    assert (asked.old_release, asked.new_release, asked.version_id) == ("v1.34", "v1.35", run.version_id)
    assert asked.feature_gates == {"SchedulerAsyncPreemption": False} and asked.release_choice == choice


def test_the_queued_comparisons_of_one_owner_are_bounded(settings, workers):
    settings.SCHEDLAB_MAX_QUEUED_UPGRADES_PER_OWNER = 1
    scenario = scenario_of(MOVES_ON_UPGRADE)
    upgrades.ask(ME, scenario, upgrades.Wanted())
    with pytest.raises(LimitExceeded) as refused:
        upgrades.ask(ME, scenario, upgrades.Wanted())
    assert refused.value.status == 429 and refused.value.details["limit"] == "max_queued_upgrades_per_owner"
    upgrades.ask(
        Actor(session_key="someone else"), scenario_of(MOVES_ON_UPGRADE, owner="someone else"), upgrades.Wanted()
    )


def test_a_cancelled_comparison_is_not_run_and_cannot_be_cancelled_twice(workers, told, monkeypatch):
    revoked: list[list[str]] = []
    monkeypatch.setattr(upgrades, "_revoke", revoked.append)
    asked = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())
    Upgrade.objects.filter(pk=asked.pk).update(task_id="task-1")
    assert upgrades.cancel(asked).status == UpgradeStatus.CANCELLED
    assert revoked == [["task-1"]] and (asked.pk, None) in told
    assert upgrades.execute(asked.pk, "w").startswith("not claimed")
    with pytest.raises(Conflict):
        upgrades.cancel(asked)


def test_a_cancel_stops_a_comparison_under_way_at_its_next_heartbeat(
    monkeypatch, workers, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(engine, "UPGRADE_CHECK_EVENTS", 1)  # ask after every event
    with django_capture_on_commit_callbacks(execute=True):
        asked = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())
    real = engine.compare_upgrade

    def cancelled_meanwhile(*args, **kwargs):
        upgrades.cancel(Upgrade.objects.get(pk=asked.pk))
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "compare_upgrade", cancelled_meanwhile)
    assert workers.drain() == ["stopped"]
    stopped = Upgrade.objects.get(pk=asked.pk)
    assert (stopped.status, stopped.answer, stopped.error) == (
        UpgradeStatus.CANCELLED,
        None,
        upgrades.CANCELLED_BY_OWNER,
    )


def test_an_engine_failure_fails_the_comparison_with_its_message_and_a_database_error_leaves_it(
    monkeypatch, workers, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        asked = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(engine, "compare_upgrade", broken)
    workers.drain()
    failed = Upgrade.objects.get(pk=asked.pk)
    assert (failed.status, failed.error) == (UpgradeStatus.FAILED, "the comparison failed: RuntimeError: a bug")

    with django_capture_on_commit_callbacks(execute=True):
        again = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())

    def unreachable(*args, **kwargs):
        raise OperationalError("connection lost")

    monkeypatch.setattr(engine, "compare_upgrade", unreachable)
    assert workers.drain() == ["left to recovery"]
    assert Upgrade.objects.get(pk=again.pk).status == UpgradeStatus.RUNNING  # its heartbeat goes stale


def test_a_fleet_check_compares_each_scenario_from_its_own_release(workers, told, django_capture_on_commit_callbacks):
    older = scenario_of(MOVES_ON_UPGRADE, "older")
    newest = scenario_of(said_to_run(MOVES_ON_UPGRADE, "v1.36.1"), "newest")
    broken = scenario_of("apiVersion: v1\nkind: Node\nmetadata: {}\n", "broken")
    with django_capture_on_commit_callbacks(execute=True):
        check = upgrades.fleet(ME, [older.pk, newest.pk, broken.pk, older.pk], "v1.36")
    rows = upgrades.rows(check)
    assert [row.version.scenario.name for row in rows] == ["older", "newest", "broken"]  # each once, in order
    assert [row.old_release for row in rows] == ["", "", ""]  # found by the worker
    assert workers.groups == [[row.pk for row in rows]]  # one group
    workers.drain()
    rows = upgrades.rows(check)
    assert [row.status for row in rows] == [UpgradeStatus.SUCCEEDED, UpgradeStatus.SKIPPED, UpgradeStatus.FAILED]
    assert rows[0].old_release == "v1.35" and rows[0].release_choice["source"] == "default"
    assert upgrades.causes(rows[0]) == [
        {
            "name": "balanced_allocation_scores_the_change",
            "sentence": next(
                c["sentence"] for c in rows[0].answer["changes"] if c["name"] == "balanced_allocation_scores_the_change"
            ),
        }
    ]
    assert "kubernetes#135573" in upgrades.causes(rows[0])[0]["sentence"]
    assert rows[1].old_release == "v1.36" and rows[1].release_choice["source"] == "server-version"
    assert rows[1].error.startswith("already replayed as v1.36.3 (replayed as kube-scheduler v1.36.3: the cluster runs")
    assert rows[2].error.startswith("the scenario does not validate: ")
    assert upgrades.causes(rows[1]) == upgrades.causes(rows[2]) == []
    assert (rows[0].pk, check.pk) in told


def test_a_fleet_check_is_bounded_and_names_only_scenarios_you_may_read(settings):
    settings.SCHEDLAB_MAX_FLEET_SCENARIOS = 2
    mine = [scenario_of(MOVES_ON_UPGRADE).pk for _ in range(3)]
    with pytest.raises(LimitExceeded) as refused:
        upgrades.fleet(ME, mine, "v1.36")
    assert refused.value.details == {"limit": "max_fleet_scenarios", "max": 2}
    with pytest.raises(DomainError, match="choose at least one scenario"):
        upgrades.fleet(ME, [], "v1.36")
    with pytest.raises(NotFound):
        upgrades.fleet(ME, [scenario_of(MOVES_ON_UPGRADE, owner="another").pk], "v1.36")
    with pytest.raises(ReleaseInvalid):
        upgrades.fleet(ME, mine[:1], "v1.99")
    assert not FleetCheck.objects.exists()


def test_cancelling_a_fleet_check_stops_every_row_still_waiting(workers, monkeypatch):
    monkeypatch.setattr(upgrades, "_revoke", lambda ids: None)
    check = upgrades.fleet(ME, [scenario_of(MOVES_ON_UPGRADE).pk, scenario_of(MOVES_ON_UPGRADE).pk], "v1.36")
    upgrades.cancel_fleet(check)
    assert {row.status for row in upgrades.rows(check)} == {UpgradeStatus.CANCELLED}
    with pytest.raises(Conflict):
        upgrades.cancel_fleet(check)


def test_a_comparison_is_its_asker_s_or_its_share_link_s_to_read():
    asked = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())
    assert upgrades.readable_upgrade(ME, asked.pk) == asked
    with pytest.raises(NotFound):
        upgrades.readable_upgrade(Actor(session_key="another"), asked.pk)
    link = ShareLink.objects.create(version=asked.version, upgrade=asked)
    shared = Actor(share=link)
    assert upgrades.readable_upgrade(shared, asked.pk) == asked
    with pytest.raises(DomainError):  # read-only
        upgrades.writable_upgrade(shared, asked.pk)
    other = ShareLink.objects.create(version=asked.version)
    with pytest.raises(NotFound):
        upgrades.readable_upgrade(Actor(share=other), asked.pk)
    check = upgrades.fleet(ME, [asked.version.scenario_id], "v1.36")
    assert upgrades.readable_fleet(ME, check.pk) == check
    with pytest.raises(NotFound):
        upgrades.readable_fleet(Actor(session_key="another"), check.pk)


def test_a_comparison_a_dead_worker_left_is_sent_again_then_failed(
    settings, workers, django_capture_on_commit_callbacks
):
    settings.SCHEDLAB_MAX_RUN_ATTEMPTS = 2
    asked = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())
    workers.sent.clear()
    stale = timezone.now() - timedelta(seconds=settings.SCHEDLAB_HEARTBEAT_STALE_SECONDS + 1)
    Upgrade.objects.filter(pk=asked.pk).update(status=UpgradeStatus.RUNNING, heartbeat=stale, attempts=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert upgrades.sweep_stale_upgrades() == 1
    assert Upgrade.objects.get(pk=asked.pk).status == UpgradeStatus.QUEUED and workers.sent == [asked.pk]
    Upgrade.objects.filter(pk=asked.pk).update(status=UpgradeStatus.RUNNING, heartbeat=stale, attempts=2)
    found = upgrades.recover_if_stale(Upgrade.objects.get(pk=asked.pk))
    assert found.status == UpgradeStatus.FAILED and "no worker finished it after 2 tries" in found.error


def test_a_queued_comparison_whose_message_was_lost_is_sent_again_once_the_long_workers_idle(
    settings, workers, django_capture_on_commit_callbacks
):
    asked = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())
    workers.sent.clear()
    assert upgrades.sweep_stale_upgrades() == 0  # just sent: left alone
    Upgrade.objects.filter(pk=asked.pk).update(
        queued_at=timezone.now() - timedelta(seconds=settings.SCHEDLAB_QUEUED_STALE_SECONDS + 1)
    )
    busy = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())
    Upgrade.objects.filter(pk=busy.pk).update(status=UpgradeStatus.RUNNING, heartbeat=timezone.now())
    assert upgrades.recover_if_stale(asked).status == UpgradeStatus.QUEUED and workers.sent == []  # waits its turn
    Upgrade.objects.filter(pk=busy.pk).update(status=UpgradeStatus.SUCCEEDED)
    with django_capture_on_commit_callbacks(execute=True):
        found = upgrades.recover_if_stale(Upgrade.objects.get(pk=asked.pk))
    assert found.enqueues == 2 and workers.sent == [asked.pk]


def test_the_listings_are_the_actor_s(workers):
    scenario = scenario_of(MOVES_ON_UPGRADE)
    asked = upgrades.ask(ME, scenario, upgrades.Wanted())
    assert list(upgrades.listing(ME, scenario)) == [asked]
    assert list(upgrades.listing(Actor(session_key="another"), scenario)) == []
    check = upgrades.fleet(ME, [scenario.pk], "v1.36")
    assert list(upgrades.fleets(ME)) == [check] and list(upgrades.fleets(Actor(session_key="x"))) == []


def test_a_comparison_of_a_bigger_scenario_sends_its_progress_as_the_engine_reports_it(
    workers, monkeypatch, django_capture_on_commit_callbacks
):
    text = support.scenario_text(4, 3, 2)
    with django_capture_on_commit_callbacks(execute=True):
        asked = upgrades.ask(ME, scenario_of(text), upgrades.Wanted("v1.32", "v1.33"))
    seen: list[tuple[int, int]] = []
    real = engine.compare_upgrade

    def watching(scenario, old, new, gates, progress, still_wanted, max_events):
        def told(done: int, total: int, what: str) -> None:
            progress(done, total, what)
            row = Upgrade.objects.get(pk=asked.pk)
            seen.append((row.done, row.total))

        return real(scenario, old, new, gates, progress=told, still_wanted=still_wanted, max_events=max_events)

    monkeypatch.setattr(engine, "compare_upgrade", watching)
    workers.drain()
    assert seen and seen[0][0] == 1 and seen[-1][0] == seen[-1][1]
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_a_run_of_the_comparison_over_the_events_limit_fails_it_naming_the_limit(
    settings, workers, django_capture_on_commit_callbacks
):
    settings.SCHEDLAB_MAX_EVENTS_PER_RUN = 5
    with django_capture_on_commit_callbacks(execute=True):
        asked = upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted())
    workers.drain()
    failed = Upgrade.objects.get(pk=asked.pk)
    assert (failed.status, failed.error) == (
        UpgradeStatus.FAILED,
        "a run of the comparison produced more than 5 events (limit SCHEDLAB_MAX_EVENTS_PER_RUN)",
    )


def test_stopping_all_cancels_the_active_comparisons_found_revokes_their_tasks_and_tells_watchers(
    workers, told, monkeypatch
):
    revoked: list[list[str]] = []
    monkeypatch.setattr(upgrades, "_revoke", revoked.append)
    asked = [upgrades.ask(ME, scenario_of(MOVES_ON_UPGRADE), upgrades.Wanted()) for _ in range(3)]
    Upgrade.objects.filter(pk=asked[0].pk).update(task_id="task-1")
    Upgrade.objects.filter(pk=asked[1].pk).update(status=UpgradeStatus.SUCCEEDED)
    found = Upgrade.objects.filter(pk__in=[asked[0].pk, asked[1].pk])
    assert upgrades.stop_all(found, "its account was deleted") == 1
    stopped = Upgrade.objects.get(pk=asked[0].pk)
    assert (stopped.status, stopped.error) == (UpgradeStatus.CANCELLED, "its account was deleted")
    assert revoked == [["task-1"]] and told == [(asked[0].pk, None)]
    assert Upgrade.objects.get(pk=asked[2].pk).status == UpgradeStatus.QUEUED
