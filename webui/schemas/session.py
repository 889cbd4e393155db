"""/api/session: who you are and the CSRF token; signing up, in and out (webui/routers/session.py)."""

from __future__ import annotations

from pydantic import Field

from webui.schemas.common import ApiInput, ApiSchema


class SessionOut(ApiSchema):
    csrf_token: str
    user: str | None
    anonymous: bool
    # Single-user mode (the embedded default): everything made on this machine is everyone's here;
    # otherwise an anonymous visitor's scenarios are kept only for their browser session.
    single_user: bool


class CredentialsIn(ApiInput):
    """A name and password, to sign up or sign in (Django's User: a name of at most 150 letters, digits
    and @ . + - _; a password the server's AUTH_PASSWORD_VALIDATORS accept)."""

    username: str = Field(max_length=150)
    password: str = Field(max_length=4096)
