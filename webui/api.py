"""The HTTP API under /api/ (OpenAPI docs at /api/docs): the NinjaAPI, who is asking, one error shape,
and one router per area (webui/routers/). Operations: schema in -> service -> schema out."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import APIKeyCookie

from webui import overload
from webui.routers import (
    capacity,
    comparisons,
    demos,
    releases,
    runs,
    scenarios,
    session,
    shares,
    upgrades,
    uploads,
    validate,
)
from webui.services import access, engine
from webui.services.access import Actor
from webui.services.errors import DomainError, LimitExceeded


class SessionActor(APIKeyCookie):
    """Every request gets an Actor (anonymous visitors included); unsafe methods must pass CSRF.

    Subclassing APIKeyCookie is what makes ninja run Django's CSRF check (cookie csrftoken,
    header X-CSRFToken) on POST/PUT/DELETE.
    """

    param_name = settings.SESSION_COOKIE_NAME

    def __call__(self, request: HttpRequest) -> Actor:
        # The CSRF check first (raises HttpError(403) on failure): a refused write creates no session.
        self._get_key(request)
        return access.request_actor(request)

    def authenticate(self, request: HttpRequest, key: str | None) -> Actor | None:  # pragma: no cover
        raise NotImplementedError  # __call__ does the work


API_DESCRIPTION = (
    "SchedLab re-runs kube-scheduler's decisions (v1.32 to v1.36: the release the dump says, or the one asked "
    "for) on a cluster scenario and shows every step, and what changes if the cluster is upgraded. "
    "Save scenarios (Kubernetes YAML), start runs, read each run's events (the engine's own, one per "
    "extension point and plugin) and the engine's explanation of each cycle, and share read-only links. "
    'Every error has one shape: {"error": {"code", "message", "details"}}. Writes need the '
    "X-CSRFToken header (GET /api/session); a share token (X-Share-Token or ?token=) grants reads only."
)
api = NinjaAPI(
    title="SchedLab API", version="1", description=API_DESCRIPTION, auth=SessionActor(), urls_namespace="api"
)


def error_response(
    request: HttpRequest, status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> HttpResponse:
    return api.create_response(request, overload.error_body(code, message, details), status=status)


@api.exception_handler(DomainError)
def on_domain_error(request: HttpRequest, exc: DomainError) -> HttpResponse:
    response = error_response(request, exc.status, exc.code, exc.message, exc.details)
    if exc.retry_after is not None:
        response["Retry-After"] = str(exc.retry_after)
    return response


@api.exception_handler(OperationalError)
@api.exception_handler(InterfaceError)
def on_database_unavailable(request: HttpRequest, exc: Exception) -> HttpResponse:
    """Out of pooled connections, too many clients, a connection cut: 503, the client retries."""
    overload.log_unavailable(request, exc)
    return on_domain_error(request, overload.unavailable())


@api.exception_handler(ValidationError)
def on_validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    return error_response(
        request, 422, "invalid_request", "the request does not match the schema", {"errors": exc.errors}
    )


@api.exception_handler(HttpError)
def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    code = "csrf_failed" if "CSRF" in str(exc) else "http_error"
    return error_response(request, exc.status_code, code, str(exc))


@api.exception_handler(AuthenticationError)
def on_auth_error(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return error_response(request, 401, "unauthenticated", "authentication required")


@api.exception_handler(RequestDataTooBig)
def on_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    """A body Django will not hold in memory (DATA_UPLOAD_MAX_MEMORY_SIZE, which is
    SCHEDLAB_MAX_BODY_BYTES): a scenario that big is sent as a file, streamed to disk."""
    try:
        size = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        size = 0
    said = f"the request is {engine.megabytes(size)}," if size else "the request is"
    held = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    wanted = f"={size}" if size > held else ""
    message = (
        f"{said} more than the {engine.megabytes(held)} a request's body may hold; send a scenario that big "
        f"as a file (POST /api/uploads/file, as the importer sends any file of "
        f"{engine.megabytes(settings.SCHEDLAB_BIG_UPLOAD_BYTES)} or more), or this server's administrator "
        f"raises the limit with SCHEDLAB_MAX_BODY_BYTES{wanted}"
    )
    return on_domain_error(request, LimitExceeded("max_body_bytes", held, message))


# One router per area (webui/routers/<area>.py, its schemas in webui/schemas/<area>.py), each under its
# own prefix, one line each.
api.add_router("/session", session.router)
api.add_router("/validate", validate.router)
api.add_router("/demos", demos.router)
api.add_router("/scenarios", scenarios.router)
api.add_router("/runs", runs.router)
api.add_router("/comparisons", comparisons.router)
api.add_router("/share", shares.router)
api.add_router("/capacity", capacity.router)
api.add_router("/releases", releases.router)
api.add_router("/upgrades", upgrades.router)
api.add_router("/uploads", uploads.router)
