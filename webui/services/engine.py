"""The one place the web app talks to scheduler_core (through its public API only)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from scheduler_core import Event, Limits, ScenarioInvalid, TraceBuilder, load_scenario, simulate

from webui.services.errors import LimitExceeded

__all__ = ["Check", "Event", "ScenarioInvalid", "check", "engine_limits", "load", "simulate_events", "trace"]


@dataclass(frozen=True)
class Summary:
    nodes: int
    pods: int
    pendingPods: int  # noqa: N815 - JSON contract


@dataclass(frozen=True)
class Check:
    errors: list[dict[str, Any]] = field(default_factory=list)
    summary: Summary | None = None

    @property
    def valid(self) -> bool:
        return not self.errors


def engine_limits() -> Limits:
    return Limits(
        max_bytes=settings.SCHEDLAB_MAX_BYTES,
        max_nodes=settings.SCHEDLAB_MAX_NODES,
        max_pods=settings.SCHEDLAB_MAX_PODS,
        max_pending_pods=settings.SCHEDLAB_MAX_PENDING_PODS,
    )


def enforce_size(text: str) -> None:
    """Refuse (rather than store) text over the byte limit: everything else typed is kept."""
    enforce_size_bytes(len(text.encode("utf-8")))


def enforce_size_bytes(size: int) -> None:
    if size > settings.SCHEDLAB_MAX_BYTES:
        raise LimitExceeded(
            "max_bytes",
            settings.SCHEDLAB_MAX_BYTES,
            f"the scenario is {size} bytes; the limit (SCHEDLAB_MAX_BYTES) is {settings.SCHEDLAB_MAX_BYTES}",
        )


def load(text: str) -> Any:  # scheduler_core's Scenario (not part of its exported names)
    return load_scenario(text, limits=engine_limits())


def check(text: str) -> Check:
    try:
        scenario = load(text)
    except ScenarioInvalid as exc:
        return Check(errors=[error.to_json() for error in exc.errors])
    summary = Summary(nodes=len(scenario.nodes), pods=len(scenario.pods), pendingPods=len(scenario.pending_pods))
    return Check(summary=summary)


def simulate_events(scenario: Any) -> Iterator[Event]:
    # Deterministic tie-break: a retried run must reproduce the same (seq -> event) stream.
    return simulate(scenario, tie_break="first")


def trace(events_json: Iterable[dict[str, Any]]) -> dict[str, Any]:
    builder = TraceBuilder()
    for event in events_json:
        builder.add_json(event)
    return builder.summary()
