"""GET /api/session: who you are and the CSRF token (webui/routers/session.py)."""

from __future__ import annotations

from webui.schemas.common import ApiSchema


class SessionOut(ApiSchema):
    csrf_token: str
    user: str | None
    anonymous: bool
