"""Share links: made and listed under /api/scenarios/{id}/share(s), opened, forked and revoked under
/api/share/{token} (webui/routers/shares.py)."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from webui.schemas.common import ApiInput, ApiSchema
from webui.schemas.releases import ReleaseOut
from webui.schemas.runs import RunOut
from webui.schemas.scenarios import VersionOut


class ShareIn(ApiInput):
    version: int | None = None  # default: the latest version
    run: int | None = None
    compare_run: int | None = None  # a comparison's link: `run` side by side with this run
    step: str = Field(default="", max_length=200)
    upgrade: int | None = None  # an upgrade comparison's link (of this scenario): its result page


class ShareOut(ApiSchema):
    token: str
    url: str
    scenario: int
    version: int
    run: int | None
    compare_run: int | None = None
    step: str
    created: datetime
    revoked: bool
    upgrade: int | None = None


class ShareScenarioOut(ApiSchema):
    id: int
    name: str
    description: str


class ShareResolvedOut(ApiSchema):
    read_only: bool  # always true; the UI shows no edit controls
    scenario: ShareScenarioOut
    version: VersionOut
    run: RunOut | None
    compare_run: int | None = None  # a comparison's link: open /compare/?a=run&b=compareRun
    step: str
    upgrade: int | None = None  # an upgrade comparison's link: open /upgrades/<upgrade>/
    release: ReleaseOut | None = None  # the shared version's release as the dump says (a run's is in `run`)
