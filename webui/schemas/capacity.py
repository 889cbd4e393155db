"""/api/capacity: capacity questions asked, listed, read and cancelled (webui/routers/capacity.py;
docs/CAPACITY.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Optional, Union

from pydantic import Field

from webui.schemas.common import ApiInput, ApiSchema, EngineSchema
from webui.schemas.releases import ReleaseOut
from webui.schemas.runs import CycleExplanationOut
from webui.services import engine

NAME_LENGTH = 400
CopiesMethod = Literal["counted", "placed", "trials"]  # what answers a pod-copies question (CapacityMethod)


class CapacityIn(ApiInput):
    kind: Literal["fit", "nodes", "removable", "fragmentation"]
    version: Optional[int] = None  # default: the latest version
    workload: Optional[str] = Field(
        default=None, max_length=NAME_LENGTH
    )  # fit: NS/NAME of a Deployment, ReplicaSet, StatefulSet or Job
    pod: Optional[str] = Field(default=None, max_length=NAME_LENGTH)  # fit: NS/NAME of a pod to copy
    likes: list[str] = Field(default_factory=list, max_length=10)  # nodes: template node names
    nodes: list[str] = Field(default_factory=list, max_length=100)  # removable: only these nodes ("can this node go?")
    max: Optional[int] = Field(default=None, ge=1, le=100_000)  # the most copies / nodes tried


class ParametersOut(ApiSchema):
    workload: Optional[str]
    pod: Optional[str]
    likes: list[str]
    nodes: list[str]
    max: Optional[int]


class CapacityProgressOut(ApiSchema):
    done: int  # trials run
    estimate: int  # the search's current guess of its total
    copies: int  # pod copies: copies placed (or counted) by the one pass so far
    copies_per_second: Optional[float]  # per CPU second of the worker's pass (None: not measured yet)


# The engine's answers (scheduler_core/answers/capacity_json.py, `capacity --json`), each schema made from
# its declaration (EngineSchema), less the trials: the deciding one is saved as a run (``deciding``
# below) and a trial's scenario text can be megabytes. The answers are stored so
# (services/capacity.py: engine.without_trials) and served as stored.
WITHOUT_TRIALS = (engine.TrialJSON,)


class HeadlineOnlyOut(ApiSchema):
    """The explanation of an answer stored before the engine declared it (migration 0012): its headline."""

    headline: str


# The engine's explanation (a CycleExplanation, its schema made from the declaration), or, for an
# answer stored before the declarations, its headline only (migration 0012).
StoredExplanation = Optional[Union[CycleExplanationOut, HeadlineOnlyOut]]


class FitOut(EngineSchema, payload=engine.FitAnswerJSON, without=WITHOUT_TRIALS):
    """How many more of a workload fit, by trial runs: the engine's FitAnswerJSON less its trials."""

    explanation: StoredExplanation


class NodeCopiesOut(ApiSchema):
    node: str
    copies: int


class PerNodeOut(ApiSchema):
    """Each node's copies, most first (ties by name), at most PER_NODE_LISTED (webui/routers/capacity.py) of them."""

    nodes: list[NodeCopiesOut]
    node_count: int  # nodes holding copies, listed or not
    total: int  # the copies on them (all nodes; less than fits where a count per domain is not certain per node)
    more: int  # nodes not listed


class PerDomainOut(EngineSchema, payload=engine.SpreadCountedJSON):
    """Counted per domain of one DoNotSchedule spread constraint (docs/CAPACITY.md): the engine's
    SpreadCountedJSON, its domains the first DOMAINS_LISTED (webui/routers/capacity.py)."""

    domain_count: int  # every domain, listed or not


class CopiesOut(EngineSchema, payload=engine.PassAnswerJSON, without=(*WITHOUT_TRIALS, "checked_next", "placements")):
    """How many more copies of a pod fit, by the one pass (counted or placed) or by the trial rounds
    when the pass could differ (``method`` and ``why`` say which and why): the engine's PassAnswerJSON
    (engine.copies_by_trials for the rounds' answer) less its trial, with the question's view of where
    the copies are (``perNode``, bounded, in place of ``placements``) and ``stoppedAtMax`` (in place of
    ``checkedNext``: every copy up to ``bound`` fitted, the next was not tried)."""

    explanation: StoredExplanation
    per_domain: Optional[PerDomainOut]  # the engine's, its domains bounded
    stopped_at_max: bool
    per_node: PerNodeOut


class NodesNeededOut(EngineSchema, payload=engine.NodesAnswerJSON, without=WITHOUT_TRIALS):
    """The fewest nodes like each template that place the pending pods: the engine's NodesAnswerJSON less its trials."""


class RemovableOut(EngineSchema, payload=engine.RemovableAnswerJSON, without=WITHOUT_TRIALS):
    """Which nodes can be drained and go, alone and together: the engine's RemovableAnswerJSON less its trials."""


class FragmentationOut(EngineSchema, payload=engine.FragmentationAnswerJSON):
    """Free capacity against the largest request that fits: the engine's FragmentationAnswerJSON."""


class AnswerOut(ApiSchema):
    """Exactly one is set: the kind's answer."""

    fit: Optional[FitOut] = None  # how many more of a workload fit
    copies: Optional[CopiesOut] = None  # how many more copies of a pod fit
    nodes: Optional[NodesNeededOut] = None
    removable: Optional[RemovableOut] = None
    fragmentation: Optional[FragmentationOut] = None


class DecidingOut(ApiSchema):
    """The deciding trial, saved as a scenario of yours and run: open it at ``url``."""

    run: int
    scenario: int
    label: str
    cycle: Optional[int]  # the cycle that shows the answer (the N+1-th copy's last failed attempt)
    step: Optional[int]  # the step of the trial's changes
    url: str


class CapacityOut(ApiSchema):
    id: int
    scenario: int
    version: int
    kind: str
    parameters: ParametersOut
    status: str
    method: Optional[CopiesMethod]  # pod copies: what answers (None: not known yet)
    why: str  # why that method answers
    progress: CapacityProgressOut
    width: int  # trials a round may hold
    error: str
    answer: Optional[AnswerOut]
    deciding: Optional[DecidingOut]
    created: datetime
    finished: Optional[datetime]
    release: Optional[ReleaseOut] = None  # the release its engine calls replay (the version's, as the dump says)


class WorkloadOut(ApiSchema):
    kind: str
    namespace: str
    name: str
    replicas: int


class UnusableWorkloadOut(ApiSchema):
    """A workload the controllers cannot use (a dump's Deployment without its pod template): left out, with why."""

    kind: str
    namespace: str
    name: str
    reason: str  # its first problem: field path, message, file and line


class TargetsOut(ApiSchema):
    """What a question may name: the scalable workloads, the nodes and the pods, as the engine reads them;
    the workloads left out, each with why."""

    version: int
    workloads: list[WorkloadOut]
    nodes: list[str]
    pods: list[str]
    unusable: list[UnusableWorkloadOut] = []
