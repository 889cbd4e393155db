"""The capacity answers' wire forms (`capacity --json`, docs/CAPACITY.md), each declared once.

The answers (capacity.py, capacity_pass.py, capacity_domains.py) hold more than they write — the
trials' outcomes, the scenario they started from, explanations as objects — so, like the event
stream's Score or Total (encoding/events.py), each declares its wire form here and its ``to_json``
fills it: the keys, their order and their types are said once, and the JSON Schema the web app
serves (``python -m scheduler_core schema``) is made from these. Every key is always written.

The web app stores and serves them less their trials (``without_trials``: every field holding a
``TrialJSON``: the deciding one is saved as a run, and a trial's scenario text can be megabytes); its
API schemas are made from these declarations, leaving out the same fields (webui/schemas/capacity.py).
"""

from __future__ import annotations

from typing import Any, Optional

from scheduler_core.answers.explain import CycleExplanation
from scheduler_core.encoding.events import BlockedEviction
from scheduler_core.util.wire import Wire, json_without


class TrialStepJSON(Wire):
    """What a trial's step did: the pods it created and evicted, the drains a budget blocked, the
    pods still pending when it went quiet."""

    step: int
    name: str
    created: list[str]
    evicted: list[str]
    blocked: list[BlockedEviction]
    pending: list[str]


class TrialJSON(Wire):
    """A trial run: what it tries, its Changes document, the whole scenario to open as a run, its steps."""

    label: str
    changes_text: str
    scenario_text: str
    steps: list[TrialStepJSON]


class FitAnswerJSON(Wire):
    """How many more fit, by trial runs: the count, where the copies land, what stops the next copy."""

    target: str
    fits: int
    checked_next: bool
    bound: int
    placements: dict[str, int]
    stopped_by: list[str]
    message: str
    trials: int
    tried: dict[str, bool]  # every count tried (as text): did it fit?
    deciding: Optional[TrialJSON]
    fitting: TrialJSON
    displaced: list[str]
    explanation: Optional[CycleExplanation]  # the last failed cycle of the copy that stays pending


class DomainCountJSON(Wire):
    domain: str
    before: int
    room: int
    added: int
    full: bool


class SpreadCountedJSON(Wire):
    """Copies counted per domain of one DoNotSchedule constraint."""

    topology_key: str
    max_skew: int
    min_domains: int
    smallest: int
    nodes_exact: bool
    message_exact: bool
    reason: str
    domains: list[DomainCountJSON]


class PassAnswerJSON(Wire):
    """How many more copies of a pod fit, by one pass: FitAnswer's keys where they mean the same,
    the method and why, and the count per domain when spreading counted them."""

    target: str
    method: str
    why: str
    fits: int
    checked_next: bool
    bound: Optional[int]
    placements: dict[str, int]
    stopped_by: list[str]
    message: str
    explanation: Optional[CycleExplanation]  # the last failed cycle of the copy that stays pending
    displaced: list[str]
    trials: int
    counted_total: Optional[int]
    deciding: Optional[TrialJSON]
    per_domain: Optional[SpreadCountedJSON]
    message_exact: bool


class UnplaceableJSON(Wire):
    pod: str
    reason: str


class TemplateAnswerJSON(Wire):
    """The fewest nodes like one template that place the pending pods."""

    like: str
    needed: int
    most: int
    exhaustive: bool
    pods_per_node: dict[str, list[str]]
    unplaceable: list[UnplaceableJSON]
    tried: dict[str, int]  # nodes added (as text) -> pods still pending
    deciding: Optional[TrialJSON]
    fitting: TrialJSON


class NodesAnswerJSON(Wire):
    pending: list[str]
    templates: list[TemplateAnswerJSON]
    trials: int


class DrainVerdictJSON(Wire):
    node: str
    removable: bool
    reasons: list[str]
    known_by: str


class RemovableAnswerJSON(Wire):
    """Which nodes can be drained and go, alone and together."""

    order: str
    verdicts: list[DrainVerdictJSON]
    together: list[str]
    trials: int
    together_trial: Optional[TrialJSON]
    drain_trials: dict[str, TrialJSON]


class StrandedJSON(Wire):
    node: str
    free: int
    blocked_by: str
    free_text: str  # the amount for people, with its unit ("22Gi", "1500m"): the browser draws it as given


class ResourceFragmentationJSON(Wire):
    resource: str
    free_total: int
    largest_fit: int
    largest_node: str
    smallest_request: int
    stranded: list[StrandedJSON]
    stranded_total: int
    # The amounts above for people, with their unit (model.quantity.format_amount).
    free_total_text: str
    largest_fit_text: str
    stranded_total_text: str


class FragmentationAnswerJSON(Wire):
    resources: list[ResourceFragmentationJSON]
    trials: int


# The answers `capacity --json` prints, one per question (what they refer to comes along in the schema).
CAPACITY_ANSWERS: tuple[type[Wire], ...] = (
    FitAnswerJSON,
    PassAnswerJSON,
    NodesAnswerJSON,
    RemovableAnswerJSON,
    FragmentationAnswerJSON,
)


def without_trials(payload: Wire) -> dict[str, Any]:
    """The answer's JSON form less every field, at any depth, holding a trial (``TrialJSON``): as the
    web app stores and serves it. The other keys are ``to_json``'s, in its order."""
    return json_without(payload, TrialJSON)
