"""/api/share/{token}: open a share link, fork what it shares, revoke it. (Links are made and listed
under /api/scenarios/{id}/share(s).) Mounted at /api/share (webui/api.py)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Status

from webui import presenters, schemas
from webui.services import access, shares

router = Router(tags=["share links"])


@router.get("/{token}", response={200: schemas.ShareResolvedOut, **schemas.ERRORS}, summary="Open a share link")
def share_resolve(request: HttpRequest, token: str):
    """What the token shares: the scenario, the version's text, the run (if any) and the step."""
    return presenters.share_resolved(access.active_share(token))


@router.post("/{token}/fork", response={201: schemas.ScenarioOut, **schemas.ERRORS}, summary="Fork a shared version")
def share_fork(request: HttpRequest, token: str, body: schemas.ForkIn | None = None):
    """Copies the shared version into a new scenario of yours (the token is in the path, not a credential)."""
    saved = shares.fork(request.auth, access.active_share(token), (body or schemas.ForkIn()).name)
    return Status(201, presenters.scenario(request.auth, saved.scenario, saved.version, saved.check))


@router.delete("/{token}", response={200: schemas.ShareOut, **schemas.ERRORS}, summary="Revoke a share link")
def share_revoke(request: HttpRequest, token: str):
    """The link stops working at once (owner only)."""
    return presenters.share(request, shares.revoke(request.auth, token))
