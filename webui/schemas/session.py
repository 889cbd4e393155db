"""/api/session: who you are and the CSRF token; signing up, in and out; changing your password and deleting
your account (webui/routers/session.py)."""

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


class SignUpIn(CredentialsIn):
    """A sign-up's name and password, and optionally an e-mail address: the one a forgotten password's
    reset link is sent to (an account without one cannot reset it that way)."""

    email: str = Field(default="", max_length=254)


class PasswordChangeIn(ApiInput):
    """The signed-in person's current password and the new one (which the server's AUTH_PASSWORD_VALIDATORS
    must accept)."""

    current_password: str = Field(max_length=4096)
    new_password: str = Field(max_length=4096)


class PasswordIn(ApiInput):
    """The signed-in person's password, asked again to confirm deleting the account."""

    password: str = Field(max_length=4096)


class HoldingsOut(ApiSchema):
    """How many of each kind were deleted with the account (services/accounts.py, Holdings)."""

    scenarios: int
    versions: int
    runs: int
    questions: int  # capacity questions
    upgrades: int  # upgrade comparisons, a fleet check's included
    fleet_checks: int
    share_links: int


class AccountDeletedOut(SessionOut):
    """The new, anonymous session, and what went with the account."""

    deleted: HoldingsOut
