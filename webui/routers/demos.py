"""/api/demos: the built-in examples, and a copy of one as your own scenario. Mounted at /api/demos
(webui/api.py)."""

from __future__ import annotations

from ninja import Router, Status

from webui import presenters
from webui.schemas.common import ERRORS
from webui.schemas.demos import DemoOut
from webui.schemas.scenarios import ScenarioOut
from webui.services import demos
from webui.services.access import ActorRequest

router = Router(tags=["demos"], by_alias=True)


@router.get("", response=list[DemoOut], summary="List the demo scenarios")
def demo_list(request: ActorRequest) -> list[DemoOut]:
    """The built-in examples, each with a plain-words description of what it teaches."""
    return [DemoOut(slug=d.slug, name=d.name, description=d.description) for d in demos.all_demos()]


@router.post("/{slug}/scenarios", response={201: ScenarioOut, **ERRORS}, summary="Copy a demo into your own scenario")
def demo_create(request: ActorRequest, slug: str) -> Status[ScenarioOut]:
    """Creates a new scenario of yours from the demo's text (demos themselves are read-only)."""
    saved = demos.create_from_demo(request.auth, slug)
    return Status(201, presenters.scenario(request.auth, saved.scenario, saved.version, saved.check))
