"""/api/session: who you are, and the CSRF token. Mounted at /api/session (webui/api.py)."""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware.csrf import get_token
from ninja import Router

from webui.schemas.session import SessionOut

router = Router(tags=["session"], by_alias=True)


@router.get("", response=SessionOut, summary="Who you are, and the CSRF token")
def session(request: HttpRequest) -> SessionOut:
    """The current user (or anonymous) and the CSRF token to send back as X-CSRFToken on every POST/PUT/DELETE; also
    sets the csrftoken cookie.
    """
    user = request.user.get_username() if request.user.is_authenticated else None
    return SessionOut(csrf_token=get_token(request), user=user, anonymous=user is None)
