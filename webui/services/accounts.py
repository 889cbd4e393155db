"""Accounts: sign up, sign in and sign out with Django's own auth (its User, its password validators,
its login and logout), for the API (webui/routers/session.py) and the pages (webui/accounts.py) alike.

Signing up or in makes everything the visitor's anonymous session owned theirs, in the same
transaction as the sign-in (``claim``): nothing made before signing in is lost. Signing out flushes
the session: what was made stays with the person, and the new anonymous session starts empty.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import HttpRequest

from webui.models import CapacityQuestion, FleetCheck, Owned, Run, Scenario, ShareLink, Upgrade
from webui.services import access
from webui.services.errors import AccountInvalid, LimitExceeded, SignInFailed

# Every model owned by a user or a session (models.Owned), by its field in Claimed.
OWNED_MODELS: dict[str, type[Owned]] = {
    "scenarios": Scenario,
    "runs": Run,
    "questions": CapacityQuestion,
    "fleet_checks": FleetCheck,
    "upgrades": Upgrade,
}
USERNAME = "username"
PASSWORD = "password"
TRIES_KEY = "schedlab:sign-in-tries:{address}"


@dataclass(frozen=True)
class Claimed:
    """How many rows of each kind a sign-in took over from the anonymous session."""

    scenarios: int = 0
    runs: int = 0
    questions: int = 0
    fleet_checks: int = 0
    upgrades: int = 0
    share_links: int = 0


@dataclass(frozen=True)
class SignedIn:
    user: User
    claimed: Claimed


def sign_up(request: HttpRequest, username: str, password: str) -> SignedIn:
    """A new account with Django's checks (its username rules, AUTH_PASSWORD_VALIDATORS), signed in."""
    _count_try(request)
    username = username.strip()
    user = User(username=username)
    _check_username(user)
    try:
        validate_password(password, user)
    except ValidationError as err:
        raise AccountInvalid(PASSWORD, list(err.messages)) from None
    user.set_password(password)
    with transaction.atomic():
        _save_new(user)
        return SignedIn(user, sign_in_as(request, user))


def _save_new(user: User) -> None:
    """Two sign-ups of one name at the same moment both pass the check: the database keeps one."""
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise AccountInvalid(USERNAME, [_taken(user.username)]) from None


def _taken(username: str) -> str:
    return f"{username!r} is taken; choose another name, or sign in."


def _check_username(user: User) -> None:
    if not user.username:
        raise AccountInvalid(USERNAME, ["choose a name to sign in with."])
    try:
        user.clean_fields(exclude=[field.name for field in User._meta.fields if field.name != USERNAME])
    except ValidationError as err:
        raise AccountInvalid(USERNAME, list(err.messages)) from None
    if User.objects.filter(username__iexact=user.username).exists():
        raise AccountInvalid(USERNAME, [_taken(user.username)])


def sign_in(request: HttpRequest, username: str, password: str) -> SignedIn:
    """Signs in with a name and password (401 when they match no account; a failure counts as a try)."""
    _refuse_over_limit(request)
    user = authenticate(request, username=username.strip(), password=password)
    if not isinstance(user, User):  # None: no account has that name and password
        _count_try(request)
        raise SignInFailed()
    return SignedIn(user, sign_in_as(request, user))


def sign_in_as(request: HttpRequest, user: User) -> Claimed:
    """Django's login, with the anonymous session's rows made the user's in the same transaction
    (login gives the session a new key, so the old one is read first)."""
    anonymous_key = "" if request.user.is_authenticated else (request.session.session_key or "")
    with transaction.atomic():
        claimed = claim(anonymous_key, user)
        login(request, user)
    return claimed


def claim(session_key: str, user: User) -> Claimed:
    """Every row the anonymous session ``session_key`` owns becomes ``user``'s (owner set, session
    key cleared), and the share links made of them anonymously name the user as their maker."""
    if not session_key:
        return Claimed()
    with transaction.atomic():
        counts = {
            name: model._default_manager.filter(owner_id=None, owner_session_key=session_key).update(
                owner_id=user.pk, owner_session_key=""
            )
            for name, model in OWNED_MODELS.items()
        }
        links = _claim_share_links(user)
    return Claimed(**counts, share_links=links)


def _claim_share_links(user: User) -> int:
    """Links without a maker on the user's scenarios, runs or upgrades: only their anonymous owner,
    whose session was just claimed, could have made them."""
    theirs = Q(version__scenario__owner=user) | Q(run__owner=user) | Q(upgrade__owner=user)
    ids = list(ShareLink.objects.filter(theirs, created_by=None).values_list("pk", flat=True))
    return ShareLink.objects.filter(pk__in=ids).update(created_by=user)


def sign_out(request: HttpRequest) -> None:
    """Django's logout: the session is flushed; what the person made stays theirs."""
    logout(request)


def _tries_key(request: HttpRequest) -> str:
    return TRIES_KEY.format(address=access.client_address(request) or "unknown")


def _refuse_over_limit(request: HttpRequest) -> None:
    tries = cache.get(_tries_key(request), 0)
    most = settings.SCHEDLAB_MAX_SIGN_IN_TRIES
    if tries >= most:
        window = settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS
        raise LimitExceeded(
            "max_sign_in_tries",
            most,
            f"too many sign-in tries from your network address ({tries}; the limit, SCHEDLAB_MAX_SIGN_IN_TRIES, "
            f"is {most} per {window // 60} minutes); try again later",
            status=429,
            retry_after=window,
        )


def _count_try(request: HttpRequest) -> None:
    """A failed sign-in or a sign-up: refused once the address is over the limit, else counted."""
    _refuse_over_limit(request)
    key = _tries_key(request)
    if not cache.add(key, 1, timeout=settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, timeout=settings.SCHEDLAB_SIGN_IN_WINDOW_SECONDS)
