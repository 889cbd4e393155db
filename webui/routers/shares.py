"""/api/share/{token}: open a share link, fork what it shares, revoke it. (Links are made and listed
under /api/scenarios/{id}/share(s).) Mounted at /api/share (webui/api.py)."""

from __future__ import annotations

from ninja import Router, Status

from webui import presenters
from webui.services import access, engine, shares
from webui.services.access import ActorRequest
from webui.schemas.common import ERRORS
from webui.schemas.scenarios import ForkIn, ScenarioOut
from webui.schemas.shares import ShareOut, ShareResolvedOut

router = Router(tags=["share links"], by_alias=True)


@router.get("/{token}", response={200: ShareResolvedOut, **ERRORS}, summary="Open a share link")
def share_resolve(request: ActorRequest, token: str) -> ShareResolvedOut:
    """What the token shares: the scenario, the version's text and the release it is replayed as (as the dump
    says), the run (if any, with the release it was replayed as) and the step, or the upgrade comparison."""
    link = access.active_share(token)
    return presenters.share_resolved(link, engine.check(link.version.text).release)


@router.post("/{token}/fork", response={201: ScenarioOut, **ERRORS}, summary="Fork a shared version")
def share_fork(request: ActorRequest, token: str, body: ForkIn | None = None) -> Status[ScenarioOut]:
    """Copies the shared version into a new scenario of yours (the token is in the path, not a credential)."""
    saved = shares.fork(request.auth, access.active_share(token), (body or ForkIn()).name)
    return Status(201, presenters.scenario(request.auth, saved.scenario, saved.version, saved.check))


@router.delete("/{token}", response={200: ShareOut, **ERRORS}, summary="Revoke a share link")
def share_revoke(request: ActorRequest, token: str) -> ShareOut:
    """The link stops working at once (owner only)."""
    return presenters.share(request, shares.revoke(request.auth, token))
