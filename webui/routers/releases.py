"""/api/releases: the releases a run can be replayed as, newest first, each with the feature gates
its kube-scheduler reads. Mounted at /api/releases (webui/api.py)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from webui.schemas.releases import SupportedReleaseOut
from webui.services import engine

router = Router(tags=["releases"], by_alias=True)


@router.get("", response=list[SupportedReleaseOut], summary="The releases a run can be replayed as")
def release_list(request: HttpRequest) -> list[dict[str, Any]]:
    """Newest first: each release's name (what a run's `release` and an upgrade's `fromRelease`/`toRelease`
    take), the patch release whose code is ported, whether it is the default (what a scenario that says nothing
    of its release is replayed as), and the feature gates its kube-scheduler reads (what `featureGates` may
    set: default, stage, locked)."""
    return engine.supported_releases()
