"""What would make a pod fit: the engine's suggestions for a run's pod, and a suggestion applied to
the scenario text as a new version. Both are the engine's (scheduler_core/answers/whatif.py describes and
verifies a suggestion, scheduler_core/answers/whatif_text.py writes it into the text): this module reads
the run and saves the version.
"""

from __future__ import annotations

from typing import Any

from webui.models import Run
from webui.services import engine, events, releases, scenarios
from webui.services.access import Actor
from webui.services.errors import DomainError


def suggestions(run: Run, pod: str) -> dict[str, Any]:
    """The engine's answer for `pod`, against the cluster as the run left it (its bindings and
    evictions made, its nominations kept): read from the run's stored story, not re-run."""
    scenario = engine.load_valid(run.version.text, releases.request_of(run))
    story = events.story(run)
    placements = dict(story["final"]) if story["finished"] else None
    if placements is not None and run.mode == "single":  # a single pass has no RunEnd: its cycles say
        placements = None
    try:
        answer = engine.what_if(scenario, pod, placements, story.get("nominated") or {})
        # the release this engine call replayed (the run's), said beside the suggestions
        return {"run": run.pk, "version": run.version.number, **answer, "release": scenario.release.to_json()}
    except engine.NotPending as exc:
        raise DomainError(str(exc), {"pod": pod}) from None


def apply(actor: Actor, run: Run, pod: str, index: int) -> scenarios.Saved:
    """Saves the run's version with suggestion `index` applied as the scenario's new version (in the
    actor's fork when it is a demo)."""
    answer = suggestions(run, pod)
    if not 0 <= index < len(answer["suggestions"]):
        raise DomainError(f"no suggestion {index} for {pod}", {"suggestions": len(answer["suggestions"])})
    suggestion = answer["suggestions"][index]
    text = engine.apply_to_text(run.version.text, pod, suggestion)
    return scenarios.save_derived(actor, run.version, text, "what if")
