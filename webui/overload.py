"""Answers when the server cannot serve: the database is out of connections or unreachable (503 with
Retry-After), or an unexpected error (500). API clients always get the API's JSON error shape.

The API's own handlers (api.py) catch what a view raises. This module also answers what is raised
outside any view - in a middleware, e.g. SessionMiddleware saving the session after a database
failure (whose traceback shows "'SessionStore' object has no attribute '_session_cache'" as the
context of the OperationalError) - as Django's handler500 (urls.py).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.html import escape

from webui.services.errors import Unavailable

log = logging.getLogger(__name__)
API_PREFIX = "/api/"
INTERNAL_ERROR = "internal_error"
# psycopg_pool.PoolTimeout is an OperationalError, and Django wraps it as one.
UNAVAILABLE_ERRORS = (OperationalError, InterfaceError)


def error_body(code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


def unavailable() -> Unavailable:
    return Unavailable(settings.SCHEDLAB_RETRY_AFTER_SECONDS)


def is_unavailable(exc: BaseException | None) -> bool:
    """The database could not serve: this exception, or one it was raised from or while handling."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, UNAVAILABLE_ERRORS):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def log_unavailable(request: HttpRequest, exc: BaseException) -> None:
    # A warning without the traceback: under overload every request would otherwise log one.
    log.warning("503 for %s %s: %s: %s", request.method, request.path, type(exc).__name__, exc)


def wants_json(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX) or "application/json" in request.headers.get("Accept", "")


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: runs inside Django's `except` for the uncaught exception, so sys.exc_info() has it."""
    exc = sys.exc_info()[1]
    if is_unavailable(exc):
        problem = unavailable()
        status, code, message, details = problem.status, problem.code, problem.message, problem.details
    else:
        status, code, message, details = 500, INTERNAL_ERROR, "an unexpected error occurred; it was logged", {}
    if wants_json(request):
        response: HttpResponse = JsonResponse(error_body(code, message, details), status=status)
    else:
        # No template: rendering one could need the database (context processors) that just failed.
        title = "SchedLab is busy" if status == 503 else "Server error"
        page = f"<!doctype html><title>{title}</title><h1>{title}</h1><p>{escape(message)}</p>"
        response = HttpResponse(page, status=status, content_type="text/html; charset=utf-8")
    if status == 503:
        response["Retry-After"] = str(settings.SCHEDLAB_RETRY_AFTER_SECONDS)
    return response
