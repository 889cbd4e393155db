"""/api/comparisons: two finished runs side by side (scheduler_core.answers.compare). Mounted at
/api/comparisons (webui/api.py)."""

from __future__ import annotations

from typing import Any

from ninja import Router

from webui.schemas.common import ERRORS
from webui.schemas.comparisons import ComparisonOut
from webui.services import access, events
from webui.services.access import ActorRequest

router = Router(tags=["comparisons"], by_alias=True)


@router.get("", response={200: ComparisonOut, **ERRORS}, exclude_unset=True, summary="Two finished runs side by side")
def comparison(request: ActorRequest, a: int, b: int, pod: str | None = None) -> dict[str, Any]:
    """Runs `a` and `b` (any two you may read; typically two configurations or two versions of one scenario):
    `summary` ("1 pod(s) land elsewhere in B than in A."), `counts` (`elsewhere`, `morePending`, `moreEvicted`,
    `morePreemptions`, `attempts`), `pods` (`[{pod, a, b, aWhy?, bWhy?}]`: node, null for pending, "deleted" for a
    preemption victim), `firstDivergence` (the first attempt where they part) and, with `pod=`, `scores`: that pod's
    weighted score per node and plugin in its first scored attempt of each run, with the difference.
    """
    run_a, run_b = access.readable_run(request.auth, a), access.readable_run(request.auth, b)
    return events.comparison(run_a, run_b, pod)
