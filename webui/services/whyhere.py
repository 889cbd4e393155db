""" "Why here?" for a running pod: the engine re-runs its cycle without it (scheduler_core.answers.explain_pod),
once per (version, pod) and server process — a version never changes."""

from __future__ import annotations

from typing import Any

from webui.models import ScenarioVersion
from webui.services import engine
from webui.services.errors import DomainError, NotFound

_ANSWERS: engine.Memo[dict[str, Any]] = engine.Memo(64)  # (version id, pod) -> the answer's JSON


def explain(version: ScenarioVersion, pod: str) -> dict[str, Any]:
    """The engine's answer for `pod` ("namespace/name"): 404 when the version holds no such pod, 400
    when it is not running on a node of the scenario (pending, finished, another scheduler's)."""
    return _ANSWERS.get_or_make((version.pk, pod), lambda: _explain(version, pod))


def _explain(version: ScenarioVersion, pod: str) -> dict[str, Any]:
    scenario = engine.load_valid(version.text)
    if not any(candidate.key == pod for candidate in scenario.pods):
        raise NotFound(f"version {version.number} has no pod {pod} (give it as namespace/name)")
    try:
        # the release this engine call replayed (the version's, as the dump says), said beside the answer
        return {**engine.explain_pod(scenario, pod).to_json(), "release": scenario.release.to_json()}
    except engine.NotBound as exc:
        raise DomainError(str(exc), {"pod": pod}) from None
