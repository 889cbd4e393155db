"""What changes if we upgrade (issue 48): a scenario compared under two releases, every difference with
the release change behind it, and fleet checks of several scenarios at once. Mounted at /api/upgrades
(webui/api.py). The comparisons run on the long-work queue's workers (services/upgrades.py); progress
streams over /ws/upgrades/<id>/ and /ws/fleet/<id>/ (upgrade_consumer.py)."""

from __future__ import annotations

from ninja import Router, Status

from webui import presenters
from webui.schemas.common import ERRORS, ErrorOut
from webui.schemas.runs import RunOut
from webui.schemas.upgrades import FleetIn, FleetOut, FleetSummaryOut, UpgradeIn, UpgradeOut, UpgradeRunIn
from webui.services import access, runs, upgrades
from webui.services.access import ActorRequest
from webui.services.errors import NotFound

router = Router(tags=["upgrades"], by_alias=True)
LISTED = 50


@router.post(
    "/scenarios/{int:scenario_id}",
    response={201: UpgradeOut, **ERRORS, 429: ErrorOut},
    summary="What changes if we upgrade?",
)
def upgrade_ask(request: ActorRequest, scenario_id: int, body: UpgradeIn) -> Status[UpgradeOut]:
    """Starts a comparison of a version (the latest, `version`, or a run's own with `run`) run to the end under two
    releases: `fromRelease` (default: the release it is replayed as — the dump's, or the run's) and `toRelease`
    (default: the next newer supported one), with `featureGates` on both sides (default: the run's when asked from a
    run). Each pod that lands elsewhere, stays pending, is scored or refused differently is traced to the feature
    gate or code change behind it. It runs on the long-work workers; follow it at GET /api/upgrades/{id} or
    /ws/upgrades/{id}/. 400 release_invalid for a release that is not supported, the same release twice, no newer
    release, or a gate either release refuses; 400/413 when the version does not validate; 429 when you have
    SCHEDLAB_MAX_QUEUED_UPGRADES_PER_OWNER comparisons queued or running."""
    scenario = access.runnable_scenario(request.auth, scenario_id)
    from_run = access.readable_run(request.auth, body.run) if body.run is not None else None
    if from_run is not None and from_run.version.scenario_id != scenario.pk:
        raise NotFound(f"scenario {scenario_id} has no run {body.run}")
    wanted = upgrades.Wanted(body.from_release or "", body.to_release or "", body.feature_gates)
    asked = upgrades.ask(request.auth, scenario, wanted, body.version, from_run)
    return Status(201, presenters.upgrade(upgrades.readable_upgrade(request.auth, asked.pk)))


@router.get(
    "/scenarios/{int:scenario_id}",
    response={200: list[UpgradeOut], **ERRORS},
    summary="List your upgrade comparisons of a scenario",
)
def upgrade_list(request: ActorRequest, scenario_id: int) -> list[UpgradeOut]:
    """Newest first (at most 50), fleet checks' rows included."""
    scenario = access.readable_scenario(request.auth, scenario_id)
    return [presenters.upgrade(u) for u in upgrades.listing(request.auth, scenario)[:LISTED]]


@router.get("/{int:upgrade_id}", response={200: UpgradeOut, **ERRORS}, summary="Read an upgrade comparison")
def upgrade_read(request: ActorRequest, upgrade_id: int) -> UpgradeOut:
    """Its status and progress (runs to the end done of the total, the last one named) and, once succeeded,
    `answer`: the engine's UpgradeComparison as `compare --release OLD --release NEW --json` prints it (the summary,
    each pod's old and new node, plugins whose scores differ, old and new FailedScheduling messages, the causes;
    every release change with what it does here) and `counts`. Readable through its share link."""
    found = upgrades.recover_if_stale(upgrades.readable_upgrade(request.auth, upgrade_id))
    return presenters.upgrade(upgrades.readable_upgrade(request.auth, found.pk))


@router.post(
    "/{int:upgrade_id}/cancel",
    response={200: UpgradeOut, **ERRORS, 409: ErrorOut},
    summary="Cancel an upgrade comparison",
)
def upgrade_cancel(request: ActorRequest, upgrade_id: int) -> UpgradeOut:
    """Stops it (a worker running it stops within a few thousand events); 409 when it already finished."""
    upgrades.cancel(upgrades.writable_upgrade(request.auth, upgrade_id))
    return presenters.upgrade(upgrades.readable_upgrade(request.auth, upgrade_id))


@router.post(
    "/{int:upgrade_id}/runs",
    response={201: RunOut, **ERRORS, 429: ErrorOut},
    summary="Open one side of an upgrade comparison as a run",
)
def upgrade_open_side(request: ActorRequest, upgrade_id: int, body: UpgradeRunIn) -> Status[RunOut]:
    """`side` old or new: a run of the comparison's version replayed as that release (with its feature gates), to
    read step by step in the run view; made once, then the same run is answered."""
    upgrade = upgrades.writable_upgrade(request.auth, upgrade_id)
    return Status(201, presenters.run(runs.open_upgrade_side(request.auth, upgrade, body.side)))


@router.post("/fleet", response={201: FleetOut, **ERRORS, 429: ErrorOut}, summary="Check several scenarios' upgrade")
def fleet_ask(request: ActorRequest, body: FleetIn) -> Status[FleetOut]:
    """One upgrade comparison per scenario (its latest version), each from that scenario's own release (the dump's,
    found when its worker loads it) to `toRelease`, sent to the long-work workers as one group; a scenario already
    replayed as that release or a newer one is `skipped`. 400 release_invalid for a release that is not supported or
    a gate it refuses; 404 for a scenario you may not read; 413 over SCHEDLAB_MAX_FLEET_SCENARIOS; 429 over
    SCHEDLAB_MAX_QUEUED_UPGRADES_PER_OWNER."""
    check = upgrades.fleet(request.auth, body.scenarios, body.to_release, body.feature_gates)
    return Status(201, presenters.fleet(check, upgrades.rows(check)))


@router.get("/fleet", response={200: list[FleetSummaryOut], **ERRORS}, summary="List your fleet checks")
def fleet_list(request: ActorRequest) -> list[FleetSummaryOut]:
    """Newest first (at most 20)."""
    return [presenters.fleet_summary(check) for check in upgrades.fleets(request.auth)[: upgrades.FLEET_LISTED]]


@router.get("/fleet/{int:fleet_id}", response={200: FleetOut, **ERRORS}, summary="Read a fleet check")
def fleet_read(request: ActorRequest, fleet_id: int) -> FleetOut:
    """One row per scenario as its comparison finishes: its release and where the dump says it, pods that land
    elsewhere, stay pending or are scored differently (the engine's UpgradeCounts), its summary and the release
    changes behind it with their sentences."""
    check = upgrades.readable_fleet(request.auth, fleet_id)
    found = upgrades.rows(check)
    for row in found:
        if not row.is_finished:
            upgrades.recover_if_stale(row)
    return presenters.fleet(check, upgrades.rows(check))


@router.post(
    "/fleet/{int:fleet_id}/cancel", response={200: FleetOut, **ERRORS, 409: ErrorOut}, summary="Cancel a fleet check"
)
def fleet_cancel(request: ActorRequest, fleet_id: int) -> FleetOut:
    """Stops every comparison of it still queued or running; 409 when none is."""
    check = upgrades.cancel_fleet(upgrades.readable_fleet(request.auth, fleet_id))
    return presenters.fleet(check, upgrades.rows(check))
