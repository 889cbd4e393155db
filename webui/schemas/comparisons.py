"""GET /api/comparisons: two runs side by side, scheduler_core.answers.compare's answer
(webui/routers/comparisons.py)."""

from __future__ import annotations

from typing import Any

from webui.schemas.common import ApiSchema
from webui.schemas.releases import ReleaseOut


class ComparisonCountsOut(ApiSchema):
    elsewhere: int
    more_pending: int
    more_evicted: int
    more_preemptions: int
    attempts: list[int]  # [in A, in B]


class ComparedPodOut(ApiSchema):
    """Where a pod ended in each run: a node, null (pending) or "deleted" (a preemption victim).
    `aWhy`/`bWhy` (its FailedScheduling text) only where that run left it pending."""

    pod: str
    a: str | None
    b: str | None
    a_why: str | None = None
    b_why: str | None = None


class AttemptBriefOut(ApiSchema):
    cycle: int
    pod: str
    node_name: str | None
    text: str


class DivergenceOut(ApiSchema):
    index: int  # the attempt's position in both runs
    a: AttemptBriefOut | None  # null: run A had no more attempts
    b: AttemptBriefOut | None


class ScoreDifferenceOut(ApiSchema):
    pod: str
    plugins: list[str]
    nodes: list[dict[str, Any]]  # {node, plugins: {plugin: {a, b, difference}}, total: {a, b, difference}}
    skipped: dict[str, str | None]  # "a"/"b" -> why that run scored nothing, or null


class ComparedReleasesOut(ApiSchema):
    a: ReleaseOut | None  # null: a run from before releases were chosen
    b: ReleaseOut | None
    same: bool  # both were replayed as the same release with the same gates


class ComparisonOut(ApiSchema):
    a: int
    b: int
    modes: list[str]
    summary: str
    counts: ComparisonCountsOut
    changed: int
    pods: list[ComparedPodOut]
    first_divergence: DivergenceOut | None
    scores: ScoreDifferenceOut | None = None  # only with ?pod=
    releases: ComparedReleasesOut | None = None  # the release each run was replayed as
