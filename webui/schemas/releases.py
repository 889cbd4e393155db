"""/api/releases: the releases a run can be replayed as (webui/routers/releases.py), and the release a
scenario, run or answer is replayed as and why (ReleaseOut: every router that names a release)."""

from __future__ import annotations

from webui.schemas.common import ApiSchema, EngineSchema
from webui.services import engine


class ReleaseOut(EngineSchema, payload=engine.ReleaseSaid):
    """The release replayed and why: scheduler_core.release.choice.ReleaseChoice.to_json(), as ``ReleaseSaid`` declares it."""


class GateOut(ApiSchema):
    name: str
    default: bool
    stage: str  # Alpha | Beta | GA
    locked: bool  # locked to its default (a GA gate that can no longer be turned off)


class SupportedReleaseOut(ApiSchema):
    name: str  # "v1.36": what a run's `release` takes
    version: str  # "v1.36.3"
    default: bool  # what a scenario that says nothing of its release is replayed as
    gates: list[GateOut]  # the feature gates its kube-scheduler reads, by name
