"""/api/session: who you are and the CSRF token; sign up, sign in, sign out, change your password, delete your
account (Django's own auth, through webui/services/accounts.py). Mounted at /api/session (webui/api.py)."""

from __future__ import annotations

from dataclasses import asdict

from django.conf import settings
from django.http import HttpRequest
from django.middleware.csrf import get_token
from ninja import Router, Status

from webui.schemas.common import ERRORS, ErrorOut
from webui.schemas.session import (
    AccountDeletedOut,
    CredentialsIn,
    HoldingsOut,
    PasswordChangeIn,
    PasswordIn,
    SessionOut,
    SignUpIn,
)
from webui.services import accounts

router = Router(tags=["session"], by_alias=True)
SIGN_IN_ERRORS = {**ERRORS, 401: ErrorOut, 429: ErrorOut}


def _session(request: HttpRequest) -> SessionOut:
    user = request.user.get_username() if request.user.is_authenticated else None
    return SessionOut(
        csrf_token=get_token(request), user=user, anonymous=user is None, single_user=settings.SCHEDLAB_SINGLE_USER
    )


@router.get("", response=SessionOut, summary="Who you are, and the CSRF token")
def session(request: HttpRequest) -> SessionOut:
    """The current user (or anonymous), whether this is the single-user mode (everything made on this machine
    visible without signing in), and the CSRF token to send back as X-CSRFToken on every POST/PUT/DELETE; also
    sets the csrftoken cookie.
    """
    return _session(request)


@router.post("/signup", response={201: SessionOut, **SIGN_IN_ERRORS}, summary="Sign up and sign in")
def signup(request: HttpRequest, body: SignUpIn) -> Status[SessionOut]:
    """Makes an account (Django's User: the name must be free, the password pass the server's validators, the
    optional `email` — where a forgotten password's reset link goes — be an address: 400 `account_invalid`
    naming the field otherwise) and signs in: everything this browser's anonymous session made becomes the
    account's. The CSRF token changes: the answer carries the new one."""
    accounts.sign_up(request, body.username, body.password, body.email)
    return Status(201, _session(request))


@router.post("/login", response={200: SessionOut, **SIGN_IN_ERRORS}, summary="Sign in")
def login(request: HttpRequest, body: CredentialsIn) -> SessionOut:
    """Signs in (401 `sign_in_failed` when the name and password match no account; 429 after too many tries
    from one address); everything this browser's anonymous session made becomes the account's. The CSRF token
    changes: the answer carries the new one."""
    accounts.sign_in(request, body.username, body.password)
    return _session(request)


@router.post("/logout", response={200: SessionOut, **ERRORS}, summary="Sign out")
def logout(request: HttpRequest) -> SessionOut:
    """Signs out: what you made stays with your account; this browser starts a new, empty anonymous session."""
    accounts.sign_out(request)
    return _session(request)


@router.post("/password", response={200: SessionOut, **SIGN_IN_ERRORS}, summary="Change your password")
def password(request: HttpRequest, body: PasswordChangeIn) -> SessionOut:
    """Changes the signed-in person's password: `currentPassword` must be theirs (400 `account_invalid` naming
    `currentPassword` otherwise; wrong ones count as failed sign-ins: 429 after too many from one address) and
    `newPassword` pass the server's validators (400 `account_invalid` naming `newPassword`). This session stays
    signed in; the account's other sessions are signed out. 401 `unauthenticated` when not signed in."""
    accounts.change_password(request, body.current_password, body.new_password)
    return _session(request)


@router.post(
    "/delete", response={200: AccountDeletedOut, **SIGN_IN_ERRORS}, summary="Delete your account and all it holds"
)
def delete(request: HttpRequest, body: PasswordIn) -> AccountDeletedOut:
    """Deletes the signed-in person's account and everything it holds — scenarios with their versions, runs,
    capacity questions, upgrade comparisons and fleet checks, share links — once `password` is theirs (400
    `account_invalid` naming `password`; 429 as for sign-in), and signs out. Their queued and running work is
    cancelled first. The answer is the new anonymous session and the counts deleted. 401 `unauthenticated` when
    not signed in; 403 `single_user_mode` in single-user mode, where nothing made is any account's own."""
    deleted = accounts.delete_account(request, body.password)
    return AccountDeletedOut(**_session(request).model_dump(by_alias=False), deleted=HoldingsOut(**asdict(deleted)))
