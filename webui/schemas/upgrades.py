"""/api/upgrades: what changes if we upgrade — one scenario's comparison of two releases, and fleet
checks of several scenarios at once (webui/routers/upgrades.py; docs/WEB_API.md, "Upgrades")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from webui.schemas.common import ApiInput, ApiSchema, engine_schema
from webui.schemas.releases import ReleaseOut
from webui.schemas.validate import RELEASE_LENGTH

# The engine's payloads, served as it writes them: OpenAPI shows their declarations (engine_schema).
UpgradeComparisonJson = Annotated[dict[str, Any], engine_schema("UpgradeComparison")]
UpgradeCountsJson = Annotated[dict[str, Any], engine_schema("UpgradeCounts")]


class UpgradeIn(ApiInput):
    """From a release to another (absent: from the release the scenario is replayed as — the dump's, or
    the run's —, to the next newer supported one), with kube-scheduler's --feature-gates on both sides."""

    version: int | None = None  # default: the latest
    run: int | None = None  # asked from a run: its version, release (as from) and gates
    from_release: str | None = Field(default=None, max_length=RELEASE_LENGTH)
    to_release: str | None = Field(default=None, max_length=RELEASE_LENGTH)
    feature_gates: str | dict[str, bool] | None = None


class UpgradeProgressOut(ApiSchema):
    done: int  # runs to the end done (compare_releases' progress)
    total: int  # of this many (0 until the first is done)
    what: str  # the last one: "v1.36.3 without NodeDeclaredFeatures"


class UpgradeOut(ApiSchema):
    id: int
    scenario: int
    scenario_name: str
    version: int
    fleet: int | None  # the fleet check it belongs to
    from_release: str  # "v1.35" ("" until a fleet check's worker read the scenario's own release)
    to_release: str
    feature_gates: dict[str, bool] | None
    release: ReleaseOut | None  # the from side: the release replayed and why (the dump's, or the run's)
    status: str  # queued | running | succeeded | failed | cancelled | skipped (already at the target)
    progress: UpgradeProgressOut
    error: str
    answer: UpgradeComparisonJson | None  # the engine's UpgradeComparison, once succeeded
    counts: UpgradeCountsJson | None  # the engine's UpgradeCounts of it
    old_run: int | None  # either side opened as a run (POST .../runs)
    new_run: int | None
    created: datetime
    started: datetime | None
    finished: datetime | None


class UpgradeRunIn(ApiInput):
    side: Literal["old", "new"]


class FleetIn(ApiInput):
    scenarios: list[int] = Field(min_length=1, max_length=1000)  # SCHEDLAB_MAX_FLEET_SCENARIOS bounds it
    to_release: str = Field(max_length=RELEASE_LENGTH)
    feature_gates: str | dict[str, bool] | None = None


class CauseOut(ApiSchema):
    name: str  # a feature gate, or a code change ("balanced_allocation_scores_the_change")
    sentence: str  # what it is, as the engine says it


class FleetRowOut(ApiSchema):
    upgrade: int  # its comparison: GET /api/upgrades/{upgrade}, the page /upgrades/{upgrade}/
    scenario: int
    scenario_name: str
    version: int
    status: str
    from_release: str  # its own release ("" until its worker loaded it)
    release: ReleaseOut | None  # the release it is replayed as and why (its source: image, kubelets, …)
    progress: UpgradeProgressOut
    counts: UpgradeCountsJson | None  # pods that land elsewhere, stay pending, are rescored; the causes
    summary: str | None  # the engine's summary sentence
    causes: list[CauseOut]  # counts.causes with their sentences
    error: str


class FleetOut(ApiSchema):
    id: int
    to_release: str
    feature_gates: dict[str, bool] | None
    created: datetime
    finished: bool  # every row finished
    rows: list[FleetRowOut]  # in the order the scenarios were chosen


class FleetSummaryOut(ApiSchema):
    id: int
    to_release: str
    created: datetime
    scenarios: int
