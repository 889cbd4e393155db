"""API paths that moved (issue 40: each router under its own prefix), answered with a permanent
redirect that keeps the method and the body (308), so a script written against an old path — the
README and docs/CAPACITY.md named the capacity paths — keeps working. The browser uses the new ones.
Mounted before the API in webui/urls.py."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.urls import URLPattern, path
from django.views.decorators.csrf import csrf_exempt


def moved_to(template: str) -> Callable[..., HttpResponse]:
    """A view sending any method to ``template`` (formatted with the URL's arguments), its query kept.
    It is CSRF-exempt because it changes nothing: the API's own check runs where it redirects to."""

    @csrf_exempt
    def view(request: HttpRequest, **arguments: int) -> HttpResponse:
        target = template.format(**arguments)
        query = request.META.get("QUERY_STRING", "")
        return HttpResponsePermanentRedirect(f"{target}?{query}" if query else target, preserve_request=True)

    return view


urlpatterns: list[URLPattern] = [
    path("api/scenarios/<int:scenario_id>/capacity", moved_to("/api/capacity/scenarios/{scenario_id}")),
    path("api/scenarios/<int:scenario_id>/capacity/targets", moved_to("/api/capacity/scenarios/{scenario_id}/targets")),
]
