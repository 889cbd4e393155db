"""Browser pages. Each view only renders a shell; the page's ES module reads the API (which checks access).
A page about one scenario or run is a 404 when the API would not show it to this visitor (it does
not exist, or it is someone else's), so a wrong link never renders an empty shell; templates/404.html
says why in words (Django's bare "Not Found" otherwise)."""

from __future__ import annotations

from typing import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from django.views.decorators.csrf import ensure_csrf_cookie

from webui.services import access, scenarios, upgrades
from webui.services.access import Actor
from webui.services.errors import NotFound


def _require_readable(request: HttpRequest, find: Callable[[Actor], object]) -> None:
    try:
        find(access.request_actor(request))
    except NotFound as err:
        raise Http404(str(err)) from None


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "schedlab/scenario_list.html",
        {"blank_template": scenarios.blank_template(), "big_upload_bytes": settings.SCHEDLAB_BIG_UPLOAD_BYTES},
    )


@ensure_csrf_cookie
def scenario_editor(request: HttpRequest, scenario_id: int) -> HttpResponse:
    _require_readable(request, lambda actor: access.readable_scenario(actor, scenario_id))
    return render(request, "schedlab/scenario_editor.html", {"scenario_id": scenario_id})


@ensure_csrf_cookie
def cluster(request: HttpRequest, scenario_id: int) -> HttpResponse:
    _require_readable(request, lambda actor: access.readable_scenario(actor, scenario_id))
    return render(request, "schedlab/cluster.html", {"scenario_id": scenario_id})


@ensure_csrf_cookie
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    _require_readable(request, lambda actor: access.readable_run(actor, run_id))
    return render(request, "schedlab/run.html", {"run_id": run_id})


@ensure_csrf_cookie
def compare(request: HttpRequest) -> HttpResponse:
    """/compare/?a=RUN&b=RUN[&pod=ns/name]: the page reads /api/comparisons (which checks access)."""
    return render(request, "schedlab/compare.html")


@ensure_csrf_cookie
def upgrade(request: HttpRequest, upgrade_id: int) -> HttpResponse:
    """/upgrades/<id>/[?token=]: what changes if we upgrade (the page reads /api/upgrades/<id>)."""
    _require_readable(request, lambda actor: upgrades.readable_upgrade(actor, upgrade_id))
    return render(request, "schedlab/upgrade.html", {"upgrade_id": upgrade_id})


@ensure_csrf_cookie
def fleet(request: HttpRequest, fleet_id: int) -> HttpResponse:
    """/upgrades/fleet/<id>/: a fleet check's table, filling in as its comparisons finish."""
    _require_readable(request, lambda actor: upgrades.readable_fleet(actor, fleet_id))
    return render(request, "schedlab/fleet.html", {"fleet_id": fleet_id})


@ensure_csrf_cookie
def share(request: HttpRequest, token: str) -> HttpResponse:
    """A share link that does not exist (or was revoked) is a 404 saying so, never the read-only
    banner above an empty page."""
    _require_readable(request, lambda actor: access.active_share(token))
    return render(request, "schedlab/share.html", {"token": token})


urlpatterns = [
    path("", home, name="home"),
    path("scenarios/<int:scenario_id>/", scenario_editor, name="scenario"),
    path("scenarios/<int:scenario_id>/cluster/", cluster, name="cluster"),
    path("runs/<int:run_id>/", run_detail, name="run"),
    path("compare/", compare, name="compare"),
    path("upgrades/<int:upgrade_id>/", upgrade, name="upgrade"),
    path("upgrades/fleet/<int:fleet_id>/", fleet, name="fleet"),
    path("share/<str:token>", share, name="share"),  # the URL the API hands out (no trailing slash)
    path("share/<str:token>/", share),
]
