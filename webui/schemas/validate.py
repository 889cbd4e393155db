"""POST /api/validate: a text checked as the engine loads it (webui/routers/validate.py); a scenario's
answer (schemas/scenarios.py) carries the same check."""

from __future__ import annotations

from pydantic import Field

from webui.schemas.common import ApiInput, ApiSchema, EngineSchema
from webui.schemas.releases import ReleaseOut
from webui.services import engine

RELEASE_LENGTH = 40
GATES_LENGTH = 4000


class TextIn(ApiInput):
    text: str
    # Replayed as this release ("v1.36"; absent or "": as the dump says) with kube-scheduler's
    # --feature-gates ("A=true,B=false", or a mapping): `release` in the answer is then that choice.
    release: str | None = Field(default=None, max_length=RELEASE_LENGTH)
    feature_gates: str | dict[str, bool] | None = Field(default=None)


class ScenarioErrorOut(EngineSchema, payload=engine.ScenarioErrorJSON):
    """A problem in the scenario (scheduler_core.scenario.errors ``ScenarioErrorJSON``, as it declares
    it): the object, the field path, the YAML line and what was expected. The API always writes
    `file` (null for a single text) and says a size limit in the server's words (the setting that
    raises it)."""


class SummaryOut(ApiSchema):
    nodes: int
    pods: int
    pending_pods: int


class NoticeOut(EngineSchema, payload=engine.Notice):
    """Something the scheduler leaves out of a valid scenario, said once (never silently dropped):
    scheduler_core.model.scenario ``Notice``, as it declares it."""


class FindingOut(EngineSchema, payload=engine.Finding, without=("fix",)):
    """Something the dump lacks that the replay reads (`check --json`'s findings, scheduler_core.answers.findings
    ``Finding``): said before the run. The API names the engine's `fix` `kubectl`, beside the one-click change it
    makes for the finding."""

    kubectl: str | None = Field(
        default=None, description="kubectl command line(s), one per line, that fetch exactly what is missing"
    )
    action: str | None = Field(
        default=None,
        description='a one-click change: "add-node-taints" (the API adds them: POST /api/scenarios/{id}/fixes/node-taints), '
        '"turn-dra-on" (the page replays with --feature-gates DynamicResourceAllocation=true; the text unchanged)',
    )


class ValidationOut(ApiSchema):
    valid: bool
    errors: list[ScenarioErrorOut]
    summary: SummaryOut | None
    notices: list[NoticeOut] = []
    # What `python -m scheduler_core check --json` says of the same text: objects the scheduler uses,
    # counted per kind, and the completeness findings (empty while the text does not load).
    objects: dict[str, int] = {}
    findings: list[FindingOut] = []
    fetch: list[str] = []  # every finding's kubectl lines, each once: fetch everything the dump lacks
    # The release it is replayed as and why (null while it does not load); with a release asked,
    # that choice, and `dumpRelease` what the dump alone says (the editor's "as the dump says").
    release: ReleaseOut | None = None
    dump_release: ReleaseOut | None = None
