"""A version's nodes and pods as the engine reads them (its own defaulting), for the browser's tables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webui.models import ScenarioVersion
from webui.services import engine

BINARY_SUFFIXES = (("Ei", 1 << 60), ("Pi", 1 << 50), ("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))
CPU = "cpu"
BYTE_RESOURCES = ("memory", "ephemeral-storage")


@dataclass(frozen=True)
class Objects:
    version: ScenarioVersion
    nodes: list[Any]  # scheduler_core Node, document order
    pods: list[Any]  # scheduler_core Pod, document order
    pending: set[int]  # id() of the pending pods


def of_version(version: ScenarioVersion) -> Objects:
    """Raises the API's 400 (scenario_invalid) or 413 (limit_exceeded) when the version does not validate."""
    scenario = engine.load_valid(version.text)
    return Objects(version, list(scenario.nodes), list(scenario.pods), {id(pod) for pod in scenario.pending_pods})


def quantity_text(resource: str, amount: int) -> str:
    """The engine's integer as a Kubernetes quantity: 1500 (cpu) -> "1500m", 2 GiB -> "2Gi"."""
    if resource == CPU:
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if resource in BYTE_RESOURCES and amount:
        for suffix, size in BINARY_SUFFIXES:
            if amount % size == 0:
                return f"{amount // size}{suffix}"
    return str(amount)


def quantities_text(amounts: dict[str, int]) -> dict[str, str]:
    return {name: quantity_text(name, amount) for name, amount in amounts.items()}
