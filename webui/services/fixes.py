"""One-click changes the check offers before the run, each saved as a new version.

Adding the node taints: a dump's NotReady (or pressured) node without the taints kube-controller-
manager's node lifecycle controller keeps in step with its conditions takes pods the real cluster
keeps off it. The engine says which taints the controller would add or remove and writes them into
the node documents only (scheduler_core.cluster.node_lifecycle); every other document keeps its text.
"""

from __future__ import annotations

from webui.models import Scenario
from webui.services import engine, scenarios
from webui.services.access import Actor
from webui.services.errors import Conflict


def add_node_taints(actor: Actor, scenario: Scenario, number: int | None = None) -> scenarios.Saved:
    """Version `number` (the latest by default) with the controller's node taints, saved as the next
    version (in the actor's fork when the scenario is a demo). 409 when no node needs a change."""
    version = scenarios.get_version(scenario, number)
    text = engine.with_node_taints(version.text)
    if text == version.text:
        raise Conflict("every node already has the taints the node lifecycle controller would give it")
    return scenarios.save_derived(actor, version, text, "node taints added")
